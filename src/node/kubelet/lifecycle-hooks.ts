/**
 * Container lifecycle hooks (pkg/kubelet/lifecycle/handlers.go
 * handlerRunner.Run, kuberuntime_container.go startContainer step 4 and
 * executePreStopHook). An exec hook runs in the container like `kubectl
 * exec` (ExecSync: a non-zero exit is `command '<cmd>' exited with <n>:
 * <stderr>`); an httpGet hook GETs the container. The messages:
 * - `Exec lifecycle hook ([cmd]) for Container "<c>" in Pod "<pod>" failed - error: <err>, message: "<output>"`
 * - `HTTP lifecycle hook (<path>) for Container "<c>" in Pod "<pod>" failed - error: <err>`
 * The events never carry them ("do not record the message in the event so
 * that secrets won't leak"): `FailedPostStartHook`'s text is `PostStartHook failed`,
 * `FailedPreStopHook`'s `PreStopHook failed`. A failed postStart kills the
 * container (Killing `FailedPostStartHook`) and the start fails with
 * `PostStartHookError` carrying the message.
 */
export const POST_START_HOOK_ERROR = 'PostStartHookError';
export const FAILED_POST_START_EVENT = { reason: 'FailedPostStartHook', message: 'PostStartHook failed' } as const;
export const FAILED_PRE_STOP_EVENT = { reason: 'FailedPreStopHook', message: 'PreStopHook failed' } as const;
/** killContainer's message for a postStart failure (reasonFailedPostStartHook). */
export const POST_START_KILL_MESSAGE = 'FailedPostStartHook';
/** kuberuntime's minimumGracePeriodInSeconds: what a preStop hook leaves at least for the stop. */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;

/** What a hook did in the container model: whether it succeeded, how long it took, what it said. */
export interface HookRun { ok: boolean; ms: number; message?: string; forever?: boolean }

/** Go's %v of a []string: `[a b c]`. */
const goSlice = (xs: readonly string[]) => `[${xs.join(' ')}]`;

/** The result of an exec hook from the command's exit code and output. */
export function execHookResult(command: readonly string[], container: string, pod: string,
  r: { code: number | 'forever'; stdout: string; stderr: string; slept: number }): HookRun {
  if (r.code === 'forever') return { ok: false, ms: r.slept, forever: true };
  if (r.code === 0) return { ok: true, ms: r.slept };
  const err = `command '${command.join(' ')}' exited with ${r.code}: ${r.stderr}`;
  return { ok: false, ms: r.slept,
    message: `Exec lifecycle hook (${goSlice(command)}) for Container ${JSON.stringify(container)} in Pod ${JSON.stringify(pod)} failed - error: ${err}, message: ${JSON.stringify(r.stdout + r.stderr)}` };
}

/** The result of an httpGet hook against what the pod listens on. */
export function httpHookResult(path: string, container: string, pod: string, url: { scheme: string; host: string; port: number }, listening: boolean): HookRun {
  if (listening) return { ok: true, ms: 0 };
  const hp = `${url.host}:${url.port}`;
  const p = path.startsWith('/') ? path : `/${path}`;
  const err = `Get "${url.scheme.toLowerCase()}://${hp}${p}": dial tcp ${hp}: connect: connection refused`;
  return { ok: false, ms: 0, message: `HTTP lifecycle hook (${path}) for Container ${JSON.stringify(container)} in Pod ${JSON.stringify(pod)} failed - error: ${err}` };
}

/** executePreStopHook's effect on the grace period: the hook's time is taken from it, at least 2 s remain. */
export function graceAfterPreStop(graceSeconds: number, hookSeconds: number): number {
  return Math.max(MINIMUM_GRACE_PERIOD_SECONDS, graceSeconds - hookSeconds);
}
