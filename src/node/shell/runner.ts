/**
 * Plays a Program (index.ts) in real time: output steps go to callbacks at
 * once, sleeps become timers, `wait` resumes on the next turn after its
 * Pending settles, `forever` waits for terminate/kill. Up to 1000 steps run
 * per event-loop turn so a chatty program cannot starve the process.
 */
import type { Program, Step } from './types.js';

export interface RunHandlers {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Called once, when the program ends (by itself or killed). */
  exit(code: number): void;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_TIMERS: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class ProgramRunner {
  private current: Iterator<Step, void>;
  /** The main program, resumed when a trap finishes without exiting. */
  private suspended: Iterator<Step, void> | undefined;
  private timer: unknown;
  private done = false;
  private waitingForever = false;
  /** Removes the callback of the Pending the program waits on, if any. */
  private unwait: (() => void) | undefined;

  constructor(private readonly program: Program, private readonly handlers: RunHandlers, private readonly timers: Timers = REAL_TIMERS) {
    this.current = program;
  }

  get exited(): boolean { return this.done; }

  start(): void { setImmediate(() => this.pump()); }

  /**
   * SIGTERM: true when the program reacts (a trap, an application), false
   * when it ignores the signal and runs on until killed.
   */
  terminate(): boolean {
    if (this.done) return true;
    const trap = this.program.terminate?.();
    if (!trap) return false;
    if (this.timer !== undefined) { this.timers.clearTimeout(this.timer); this.timer = undefined; }
    // A program blocked on a wait is interrupted by its trap, and resumes waiting after it.
    if (this.unwait) { this.unwait(); this.unwait = undefined; }
    this.suspended = this.waitingForever ? undefined : this.current;
    this.waitingForever = false;
    this.current = trap;
    setImmediate(() => this.pump());
    return true;
  }

  /** SIGKILL / HCS terminate: ends now with `code`. */
  kill(code: number): void {
    if (this.done) return;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    if (this.unwait) { this.unwait(); this.unwait = undefined; }
    this.finish(code);
  }

  private finish(code: number): void {
    this.done = true;
    this.timer = undefined;
    this.handlers.exit(code);
  }

  private pump(): void {
    if (this.done) return;
    for (let n = 0; n < 1000; n++) {
      const r = this.current.next();
      if (r.done) {
        if (this.suspended) { this.current = this.suspended; this.suspended = undefined; continue; }
        // A trap that neither exits nor resumes anything (the main program was blocked): it stays blocked.
        this.waitingForever = true;
        return;
      }
      const s = r.value;
      switch (s.kind) {
        case 'stdout': this.handlers.stdout(s.text); break;
        case 'stderr': this.handlers.stderr(s.text); break;
        case 'exit': this.finish(s.code); return;
        case 'forever': this.waitingForever = true; return;
        case 'sleep':
          if (s.ms <= 0) continue;
          this.timer = this.timers.setTimeout(() => { this.timer = undefined; this.pump(); }, s.ms);
          return;
        case 'wait':
          if (s.on.settled) continue;
          this.unwait = s.on.onSettle(() => { this.unwait = undefined; setImmediate(() => this.pump()); });
          return;
      }
    }
    setImmediate(() => this.pump());
  }
}

/** Splits written chunks into lines (without `\n`) for the log store; a partial line waits for its end. */
export class LineSplitter {
  private partial = '';
  constructor(private readonly emit: (line: string) => void) {}
  write(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop()!;
    for (const p of parts) this.emit(p);
  }
  /** The program ended: a last line without newline is still a line. */
  flush(): void { if (this.partial) { this.emit(this.partial); this.partial = ''; } }
}
