/**
 * What the cluster map draws, computed once per batch of watch events: the OS columns with the nodes the filter
 * keeps, each node's pods and the ones shown, and the pods no node has taken. Pods are grouped without sorting
 * the whole list (50,000 pods); each node's few pods are sorted by name as its card needs them.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { nodeMatches, podMatches, type Filter } from './filter.js';
import { osColumns } from './os-columns.js';

export interface MapNode { node: Node; pods: Pod[]; shown: Pod[] }
export interface MapColumn { key: string; title: string; nodeCount: number; nodes: MapNode[] }
export interface MapModel { columns: MapColumn[]; unscheduled: Pod[] }

// One collator for every comparison: the order of localeCompare, without its per-call set-up (50,000 pods a batch).
const collator = new Intl.Collator();
const byName = (a: Pod, b: Pod): number => collator.compare(a.metadata?.name ?? '', b.metadata?.name ?? '');

export function mapModel(nodes: Iterable<Node>, pods: Iterable<Pod>, filter: Filter): MapModel {
  const byNode = new Map<string, Pod[]>();
  const unscheduled: Pod[] = [];
  for (const p of pods) {
    const nodeName = p.spec?.nodeName;
    if (!nodeName) { if (podMatches(p, filter)) unscheduled.push(p); continue; }
    let list = byNode.get(nodeName);
    if (!list) byNode.set(nodeName, list = []);
    list.push(p);
  }
  const columns = osColumns(nodes).map((column) => ({
    key: column.key, title: column.title, nodeCount: column.nodes.length,
    nodes: column.nodes.flatMap((node) => {
      const all = byNode.get(node.metadata?.name ?? '') ?? [];
      const shown = all.filter((p) => podMatches(p, filter));
      return nodeMatches(node, shown, filter) ? [{ node, pods: all, shown: shown.sort(byName) }] : [];
    }),
  }));
  return { columns, unscheduled: unscheduled.sort(byName) };
}
