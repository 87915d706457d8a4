/**
 * The scheduling queue (pkg/scheduler/backend/queue): activeQ ordered by
 * PrioritySort, a backoff queue (1 s doubling to 10 s per attempt), the
 * unschedulable pods that wait for a cluster event one of the plugins that
 * rejected them cares about, and the gated pods PreEnqueue keeps out.
 */
import type { ClusterEvent, Plugin } from './framework.js';
import type { PodInfo } from './pod-info.js';
import { Code } from './status.js';

export interface QueueOptions { initialBackoffMs?: number; maxBackoffMs?: number; now?: () => number }

/** PrioritySort's Less: higher priority first, then the earlier queued. */
function less(a: PodInfo, b: PodInfo): boolean {
  return a.priority > b.priority || (a.priority === b.priority && a.timestamp < b.timestamp);
}

class Heap {
  private readonly items: PodInfo[] = [];
  private readonly index = new Map<string, number>();
  get size(): number { return this.items.length; }
  has(uid: string): boolean { return this.index.has(uid); }
  push(p: PodInfo): void {
    const i = this.index.get(p.uid);
    if (i !== undefined) { this.items[i] = p; this.fix(i); return; }
    this.items.push(p); this.index.set(p.uid, this.items.length - 1); this.up(this.items.length - 1);
  }
  pop(): PodInfo | undefined {
    const top = this.items[0];
    if (top) this.removeAt(0);
    return top;
  }
  delete(uid: string): PodInfo | undefined {
    const i = this.index.get(uid);
    if (i === undefined) return undefined;
    const p = this.items[i];
    this.removeAt(i);
    return p;
  }
  /** The pod at a position the heap holds (the index map and the array are kept in step). */
  private at(i: number): PodInfo {
    const p = this.items[i];
    if (!p) throw new Error(`scheduling queue heap: no pod at ${i} of ${this.items.length}`);
    return p;
  }
  private removeAt(i: number): void {
    const removed = this.at(i);
    const last = this.items.pop();
    this.index.delete(removed.uid);
    if (last && i < this.items.length) { this.items[i] = last; this.index.set(last.uid, i); this.fix(i); }
  }
  private fix(i: number): void { this.up(i); this.down(i); }
  private swap(i: number, j: number): void {
    const a = this.at(i), b = this.at(j);
    this.items[i] = b; this.items[j] = a;
    this.index.set(b.uid, i); this.index.set(a.uid, j);
  }
  private up(i: number): void {
    while (i > 0) { const p = (i - 1) >> 1; if (!less(this.at(i), this.at(p))) break; this.swap(i, p); i = p; }
  }
  private down(i: number): void {
    const n = this.items.length;
    while (true) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < n && less(this.at(l), this.at(m))) m = l;
      if (r < n && less(this.at(r), this.at(m))) m = r;
      if (m === i) return;
      this.swap(i, m); i = m;
    }
  }
}

export class SchedulingQueue {
  private readonly active = new Heap();
  private readonly backoff = new Map<string, { pod: PodInfo; until: number }>();
  private readonly unschedulable = new Map<string, { pod: PodInfo; since: number }>();
  private readonly gated = new Map<string, PodInfo>();
  /** Pods popped and not yet done (scheduling or binding). */
  private readonly inFlight = new Map<string, PodInfo>();
  private readonly pluginEvents = new Map<string, ReadonlySet<ClusterEvent>>();
  private schedulingCycle = 0;
  private moveRequestCycle = -1;
  private readonly popCycle = new Map<string, number>();
  private waiter?: () => void;
  private timer?: NodeJS.Timeout;
  private readonly initial: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(private readonly preEnqueue: Plugin[], plugins: Plugin[], opts: QueueOptions = {}) {
    this.initial = opts.initialBackoffMs ?? 1000;
    this.max = opts.maxBackoffMs ?? 10_000;
    this.now = opts.now ?? Date.now;
    for (const p of plugins) this.pluginEvents.set(p.name, new Set(p.events ?? []));
  }

  start(): void {
    // flushBackoffQCompleted every second; flushUnschedulablePodsLeftover (5 minutes) every 30 s.
    let ticks = 0;
    this.timer = setInterval(() => {
      this.flushBackoff();
      if (++ticks % 30 === 0) this.flushLeftover(5 * 60_000);
    }, 1000);
    this.timer.unref();
  }

  stop(): void { clearInterval(this.timer); this.wake(); }

  get pendingCount(): number { return this.active.size + this.backoff.size + this.unschedulable.size + this.gated.size; }
  get activeCount(): number { return this.active.size; }

  /** getBackoffTime: initial × 2^(attempts-1), at most max. */
  backoffDuration(attempts: number): number {
    let d = this.initial;
    for (let i = 1; i < attempts; i++) {
      if (d > this.max - d) return this.max;
      d += d;
    }
    return Math.min(d, this.max);
  }

  private wake(): void { const w = this.waiter; this.waiter = undefined; w?.(); }

  /** Resolves when a pod may be ready to pop. */
  wait(): Promise<void> {
    if (this.active.size) return Promise.resolve();
    return new Promise((res) => { this.waiter = res; });
  }

  private gate(p: PodInfo): boolean {
    for (const pl of this.preEnqueue) {
      const s = pl.preEnqueue!(p);
      if (s.code !== Code.Success) { this.gated.set(p.uid, p); return true; }
    }
    return false;
  }

  private toActive(p: PodInfo): void {
    if (this.gate(p)) return;
    p.timestamp ||= this.now();
    this.active.push(p);
    this.wake();
  }

