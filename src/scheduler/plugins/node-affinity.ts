import { MAX_NODE_SCORE, type Plugin } from '../framework.js';
import { Code, SKIP, SUCCESS, unresolvable } from '../status.js';
import { nodeSelectorTermMatches, requiredNodeAffinityMatches } from './helpers.js';
import { defaultNormalizeScore } from './normalize.js';

export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";
export const ERR_REASON_CONFLICT = 'pod affinity terms conflict';
const REJECTED = Object.freeze({ ...unresolvable(ERR_REASON_POD), plugin: 'NodeAffinity' });

/**
 * The node names the required terms pin the pod to (NodeAffinity.PreFilter):
 * each term's `metadata.name In` fields intersected, the terms united; undefined
 * when a term has none (any node may match it), as for every pod but a
 * DaemonSet's.
 */
export function requiredNodeNames(terms: readonly any[]): Set<string> | undefined {
  let names: Set<string> | undefined;
  for (const t of terms) {
    let termNames: Set<string> | undefined;
    for (const r of t?.matchFields ?? []) {
      if (r?.key !== 'metadata.name' || r?.operator !== 'In') continue;
      const values = new Set<string>(Array.isArray(r.values) ? r.values : []);
      if (!termNames) termNames = values;
      else for (const v of termNames) if (!values.has(v)) termNames.delete(v);
    }
    if (!termNames) return undefined;
    if (!names) names = termNames;
    else for (const v of termNames) names.add(v);
  }
  return names;
}

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
      // An empty nodeSelector is nil once stored (protobuf drops empty maps), which upstream's check sees.
      const hasSelector = spec.nodeSelector && Object.keys(spec.nodeSelector).length > 0;
      const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
      if (!hasSelector && required == null) return SKIP;
      const terms = required?.nodeSelectorTerms;
      if (!Array.isArray(terms) || terms.length === 0) return SUCCESS;
      const nodeNames = requiredNodeNames(terms);
      if (!nodeNames) return SUCCESS;
      // Every term names nodes, but none satisfies all its own name fields: no node can match.
      if (nodeNames.size === 0) return unresolvable(ERR_REASON_CONFLICT);
      return { code: Code.Success, reasons: [], nodeNames };
    },
    filter(_s, pod, node) {
      return requiredNodeAffinityMatches(pod.pod, node.node) ? SUCCESS : REJECTED;
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
