import { MAX_NODE_SCORE, type Plugin, type Snapshot } from '../framework.js';
import type { NodeInfo } from '../node-info.js';
import { termMatches, type AffinityTerm, type PodInfo } from '../pod-info.js';
import { SKIP, SUCCESS, unresolvable, unschedulable } from '../status.js';

export const ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";

type Counts = Map<string, number>;
const pair = (k: string, v: string) => `${k}\0${v}`;

interface FilterState { existingAnti: Counts; affinity: Counts; anti: Counts }

function bump(m: Counts, node: NodeInfo, key: string, by: number): void {
  const v = node.labels[key];
  if (v === undefined) return;
  const p = pair(key, v);
  const n = (m.get(p) ?? 0) + by;
  if (n === 0) m.delete(p); else m.set(p, n);
}

function matchesAll(terms: AffinityTerm[], pod: PodInfo, snap: Snapshot): boolean {
  if (!terms.length) return false;
  for (const t of terms) if (!termMatches(t, pod, snap.nsLabels)) return false;
  return true;
}

/**
 * InterPodAffinity: required pod affinity/anti-affinity of the incoming pod
 * and required anti-affinity of pods already placed, counted per topology
 * pair; preferred terms (both ways) and existing pods' required affinity score.
 */
export function interPodAffinity(args: { hardPodAffinityWeight?: number; ignorePreferredTermsOfExistingPods?: boolean } = {}): Plugin {
  const hardWeight = args.hardPodAffinityWeight ?? 1;
  return {
    name: 'InterPodAffinity',
    events: ['NodeAdd', 'NodeUpdate', 'AssignedPodAdd', 'AssignedPodUpdate', 'AssignedPodDelete', 'NamespaceChange'],
    podDependentPreFilter: true,
    preFilter(state, pod, snap) {
      if (!snap.podsWithRequiredAntiAffinity && !pod.requiredAffinity.length && !pod.requiredAntiAffinity.length) return SKIP;
      const existingAnti: Counts = new Map();
      if (snap.podsWithRequiredAntiAffinity) for (const node of snap.nodes) {
        if (!node.podsWithRequiredAntiAffinity.size) continue;
        for (const existing of node.podsWithRequiredAntiAffinity) {
          for (const t of existing.requiredAntiAffinity) if (termMatches(t, pod, snap.nsLabels)) bump(existingAnti, node, t.topologyKey, 1);
        }
      }
      if (!existingAnti.size && !pod.requiredAffinity.length && !pod.requiredAntiAffinity.length) return SKIP;
      const affinity: Counts = new Map(), anti: Counts = new Map();
      if (pod.requiredAffinity.length || pod.requiredAntiAffinity.length) {
        for (const node of snap.nodes) {
          for (const existing of node.pods.values()) {
            if (matchesAll(pod.requiredAffinity, existing, snap)) for (const t of pod.requiredAffinity) bump(affinity, node, t.topologyKey, 1);
            for (const t of pod.requiredAntiAffinity) if (termMatches(t, existing, snap.nsLabels)) bump(anti, node, t.topologyKey, 1);
          }
        }
      }
      state.set('InterPodAffinity/filter', { existingAnti, affinity, anti } satisfies FilterState);
      return SUCCESS;
    },
    filter(state, pod, node, snap) {
      const s = state.get('InterPodAffinity/filter') as FilterState;
      // satisfyPodAffinity
      let podsExist = true;
      for (const t of pod.requiredAffinity) {
        const v = node.labels[t.topologyKey];
        if (v === undefined) return unresolvable(ERR_REASON_AFFINITY);
        if ((s.affinity.get(pair(t.topologyKey, v)) ?? 0) <= 0) podsExist = false;
      }
      // The first pod of a group with affinity to itself may go anywhere with the topology keys.
      if (!podsExist && !(s.affinity.size === 0 && matchesAll(pod.requiredAffinity, pod, snap))) return unresolvable(ERR_REASON_AFFINITY);
      // satisfyPodAntiAffinity
      for (const t of pod.requiredAntiAffinity) {
        const v = node.labels[t.topologyKey];
        if (v !== undefined && (s.anti.get(pair(t.topologyKey, v)) ?? 0) > 0) return unschedulable(ERR_REASON_ANTI_AFFINITY);
      }
      // satisfyExistingPodsAntiAffinity
      if (s.existingAnti.size) {
        for (const k in node.labels) {
          const v = node.labels[k];
          if (v !== undefined && (s.existingAnti.get(pair(k, v)) ?? 0) > 0) return unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY);
        }
      }
      return SUCCESS;
    },
    preScore(state, pod, _filtered, snap) {
      const hasConstraints = pod.preferredAffinity.length > 0 || pod.preferredAntiAffinity.length > 0;
      if (args.ignorePreferredTermsOfExistingPods && !hasConstraints) return SKIP;
      if (!hasConstraints && !snap.podsWithAffinity) return SKIP;
      const scores = new Map<string, Map<string, number>>();
      const add = (t: AffinityTerm, weight: number, target: PodInfo, node: NodeInfo, mult: number) => {
        if (!termMatches(t, target, snap.nsLabels)) return;
        const v = node.labels[t.topologyKey];
        if (v === undefined) return;
        let m = scores.get(t.topologyKey);
        if (!m) scores.set(t.topologyKey, m = new Map());
        m.set(v, (m.get(v) ?? 0) + weight * mult);
      };
      for (const node of snap.nodes) {
        if (!hasConstraints && !node.podsWithAffinity.size) continue;
        if (Object.keys(node.labels).length === 0) continue;
        for (const existing of hasConstraints ? node.pods.values() : node.podsWithAffinity) {
          for (const t of pod.preferredAffinity) add(t, t.weight, existing, node, 1);
          for (const t of pod.preferredAntiAffinity) add(t, t.weight, existing, node, -1);
          if (hardWeight > 0) for (const t of existing.requiredAffinity) add(t, hardWeight, pod, node, 1);
          for (const t of existing.preferredAffinity) add(t, t.weight, pod, node, 1);
          for (const t of existing.preferredAntiAffinity) add(t, t.weight, pod, node, -1);
        }
      }
      if (!scores.size) return SKIP;
      state.set('InterPodAffinity/score', scores);
      return SUCCESS;
    },
    score(state, _pod, node) {
      const scores = state.get('InterPodAffinity/score') as Map<string, Map<string, number>>;
      let score = 0;
      for (const [k, values] of scores) {
        const v = node.labels[k];
        if (v !== undefined) score += values.get(v) ?? 0;
      }
      return score;
    },
    normalizeScore(_state, _pod, scores) {
      let min = Infinity, max = -Infinity;
      for (const s of scores) { if (s > max) max = s; if (s < min) min = s; }
      const diff = max - min;
      scores.forEach((s, i) => { scores[i] = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((s - min) / diff)) : 0; });
    },
  };
}
