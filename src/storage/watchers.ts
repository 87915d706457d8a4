import type { StorageEvent, StorageEventBatch, WatchHandle } from './types.js';

/** Live watch subscriptions by key prefix, shared by the storage backends. */
export class WatcherSet {
  private readonly subs = new Set<{ prefix: string; fn: StorageEventBatch }>();

  add(prefix: string, fn: StorageEventBatch): WatchHandle {
    const sub = { prefix, fn };
    this.subs.add(sub);
    return { cancel: () => { this.subs.delete(sub); } };
  }

  emit(event: StorageEvent): void {
    const batch = [event];
    for (const sub of this.subs) {
      if (event.key.startsWith(sub.prefix)) sub.fn(batch);
    }
  }

  clear(): void { this.subs.clear(); }
}
