/**
 * A container's state as the kubelet tracks it (kubecontainer.Status /
 * v1.ContainerState): exactly one of waiting, running or terminated, with
 * what only that state has. Readiness and the startup probe's verdict exist
 * only while running, so they live in the running variant instead of in
 * flags that other states would have to keep false.
 */
type Obj = Record<string, unknown>;

export interface Waiting { kind: 'waiting'; reason: string; message?: string }
export interface Running {
  kind: 'running';
  startedAt: string;
  startedAtMs: number;
  /** The startup probe succeeded (or there is none). */
  started: boolean;
  ready: boolean;
}
export interface Terminated {
  kind: 'terminated';
  exitCode: number;
  signal?: number;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  finishedAtMs: number;
  containerID?: string;
}
export type ContainerState = Waiting | Running | Terminated;

export function waiting(reason: string, message?: string): Waiting {
  return message === undefined ? { kind: 'waiting', reason } : { kind: 'waiting', reason, message };
}

/** v1.ContainerState JSON, fields in the API's order. */
export function stateToAPI(s: ContainerState): Obj {
  switch (s.kind) {
    case 'waiting': return { waiting: s.message === undefined ? { reason: s.reason } : { reason: s.reason, message: s.message } };
    case 'running': return { running: { startedAt: s.startedAt } };
    case 'terminated': {
      const t: Obj = { exitCode: s.exitCode };
      if (s.signal !== undefined) t.signal = s.signal;
      t.reason = s.reason;
      if (s.message !== undefined) t.message = s.message;
      t.startedAt = s.startedAt;
      t.finishedAt = s.finishedAt;
      t.containerID = s.containerID;
      return { terminated: t };
    }
  }
}

/** v1.ContainerStateTerminated as stored. */
export interface V1Terminated { exitCode: number; signal?: number; reason: string; message?: string; startedAt: string; finishedAt: string; containerID?: string }

/** A terminated state recorded in a stored pod status (a kubelet restart finds it). */
export function terminatedFromAPI(t: V1Terminated): Terminated {
  const s: Terminated = { kind: 'terminated', exitCode: t.exitCode, reason: t.reason, startedAt: t.startedAt, finishedAt: t.finishedAt, finishedAtMs: Date.parse(t.finishedAt) };
  if (t.signal !== undefined) s.signal = t.signal;
  if (t.message !== undefined) s.message = t.message;
  if (t.containerID !== undefined) s.containerID = t.containerID;
  return s;
}

export const isRunning = (s: ContainerState): s is Running => s.kind === 'running';
export const isTerminated = (s: ContainerState): s is Terminated => s.kind === 'terminated';
/** A terminated container that exited 0. */
export const succeeded = (s: ContainerState): boolean => s.kind === 'terminated' && s.exitCode === 0;
