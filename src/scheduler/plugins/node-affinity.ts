import { MAX_NODE_SCORE, type Plugin } from '../framework.js';
import { SKIP, SUCCESS, unresolvable } from '../status.js';
import { nodeSelectorTermMatches, requiredNodeAffinityMatches } from './helpers.js';
import { defaultNormalizeScore } from './normalize.js';

export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";

/**
 * NodeAffinity: spec.nodeSelector and the required node affinity filter
 * (`kubernetes.io/os`, `node.kubernetes.io/windows-build`, ...); preferred
 * terms add their weights to the score.
 */
export function nodeAffinity(): Plugin {
  return {
    name: 'NodeAffinity',
    events: ['NodeAdd', 'NodeUpdate'],
    preFilter(_s, pod) {
      const spec = pod.pod.spec ?? {};
      const hasSelector = spec.nodeSelector && Object.keys(spec.nodeSelector).length > 0;
      if (!hasSelector && spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution == null) return SKIP;
      return SUCCESS;
    },
    filter(_s, pod, node) {
      return requiredNodeAffinityMatches(pod.pod, node.node) ? SUCCESS : unresolvable(ERR_REASON_POD);
    },
    preScore(_s, pod) {
      const preferred = pod.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
      return Array.isArray(preferred) && preferred.length ? SUCCESS : SKIP;
    },
    score(_s, pod, node) {
      let count = 0;
      for (const t of pod.pod.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution) {
        if (t?.weight && nodeSelectorTermMatches(t.preference, node.node)) count += Number(t.weight);
      }
      return count;
    },
    normalizeScore(_s, _pod, scores) { defaultNormalizeScore(MAX_NODE_SCORE, false, scores); },
  };
}
