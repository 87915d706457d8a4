/**
 * The plumbing every controller here shares: a work queue of
 * `namespace/name` keys, delayed re-syncs (queue.AddAfter) and the watches
 * that feed it, all stoppable.
 */
import type { Store, WatchEventType } from '../../registry/store.js';
import type { KObject, ResourceDef } from '../../registry/types.js';
import type { WatchHandle } from '../../storage/types.js';
import { inform, WorkQueue } from '../informer.js';

export const keyOf = (o: KObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}

export class SyncLoop {
  private readonly queue: WorkQueue;
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly handles: WatchHandle[] = [];
  private stopped = false;

  constructor(name: string, sync: (key: string) => Promise<void>, log: (m: string) => void) {
    this.queue = new WorkQueue(async (key) => { if (!this.stopped) await sync(key); },
      (key, e) => log(`${name}: ${key}: ${(e as Error).message}`));
  }

  add(key: string): void {
    if (!this.stopped) this.queue.add(key);
  }

  /** queue.AddAfter: an earlier pending re-sync wins over a later one. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, ms);
    const pending = this.timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => { this.timers.delete(key); this.add(key); }, Math.max(0, ms));
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  async watch(store: Store, def: ResourceDef, handler: (type: WatchEventType, obj: KObject) => void): Promise<void> {
    this.handles.push(await inform(store, def, handler));
  }

  stop(): void {
    this.stopped = true;
    for (const h of this.handles) h.cancel();
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
  }
}
