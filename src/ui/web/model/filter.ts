/** Which pods and nodes the map shows for a namespace, a piece of a name and a label selector. */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from '../../../selectors/labels.js';

/** `selector` is the last valid label selector the user typed; absent or empty, labels do not filter. */
export interface Filter { namespace: string; name: string; selector?: LabelSelector }

export function podMatches(pod: Pod, f: Filter): boolean {
  if (f.namespace && pod.metadata?.namespace !== f.namespace) return false;
  if (f.selector && !f.selector.empty() && !f.selector.matches(pod.metadata?.labels)) return false;
  const needle = f.name.trim().toLowerCase();
  return !needle || (pod.metadata?.name ?? '').toLowerCase().includes(needle) || (pod.spec?.nodeName ?? '').toLowerCase().includes(needle);
}

/**
 * A node stays when it runs a pod the filter keeps, or when the node itself passes the filter's node-side
 * parts: its name holds the name filter and its own labels match the selector (so `kubernetes.io/os=windows`
 * keeps the Windows nodes). With neither set every node stays, whatever the namespace.
 */
export function nodeMatches(node: Node, podsShown: readonly Pod[], f: Filter): boolean {
  if (podsShown.length > 0) return true;
  const needle = f.name.trim().toLowerCase();
  if (needle && !(node.metadata?.name ?? '').toLowerCase().includes(needle)) return false;
  return !f.selector || f.selector.empty() || f.selector.matches(node.metadata?.labels);
}
