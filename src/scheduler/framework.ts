/**
 * The scheduling framework (pkg/scheduler/framework/runtime/framework.go and
 * schedule_one.go): extension points run in profile order, the filter pass
 * that stops once enough feasible nodes are found, weighted scores and the
 * host chosen among the best at random.
 */
import type { LabelSelector } from '../selectors/labels.js';
import type { PodIndex } from './pod-index.js';
import type { NodeInfo } from './node-info.js';
import type { NamespaceLabels, PodInfo } from './pod-info.js';
import { Code, isRejected, SUCCESS, unresolvable, type Status } from './status.js';

export const MAX_NODE_SCORE = 100;

/** The cluster events that can make a rejected pod schedulable (framework.ClusterEvent, simplified). */
export type ClusterEvent = 'NodeAdd' | 'NodeUpdate' | 'AssignedPodAdd' | 'AssignedPodUpdate' | 'AssignedPodDelete' |
  'PvcChange' | 'PvChange' | 'StorageClassChange' | 'NamespaceChange' | 'ServiceChange';

/** What plugins may look up besides nodes (the informer listers). */
export interface Listers {
  pvc(namespace: string, name: string): any;
  pv(name: string): any;
  /** Every PersistentVolume (VolumeBinding matches WaitForFirstConsumer claims against them); absent means none. */
  pvs?(): Iterable<any>;
  storageClass(name: string): any;
  /**
   * helper.DefaultSelector: the Services selecting the pod and its controlling
   * ReplicationController/ReplicaSet/StatefulSet, merged; undefined when empty.
   */
  defaultSelector(pod: PodInfo): LabelSelector | undefined;
}

export interface Snapshot {
  readonly nodes: readonly NodeInfo[];
  get(name: string): NodeInfo | undefined;
  readonly nsLabels: NamespaceLabels;
  readonly listers: Listers;
  /** Image name → number of nodes that have it (ImageStateSummary.NumNodes). */
  imageNodeCount(image: string): number;
  /** Changes whenever a node is added, changed or removed; -1 for views that must not be cached against. */
  readonly nodesGeneration: number;
  /** How many placed pods have any pod (anti-)affinity, and required anti-affinity (InterPodAffinity skips its scans at 0). */
  readonly podsWithAffinity: number;
  readonly podsWithRequiredAntiAffinity: number;
  /** Pods nominated to a node (status.nominatedNodeName) waiting for preemption victims to go. */
  nominated(node: string): readonly PodInfo[];
  /** Counts every pod added to or removed from a node; -1 for views that must not be cached against. */
  readonly podChangeSeq: number;
  /**
   * Calls `fn` for the node of each pod change after `seq` (a node may come
   * several times); false when those changes are no longer known (recount).
   */
  forEachPodChangeSince(seq: number, fn: (node: NodeInfo) => void): boolean;
  /** The placed pods by label; only read when podChangeSeq is not -1 (a view whose nodes differ from the index's). */
  readonly podIndex?: PodIndex;
}

export type CycleState = Map<string, unknown>;

/**
 * What a PreFilter returns: a Status, and on success optionally the only
 * nodes worth filtering (framework.PreFilterResult.NodeNames; undefined means
 * all nodes), as NodeAffinity does for a pod pinned by metadata.name.
 */
export interface PreFilterStatus extends Status { nodeNames?: ReadonlySet<string> }

export interface Plugin {
  readonly name: string;
  /** PreEnqueue: a rejected pod is not queued for scheduling at all (SchedulingGates). */
  preEnqueue?(pod: PodInfo): Status;
  /** Skip: the plugin's Filter is not run for this pod. A rejection fails every node. */
  preFilter?(state: CycleState, pod: PodInfo, snap: Snapshot): PreFilterStatus;
  filter?(state: CycleState, pod: PodInfo, node: NodeInfo, snap: Snapshot): Status;
  /** Skip: the plugin's Score is not run for this pod. */
  preScore?(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[], snap: Snapshot): Status;
  score?(state: CycleState, pod: PodInfo, node: NodeInfo, snap: Snapshot): number;
  normalizeScore?(state: CycleState, pod: PodInfo, scores: number[], nodes: readonly NodeInfo[]): void;
  /** Cluster events after which a pod this plugin rejected is worth another attempt. */
  readonly events?: readonly ClusterEvent[];
  /** The filter's pre-computed state counts other pods: preemption recomputes it without the victims. */
  readonly podDependentPreFilter?: boolean;
}

export interface NodeToStatus {
  /** Nodes that were filtered out, with the status of the plugin that rejected them. */
  readonly statuses: Map<string, Status>;
  /** The status of the nodes absent from `statuses` (PreFilter rejections apply to all). */
  absent?: Status;
}

