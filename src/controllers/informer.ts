import type { Store, WatchEventType } from '../registry/store.js';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef } from '../registry/types.js';
import type { WatchHandle } from '../storage/types.js';

export type Handler = (type: WatchEventType, obj: KObject) => void;

/**
 * List then watch one resource in-process, calling the handler for the
 * current state and every change; the caller cancels the watch. (The
 * controllers share informers from their context's factory instead.)
 */
export async function inform(store: Store, def: ResourceDef, handler: Handler): Promise<WatchHandle> {
  const list = await store.list(def, '');
  for (const o of list.items) handler('ADDED', o);
  return store.watch(def, '', list.revision, {}, handler);
}
