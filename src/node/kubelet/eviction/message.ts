/**
 * The text an evicted pod carries in status.message, its `Evicted` event and
 * its DisruptionTarget condition (helpers.go evictionMessage), each fragment
 * with its trailing space as upstream writes it:
 *
 *   The node was low on resource: memory. Threshold quantity: 100Mi, available: 28Mi.
 *   Container app was using 1200Mi, request is 64Mi, has larger consumption of memory.
 *
 * Only regular containers whose working set is above their own memory
 * request are named, in the order of the pod's stats.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { formatQuantity, parseQuantity } from '../../../apimachinery/quantity.js';
import { parseBytes } from '../../quantity.js';
import type { PodStats } from '../../kubelet-server/stats-summary.js';
import { binaryQuantity } from './thresholds.js';

export const EVICTED_REASON = 'Evicted';

/** The threshold's quantity and what was available, both as quantities' text. */
export interface ThresholdMetInfo { quantity: string; available: string }

/** requests.String() of a container's memory request; "0" when it has none. */
function requestText(request: string | number | undefined): string {
  return request === undefined ? '0' : formatQuantity(parseQuantity(request));
}

function requestBytes(request: string | number | undefined): number {
  return request === undefined ? 0 : parseBytes(request);
}

export function evictionMessage(pod: Pod, stats: PodStats | undefined, threshold: ThresholdMetInfo | undefined): string {
  let message = 'The node was low on resource: memory. ';
  if (threshold) message += `Threshold quantity: ${threshold.quantity}, available: ${threshold.available}. `;
  if (!stats) return message;
  for (const cs of stats.containers) {
    const container = pod.spec?.containers.find((c) => c.name === cs.name);
    if (!container || !cs.memory) continue;
    const request = container.resources?.requests?.memory;
    const usage = cs.memory.workingSetBytes;
    if (usage > requestBytes(request)) {
      message += `Container ${container.name} was using ${binaryQuantity(usage)}, request is ${requestText(request)}, has larger consumption of memory. `;
    }
  }
  return message;
}
