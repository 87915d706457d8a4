/**
 * What the server's own indexes (RBAC's roles and bindings, the Node
 * authorizer's graph) read as upstream's read through informers: every
 * stored object of a resource, then each write as storage commits it, in the
 * same tick, so that an index is current once a write is answered. The
 * objects are the store's watch objects, decoded once for every watcher:
 * they are read, never changed.
 */
import type { KObject } from '../../apimachinery/object.js';
import type { Store } from '../store.js';
import type { ResourceDef } from '../types.js';

export async function followStored<T extends KObject>(store: Store, def: ResourceDef,
  put: (obj: T) => void, remove: (obj: T) => void): Promise<void> {
  const list = await store.list(def, '', {});
  for (const o of list.items) put(o as T);
  await store.watch(def, '', list.revision, {}, (type, obj) => (type === 'DELETED' ? remove(obj as T) : put(obj as T)));
}
