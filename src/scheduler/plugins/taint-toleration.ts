import { MAX_NODE_SCORE, type Plugin } from '../framework.js';
import { SUCCESS, unresolvable, type Status } from '../status.js';
import { findUntoleratedTaint } from './helpers.js';
import { HARD_TAINT_EFFECTS } from '../node-info.js';
import { toleratesTaint } from '../../meta/tolerations.js';
import { defaultNormalizeScore } from './normalize.js';

/**
 * TaintToleration: NoSchedule/NoExecute taints the pod does not tolerate
 * reject the node; untolerated PreferNoSchedule taints lower its score.
 */
/**
 * One status per distinct taint, naming the plugin (filters reject many nodes
 * per cycle with the same few), found first by the taint object itself (a
 * node's taints stay the same objects until the node changes).
 */
const byTaint = new Map<string, Status>();
const byTaintObject = new WeakMap<object, Status>();
function rejected(taint: any): Status {
  const known = typeof taint === 'object' && taint !== null ? byTaintObject.get(taint) : undefined;
  if (known) return known;
  const reason = `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
  let s = byTaint.get(reason);
  if (!s) {
    if (byTaint.size > 1000) byTaint.clear();
    byTaint.set(reason, s = Object.freeze({ ...unresolvable(reason), plugin: 'TaintToleration' }) as Status);
  }
  if (typeof taint === 'object' && taint !== null) byTaintObject.set(taint, s);
  return s;
}

export function taintToleration(): Plugin {
  return {
    name: 'TaintToleration',
    events: ['NodeAdd', 'NodeUpdate'],
    filter(_s, pod, node) {
      if (!node.hardTaints.length) return SUCCESS;
      const taint = findUntoleratedTaint(node.hardTaints, pod.tolerations, HARD_TAINT_EFFECTS);
      if (!taint) return SUCCESS;
      return rejected(taint);
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
