/**
 * client-go's rate-limited work queue (util/workqueue: Typed queue,
 * delaying queue, rate-limiting queue) for `namespace/name` keys.
 *
 * A key is in `dirty` from its add until a worker gets it, and in
 * `processing` while a worker holds it: an add of a queued key is dropped,
 * an add of a key being processed is remembered and queued again when the
 * worker is done, so a key is never processed by two workers at once and
 * repeats coalesce.
 */
import { realClock, type Clock, type TimerHandle } from '../apimachinery/clock.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

export interface WorkQueueOptions {
  clock?: Clock;
  rateLimiter?: RateLimiter;
}

export class RateLimitingQueue {
  private readonly clock: Clock;
  private readonly limiter: RateLimiter;
  private readonly fifo: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  /** AddAfter: the earliest time each waiting key is due. */
  private readonly waiting = new Map<string, { at: number; timer: TimerHandle }>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;

  constructor(o: WorkQueueOptions = {}) {
    this.clock = o.clock ?? realClock;
    this.limiter = o.rateLimiter ?? defaultControllerRateLimiter(this.clock);
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** AddAfter: a key already waiting keeps the earlier of the two times. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (!(ms > 0)) { this.add(key); return; }
    const at = this.clock.now() + ms;
    const pending = this.waiting.get(key);
    if (pending && pending.at <= at) return;
    pending?.timer.cancel();
    const timer = this.clock.after(ms, () => { this.waiting.delete(key); this.add(key); });
    this.waiting.set(key, { at, timer });
  }

  /** AddRateLimited: again after the rate limiter's delay for this key. */
  addRateLimited(key: string): void {
    this.addAfter(key, this.limiter.when(key));
  }

  forget(key: string): void { this.limiter.forget(key); }

  numRequeues(key: string): number { return this.limiter.numRequeues(key); }

  /** Keys queued and not yet got. */
  get length(): number { return this.fifo.length - this.head; }

  /** The next key, once there is one; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    if (this.length) return Promise.resolve(this.take());
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** The worker is finished with the key: an add meanwhile queues it again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.push(key);
  }

  /**
   * ShutDown, without draining: what is queued is dropped and workers
   * return (a stopped controller does not act any more).
   */
  shutDown(): void {
    this.shuttingDown = true;
    this.fifo.length = 0;
    this.head = 0;
    for (const w of this.waiting.values()) w.timer.cancel();
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  get isShuttingDown(): boolean { return this.shuttingDown; }

  /**
   * Runs `workers` workers until shut down, each the usual processNextWorkItem:
   * a key that syncs is forgotten by the rate limiter, one that fails is
   * added again rate-limited.
   */
  run(workers: number, sync: (key: string) => Promise<void>, onError: (key: string, e: unknown) => void): void {
    const worker = async () => {
      for (let key = await this.get(); key !== undefined; key = await this.get()) {
        try {
          await sync(key);
          this.forget(key);
        } catch (e) {
          if (!this.shuttingDown) {
            onError(key, e);
            this.addRateLimited(key);
          }
        } finally {
          this.done(key);
        }
      }
    };
    for (let i = 0; i < workers; i++) void worker();
  }

  private push(key: string): void {
    const getter = this.getters.shift();
    if (getter) { this.claim(key); getter(key); return; }
    this.fifo.push(key);
  }

  /** The next key; only called while the queue is not empty. */
  private take(): string {
    const key = this.fifo[this.head++];
    if (key === undefined) throw new Error('work queue: take from an empty queue');
    if (this.head > 1024 && this.head * 2 > this.fifo.length) { this.fifo.splice(0, this.head); this.head = 0; }
    this.claim(key);
    return key;
  }

  private claim(key: string): void {
    this.processing.add(key);
    this.dirty.delete(key);
  }
}
