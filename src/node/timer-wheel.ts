/**
 * A hashed timer wheel: one Node.js timer ticking every `tickMs`, tasks
 * hashed into slots by due tick. A farm of many emulated nodes costs one
 * timer, not one per node and heartbeat (KWOK-style).
 */
export interface WheelTask { cancel(): void }

interface Entry { dueTick: number; fn: () => void; cancelled: boolean }

export class TimerWheel {
  private readonly slots: Entry[][];
  private tick = 0;
  private timer: NodeJS.Timeout | undefined;
  private pending = 0;
  /** When the timer started, and how many ticks it has run since. */
  private startedAt = 0;
  private ticksRun = 0;

  constructor(readonly tickMs = 1000, slotCount = 64) {
    this.slots = Array.from({ length: slotCount }, () => []);
  }

  /** Runs `fn` once after `delayMs` (rounded up to whole ticks, at least one). */
  schedule(delayMs: number, fn: () => void): WheelTask {
    const entry: Entry = { dueTick: this.tick + Math.max(1, Math.ceil(delayMs / this.tickMs)), fn, cancelled: false };
    this.slotOf(entry.dueTick).push(entry);
    this.pending++;
    this.ensureRunning();
    return { cancel: () => { if (!entry.cancelled) { entry.cancelled = true; } } };
  }

  /** Runs `fn` every `periodMs` until cancelled. */
  every(periodMs: number, fn: () => void): WheelTask {
    let current: WheelTask | undefined;
    let stopped = false;
    const loop = () => { if (stopped) return; fn(); if (!stopped) current = this.schedule(periodMs, loop); };
    current = this.schedule(periodMs, loop);
    return { cancel: () => { stopped = true; current?.cancel(); } };
  }

  /** Advances one tick: runs what is due now. Exposed for tests. */
  advance(): void {
    this.tick++;
    const slot = this.slotOf(this.tick);
    const due: Entry[] = [];
    const keep: Entry[] = [];
    for (const e of slot) (e.dueTick <= this.tick ? due : keep).push(e);
    this.slots[this.tick % this.slots.length] = keep;
    this.pending -= due.length;
    for (const e of due) if (!e.cancelled) e.fn();
  }

  get size(): number { return this.pending; }

  /** The slot a tick hashes to (there is one for every remainder). */
  private slotOf(tick: number): Entry[] {
    const slot = this.slots[tick % this.slots.length];
    if (!slot) throw new Error(`timer wheel: no slot for tick ${tick}`);
    return slot;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const s of this.slots) s.length = 0;
    this.pending = 0;
  }

  /**
   * One interval callback runs every tick that real time has passed, so a
   * busy event loop delays tasks by the time it was busy and no more:
   * setInterval drops the callbacks it could not run, and a wheel advanced
   * once per callback would fall further behind the clock each time.
   */
  private catchUp(): void {
    const due = Math.floor((performance.now() - this.startedAt) / this.tickMs);
    while (this.ticksRun < due && this.timer) { this.ticksRun++; this.advance(); }
  }

  private ensureRunning(): void {
    if (this.timer) return;
    this.startedAt = performance.now();
    this.ticksRun = 0;
    this.timer = setInterval(() => this.catchUp(), this.tickMs);
    this.timer.unref();
  }
}
