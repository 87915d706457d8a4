import type { Plugin } from '../framework.js';
import { SKIP, SUCCESS, unschedulable } from '../status.js';

export const ERR_REASON_PORTS = "node(s) didn't have free ports for the requested pod ports";

/** NodePorts: a hostPort already taken on the node (same protocol, overlapping IP) rejects it. */
export function nodePorts(): Plugin {
  return {
    name: 'NodePorts',
    events: ['NodeAdd', 'AssignedPodDelete'],
    preFilter(_s, pod) { return pod.hostPorts.length ? SUCCESS : SKIP; },
    filter(_s, pod, node) {
      for (const want of pod.hostPorts) {
        for (const used of node.usedPorts) {
          if (used.port !== want.port || used.protocol !== want.protocol) continue;
          // HostPortInfo.CheckConflict: 0.0.0.0 conflicts with every address.
          if (used.ip === want.ip || used.ip === '0.0.0.0' || want.ip === '0.0.0.0') return unschedulable(ERR_REASON_PORTS);
        }
      }
      return SUCCESS;
    },
  };
}