/** framework.Diagnosis. */
export interface Diagnosis {
  nodeToStatus: NodeToStatus;
  unschedulablePlugins: Set<string>;
  preFilterMsg: string;
  postFilterMsg: string;
}

export interface PluginScore { name: string; score: number }
export interface NodeScore { name: string; total: number; scores: PluginScore[] }
const NO_PLUGIN_SCORES: PluginScore[] = Object.freeze([]) as unknown as PluginScore[];

export class FitError extends Error {
  constructor(readonly pod: PodInfo, readonly numAllNodes: number, readonly diagnosis: Diagnosis) { super('pod does not fit on any node'); }
  /** FitError.Error(): "0/X nodes are available: <PreFilterMsg>. <FilterMsg>. <PostFilterMsg>" (read after PostFilter). */
  text(): string { return fitErrorMessage(this.numAllNodes, this.diagnosis); }
}

/** FitError.Error() of pkg/scheduler/framework/types.go (v1.32). */
export function fitErrorMessage(numAllNodes: number, d: Diagnosis): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (d.preFilterMsg) {
    msg += ` ${d.preFilterMsg}.`;
  } else {
    const reasons = new Map<string, number>();
    for (const s of d.nodeToStatus.statuses.values()) for (const r of s.reasons) reasons.set(r, (reasons.get(r) ?? 0) + 1);
    const absentCount = numAllNodes - d.nodeToStatus.statuses.size;
    if (absentCount > 0 && d.nodeToStatus.absent) {
      for (const r of d.nodeToStatus.absent.reasons) reasons.set(r, (reasons.get(r) ?? 0) + absentCount);
    }
    // sort.Strings over "<count> <reason>": byte order, so "10 x" sorts before "2 y" as upstream's does.
    const sorted = [...reasons].map(([r, n]) => `${n} ${r}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (sorted.length) msg += ` ${sorted.join(', ')}.`;
  }
  if (d.postFilterMsg) msg += ` ${d.postFilterMsg}`;
  return msg;
}

export interface ScheduleResult {
  node: string;
  evaluatedNodes: number;
  feasibleNodes: number;
  scores?: NodeScore[];
}

/** schedule_one.go numFeasibleNodesToFind: adaptive percentage, at least 100 nodes. */
export function numFeasibleNodesToFind(percentageOfNodesToScore: number | undefined, numAllNodes: number): number {
  const minFeasibleNodesToFind = 100;
  const minFeasibleNodesPercentageToFind = 5;
  if (numAllNodes < minFeasibleNodesToFind) return numAllNodes;
  let percentage = percentageOfNodesToScore ?? 0;
  if (percentage === 0) {
    percentage = 50 - Math.trunc(numAllNodes / 125);
    if (percentage < minFeasibleNodesPercentageToFind) percentage = minFeasibleNodesPercentageToFind;
  }
  const numNodes = Math.trunc(numAllNodes * percentage / 100);
  return numNodes < minFeasibleNodesToFind ? minFeasibleNodesToFind : numNodes;
}

export interface PreFilterOutcome {
  status: Status;
  skipped: Set<string>;
  /** The merged PreFilterResult: the nodes Filter runs on; undefined for all of them. */
  nodeNames?: Set<string>;
  /** The plugins that narrowed the nodes (RunPreFilterPlugins' pluginsWithNodes). */
  pluginsWithNodes: Set<string>;
}

/** The status of the nodes a PreFilterResult left out (findNodesThatFitPod). */
export function excludedByPreFilter(pluginsWithNodes: ReadonlySet<string>): Status {
  // fmt's %v of sets.List(...): sorted names in brackets, separated by spaces.
  return unresolvable(`node(s) didn't satisfy plugin(s) [${[...pluginsWithNodes].sort().join(' ')}]`);
}

/** One profile: its plugins in order and score weights (frameworkImpl). */
export class Framework {
  readonly preFilterPlugins: Plugin[];
  readonly filterPlugins: Plugin[];
  readonly scorePlugins: Plugin[];
  /** The rotating start of the filter pass (sched.nextStartNodeIndex). */
  private nextStartNodeIndex = 0;

  constructor(readonly plugins: Plugin[], readonly weights: Map<string, number>, readonly percentageOfNodesToScore?: number,
    readonly random: () => number = Math.random) {
    this.preFilterPlugins = plugins.filter((p) => p.preFilter !== undefined);
    this.filterPlugins = plugins.filter((p) => p.filter !== undefined);
    this.scorePlugins = plugins.filter((p) => p.score && (weights.get(p.name) ?? 0) > 0);
  }

  /**
   * RunPreFilterPlugins (v1.32): an UnschedulableAndUnresolvable or Error
   * status ends the pass at once; an Unschedulable one is returned only after
   * every PreFilter ran (preemption needs their state, kubernetes#119770).
   * Skip disables the plugin's Filter. PreFilterResults are intersected; an
   * empty intersection rejects the pod.
   */
  runPreFilter(state: CycleState, pod: PodInfo, snap: Snapshot): PreFilterOutcome {
    const skipped = new Set<string>();
    const pluginsWithNodes = new Set<string>();
    let nodeNames: Set<string> | undefined;
    let rejected: Status | undefined;
    for (const p of this.preFilterPlugins) {
      const s = p.preFilter!(state, pod, snap);
      if (s.code === Code.Skip) { skipped.add(p.name); continue; }
      if (s.code !== Code.Success) {
        const named: Status = { code: s.code, reasons: s.reasons, plugin: p.name };
        if (s.code === Code.Unschedulable) { rejected = named; continue; }
        return { status: named, skipped, pluginsWithNodes: new Set() };
      }
      if (!s.nodeNames) continue;
      pluginsWithNodes.add(p.name);
      if (!nodeNames) nodeNames = new Set(s.nodeNames);
      else for (const n of nodeNames) if (!s.nodeNames.has(n)) nodeNames.delete(n);
      if (nodeNames.size === 0) {
        const names = [...pluginsWithNodes].sort();
        const msg = names.length === 1 ? `node(s) didn't satisfy plugin ${names[0]}` : `node(s) didn't satisfy plugin(s) [${names.join(' ')}] simultaneously`;
        return { status: unresolvable(msg), skipped, nodeNames, pluginsWithNodes };
      }
    }
    return { status: rejected ?? SUCCESS, skipped, nodeNames, pluginsWithNodes };
  }

  /** RunFilterPlugins: the first plugin that rejects the node decides its status. */
  runFilter(state: CycleState, pod: PodInfo, node: NodeInfo, snap: Snapshot, skipped: Set<string>): Status {
    return this.runActiveFilters(this.activeFilters(skipped), state, pod, node, snap);
  }

  /** The Filter plugins PreFilter did not skip, computed once per cycle rather than per node. */
  activeFilters(skipped: Set<string>): Plugin[] {
    return skipped.size ? this.filterPlugins.filter((p) => !skipped.has(p.name)) : this.filterPlugins;
  }

  private runActiveFilters(active: Plugin[], state: CycleState, pod: PodInfo, node: NodeInfo, snap: Snapshot): Status {
    // Indexed loops here and below: they run for every node of every cycle.
    for (let i = 0; i < active.length; i++) {
      const p = active[i];
      if (!p) continue;
      const s = p.filter!(state, pod, node, snap);
      // Plugins return shared statuses already naming themselves for their common rejections (no allocation per node).
      if (s.code !== Code.Success) return s.plugin === p.name ? s : { code: s.code, reasons: s.reasons, plugin: p.name };
    }
    return SUCCESS;
  }

  /**
   * RunFilterPluginsWithNominatedPods: pods of equal or higher priority
   * nominated to this node count as if they were on it.
   */
  runFilterWithNominated(state: CycleState, pod: PodInfo, node: NodeInfo, snap: Snapshot, skipped: Set<string>,
    active: Plugin[] = this.activeFilters(skipped)): Status {
    const all = snap.nominated(node.name);
    if (all.length === 0) return this.runActiveFilters(active, state, pod, node, snap);
    const nominated = all.filter((n) => n.uid !== pod.uid && n.priority >= pod.priority);
    if (nominated.length === 0) return this.runActiveFilters(active, state, pod, node, snap);
    const withNominated = node.clone();
    for (const n of nominated) withNominated.addPod(n);
    const s = this.runActiveFilters(active, state, pod, withNominated, snap);
    if (s.code !== Code.Success) return s;
    return this.runActiveFilters(active, state, pod, node, snap);
  }

  /** RunScorePlugins: PreScore, Score, NormalizeScore and weights; per-plugin scores kept only when asked (explain). */
  runScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[], snap: Snapshot, perPlugin = true): NodeScore[] {
    const active: Plugin[] = [];
    for (const p of this.scorePlugins) {
      if (p.preScore && p.preScore(state, pod, nodes, snap).code === Code.Skip) continue;
      active.push(p);
    }
    // Without per-plugin scores (every scheduling cycle), the nodes share one empty list.
    const out: NodeScore[] = nodes.map((n) => ({ name: n.name, total: 0, scores: perPlugin ? [] : NO_PLUGIN_SCORES }));
    for (const p of active) {
      const scores = new Array<number>(nodes.length);
      for (let i = 0; i < nodes.length; i++) {
        const n = nodes[i];
        scores[i] = n ? p.score!(state, pod, n, snap) : 0;
      }
      p.normalizeScore?.(state, pod, scores, nodes);
      const w = this.weights.get(p.name) ?? 1;
      for (let i = 0; i < nodes.length; i++) {
        const o = out[i];
        if (!o) continue;
        const score = (scores[i] ?? 0) * w;
        if (perPlugin) o.scores.push({ name: p.name, score });
        o.total += score;
      }
    }
    return out;
  }

  /** schedulePod / findNodesThatFitPod: the nominated node first, then the filter pass (over the PreFilterResult's nodes) and scoring. */
  schedule(pod: PodInfo, snap: Snapshot, state: CycleState = new Map()): ScheduleResult {
    const all = snap.nodes;
    const diagnosis: Diagnosis = { nodeToStatus: { statuses: new Map() }, unschedulablePlugins: new Set(), preFilterMsg: '', postFilterMsg: '' };
    if (all.length === 0) throw new FitError(pod, 0, diagnosis);
    const pre = this.runPreFilter(state, pod, snap);
    diagnosis.unschedulablePlugins = new Set(pre.pluginsWithNodes);
    if (pre.status.code !== Code.Success) {
      if (!isRejected(pre.status)) throw new Error(`running PreFilter plugin "${pre.status.plugin}": ${pre.status.reasons.join(', ')}`);
      diagnosis.nodeToStatus.absent = pre.status;
      diagnosis.preFilterMsg = pre.status.reasons.join(', ');
      if (pre.status.plugin) diagnosis.unschedulablePlugins.add(pre.status.plugin);
      throw new FitError(pod, all.length, diagnosis);
    }
    // evaluateNominatedNode: a pod that preempted goes to its nominated node if it now fits there.
    const nominatedName = pod.pod.status?.nominatedNodeName;
    if (nominatedName) {
      const n = snap.get(nominatedName);
      if (n && this.runFilterWithNominated(state, pod, n, snap, pre.skipped).code === Code.Success) {
        return { node: n.name, evaluatedNodes: 1, feasibleNodes: 1 };
      }
    }
    let nodes: readonly NodeInfo[] = all;
    if (pre.nodeNames) {
      // Names the snapshot does not have are dropped; the nodes left out count as rejected by the narrowing plugins.
      const narrowed: NodeInfo[] = [];
      for (const name of pre.nodeNames) { const n = snap.get(name); if (n) narrowed.push(n); }
      nodes = narrowed;
      diagnosis.nodeToStatus.absent = excludedByPreFilter(pre.pluginsWithNodes);
    }
    const active = this.activeFilters(pre.skipped);
    const toFind = numFeasibleNodesToFind(this.percentageOfNodesToScore, nodes.length);
    const feasible: NodeInfo[] = [];
    // The rejections, made into the diagnosis only when no node fits (most cycles never read them).
    const rejectedNodes: NodeInfo[] = [];
    const rejections: Status[] = [];
    let processed = 0;
    for (let i = 0; i < nodes.length && feasible.length < toFind; i++) {
      const node = nodes[(this.nextStartNodeIndex + i) % nodes.length];
      if (!node) break;
      processed++;
      const s = this.runFilterWithNominated(state, pod, node, snap, pre.skipped, active);
      if (s.code === Code.Success) { feasible.push(node); continue; }
      if (!isRejected(s)) throw new Error(`running "${s.plugin}" filter plugin: ${s.reasons.join(', ')}`);
      rejectedNodes.push(node);
      rejections.push(s);
    }
    this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % all.length;
    if (feasible.length === 0) {
      rejectedNodes.forEach((node, i) => {
        const status = rejections[i];
        if (!status) return;
        diagnosis.nodeToStatus.statuses.set(node.name, status);
        if (status.plugin) diagnosis.unschedulablePlugins.add(status.plugin);
      });
      throw new FitError(pod, all.length, diagnosis);
    }
    const only = feasible[0];
    if (feasible.length === 1 && only) return { node: only.name, evaluatedNodes: processed, feasibleNodes: 1 };
    const scores = this.runScore(state, pod, feasible, snap, false);
    return { node: this.selectHost(scores), evaluatedNodes: processed, feasibleNodes: feasible.length, scores };
  }

  /** selectHost: the highest total, ties broken by reservoir sampling. */
  selectHost(scores: NodeScore[]): string {
    let best = scores[0];
    let count = 1;
    for (let i = 1; i < scores.length; i++) {
      const s = scores[i];
      if (!s || !best) continue;
      if (s.total > best.total) { best = s; count = 1; }
      else if (s.total === best.total) {
        count++;
        if (Math.floor(this.random() * count) === 0) best = s;
      }
    }
    return best?.name ?? '';
  }
}
