/**
 * Which pod the eviction manager evicts first under memory pressure
 * (helpers.go rankMemoryPressure): pods whose working set exceeds their
 * memory requests, then the lowest priority, then the largest working set
 * above requests. A pod without stats ranks first in every comparison.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../../apimachinery/object.js';
import { podRequests } from '../admission.js';

/** A pod's working set in bytes (the pod's stats), undefined when the Summary has none for it. */
export type PodWorkingSet = (pod: Pod) => number | undefined;

type Cmp = (a: Pod, b: Pod) => number;

/** cmpBool: true before false. */
const cmpBool = (a: boolean, b: boolean): number => (a === b ? 0 : a ? -1 : 1);

/** GetResourceRequestQuantity(pod, memory): the pod's effective memory request with overhead, in bytes. */
export function podMemoryRequestBytes(pod: Pod): number {
  return podRequests(pod as unknown as KObject).memory;
}

function withStats(usage: PodWorkingSet, then: (a: number, b: number, p1: Pod, p2: Pod) => number): Cmp {
  return (p1, p2) => {
    const a = usage(p1);
    const b = usage(p2);
    if (a === undefined || b === undefined) return cmpBool(a === undefined, b === undefined);
    return then(a, b, p1, p2);
  };
}

const exceedMemoryRequests = (usage: PodWorkingSet): Cmp =>
  withStats(usage, (a, b, p1, p2) => cmpBool(a > podMemoryRequestBytes(p1), b > podMemoryRequestBytes(p2)));

/** corev1helpers.PodPriority: spec.priority, 0 when unset; the lower is evicted first. */
const priority: Cmp = (p1, p2) => Math.sign((p1.spec?.priority ?? 0) - (p2.spec?.priority ?? 0));

const memoryAboveRequests = (usage: PodWorkingSet): Cmp =>
  withStats(usage, (a, b, p1, p2) => Math.sign((b - podMemoryRequestBytes(p2)) - (a - podMemoryRequestBytes(p1))));

/** The pods in eviction order (a new array; ties keep their order). */
export function rankMemoryPressure(pods: readonly Pod[], usage: PodWorkingSet): Pod[] {
  const cmps = [exceedMemoryRequests(usage), priority, memoryAboveRequests(usage)];
  return [...pods].sort((a, b) => {
    for (const cmp of cmps) {
      const r = cmp(a, b);
      if (r !== 0) return r;
    }
    return 0;
  });
}

/** scheduling.SystemCriticalPriority: pods at or above it are critical. */
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/**
 * kubelettypes.IsCriticalPod: a static pod, a mirror pod, or a pod of
 * system-critical priority; the eviction manager never evicts those.
 */
export function isCriticalPod(pod: Pod): boolean {
  const annotations = pod.metadata?.annotations ?? {};
  const source = annotations['kubernetes.io/config.source'];
  if (source !== undefined && source !== 'api') return true;
  if (annotations['kubernetes.io/config.mirror'] !== undefined) return true;
  return (pod.spec?.priority ?? 0) >= SYSTEM_CRITICAL_PRIORITY;
}
