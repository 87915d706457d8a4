/** Which pods and nodes the map shows for a namespace and a piece of a name. */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';

export interface Filter { namespace: string; name: string }

export function podMatches(pod: Pod, f: Filter): boolean {
  if (f.namespace && pod.metadata?.namespace !== f.namespace) return false;
  const needle = f.name.trim().toLowerCase();
  return !needle || (pod.metadata?.name ?? '').toLowerCase().includes(needle) || (pod.spec?.nodeName ?? '').toLowerCase().includes(needle);
}

/** A node stays when its name matches or it runs a pod that does (an empty name filter keeps every node). */
export function nodeMatches(node: Node, podsShown: readonly Pod[], f: Filter): boolean {
  const needle = f.name.trim().toLowerCase();
  return !needle || (node.metadata?.name ?? '').toLowerCase().includes(needle) || podsShown.length > 0;
}
