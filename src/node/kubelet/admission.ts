/**
 * Kubelet pod admission (pkg/kubelet/lifecycle/predicate.go
 * predicateAdmitHandler.Admit, with the scheduler's AdmissionCheck):
 * the `kubernetes.io/os` label check, the spec.os check, then resource fit,
 * node affinity/selector, node name and host ports. A rejection is reported with the
 * first failure's reason and message (rejectPod).
 */
import { milliValue, podResources, value } from '../../meta/resource-lists.js';
import { parseQuantity } from '../../apimachinery/quantity.js';
import type { KObject } from '../../apimachinery/object.js';
import { ERR_REASON_PORTS } from '../../scheduler/plugins/node-ports.js';

type Obj = Record<string, any>;

export interface Rejection { reason: string; message: string }

const OS_LABEL = 'kubernetes.io/os';

/** One node-selector requirement (In, NotIn, Exists, DoesNotExist, Gt, Lt) against a value. */
function requirementMatches(req: Obj, actual: string | undefined): boolean {
  const values: string[] = req.values ?? [];
  switch (req.operator) {
    case 'In': return actual !== undefined && values.includes(actual);
    case 'NotIn': return actual === undefined || !values.includes(actual);
    case 'Exists': return actual !== undefined;
    case 'DoesNotExist': return actual === undefined;
    case 'Gt': return actual !== undefined && /^-?\d+$/.test(actual) && Number(actual) > Number(values[0]);
    case 'Lt': return actual !== undefined && /^-?\d+$/.test(actual) && Number(actual) < Number(values[0]);
    default: return false;
  }
}

/** PodMatchesNodeSelectorAndAffinityTerms: nodeSelector, then required node affinity (terms ORed, empty term matches nothing). */
export function matchesNodeSelectorAndAffinity(pod: KObject, node: KObject): boolean {
  const spec = pod.spec as Obj;
  const labels: Record<string, string> = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries((spec.nodeSelector ?? {}) as Record<string, string>)) if (labels[k] !== v) return false;
  const terms: Obj[] | undefined = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms) return true;
  return terms.some((t) => {
    const exprs: Obj[] = t.matchExpressions ?? [];
    const fields: Obj[] = t.matchFields ?? [];
    if (!exprs.length && !fields.length) return false;
    return exprs.every((r) => requirementMatches(r, labels[r.key])) &&
      fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, node.metadata.name));
  });
}

/** The requests of a pod as the scheduler's NodeInfo counts them: cpu in millicores, memory and storage in bytes. */
type Requests = { cpu: number; memory: number; 'ephemeral-storage': number; other: Record<string, bigint> };
/** Requests of pod objects already seen (a pod's spec does not change them: resources are immutable in v1.32). */
const requestsCache = new WeakMap<object, Requests>();

export function podRequests(pod: KObject): Requests {
  const cached = requestsCache.get(pod);
  if (cached) return cached;
  const r = computeRequests(pod);
  requestsCache.set(pod, r);
  return r;
}

function computeRequests(pod: KObject): Requests {
  const list = podResources(pod, 'requests', true);
  const other: Record<string, bigint> = {};
  for (const [k, q] of Object.entries(list)) if (!['cpu', 'memory', 'ephemeral-storage'].includes(k)) other[k] = value(q);
  return {
    cpu: list.cpu ? Number(milliValue(list.cpu)) : 0,
    memory: list.memory ? Number(value(list.memory)) : 0,
    'ephemeral-storage': list['ephemeral-storage'] ? Number(value(list['ephemeral-storage'])) : 0,
    other,
  };
}

const qty = (s: unknown, milli = false): number => {
  if (s === undefined || s === null) return 0;
  const q = parseQuantity(String(s));
  return Number(milli ? milliValue(q) : value(q));
};

/**
 * Admit: undefined when admitted, else the rejection. `admitted` are the
 * node's other pods the kubelet already runs (not terminal).
 */
