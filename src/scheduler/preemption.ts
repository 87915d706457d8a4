/**
 * DefaultPreemption (pkg/scheduler/framework/preemption and plugins
 * /defaultpreemption, v1.32): when no node fits, find nodes where removing
 * lower-priority pods would make room, keep as many of those pods as
 * possible (PodDisruptionBudget-protected ones first), and pick the node whose
 * victims matter least.
 */
import { fromLabelSelector } from '../selectors/labels.js';
import { fitErrorMessage, type Diagnosis, type Framework, type NodeToStatus, type Snapshot } from './framework.js';
import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';
import { Code, unresolvable, type Status } from './status.js';

export const NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const NO_VICTIMS = 'No preemption victims found for incoming pod';

export interface Candidate { node: string; victims: PodInfo[]; numPDBViolations: number }
export interface PreemptionResult {
  /** Set when a node was chosen: the victims to evict and the pod's nominated node. */
  candidate?: Candidate;
  /** The PostFilter message ("preemption: ..."), empty on success. */
  message: string;
  /** No node can be made to fit: status.nominatedNodeName is cleared (NewPostFilterResultWithNominatedNode("")). */
  clearNominated?: boolean;
}

function statusOf(m: NodeToStatus, node: string): Status | undefined {
  return m.statuses.get(node) ?? m.absent;
}

/** podTerminatingByPreemption: being deleted after a DisruptionTarget condition the scheduler set. */
function terminatingByPreemption(p: PodInfo): boolean {
  if (!p.terminating) return false;
  return (p.pod.status?.conditions ?? []).some((c: any) => c?.type === 'DisruptionTarget' && c?.status === 'True' && c?.reason === 'PreemptionByScheduler');
}

/** PodEligibleToPreemptOthers. */
export function eligibleToPreempt(pod: PodInfo, snap: Snapshot, m: NodeToStatus): { ok: boolean; msg: string } {
  if (pod.pod.spec?.preemptionPolicy === 'Never') return { ok: false, msg: 'not eligible due to preemptionPolicy=Never.' };
  const nominated = pod.pod.status?.nominatedNodeName;
  if (nominated) {
    const s = statusOf(m, nominated);
    if (s?.code === Code.Unschedulable) {
      const n = snap.get(nominated);
      for (const p of n?.pods.values() ?? []) {
        if (p.priority < pod.priority && terminatingByPreemption(p)) return { ok: false, msg: 'not eligible due to a terminating pod on the nominated node.' };
      }
    }
  }
  return { ok: true, msg: '' };
}

/** util.MoreImportantPod: higher priority, then the one started earlier. */
function moreImportant(a: PodInfo, b: PodInfo): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  const sa = a.pod.status?.startTime, sb = b.pod.status?.startTime;
  if (!sa || !sb) return !!sa && !sb;
  return sa < sb;
}

/** filterPodsWithPDBViolation: victims whose eviction a PodDisruptionBudget would not allow. */
function splitByPDB(victims: PodInfo[], pdbs: readonly any[]): { violating: PodInfo[]; nonViolating: PodInfo[] } {
  const budgets = pdbs.map((pdb) => ({
    pdb, allowed: Number(pdb.status?.disruptionsAllowed ?? 0),
    selector: pdb.spec?.selector ? fromLabelSelector(pdb.spec.selector) : undefined,
  }));
  const violating: PodInfo[] = [], nonViolating: PodInfo[] = [];
  for (const v of victims) {
    let violates = false;
    for (const b of budgets) {
      if (b.pdb.metadata?.namespace !== v.namespace) continue;
      const sel = b.selector;
      if (!sel || sel.empty() || !sel.matches(v.labels)) continue;
      if ((b.pdb.status?.disruptedPods ?? {})[v.name]) continue;
      b.allowed--;
      if (b.allowed < 0) violates = true;
    }
    (violates ? violating : nonViolating).push(v);
  }
  return { violating, nonViolating };
}

/** A snapshot in which one node is replaced (victims removed). */
function withNode(snap: Snapshot, node: NodeInfo): Snapshot {
  const nodes = snap.nodes.map((n) => (n.name === node.name ? node : n));
  return {
    nodes, nsLabels: snap.nsLabels, listers: snap.listers,
    nodesGeneration: -1, podsWithAffinity: snap.podsWithAffinity, podsWithRequiredAntiAffinity: snap.podsWithRequiredAntiAffinity,
    get: (name) => (name === node.name ? node : snap.get(name)),
    imageNodeCount: (i) => snap.imageNodeCount(i), nominated: (n) => snap.nominated(n),
    podChangeSeq: -1, forEachPodChangeSince: () => false,
  };
}

/** Filter run on a changed node, recomputing the PreFilter states that count pods. */
function fits(fw: Framework, pod: PodInfo, node: NodeInfo, snap: Snapshot, recompute: boolean, state: Map<string, unknown>, skipped: Set<string>): Status {
  if (!recompute) return fw.runFilterWithNominated(state, pod, node, snap, skipped);
  const view = withNode(snap, node);
  const st = new Map<string, unknown>();
  const pre = fw.runPreFilter(st, pod, view);
  if (pre.status.code !== Code.Success) return pre.status;
  return fw.runFilterWithNominated(st, pod, node, view, pre.skipped);
}

