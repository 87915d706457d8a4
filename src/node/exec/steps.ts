/** What an emulated program does, step by step: the kubelet's shell model's Step, played here for `kubectl exec`. */
import type { Pending } from '../shell/pending.js';
import type { Step } from '../shell/types.js';

export type { Step };

export interface StepOutput {
  /** Text, or the exact bytes of binary output (an archive `tar cf -` writes). */
  stdout(data: string | Uint8Array): void;
  stderr(text: string): void;
}

/** The outcome of playing steps: an exit code, the end of the steps without one, or a stop from outside. */
export type PlayResult = { code: number } | { ended: true } | { stopped: true };

/**
 * Plays steps in real time: output at once, sleeps as timers, `forever`
 * until `signal` aborts. Yields to the event loop every 1000 steps so a
 * chatty program cannot starve the server.
 */
export async function playSteps(steps: Iterator<Step, void>, out: StepOutput, signal: AbortSignal): Promise<PlayResult> {
  for (let n = 1; ; n++) {
    if (signal.aborted) return { stopped: true };
    const r = steps.next();
    if (r.done) return { ended: true };
    const s = r.value;
    switch (s.kind) {
      case 'stdout': out.stdout(s.bytes ?? s.text); break;
      case 'stderr': out.stderr(s.text); break;
      case 'exit': return { code: s.code };
      case 'sleep': if (!(await wait(s.ms, signal))) return { stopped: true }; break;
      case 'forever': await wait(Infinity, signal); return { stopped: true };
      case 'wait': if (!s.on.settled && !(await settled(s.on, signal))) return { stopped: true }; break;
    }
    if (n % 1000 === 0) await new Promise((res) => setImmediate(res));
  }
}

/** Resolves true once `p` settles, false when aborted first. */
function settled(p: Pending<unknown>, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => { off(); resolve(false); };
    const off = p.onSettle(() => { signal.removeEventListener('abort', onAbort); setImmediate(() => resolve(true)); });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves true after `ms`, false when aborted first. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = Number.isFinite(ms) ? setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(true); }, ms) : undefined;
    const onAbort = () => { if (timer) clearTimeout(timer); resolve(false); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
