import type { Store, WatchEventType } from '../registry/store.js';
import type { KObject, ResourceDef } from '../registry/types.js';
import type { WatchHandle } from '../storage/types.js';

export type Handler = (type: WatchEventType, obj: KObject) => void;

/** List then watch one resource in-process, calling the handler for the current state and every change. */
export async function inform(store: Store, def: ResourceDef, handler: Handler): Promise<WatchHandle> {
  const list = await store.list(def, '');
  for (const o of list.items) handler('ADDED', o);
  return store.watch(def, '', list.revision, {}, handler);
}

/**
 * Runs one piece of work per key at a time, coalescing repeats while it is
 * queued, like client-go's workqueue.
 */
export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();

  constructor(private readonly work: (key: string) => Promise<void>, private readonly onError: (key: string, e: unknown) => void) {}

  add(key: string): void {
    if (this.running.has(key)) { this.again.add(key); return; }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    setImmediate(() => void this.run(key));
  }

  private async run(key: string): Promise<void> {
    this.queued.delete(key);
    this.running.add(key);
    try {
      await this.work(key);
    } catch (e) {
      this.onError(key, e);
      setTimeout(() => this.add(key), 1000).unref();
    } finally {
      this.running.delete(key);
      if (this.again.delete(key)) this.add(key);
    }
  }
}