  /** A new pending pod (Add). */
  add(p: PodInfo): void {
    this.delete(p.uid);
    p.timestamp = this.now();
    this.toActive(p);
  }

  has(uid: string): boolean {
    return this.active.has(uid) || this.backoff.has(uid) || this.unschedulable.has(uid) || this.gated.has(uid) || this.inFlight.has(uid);
  }

  /**
   * Update: a pending pod's spec or labels changed. A pod waiting for an event
   * goes back to be tried (after its backoff); a gated one is checked again.
   */
  update(p: PodInfo): void {
    const old = this.findQueued(p.uid);
    if (!old) { if (!this.inFlight.has(p.uid)) this.add(p); else this.inFlight.set(p.uid, p); return; }
    p.timestamp = old.timestamp; p.attempts = old.attempts; p.unschedulablePlugins = old.unschedulablePlugins;
    if (this.active.has(p.uid)) { this.active.push(p); return; }
    if (this.backoff.has(p.uid)) { this.backoff.get(p.uid)!.pod = p; return; }
    this.gated.delete(p.uid);
    this.unschedulable.delete(p.uid);
    this.requeue(p);
  }

  /** Replaces the object of a queued pod without moving it (status-only changes). */
  refresh(p: PodInfo): void {
    const old = this.findQueued(p.uid);
    if (!old) return;
    old.pod.status = p.pod.status;
  }

  private findQueued(uid: string): PodInfo | undefined {
    return this.backoff.get(uid)?.pod ?? this.unschedulable.get(uid)?.pod ?? this.gated.get(uid) ?? this.activeGet(uid);
  }
  private activeGet(uid: string): PodInfo | undefined {
    if (!this.active.has(uid)) return undefined;
    const p = this.active.delete(uid)!;
    this.active.push(p);
    return p;
  }

  delete(uid: string): void {
    this.active.delete(uid);
    this.backoff.delete(uid);
    this.unschedulable.delete(uid);
    this.gated.delete(uid);
    this.inFlight.delete(uid);
    this.popCycle.delete(uid);
  }

  pop(): PodInfo | undefined {
    const p = this.active.pop();
    if (!p) return undefined;
    this.schedulingCycle++;
    p.attempts++;
    this.inFlight.set(p.uid, p);
    this.popCycle.set(p.uid, this.schedulingCycle);
    return p;
  }

  isInFlight(uid: string): boolean { return this.inFlight.has(uid); }

  /** Done: the pod was bound, or dropped. */
  done(uid: string): void { this.inFlight.delete(uid); this.popCycle.delete(uid); }

  private isBackingOff(p: PodInfo): boolean { return this.backoffUntil(p) > this.now(); }
  private backoffUntil(p: PodInfo): number { return p.timestamp + this.backoffDuration(p.attempts); }

  private requeue(p: PodInfo): void {
    if (this.gate(p)) return;
    if (p.attempts > 0 && this.isBackingOff(p)) this.backoff.set(p.uid, { pod: p, until: this.backoffUntil(p) });
    else this.toActive(p);
  }

  /**
   * AddUnschedulableIfNotPresent: a pod that failed waits for an event, unless
   * one that might help already came while it was being scheduled (then it
   * only backs off) or it failed for an error rather than a rejection.
   */
  addUnschedulable(p: PodInfo, rejectedBy: Set<string>, error = false): void {
    if (!this.inFlight.has(p.uid)) return;
    const cycle = this.popCycle.get(p.uid) ?? 0;
    this.inFlight.delete(p.uid);
    this.popCycle.delete(p.uid);
    p.unschedulablePlugins = rejectedBy;
    p.timestamp = this.now();
    if (error || this.moveRequestCycle >= cycle) {
      this.backoff.set(p.uid, { pod: p, until: this.backoffUntil(p) });
      return;
    }
    this.unschedulable.set(p.uid, { pod: p, since: this.now() });
  }

  /** MoveAllToActiveOrBackoffQueue for one cluster event: the pods a rejecting plugin of which cares. */
  onEvent(event: ClusterEvent): void {
    this.moveRequestCycle = this.schedulingCycle;
    if (!this.unschedulable.size) return;
    for (const [uid, { pod }] of this.unschedulable) {
      if (!this.interested(pod, event)) continue;
      this.unschedulable.delete(uid);
      this.requeue(pod);
    }
  }

  private interested(p: PodInfo, event: ClusterEvent): boolean {
    if (p.unschedulablePlugins.size === 0) return true;
    for (const name of p.unschedulablePlugins) if (this.pluginEvents.get(name)?.has(event)) return true;
    return false;
  }

  /** Pods whose backoff has passed go to activeQ. */
  flushBackoff(): void {
    const now = this.now();
    for (const [uid, { pod, until }] of this.backoff) {
      if (until > now) continue;
      this.backoff.delete(uid);
      this.toActive(pod);
    }
  }

  /** Pods unschedulable for longer than `maxMs` are retried anyway. */
  flushLeftover(maxMs: number): void {
    const now = this.now();
    for (const [uid, { pod, since }] of this.unschedulable) {
      if (now - since < maxMs) continue;
      this.unschedulable.delete(uid);
      this.requeue(pod);
    }
  }

  /** Where a pod is, for tests and explain. */
  where(uid: string): 'active' | 'backoff' | 'unschedulable' | 'gated' | 'inFlight' | undefined {
    if (this.active.has(uid)) return 'active';
    if (this.backoff.has(uid)) return 'backoff';
    if (this.unschedulable.has(uid)) return 'unschedulable';
    if (this.gated.has(uid)) return 'gated';
    if (this.inFlight.has(uid)) return 'inFlight';
    return undefined;
  }
}
