/**
 * What the server's own indexes (RBAC's roles and bindings, the Node
 * authorizer's graph) read as upstream's read through informers: every
 * stored object of a resource, then each write as storage commits it, in the
 * same tick, so that an index is current once a write is answered.
 */
import type { KObject } from '../../apimachinery/object.js';
import type { StorageEvent } from '../../storage/types.js';
import { decode, decodeValue } from '../codec.js';
import type { Store } from '../store.js';
import type { ResourceDef } from '../types.js';

export async function followStored<T extends KObject>(store: Store, def: ResourceDef,
  put: (obj: T) => void, remove: (obj: T) => void): Promise<void> {
  const prefix = `${def.storagePrefix}/`;
  const list = await store.storage.list(prefix);
  for (const kv of list.items) put(decode(def, kv) as T);
  await store.storage.watch(prefix, list.revision, (events: StorageEvent[]) => {
    for (const e of events) {
      if (e.type === 'PUT') put(decodeValue(def, e.value!, e.revision) as T);
      else remove(decodeValue(def, e.prevValue!, e.revision) as T);
    }
  });
}
