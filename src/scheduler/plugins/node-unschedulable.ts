import type { Plugin } from '../framework.js';
import { SUCCESS, unresolvable } from '../status.js';
import { tolerationsTolerateTaint } from './helpers.js';

export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
const UNSCHEDULABLE_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

/** NodeUnschedulable: cordoned nodes, unless the pod tolerates the unschedulable taint. */
export function nodeUnschedulable(): Plugin {
  return {
    name: 'NodeUnschedulable',
    events: ['NodeAdd', 'NodeUpdate'],
    filter(_s, pod, node) {
      if (!node.unschedulable) return SUCCESS;
      if (tolerationsTolerateTaint(pod.tolerations, UNSCHEDULABLE_TAINT)) return SUCCESS;
      return unresolvable(ERR_REASON_UNSCHEDULABLE);
    },
  };
}
