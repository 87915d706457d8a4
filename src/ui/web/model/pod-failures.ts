/**
 * What the pod detail says about a failing pod: the upstream reason and message the kubelet or scheduler
 * wrote into the status, and the fix from winkube's WinkubeHint events about it.
 */
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import { podChip } from './pod-status.js';

export interface Failure { where: string; reason: string; message: string }

/** Waiting reasons that are progress, not failure (kubelet's ContainerCreating/PodInitializing). */
const PROGRESS = new Set(['ContainerCreating', 'PodInitializing']);

export function podFailures(pod: Pod): Failure[] {
  const out: Failure[] = [];
  const unscheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled) out.push({ where: 'PodScheduled', reason: unscheduled.reason ?? '', message: unscheduled.message ?? '' });
  const statuses = [
    ...(pod.status?.initContainerStatuses ?? []).map((c) => ({ c, kind: 'init container' })),
    ...(pod.status?.containerStatuses ?? []).map((c) => ({ c, kind: 'container' })),
  ];
  for (const { c, kind } of statuses) {
    const waiting = c.state?.waiting;
    if (waiting?.reason && !PROGRESS.has(waiting.reason)) out.push({ where: `${kind} ${c.name}`, reason: waiting.reason, message: waiting.message ?? '' });
    const terminated = c.state?.terminated ?? (waiting ? c.lastState?.terminated : undefined);
    if (terminated && terminated.exitCode !== 0) {
      out.push({ where: `${kind} ${c.name}`, reason: terminated.reason ?? 'Error', message: terminated.message ?? `exit code ${terminated.exitCode}` });
    }
  }
  if (pod.status?.reason && podChip(pod).tone === 'bad') out.push({ where: 'pod', reason: pod.status.reason, message: pod.status.message ?? '' });
  return out;
}

/** The fixes winkube suggested, oldest first, each once. */
export function hints(events: readonly Event[]): string[] {
  return [...new Set(events.filter((e) => e.reason === 'WinkubeHint').map((e) => e.message ?? ''))];
}
