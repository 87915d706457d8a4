/**
 * The pod's QoS class (pkg/apis/core/helper/qos, v1.32): only cpu and memory
 * count; init and regular containers alike, ephemeral containers not.
 */
import { isObject } from './json.js';
import { addQuantity, cmpQuantity, isPositive, parseQuantity, type Quantity } from '../apimachinery/quantity.js';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = new Set(['cpu', 'memory']);

function sumInto(into: Map<string, Quantity>, list: unknown, found?: Set<string>): void {
  if (!isObject(list)) return;
  for (const [name, raw] of Object.entries(list)) {
    if (!QOS_RESOURCES.has(name) || (typeof raw !== 'string' && typeof raw !== 'number')) continue;
    let q: Quantity;
    try { q = parseQuantity(raw); } catch { continue; }
    if (!isPositive(q)) continue;
    found?.add(name);
    const prev = into.get(name);
    into.set(name, prev ? addQuantity(prev, q) : q);
  }
}

/** ComputePodQOS. */
export function computePodQOS(pod: { spec?: any }): QOSClass {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const c of containers) {
    const res = isObject(c) && isObject(c.resources) ? c.resources : {};
    sumInto(requests, res.requests);
    const found = new Set<string>();
    sumInto(limits, res.limits, found);
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || cmpQuantity(lim, req) !== 0) { guaranteed = false; break; }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** GetPodQOS: a class already in status wins (PrepareForCreate reads it before resetting status). */
export function getPodQOS(pod: { spec?: any; status?: any }): string {
  const existing = isObject(pod.status) ? pod.status.qosClass : undefined;
  return typeof existing === 'string' && existing ? existing : computePodQOS(pod);
}
