/**
 * A pod chip's text and tone: the STATUS column of `kubectl get pods` (printPod in
 * kubernetes/pkg/printers/internalversion/printers.go, the common cases) and READY, so colour is never the only sign.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';

export type Tone = 'ok' | 'progress' | 'bad' | 'done';

export interface PodChip { status: string; ready: string; tone: Tone }

/** Waiting and terminated reasons that mean the pod is failing, not progressing. */
const FAILING = /Err|BackOff|Error|Invalid|OOMKilled|Failed|Evicted|Unknown/;

export function podStatus(pod: Pod): string {
  const status = pod.status ?? {};
  let reason = status.reason || status.phase || 'Unknown';
  const init = status.initContainerStatuses ?? [];
  const initCount = pod.spec?.initContainers?.length ?? 0;
  let initializing = false;
  for (const [i, c] of init.entries()) {
    const t = c.state?.terminated;
    if (t && t.exitCode === 0) continue;
    if (c.started && pod.spec?.initContainers?.[i]?.restartPolicy === 'Always') continue;
    initializing = true;
    if (t) reason = t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode}`;
    else if (c.state?.waiting?.reason && c.state.waiting.reason !== 'PodInitializing') reason = `Init:${c.state.waiting.reason}`;
    else reason = `Init:${i}/${initCount}`;
    break;
  }
  if (!initializing) {
    let hasRunning = false;
    for (const c of [...(status.containerStatuses ?? [])].reverse()) {
      const { waiting, terminated, running } = c.state ?? {};
      if (waiting?.reason) reason = waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
      else if (running && c.ready) hasRunning = true;
    }
    if (reason === 'Completed' && hasRunning) reason = 'Running';
  }
  if (pod.metadata?.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

export function readyCount(pod: Pod): string {
  const statuses = pod.status?.containerStatuses ?? [];
  const total = pod.spec?.containers?.length ?? statuses.length;
  return `${statuses.filter((c) => c.ready).length}/${total}`;
}

export function podChip(pod: Pod): PodChip {
  const status = podStatus(pod);
  const ready = readyCount(pod);
  const [readyNow, total] = ready.split('/');
  let tone: Tone = 'progress';
  if (FAILING.test(status) || pod.status?.phase === 'Failed') tone = 'bad';
  else if (status === 'Completed' || pod.status?.phase === 'Succeeded') tone = 'done';
  else if (status === 'Running' && readyNow === total) tone = 'ok';
  return { status, ready, tone };
}

/** Whether the pod still holds its node's resources (kubectl describe node counts these). */
export function isTerminated(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}
