/**
 * How containers end, as pure decisions the pod worker carries out:
 * the grace period of a kill (kuberuntime_container.go killContainer:
 * the pod's deletionGracePeriodSeconds, else terminationGracePeriodSeconds;
 * a probe's own terminationGracePeriodSeconds for a probe kill), the stop
 * itself (the runtime's StopContainer: SIGTERM, SIGKILL when the grace
 * period ends; on Windows, CTRL_SHUTDOWN_EVENT and the Docker stop
 * timeout), and the kernel's OOM kill, which only Linux does (a Windows
 * job object fails allocations and the process pages instead).
 */
import type { ContainerScript } from './script.js';
import { oomKillAfterMs as memoryOOMKillAfterMs } from '../usage/usage-model.js';

export type NodeOS = 'linux' | 'windows';
/** The pod spec field a grace period reads. */
interface GraceSpec { terminationGracePeriodSeconds?: number }
/** The container field the OOM kill reads. */
interface MemoryLimited { resources?: { limits?: { memory?: unknown } } }

/** The exit code of a container killed when its grace period ends: SIGKILL on Linux, TerminateProcess(1) on Windows. */
export const GRACE_KILL_EXIT: Record<NodeOS, number> = { linux: 137, windows: 1 };
/** A Windows console process ended by CTRL_SHUTDOWN_EVENT's default handler: STATUS_CONTROL_C_EXIT as int32. */
export const WINDOWS_SHUTDOWN_EXIT = -1073741510;
/** The exit code and reason of a container the kernel OOM-killed. */
export const OOM_KILL = { reason: 'OOMKilled', exitCode: 137 } as const;

const DEFAULT_GRACE_SECONDS = 30;

/** The grace period of a pod's containers: a deletion's own, else the spec's (30 s by default). */
export function podGracePeriodSeconds(pod: { metadata: { deletionGracePeriodSeconds?: number }; spec?: GraceSpec }): number {
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) return pod.metadata.deletionGracePeriodSeconds;
  return pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
}

/** The grace period of a kill outside deletion (a probe failure, completion, the active deadline): the probe's, else the spec's. */
export function specGracePeriodSeconds(spec: GraceSpec, probeGraceSeconds?: number): number {
  return probeGraceSeconds ?? spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
}

export interface StopInput {
  os: NodeOS;
  graceSeconds: number;
  /** The runtime's fixed stop timeout (Docker on Windows), undefined when it honours the grace period. */
  stopTimeoutSeconds?: number;
  sigterm?: ContainerScript['sigterm'];
  /** The program is the image's application (it handles signals as a server does). */
  application: boolean;
}

/** What the container is sent first: a scripted clean exit, SIGTERM, or nothing it reacts to (scripted to ignore it). */
export function stopSignal(i: StopInput): 'exit' | 'SIGTERM' | 'ignored' {
  if (i.sigterm === 'exit') return 'exit';
  return i.sigterm === 'ignore' ? 'ignored' : 'SIGTERM';
}

export interface AfterSignal {
  /** The process ends at once with this code. */
  exitNow?: number;
  /** The process is killed with `exitCode` after `afterMs` unless it exited by then. */
  kill?: { afterMs: number; exitCode: number };
}

/**
 * After the signal: `reacts` when the program handles SIGTERM (a trap, an
 * application), `exited` when it already ended. A Windows console program
 * without a handler ends at once under CTRL_SHUTDOWN_EVENT; anything else
 * still running is killed when the grace period (or the runtime's fixed
 * stop timeout) ends.
 */
export function afterSignal(i: StopInput, reacts: boolean, exited: boolean): AfterSignal {
  if (stopSignal(i) === 'exit') return { exitNow: 0 };
  if (!reacts && i.os === 'windows' && !i.application && i.sigterm !== 'ignore') return { exitNow: WINDOWS_SHUTDOWN_EXIT };
  if (reacts && exited) return {};
  const seconds = Math.max(0, i.stopTimeoutSeconds ?? i.graceSeconds);
  return { kill: { afterMs: seconds * 1000, exitCode: GRACE_KILL_EXIT[i.os] } };
}

/**
 * The kernel's OOM kill of a container whose scripted memory use rises above
 * limits.memory: when (ms after start), or undefined when it is not killed
 * (no script, no limit, within the limit, or a Windows node).
 */
export function oomKillAfterMs(os: NodeOS, script: ContainerScript | undefined, container: MemoryLimited): number | undefined {
  const limit = container.resources?.limits?.memory;
  return memoryOOMKillAfterMs(os, script?.memory, typeof limit === 'string' || typeof limit === 'number' ? limit : undefined);
}
