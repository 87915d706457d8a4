/**
 * One priority level's seats and queues (k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset):
 * a request either runs at once, waits in one of the queues its flow's hand
 * of queues offers, or is rejected. Dispatch is fair queuing over the queues
 * in virtual time, counted in seats (every request is taken to last as long).
 */
import { dealHand } from '../apimachinery/shuffle-sharding.js';

export interface QueuingConfig { queues: number; handSize: number; queueLengthLimit: number }

export interface QueueSetConfig {
  /** Seats the level may occupy (its concurrency limit). */
  concurrencyLimit: number;
  /** Queue settings; absent for limitResponse Reject. */
  queuing?: QueuingConfig;
  /** The exempt level: never limited. */
  exempt?: boolean;
}

/** A request admitted to the level: running, or waiting for a seat. */
export interface Ticket {
  readonly seats: number;
  /** Resolves true once it may run, false if it left its queue unserved (timeout or cancel). */
  readonly dispatched: Promise<boolean>;
  /** Gives up waiting (queue wait limit reached or client gone); no-op once dispatched. */
  cancel(): void;
  /** The request finished running: frees its seats and dispatches waiting requests. */
  finish(): void;
}

interface Waiting {
  seats: number;
  resolve(run: boolean): void;
  /** Absent for a request that ran at once. */
  queue?: Queue;
  state: 'waiting' | 'running' | 'done';
}

interface Queue { waiting: Waiting[]; waitingSeats: number; seatsInUse: number; nextDispatchR: number }

export class QueueSet {
  private queues: Queue[] = [];
  private cfg!: QueueSetConfig;
  seatsInUse = 0;
  requestsExecuting = 0;
  requestsWaiting = 0;
  private robin = -1;
  private currentR = 0;
  private enqueues = 0;

  constructor(cfg: QueueSetConfig) { this.configure(cfg); }

  /** A new configuration; queues are kept, added or (once empty) dropped as the count changes. */
  configure(cfg: QueueSetConfig): void {
    this.cfg = cfg;
    const want = cfg.queuing?.queues ?? 0;
    while (this.queues.length < want) this.queues.push({ waiting: [], waitingSeats: 0, seatsInUse: 0, nextDispatchR: this.currentR });
    if (this.queues.length > want) this.queues = this.queues.filter((q, i) => i < want || q.waiting.length || q.seatsInUse);
    this.dispatchAsMuchAsPossible();
  }

  get concurrencyLimit(): number { return this.cfg.concurrencyLimit; }

  /** canAccommodateSeatsLocked: an oversized request may run alone. */
  private canAccommodate(seats: number): boolean {
    if (this.cfg.exempt) return true;
    if (seats > this.cfg.concurrencyLimit) return this.requestsExecuting === 0;
    return this.seatsInUse + seats <= this.cfg.concurrencyLimit;
  }

  /** StartRequest: undefined means rejected. */
  startRequest(seats: number, hashValue: bigint): Ticket | undefined {
    const q = this.cfg.queuing;
    if (this.cfg.exempt || !q) {
      if (!this.canAccommodate(seats)) return undefined;
      return this.running(seats, undefined);
    }
    const queue = this.shuffleShard(hashValue, q);
    // rejectOrEnqueueToBoundLocked: only a full level with a full queue rejects.
    if (this.seatsInUse >= this.cfg.concurrencyLimit && queue.waiting.length >= q.queueLengthLimit) return undefined;
    if (!queue.waiting.length && !queue.seatsInUse) queue.nextDispatchR = this.currentR;
    let resolve!: (run: boolean) => void;
    const dispatched = new Promise<boolean>((r) => { resolve = r; });
    const w: Waiting = { seats, resolve, queue, state: 'waiting' };
    queue.waiting.push(w);
    queue.waitingSeats += seats;
    this.requestsWaiting++;
    this.dispatchAsMuchAsPossible();
    return {
      seats, dispatched,
      cancel: () => {
        if (w.state !== 'waiting') return;
        this.removeWaiting(w);
        w.state = 'done';
        resolve(false);
      },
      finish: () => this.finish(w),
    };
  }

  private running(seats: number, queue: Queue | undefined): Ticket {
    this.seatsInUse += seats;
    this.requestsExecuting++;
    const w: Waiting = { seats, resolve: () => {}, queue, state: 'running' };
    return { seats, dispatched: Promise.resolve(true), cancel: () => {}, finish: () => this.finish(w) };
  }

  private finish(w: Waiting): void {
    if (w.state !== 'running') return;
    w.state = 'done';
    this.seatsInUse -= w.seats;
    this.requestsExecuting--;
    if (w.queue) w.queue.seatsInUse -= w.seats;
    this.dispatchAsMuchAsPossible();
  }

  private removeWaiting(w: Waiting): void {
    const q = w.queue!;
    q.waiting.splice(q.waiting.indexOf(w), 1);
    q.waitingSeats -= w.seats;
    this.requestsWaiting--;
  }

  /** shuffleShardLocked: of the flow's hand, the queue with the least work waiting (ties: rotating start). */
  private shuffleShard(hashValue: bigint, q: QueuingConfig): Queue {
    const hand = dealHand(hashValue, this.queues.length, Math.min(q.handSize, this.queues.length));
    const offset = this.enqueues++ % hand.length;
    let best: Queue | undefined;
    let least = Infinity;
    for (let i = 0; i < hand.length; i++) {
      const candidate = this.queues[hand[(offset + i) % hand.length] ?? -1];
      if (candidate && candidate.waitingSeats < least) { least = candidate.waitingSeats; best = candidate; }
    }
    // A queuing level has at least one queue, and dealHand deals indexes below their count.
    if (!best) throw new Error(`flowcontrol: no queue among ${this.queues.length} to shuffle-shard into`);
    return best;
  }

  private dispatchAsMuchAsPossible(): void {
    while (this.requestsWaiting && this.seatsInUse < this.cfg.concurrencyLimit && this.dispatchOne());
  }

  /** findDispatchQueueToBoundLocked: the queue whose head would finish first in virtual time. */
  private dispatchOne(): boolean {
    let min: Queue | undefined;
    let head: Waiting | undefined;
    let minFinish = Infinity;
    const n = this.queues.length;
    for (let i = 0; i < n; i++) {
      this.robin = (this.robin + 1) % n;
      const q = this.queues[this.robin];
      const first = q?.waiting[0];
      if (!q || !first) continue;
      const finish = q.nextDispatchR + first.seats;
      if (finish < minFinish) { minFinish = finish; min = q; head = first; }
    }
    if (!min || !head) return false;
    if (!this.canAccommodate(head.seats)) return false;
    this.removeWaiting(head);
    this.currentR = Math.max(this.currentR, min.nextDispatchR);
    min.nextDispatchR += head.seats;
    head.state = 'running';
    min.seatsInUse += head.seats;
    this.seatsInUse += head.seats;
    this.requestsExecuting++;
    head.resolve(true);
    return true;
  }

  /** Nothing running or waiting. */
  isIdle(): boolean { return this.requestsExecuting === 0 && this.requestsWaiting === 0; }
}
