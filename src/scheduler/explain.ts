/**
 * `winkube explain-scheduling POD`: what kube-scheduler-simulator shows, in
 * the terminal. The same plugins run over a snapshot built from listed
 * objects: per node, every Filter plugin's verdict (the first rejection is
 * the one the scheduler reports), then the feasible nodes' weighted scores.
 */
import { SchedulerCache } from './cache.js';
import { excludedByPreFilter, fitErrorMessage, type Framework, type NodeScore } from './framework.js';
import { InformerListers } from './listers.js';
import { PodInfo } from './pod-info.js';
import { Code, type Status } from './status.js';

export interface ClusterObjects {
  nodes: any[];
  pods: any[];
  /** By resource name (namespaces, persistentvolumeclaims, services, ...). */
  others: Partial<Record<string, any[]>>;
}

export interface NodeVerdict { node: string; rejections: Status[] }

export interface Explanation {
  pod: PodInfo;
  boundTo?: string;
  preFilter?: Status;
  /** The plugins whose PreFilterResult narrowed the nodes. */
  pluginsWithNodes: string[];
  skipped: string[];
  verdicts: NodeVerdict[];
  scores: NodeScore[];
  failureMessage?: string;
}

/** Builds the snapshot the scheduler would see (the pod itself left out) and runs the profile over every node. */
export function explain(fw: Framework, target: any, objs: ClusterObjects): Explanation {
  const listers = InformerListers.fromLists(objs.others);
  const cache = new SchedulerCache(listers.namespaceLabels, listers);
  for (const n of [...objs.nodes].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) cache.setNode(n);
  for (const p of objs.pods) {
    if (!p.spec?.nodeName || p.metadata.uid === target.metadata.uid) continue;
    if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
    cache.addOrUpdatePod(new PodInfo(p));
  }
  const pod = new PodInfo({ ...target, spec: { ...target.spec, nodeName: undefined } });
  const out: Explanation = { pod, boundTo: target.spec?.nodeName, skipped: [], pluginsWithNodes: [], verdicts: [], scores: [] };
  const state = new Map<string, unknown>();
  const pre = fw.runPreFilter(state, pod, cache);
  out.skipped = [...pre.skipped];
  out.pluginsWithNodes = [...pre.pluginsWithNodes];
  if (pre.status.code !== Code.Success) {
    out.preFilter = pre.status;
    out.failureMessage = fitErrorMessage(cache.nodes.length, {
      nodeToStatus: { statuses: new Map(), absent: pre.status }, unschedulablePlugins: new Set(), preFilterMsg: pre.status.reasons.join(', '), postFilterMsg: '',
    });
    return out;
  }
  const feasible = [];
  const first = new Map<string, Status>();
  // Nodes a PreFilterResult left out are never filtered; they carry the framework's status for them.
  const excluded = pre.nodeNames && { ...excludedByPreFilter(pre.pluginsWithNodes), plugin: `${[...pre.pluginsWithNodes].sort().join(', ')} (PreFilter)` };
  for (const node of cache.nodes) {
    if (excluded && !pre.nodeNames!.has(node.name)) {
      out.verdicts.push({ node: node.name, rejections: [excluded] });
      first.set(node.name, excluded);
      continue;
    }
    const rejections: Status[] = [];
    for (const p of fw.filterPlugins) {
      if (pre.skipped.has(p.name)) continue;
      const s = p.filter!(state, pod, node, cache);
      if (s.code !== Code.Success) rejections.push({ ...s, plugin: p.name });
    }
    out.verdicts.push({ node: node.name, rejections });
    const [rejected] = rejections;
    if (rejected) first.set(node.name, rejected); else feasible.push(node);
  }
  if (feasible.length) out.scores = fw.runScore(state, pod, feasible, cache, true).sort((a, b) => b.total - a.total || (a.name < b.name ? -1 : 1));
  else out.failureMessage = fitErrorMessage(cache.nodes.length, { nodeToStatus: { statuses: first }, unschedulablePlugins: new Set(), preFilterMsg: '', postFilterMsg: '' });
  return out;
}

function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('   ').trimEnd()).join('\n');
}

/** The explanation as the terminal shows it. */
export function formatExplanation(e: Explanation): string {
  const lines: string[] = [];
  const p = e.pod;
  lines.push(`Pod ${p.namespace}/${p.name} (priority ${p.priority}, scheduler ${p.pod.spec?.schedulerName ?? 'default-scheduler'})` +
    (e.boundTo ? `: bound to ${e.boundTo}; evaluated as if it were pending` : ': pending'));
  if (e.preFilter) {
    lines.push('', `PreFilter: ${e.preFilter.plugin ?? [...e.pluginsWithNodes].sort().join(', ')} rejects the pod on every node: ${e.preFilter.reasons.join(', ')}`);
    lines.push('', `kube-scheduler would report: ${e.failureMessage}`);
    return lines.join('\n');
  }
  if (e.skipped.length) lines.push(`Filter plugins with nothing to check for this pod: ${e.skipped.join(', ')}`);
  lines.push('', 'Filter (the first plugin to reject a node is the reason the scheduler reports):');
  const rows = [['NODE', 'RESULT', 'ALSO REJECTED BY']];
  for (const v of e.verdicts) {
    const [first, ...rest] = v.rejections;
    if (!first) { rows.push([v.node, 'feasible', '']); continue; }
    rows.push([v.node, `${first.plugin}: ${first.reasons.join(', ')}`, rest.map((r) => `${r.plugin}: ${r.reasons.join(', ')}`).join('; ')]);
  }
  lines.push(table(rows));
  if (e.failureMessage) {
    lines.push('', `No node fits. kube-scheduler would report (before preemption): ${e.failureMessage}`);
    return lines.join('\n');
  }
  const plugins = e.scores[0]?.scores.map((s) => s.name) ?? [];
  lines.push('', 'Score (normalized plugin score × weight; the highest total wins, ties broken at random):');
  const srows = [['NODE', ...plugins, 'TOTAL']];
  for (const s of e.scores) srows.push([s.name, ...s.scores.map((x) => String(x.score)), String(s.total)]);
  lines.push(table(srows));
  const best = e.scores.filter((s) => s.total === e.scores[0]?.total).map((s) => s.name);
  lines.push('', best.length === 1 ? `Selected: ${best[0]}` : `Selected at random among: ${best.join(', ')}`);
  return lines.join('\n');
}
