import type { StorageEvent, StorageEventBatch, WatchHandle } from './types.js';

/** Live watch subscriptions by key prefix, shared by the storage backends. */
export class WatcherSet {
  private readonly subs = new Set<{ prefix: string; fn: StorageEventBatch; after: number }>();

  /** `after`: the revision the watcher has its events up to (from history); emitted events up to it are not its. */
  add(prefix: string, fn: StorageEventBatch, after = 0): WatchHandle {
    const sub = { prefix, fn, after };
    this.subs.add(sub);
    return { cancel: () => { this.subs.delete(sub); } };
  }

  emit(event: StorageEvent): void {
    const batch = [event];
    for (const sub of this.subs) {
      if (event.revision > sub.after && event.key.startsWith(sub.prefix)) sub.fn(batch);
    }
  }

  clear(): void { this.subs.clear(); }
}
