/**
 * Which nodes a DaemonSet's pods belong on (pkg/controller/daemon
 * NodeShouldRunDaemonPod and its predicates): spec.nodeName, nodeSelector
 * and required node affinity, and taints against the pod's tolerations
 * plus the ones every daemon pod gets (util.AddOrUpdateDaemonPodTolerations).
 * Small pure copies of the scheduler's NodeAffinity / TaintToleration checks.
 */
import type { KObject } from '../../apimachinery/object.js';

import { toleratesTaint, type Taint, type Toleration } from '../../meta/tolerations.js';

export type { Taint, Toleration };

/** The tolerations AddOrUpdateDaemonPodTolerations adds, in its order. */
export function daemonTolerations(hostNetwork: boolean): Toleration[] {
  const t: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (hostNetwork) t.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return t;
}

const sameToleration = (a: Toleration, b: Toleration) =>
  (a.key ?? '') === (b.key ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '') &&
  (a.effect ?? '') === (b.effect ?? '') && a.tolerationSeconds === b.tolerationSeconds;

/** AddOrUpdateTolerationInPodSpec for each daemon toleration: replaces one with the same key/operator/value/effect, else appends. */
export function addDaemonTolerations(spec: Record<string, any>): void {
  const list: Toleration[] = [...(spec.tolerations ?? [])];
  for (const t of daemonTolerations(!!spec.hostNetwork)) {
    const i = list.findIndex((x) => (x.key ?? '') === t.key && (x.operator ?? '') === t.operator && (x.value ?? '') === (t.value ?? '') && (x.effect ?? '') === t.effect);
    const existing = list[i];
    if (!existing) list.push(t);
    else if (!sameToleration(existing, t)) list[i] = t;
  }
  spec.tolerations = list;
}

/** FindMatchingUntoleratedTaint among the taints the filter selects. */
export function untoleratedTaint(taints: Taint[], tolerations: Toleration[], filter: (t: Taint) => boolean): Taint | undefined {
  return taints.filter(filter).find((taint) => !tolerations.some((t) => toleratesTaint(t, taint)));
}

function matchRequirement(req: any, value: string | undefined): boolean {
  const values: string[] = req.values ?? [];
  switch (req.operator) {
    case 'In': return value !== undefined && values.includes(value);
    case 'NotIn': return value === undefined || !values.includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    case 'Gt': case 'Lt': {
      const [bound] = values;
      if (value === undefined || values.length !== 1 || bound === undefined || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(bound)) return false;
      return req.operator === 'Gt' ? Number(value) > Number(bound) : Number(value) < Number(bound);
    }
    default: return false;
  }
}

/** A NodeSelectorTerm: every expression and field requirement holds; an empty term matches nothing. */
function matchTerm(term: any, node: KObject): boolean {
  const exprs: any[] = term?.matchExpressions ?? [];
  const fields: any[] = term?.matchFields ?? [];
  if (!exprs.length && !fields.length) return false;
  const labels = node.metadata.labels ?? {};
  return exprs.every((r) => matchRequirement(r, Object.prototype.hasOwnProperty.call(labels, r.key) ? labels[r.key] : undefined)) &&
    fields.every((r) => r.key === 'metadata.name' && matchRequirement(r, node.metadata.name));
}

/** nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): nodeSelector and the required terms (ORed). */
export function matchesRequiredAffinity(spec: Record<string, any>, node: KObject): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t: any) => matchTerm(t, node));
}

/**
 * NodeShouldRunDaemonPod: whether a daemon pod should be created on the
 * node (shouldRun), and whether an existing one may stay
 * (shouldContinueRunning: only NoExecute taints evict).
 */
export function nodeShouldRunDaemonPod(node: KObject & { spec?: any }, ds: KObject & { spec?: any }): { shouldRun: boolean; shouldContinueRunning: boolean } {
  return shouldRunDaemonPodSpec(node, daemonPodSpec(ds));
}

/**
 * The pod spec NodeShouldRunDaemonPod tests nodes with (NewPod: the
 * template's spec with the daemon tolerations), built once for all nodes.
 */
export function daemonPodSpec(ds: KObject & { spec?: any }): Record<string, any> {
  const spec = { ...(ds.spec?.template?.spec ?? {}) };
  addDaemonTolerations(spec);
  return spec;
}

/** NodeShouldRunDaemonPod with the spec from daemonPodSpec. */
export function shouldRunDaemonPodSpec(node: KObject & { spec?: any }, spec: Record<string, any>): { shouldRun: boolean; shouldContinueRunning: boolean } {
  if (spec.nodeName && spec.nodeName !== node.metadata.name) return { shouldRun: false, shouldContinueRunning: false };
  if (!matchesRequiredAffinity(spec, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints: Taint[] = node.spec?.taints ?? [];
  if (untoleratedTaint(taints, spec.tolerations, (t) => t.effect === 'NoExecute' || t.effect === 'NoSchedule')) {
    return { shouldRun: false, shouldContinueRunning: !untoleratedTaint(taints, spec.tolerations, (t) => t.effect === 'NoExecute') };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the pod's required affinity becomes `metadata.name In [node]`. */
export function replaceNodeNameAffinity(spec: Record<string, any>, nodeName: string): void {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  const affinity = (spec.affinity ??= {});
  const na = (affinity.nodeAffinity ??= {});
  if (!na.requiredDuringSchedulingIgnoredDuringExecution) na.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [term] };
  else na.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms = [term];
}

/** util.GetTargetNodeName: spec.nodeName, else the node named by the affinity DaemonSet pods carry. */
export function targetNodeName(pod: KObject & { spec?: any }): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  for (const term of pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of term.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}
