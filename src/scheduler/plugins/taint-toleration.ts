import { MAX_NODE_SCORE, type Plugin } from '../framework.js';
import { SUCCESS, unresolvable } from '../status.js';
import { findUntoleratedTaint, toleratesTaint } from './helpers.js';
import { defaultNormalizeScore } from './normalize.js';

/**
 * TaintToleration: NoSchedule/NoExecute taints the pod does not tolerate
 * reject the node; untolerated PreferNoSchedule taints lower its score.
 */
export function taintToleration(): Plugin {
  return {
    name: 'TaintToleration',
    events: ['NodeAdd', 'NodeUpdate'],
    filter(_s, pod, node) {
      const taint = findUntoleratedTaint(node.taints, pod.tolerations, ['NoSchedule', 'NoExecute']);
      if (!taint) return SUCCESS;
      return unresolvable(`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`);
    },
    preScore(state, pod) {
      // getAllTolerationPreferNoSchedule: tolerations with an empty or PreferNoSchedule effect.
      state.set('TaintToleration', pod.tolerations.filter((t) => !t?.effect || t.effect === 'PreferNoSchedule'));
      return SUCCESS;
    },
    score(state, _pod, node) {
      const tolerations = (state.get('TaintToleration') as any[] | undefined) ?? [];
      let count = 0;
      for (const taint of node.taints) {
        if (taint?.effect !== 'PreferNoSchedule') continue;
        if (!tolerations.some((t) => toleratesTaint(t, taint))) count++;
      }
      return count;
    },
    normalizeScore(_s, _pod, scores) { defaultNormalizeScore(MAX_NODE_SCORE, true, scores); },
  };
}
