/**
 * The kubelet's clock, after k8s.io/utils/clock: Now, AfterFunc and
 * NewTicker behind one interface, so the pod worker, the prober and the
 * status manager never read the wall clock themselves. REAL_CLOCK is the
 * process's clock; FakeClock (clock/testing FakeClock) only moves when a
 * test steps it, firing the timers that fall due in time order.
 * Times are milliseconds since the epoch.
 */
import type { Timers } from '../shell/runner.js';

export interface Timer {
  /** Stops the timer; a no-op once it fired (a ticker stops ticking). */
  stop(): void;
}

export interface Clock {
  now(): number;
  /** AfterFunc: `fn` once after `ms`. */
  afterFunc(ms: number, fn: () => void): Timer;
  /** NewTicker: `fn` every `ms`, the first time after `ms`. */
  tick(ms: number, fn: () => void): Timer;
}

export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  afterFunc(ms, fn) {
    const t = setTimeout(fn, ms);
    return { stop: () => clearTimeout(t) };
  },
  tick(ms, fn) {
    const t = setInterval(fn, ms);
    return { stop: () => clearInterval(t) };
  },
};

/** The clock as the shell's ProgramRunner takes timers (its sleeps run on the same clock). */
export function timersOf(clock: Clock): Timers {
  return {
    setTimeout: (fn, ms) => clock.afterFunc(ms, fn),
    clearTimeout: (h) => (h as Timer).stop(),
  };
}

interface Pending { at: number; seq: number; fn: () => void; period?: number; stopped: boolean }

/** A clock for tests: time stands still until step() or set() moves it. */
export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly pending = new Set<Pending>();

  constructor(start = Date.parse('2025-01-01T00:00:00Z')) { this.time = start; }

  now(): number { return this.time; }

  afterFunc(ms: number, fn: () => void): Timer { return this.add(ms, fn); }

  tick(ms: number, fn: () => void): Timer { return this.add(ms, fn, Math.max(1, ms)); }

  /** Moves time forward by `ms`, running every timer due on the way at its own time. */
  step(ms: number): void { this.set(this.time + ms); }

  set(to: number): void {
    for (;;) {
      let next: Pending | undefined;
      for (const p of this.pending) if (p.at <= to && (!next || p.at < next.at || (p.at === next.at && p.seq < next.seq))) next = p;
      if (!next) break;
      this.time = Math.max(this.time, next.at);
      if (next.period !== undefined) { next.at += next.period; next.seq = this.seq++; } else this.pending.delete(next);
      next.fn();
    }
    this.time = Math.max(this.time, to);
  }

  /** Timers not yet fired or stopped. */
  get waiting(): number { return this.pending.size; }

  private add(ms: number, fn: () => void, period?: number): Timer {
    const p: Pending = { at: this.time + Math.max(0, ms), seq: this.seq++, fn, period, stopped: false };
    this.pending.add(p);
    return { stop: () => { p.stopped = true; this.pending.delete(p); } };
  }
}