/** SelectVictimsOnNode. */
function selectVictims(fw: Framework, pod: PodInfo, original: NodeInfo, snap: Snapshot, pdbs: readonly any[],
  recompute: boolean, state: Map<string, unknown>, skipped: Set<string>): { victims?: PodInfo[]; violations: number; status: Status } {
  const node = original.clone();
  const potential: PodInfo[] = [];
  for (const p of [...node.pods.values()]) {
    if (p.priority < pod.priority) { potential.push(p); node.removePod(p.uid); }
  }
  if (!potential.length) return { violations: 0, status: unresolvable(NO_VICTIMS) };
  const first = fits(fw, pod, node, snap, recompute, state, skipped);
  if (first.code !== Code.Success) return { violations: 0, status: first };
  potential.sort((a, b) => (moreImportant(a, b) ? -1 : moreImportant(b, a) ? 1 : 0));
  const { violating, nonViolating } = splitByPDB(potential, pdbs);
  const victims: PodInfo[] = [];
  let violations = 0;
  const reprieve = (p: PodInfo): boolean => {
    node.addPod(p);
    if (fits(fw, pod, node, snap, recompute, state, skipped).code === Code.Success) return true;
    node.removePod(p.uid);
    victims.push(p);
    return false;
  };
  for (const p of violating) if (!reprieve(p)) violations++;
  for (const p of nonViolating) reprieve(p);
  return { victims, violations, status: { code: Code.Success, reasons: [] } };
}

/** pickOneNodeForPreemption: fewest PDB violations, lowest top victim, lowest priority sum, fewest victims, latest start. */
function pickOne(cands: Candidate[]): Candidate | undefined {
  const crit: ((c: Candidate) => number)[] = [
    (c) => -c.numPDBViolations,
    (c) => -(c.victims.length ? Math.max(...c.victims.map((v) => v.priority)) : -Infinity),
    (c) => -c.victims.reduce((s, v) => s + v.priority + 2 ** 31, 0),
    (c) => -c.victims.length,
    (c) => {
      const top = Math.max(...c.victims.map((v) => v.priority));
      const starts = c.victims.filter((v) => v.priority === top).map((v) => Date.parse(v.pod.status?.startTime ?? '') || 0);
      return Math.min(...starts);
    },
  ];
  let best = cands;
  for (const f of crit) {
    if (best.length === 1) break;
    const max = Math.max(...best.map(f));
    best = best.filter((c) => f(c) === max);
  }
  return best[0];
}

/** Evaluator.Preempt up to choosing the candidate; the caller evicts the victims. */
export function preempt(fw: Framework, pod: PodInfo, snap: Snapshot, diagnosis: Diagnosis, pdbs: readonly any[],
  random: () => number = Math.random): PreemptionResult {
  const m = diagnosis.nodeToStatus;
  const eligible = eligibleToPreempt(pod, snap, m);
  if (!eligible.ok) return { message: `preemption: ${eligible.msg}` };
  const statuses = new Map<string, Status>();
  const potential: NodeInfo[] = [];
  for (const n of snap.nodes) {
    // nodesWherePreemptionMightHelp: only nodes rejected as Unschedulable.
    if (statusOf(m, n.name)?.code === Code.UnschedulableAndUnresolvable) statuses.set(n.name, unresolvable(NOT_HELPFUL));
    else potential.push(n);
  }
  const candidates: Candidate[] = [];
  if (potential.length) {
    const state = new Map<string, unknown>();
    const pre = fw.runPreFilter(state, pod, snap);
    const recompute = fw.preFilterPlugins.some((p) => p.podDependentPreFilter && !pre.skipped.has(p.name));
    // calculateNumCandidates: 10% of the nodes, at least 100.
    let want = Math.trunc(potential.length * 10 / 100);
    if (want < 100) want = 100;
    if (want > potential.length) want = potential.length;
    const offset = Math.floor(random() * potential.length);
    for (let i = 0; i < potential.length && candidates.length < want; i++) {
      const n = potential[(offset + i) % potential.length];
      if (!n) continue;
      const r = selectVictims(fw, pod, n, snap, pdbs, recompute, state, pre.skipped);
      if (r.status.code === Code.Success && r.victims) candidates.push({ node: n.name, victims: r.victims, numPDBViolations: r.violations });
      else statuses.set(n.name, r.status);
    }
  }
  const candidate = pickOne(candidates);
  if (!candidate) {
    const msg = fitErrorMessage(snap.nodes.length, { nodeToStatus: { statuses }, unschedulablePlugins: new Set(), preFilterMsg: '', postFilterMsg: '' });
    return { message: `preemption: ${msg}`, clearNominated: true };
  }
  return { candidate, message: '' };
}
