/**
 * The eviction manager's pod admission (eviction_manager.go Admit): under
 * memory pressure alone a node still admits critical pods, pods that are
 * not BestEffort, and BestEffort pods tolerating the memory-pressure taint;
 * it rejects the rest with reason Evicted and the node condition message.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { getPodQOS } from '../../../meta/pod-qos.js';
import { toleratesTaint } from '../../../meta/tolerations.js';
import { EVICTED_REASON } from './message.js';
import { isCriticalPod } from './ranking.js';

const MEMORY_PRESSURE_TAINT = { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' };

/** undefined when admitted; else the rejection (the kubelet prefixes the message with "Pod was rejected: "). */
export function evictionAdmission(pod: Pod, underMemoryPressure: boolean): { reason: string; message: string } | undefined {
  if (!underMemoryPressure || isCriticalPod(pod)) return undefined;
  if (getPodQOS(pod) !== 'BestEffort') return undefined;
  if ((pod.spec?.tolerations ?? []).some((t) => toleratesTaint(t, MEMORY_PRESSURE_TAINT))) return undefined;
  // nodeConditionMessageFmt with the conditions as Go prints a []NodeConditionType.
  return { reason: EVICTED_REASON, message: 'The node had condition: [MemoryPressure]. ' };
}
