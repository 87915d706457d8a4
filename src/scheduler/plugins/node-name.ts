import type { Plugin } from '../framework.js';
import { SUCCESS, unresolvable } from '../status.js';

export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name";

/** NodeName: a pod naming a node fits only there. */
export function nodeName(): Plugin {
  return {
    name: 'NodeName',
    events: ['NodeAdd'],
    filter(_s, pod, node) {
      const want = pod.pod.spec?.nodeName;
      return !want || want === node.name ? SUCCESS : unresolvable(ERR_REASON_NODE_NAME);
    },
  };
}
