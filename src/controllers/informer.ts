import type { Store, WatchEventType } from '../registry/store.js';
import type { KObject, ResourceDef } from '../registry/types.js';
import type { WatchHandle } from '../storage/types.js';

export type Handler = (type: WatchEventType, obj: KObject) => void;

/**
 * The watches, work queues and shared informers a group of controllers
 * started, stopped together: kube-controller-manager's controllers stop
 * when it loses its leader Lease. Controllers need not know about it: what
 * they construct and start inside `collect` registers itself here.
 */
export class ControllerScope {
  private readonly handles: WatchHandle[] = [];
  private readonly queues: WorkQueue[] = [];
  private readonly stoppables: { stop(): void }[] = [];
  /** This scope's shared informers (see sharedInformer), by resource. */
  readonly informers = new Map<ResourceDef, { stop(): void }>();
  private stopped = false;

  /**
   * Runs fn with this scope collecting. One scope collects at a time, and
   * nothing else may call inform() or build a WorkQueue meanwhile (the
   * server starts its components one after another).
   */
  async collect<T>(fn: () => Promise<T>): Promise<T> {
    if (collecting) throw new Error('another controller scope is collecting');
    collecting = this;
    try {
      return await fn();
    } finally {
      collecting = undefined;
    }
  }

  /** Something with a stop() of its own (timers), stopped with the scope. */
  add<T extends { stop(): void }>(c: T): T {
    this.stoppables.push(c);
    return c;
  }

  trackWatch(h: WatchHandle): void {
    if (this.stopped) h.cancel(); else this.handles.push(h);
  }

  trackQueue(q: WorkQueue): void {
    this.queues.push(q);
  }

  stop(): void {
    this.stopped = true;
    for (const q of this.queues) q.stop();
    for (const h of this.handles.splice(0)) h.cancel();
    for (const i of this.informers.values()) i.stop();
    for (const c of this.stoppables.splice(0)) c.stop();
  }
}

let collecting: ControllerScope | undefined;

/** The scope collecting now, if any. */
export function collectingScope(): ControllerScope | undefined {
  return collecting;
}

/** List then watch one resource in-process, calling the handler for the current state and every change. */
export async function inform(store: Store, def: ResourceDef, handler: Handler): Promise<WatchHandle> {
  const scope = collecting;
  const list = await store.list(def, '');
  for (const o of list.items) handler('ADDED', o);
  const handle = await store.watch(def, '', list.revision, {}, handler);
  scope?.trackWatch(handle);
  return handle;
}

/**
 * Runs one piece of work per key at a time, coalescing repeats while it is
 * queued, like client-go's workqueue.
 */
export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private stopped = false;

  constructor(private readonly work: (key: string) => Promise<void>, private readonly onError: (key: string, e: unknown) => void) {
    collecting?.trackQueue(this);
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.running.has(key)) { this.again.add(key); return; }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    setImmediate(() => void this.run(key));
  }

  /** ShutDown: nothing queued or added later runs. */
  stop(): void {
    this.stopped = true;
    this.queued.clear();
    this.again.clear();
  }

  private async run(key: string): Promise<void> {
    if (!this.queued.delete(key) || this.stopped) return;
    this.running.add(key);
    try {
      await this.work(key);
    } catch (e) {
      this.onError(key, e);
      if (!this.stopped) setTimeout(() => this.add(key), 1000).unref();
    } finally {
      this.running.delete(key);
      if (this.again.delete(key)) this.add(key);
    }
  }
}