export function admitPod(pod: KObject, node: KObject, nodeOS: 'linux' | 'windows', admitted: readonly KObject[]): Rejection | undefined {
  const spec = pod.spec as Obj;
  const podOSLabel = pod.metadata.labels?.[OS_LABEL];
  if (podOSLabel !== undefined) {
    let nodeOSLabel = node.metadata.labels?.[OS_LABEL];
    if (nodeOSLabel === undefined || nodeOSLabel !== nodeOS) nodeOSLabel = nodeOS;
    if (podOSLabel !== nodeOSLabel) {
      return { reason: 'PodOSSelectorNodeLabelDoesNotMatch', message: 'Failed to admit pod as the `kubernetes.io/os` label doesn\'t match node label' };
    }
  }
  if (spec.os?.name && spec.os.name !== nodeOS) {
    return { reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS" };
  }
  // noderesources.Fits (pods first, then cpu, memory, ephemeral-storage, extended resources).
  const alloc = ((node.status as Obj)?.allocatable ?? {}) as Record<string, string>;
  const req = podRequests(pod);
  const used = { cpu: 0, memory: 0, 'ephemeral-storage': 0, other: {} as Record<string, bigint> };
  for (const p of admitted) {
    const r = podRequests(p);
    used.cpu += r.cpu; used.memory += r.memory; used['ephemeral-storage'] += r['ephemeral-storage'];
    for (const [k, v] of Object.entries(r.other)) used.other[k] = (used.other[k] ?? 0n) + v;
  }
  const insufficient = (name: string, requested: number | bigint, usedN: number | bigint, capacity: number | bigint): Rejection =>
    ({ reason: `OutOf${name}`, message: `Node didn't have enough resource: ${name}, requested: ${requested}, used: ${usedN}, capacity: ${capacity}` });
  const maxPods = qty(alloc.pods);
  if (admitted.length + 1 > maxPods) return insufficient('pods', 1, admitted.length, maxPods);
  const cpuCap = qty(alloc.cpu, true);
  if (req.cpu > 0 && req.cpu > cpuCap - used.cpu) return insufficient('cpu', req.cpu, used.cpu, cpuCap);
  const memCap = qty(alloc.memory);
  if (req.memory > 0 && req.memory > memCap - used.memory) return insufficient('memory', req.memory, used.memory, memCap);
  const esCap = qty(alloc['ephemeral-storage']);
  if (req['ephemeral-storage'] > 0 && req['ephemeral-storage'] > esCap - used['ephemeral-storage']) {
    return insufficient('ephemeral-storage', req['ephemeral-storage'], used['ephemeral-storage'], esCap);
  }
  for (const [k, v] of Object.entries(req.other)) {
    if (v === 0n) continue;
    const cap = alloc[k] !== undefined ? BigInt(qty(alloc[k])) : 0n;
    const u = used.other[k] ?? 0n;
    if (v > cap - u) return insufficient(k, v, u, cap);
  }
  if (!matchesNodeSelectorAndAffinity(pod, node)) {
    return { reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" };
  }
  if (spec.nodeName && spec.nodeName !== node.metadata.name) {
    return { reason: 'NodeName', message: "Predicate NodeName failed: node(s) didn't match the requested node name" };
  }
  // A pod bound by nodeName skips the scheduler, so the kubelet is the one to see its host port taken.
  if (hostPortsConflict(pod, admitted)) return { reason: 'NodePorts', message: `Predicate NodePorts failed: ${ERR_REASON_PORTS}` };
  return undefined;
}

interface HostPort { ip: string; protocol: string; port: number }

/** The host ports a pod's containers ask for (nodeports' getContainerPorts; hostIP defaults to 0.0.0.0, protocol to TCP). */
function hostPorts(pod: KObject): HostPort[] {
  const out: HostPort[] = [];
  for (const c of ((pod.spec as Obj)?.containers ?? []) as Obj[]) {
    for (const p of (c.ports ?? []) as Obj[]) {
      if (typeof p.hostPort === 'number' && p.hostPort > 0) out.push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol || 'TCP', port: p.hostPort });
    }
  }
  return out;
}

/** nodeports.Fits negated: a wanted host port the node's pods already use (HostPortInfo.CheckConflict: 0.0.0.0 overlaps every address). */
export function hostPortsConflict(pod: KObject, admitted: readonly KObject[]): boolean {
  const want = hostPorts(pod);
  if (!want.length) return false;
  const used = admitted.flatMap(hostPorts);
  return want.some((w) => used.some((u) => u.port === w.port && u.protocol === w.protocol && (u.ip === w.ip || u.ip === '0.0.0.0' || w.ip === '0.0.0.0')));
}
