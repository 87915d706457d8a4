import { fromLabelSelector, type LabelSelector } from '../../selectors/labels.js';
import { MAX_NODE_SCORE, type Plugin, type Snapshot } from '../framework.js';
import { HARD_TAINT_EFFECTS, type NodeInfo } from '../node-info.js';
import type { PodInfo } from '../pod-info.js';
import { SKIP, SUCCESS, unresolvable, unschedulable } from '../status.js';
import { findUntoleratedTaint, requiredNodeAffinityMatches } from './helpers.js';

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + ' (missing required label)';
const HOSTNAME = 'kubernetes.io/hostname';

export interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector?: LabelSelector;
  minDomains: number;
  nodeAffinityPolicy: 'Honor' | 'Ignore';
  nodeTaintsPolicy: 'Honor' | 'Ignore';
}

export interface PodTopologySpreadArgs {
  defaultConstraints?: { maxSkew: number; topologyKey: string; whenUnsatisfiable: string }[];
  defaultingType?: 'System' | 'List';
}

/** The system default constraints (ScheduleAnyway, so they only score). */
export const SYSTEM_DEFAULT_CONSTRAINTS = [
  { maxSkew: 3, topologyKey: HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway' },
  { maxSkew: 5, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
];

/** filterTopologySpreadConstraints: the pod's constraints of one kind, with matchLabelKeys merged into the selector. */
function podConstraints(pod: PodInfo, action: string): Constraint[] {
  const out: Constraint[] = [];
  for (const c of pod.pod.spec?.topologySpreadConstraints ?? []) {
    if (c?.whenUnsatisfiable !== action) continue;
    let sel = c.labelSelector;
    const keys: string[] = (c.matchLabelKeys ?? []).filter((k: string) => k in pod.labels);
    if (keys.length) {
      sel = { ...(sel ?? {}), matchExpressions: [...(sel?.matchExpressions ?? []), ...keys.map((k) => ({ key: k, operator: 'In', values: [pod.labels[k]] }))] };
    }
    out.push({
      maxSkew: Number(c.maxSkew ?? 1), topologyKey: c.topologyKey, selector: sel == null ? undefined : fromLabelSelector(sel),
      minDomains: Number(c.minDomains ?? 1), nodeAffinityPolicy: c.nodeAffinityPolicy ?? 'Honor', nodeTaintsPolicy: c.nodeTaintsPolicy ?? 'Ignore',
    });
  }
  return out;
}

function isEmptySelector(s: LabelSelector | undefined): boolean { return !s || s.empty(); }

/** countPodsMatchSelector: non-terminating pods of the namespace matching the selector; none for an empty one. */
export function countPodsMatchSelector(node: NodeInfo, selector: LabelSelector | undefined, namespace: string): number {
  if (isEmptySelector(selector)) return 0;
  let n = 0;
  for (const p of node.pods.values()) {
    if (p.terminating || p.namespace !== namespace) continue;
    if (selector!.matches(p.labels)) n++;
  }
  return n;
}

function nodeHasAllKeys(node: NodeInfo, cs: Constraint[]): boolean {
  for (const c of cs) if (!(c.topologyKey in node.labels)) return false;
  return true;
}

/** Constraint.MatchNodeInclusionPolicies. */
function includesNode(c: Constraint, pod: PodInfo, node: NodeInfo): boolean {
  if (c.nodeAffinityPolicy === 'Honor' && !requiredNodeAffinityMatches(pod.pod, node.node)) return false;
  if (c.nodeTaintsPolicy === 'Honor' && findUntoleratedTaint(node.hardTaints, pod.tolerations, HARD_TAINT_EFFECTS)) return false;
  return true;
}

/** One DoNotSchedule constraint as the filter checks it. */
interface FilterConstraint {
  c: Constraint;
  /** Matching pods per domain. */
  counts: Map<string, number>;
  /** The smallest domain count (the critical path's MatchNum; 0 below minDomains), and whether the pod matches its own selector. */
  minMatch: number;
  selfMatch: number;
}

/**
 * Adds a node's matching pods (or their change) per constraint to its domain
 * of that constraint ('\0': the constraint does not count the node). A domain
 * is there once a node of it is counted, even with no matching pod.
 */
function addToDomains(counts: Map<string, number>[], values: readonly string[] | undefined, added: readonly number[],
  removed?: readonly number[]): void {
  // An indexed loop without closures: this runs for every changed node of every cycle.
  for (let i = 0; i < counts.length; i++) {
    const v = values?.[i];
    const domains = counts[i];
    if (v === undefined || v === '\0' || !domains) continue;
    const change = (added[i] ?? 0) - (removed?.[i] ?? 0);
    if (change !== 0 || !domains.has(v)) domains.set(v, (domains.get(v) ?? 0) + change);
  }
}

interface Eligible { gen: number; key: string; nodes: NodeInfo[]; values: string[][]; index?: Map<NodeInfo, number> }

/**
 * Domain counts of one shape of pod (eligible nodes, namespace, selectors),
 * kept from cycle to cycle: only nodes whose pods changed since are counted
 * again, and their difference applied, so the sums equal a full recount.
 */
interface DomainCounts { eligible: Eligible; seq: number; perNode: Map<NodeInfo, number[]>; counts: Map<string, number>[] }
/** One ScheduleAnyway constraint as scoring weighs it. */
interface ScoreConstraint {
  c: Constraint; counts: Map<string, number>; weight: number;
  /** The matching pods per node (from the pod index), when the snapshot has one. */
  perNode?: Map<NodeInfo, number>;
}
interface ScoreState { constraints: ScoreConstraint[]; ignored: Set<string> }

/**
 * Per constraint, countPodsMatchSelector of every node of the snapshot that
 * has a matching pod (the others count 0), from the pod index; constraints
 * sharing a selector (the system defaults) share the count.
 */
function podsPerNode(constraints: Constraint[], namespace: string, snap: Snapshot): Map<NodeInfo, number>[] {
  const bySelector = new Map<LabelSelector | undefined, Map<NodeInfo, number>>();
  return constraints.map((c) => {
    let m = bySelector.get(c.selector);
    if (m) return m;
    m = new Map();
    bySelector.set(c.selector, m);
    const sel = c.selector;
    if (isEmptySelector(sel)) return m;
    const out = m;
    snap.podIndex!.forEachCandidate(namespace, sel!, (p, node) => {
      if (p.terminating || !sel!.matches(p.labels)) return;
      // A pod on a node the snapshot does not list (its Node not seen yet, or deleted) is not counted, as the scan does not visit it.
      if (snap.get(node.name) !== node) return;
      out.set(node, (out.get(node) ?? 0) + 1);
    });
    return m;
  });
}

/**
 * PodTopologySpread: DoNotSchedule constraints filter on skew against the
 * least-loaded domain; ScheduleAnyway ones (and the system defaults, built
 * from the Services and controllers selecting the pod) score.
 */
export function podTopologySpread(args: PodTopologySpreadArgs = {}): Plugin {
  const systemDefaulted = (args.defaultingType ?? 'System') === 'System';
  const defaults = systemDefaulted ? SYSTEM_DEFAULT_CONSTRAINTS : (args.defaultConstraints ?? []);

  function constraintsFor(pod: PodInfo, action: 'DoNotSchedule' | 'ScheduleAnyway', snapSelector: () => LabelSelector | undefined): Constraint[] {
    if ((pod.pod.spec?.topologySpreadConstraints ?? []).length) return podConstraints(pod, action);
    // buildDefaultConstraints: only when a Service or controller selects the pod.
    const wanted = defaults.filter((d) => d.whenUnsatisfiable === action);
    if (!wanted.length) return [];
    const selector = snapSelector();
    if (isEmptySelector(selector)) return [];
    return wanted.map((d) => ({ maxSkew: d.maxSkew, topologyKey: d.topologyKey, selector, minDomains: 1, nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore' }));
  }

  /**
   * The nodes a pod's hard constraints count, with each constraint's domain,
   * by what decides them (the pod's node selector and affinity, tolerations,
   * the constraints' keys and policies), until the node set changes: pods of
   * one workload share it, so each cycle only counts pods.
   */
  const eligibleCache = new Map<string, Eligible>();
  function eligibleNodes(pod: PodInfo, constraints: Constraint[], snap: Snapshot): Eligible {
    const key = JSON.stringify([pod.pod.spec?.nodeSelector, pod.pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
      constraints.some((c) => c.nodeTaintsPolicy === 'Honor') ? pod.tolerations : null,
      constraints.map((c) => [c.topologyKey, c.nodeAffinityPolicy, c.nodeTaintsPolicy])]);
    const hit = snap.nodesGeneration >= 0 ? eligibleCache.get(key) : undefined;
    if (hit && hit.gen === snap.nodesGeneration) return hit;
    const out: Eligible = { gen: snap.nodesGeneration, key, nodes: [], values: [] };
    for (const node of snap.nodes) {
      if (!nodeHasAllKeys(node, constraints)) continue;
      // A constraint whose inclusion policy leaves the node out gets no domain value ('' is never a label value here).
      const values = constraints.map((c) => (includesNode(c, pod, node) ? node.labels[c.topologyKey] ?? '\0' : '\0'));
      out.nodes.push(node);
      out.values.push(values);
    }
    if (snap.nodesGeneration >= 0) {
      if (eligibleCache.size > 64) eligibleCache.clear();
      eligibleCache.set(key, out);
    }
    return out;
  }

  function countNode(node: NodeInfo, constraints: Constraint[], namespace: string): number[] {
    return constraints.map((c) => (node.pods.size ? countPodsMatchSelector(node, c.selector, namespace) : 0));
  }

  /** calPreFilterState's TpPairToMatchNum: per constraint, matching pods per domain of the eligible nodes. */
  function fullCount(eligible: Eligible, constraints: Constraint[], namespace: string, perNode?: Map<NodeInfo, number[]>): Map<string, number>[] {
    const counts = constraints.map(() => new Map<string, number>());
    for (let n = 0; n < eligible.nodes.length; n++) {
      const node = eligible.nodes[n];
      if (!node) continue;
      const own = countNode(node, constraints, namespace);
      perNode?.set(node, own);
      addToDomains(counts, eligible.values[n], own);
    }
    return counts;
  }

  const countsCache = new Map<string, DomainCounts>();
  function domainCounts(pod: PodInfo, constraints: Constraint[], snap: Snapshot): Map<string, number>[] {
    const eligible = eligibleNodes(pod, constraints, snap);
    if (snap.nodesGeneration < 0 || snap.podChangeSeq < 0) return fullCount(eligible, constraints, pod.namespace);
    const key = `${eligible.key}\n${pod.namespace}\n${JSON.stringify(constraints.map((c) => c.selector?.requirements ?? null))}`;
    const hit = countsCache.get(key);
    if (hit && hit.eligible === eligible) {
      const index = eligible.index ??= new Map(eligible.nodes.map((n, i) => [n, i]));
      const caughtUp = snap.forEachPodChangeSince(hit.seq, (node) => {
        const at = index.get(node);
        if (at === undefined) return;
        const own = countNode(node, constraints, pod.namespace);
        addToDomains(hit.counts, eligible.values[at], own, hit.perNode.get(node));
        hit.perNode.set(node, own);
      });
      if (caughtUp) { hit.seq = snap.podChangeSeq; return hit.counts; }
    }
    const perNode = new Map<NodeInfo, number[]>();
    const entry: DomainCounts = { eligible, seq: snap.podChangeSeq, perNode, counts: fullCount(eligible, constraints, pod.namespace, perNode) };
    if (countsCache.size > 64) countsCache.clear();
    countsCache.set(key, entry);
    return entry.counts;
  }

  return {
    name: 'PodTopologySpread',
    events: ['NodeAdd', 'NodeUpdate', 'AssignedPodAdd', 'AssignedPodUpdate', 'AssignedPodDelete'],
    podDependentPreFilter: true,
    preFilter(state, pod, snap) {
      const constraints = constraintsFor(pod, 'DoNotSchedule', () => snap.listers.defaultSelector(pod));
      if (!constraints.length) return SKIP;
      const counts = domainCounts(pod, constraints, snap);
      const checks = constraints.map((c, i): FilterConstraint => {
        const domains = counts[i] ?? new Map<string, number>();
        let min = Infinity;
        if (domains.size >= c.minDomains) for (const n of domains.values()) if (n < min) min = n;
        return { c, counts: domains, minMatch: min === Infinity ? 0 : min, selfMatch: c.selector?.matches(pod.labels) ? 1 : 0 };
      });
      state.set('PodTopologySpread/filter', checks);
      return SUCCESS;
    },
    filter(state, _pod, node) {
      const checks = state.get('PodTopologySpread/filter') as FilterConstraint[];
      for (let i = 0; i < checks.length; i++) {
        const check = checks[i];
        if (!check) continue;
        const value = node.labels[check.c.topologyKey];
        if (value === undefined) return unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
        const skew = (check.counts.get(value) ?? 0) + check.selfMatch - check.minMatch;
        if (skew > check.c.maxSkew) return unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
      }
      return SUCCESS;
    },
    preScore(state, pod, filtered, snap) {
      const constraints = constraintsFor(pod, 'ScheduleAnyway', () => snap.listers.defaultSelector(pod));
      if (!constraints.length) return SKIP;
      const requireAll = (pod.pod.spec?.topologySpreadConstraints ?? []).length > 0 || !systemDefaulted;
      const ignored = new Set<string>();
      const scoring = constraints.map((c): ScoreConstraint => ({ c, counts: new Map(), weight: 0 }));
      // The domains of the filtered nodes (a node without the key is in domain "", as a missing Go map entry reads).
      for (const node of filtered) {
        if (requireAll && !nodeHasAllKeys(node, constraints)) { ignored.add(node.name); continue; }
        for (const { c, counts } of scoring) {
          if (c.topologyKey === HOSTNAME) continue;
          const v = node.labels[c.topologyKey] ?? '';
          if (!counts.has(v)) counts.set(v, 0);
        }
      }
      for (const sc of scoring) sc.weight = Math.log((sc.c.topologyKey === HOSTNAME ? filtered.length - ignored.size : sc.counts.size) + 2);
      const perNode = snap.podChangeSeq >= 0 && snap.podIndex ? podsPerNode(constraints, pod.namespace, snap) : undefined;
      if (perNode) {
        // Only nodes with a matching pod add to a domain: the same sums as the scan below, from the index.
        scoring.forEach((sc, i) => {
          sc.perNode = perNode[i];
          if (sc.c.topologyKey === HOSTNAME) return;
          for (const [node, n] of sc.perNode ?? []) {
            if (requireAll && !nodeHasAllKeys(node, constraints)) continue;
            if (!includesNode(sc.c, pod, node)) continue;
            const v = node.labels[sc.c.topologyKey] ?? '';
            const cur = sc.counts.get(v);
            if (cur !== undefined) sc.counts.set(v, cur + n);
          }
        });
      } else {
        for (const node of snap.nodes) {
          if (requireAll && !nodeHasAllKeys(node, constraints)) continue;
          for (const { c, counts } of scoring) {
            if (!includesNode(c, pod, node)) continue;
            const v = node.labels[c.topologyKey] ?? '';
            const cur = counts.get(v);
            if (cur === undefined) continue;
            counts.set(v, cur + countPodsMatchSelector(node, c.selector, pod.namespace));
          }
        }
      }
      state.set('PodTopologySpread/score', { constraints: scoring, ignored } satisfies ScoreState);
      return SUCCESS;
    },
    score(state, pod, node) {
      const s = state.get('PodTopologySpread/score') as ScoreState;
      if (s.ignored.size && s.ignored.has(node.name)) return 0;
      let score = 0;
      for (const { c, counts, weight, perNode } of s.constraints) {
        const v = node.labels[c.topologyKey];
        if (v === undefined) continue;
        const cnt = c.topologyKey !== HOSTNAME ? (counts.get(v) ?? 0)
          : perNode ? (perNode.get(node) ?? 0) : countPodsMatchSelector(node, c.selector, pod.namespace);
        score += cnt * weight + (c.maxSkew - 1);
      }
      // math.Round: halves away from zero.
      return Math.sign(score) * Math.round(Math.abs(score));
    },
    normalizeScore(state, _pod, scores, nodes) {
      const s = state.get('PodTopologySpread/score') as ScoreState;
      // Indexed, without callbacks: this runs over every feasible node of every cycle.
      const scored = (i: number) => { const n = nodes[i]; return !!n && !(s.ignored.size && s.ignored.has(n.name)); };
      let min = Number.MAX_SAFE_INTEGER, max = 0;
      for (let i = 0; i < scores.length; i++) {
        const v = scores[i] ?? 0;
        if (!scored(i)) continue;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      for (let i = 0; i < scores.length; i++) {
        if (!scored(i)) scores[i] = 0;
        else if (max === 0) scores[i] = MAX_NODE_SCORE;
        else scores[i] = Math.trunc(MAX_NODE_SCORE * (max + min - (scores[i] ?? 0)) / max);
      }
    },
  };
}
