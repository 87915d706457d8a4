/**
 * The time a controller sees, injectable so that tests step it instead of
 * waiting (client-go's clock.Clock for the work queue's delays).
 */
export interface TimerHandle { cancel(): void }

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs fn after ms; the timer does not keep the process alive. */
  after(ms: number, fn: () => void): TimerHandle;
}

export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/** A clock that moves only when stepped, firing the timers that came due in order. */
export class FakeClock implements Clock {
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  constructor(private current = 0) {}

  now(): number { return this.current; }

  after(ms: number, fn: () => void): TimerHandle {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return { cancel: () => { this.timers = this.timers.filter((t) => t !== timer); } };
  }

  /** The timers not yet fired. */
  get pending(): number { return this.timers.length; }

  step(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = until;
  }
}
