/**
 * The ResourceQuota admission plugin (k8s.io/apiserver/pkg/admission/plugin/
 * resourcequota, v1.32), last of the validating plugins. For a namespaced
 * create or update that a quota's evaluator handles, every quota of the
 * namespace whose limits and scopes match the object is checked: the pod
 * cpu/memory constraint ("failed quota: <q>: must specify ..."), negative
 * usage, then whether used + requested stays within the limits ("exceeded
 * quota: <q>, requested: ..., used: ..., limited: ...").
 *
 * Where upstream reads `status.used` (kept by admission and the quota
 * controller), this computes the usage from the objects in storage, plus
 * objects admitted moments ago whose write has not landed yet; checks in
 * one namespace run one at a time, so two racing creates cannot both take
 * the last unit. The limits are `spec.hard` (upstream's `status.hard`, which
 * the controller copies from it), so upstream's transient "status unknown
 * for quota" answer right after a quota is created does not occur.
 */
import type { KObject } from '../apimachinery/object.js';
import { listAll } from './lookup.js';
import {
  addLists, lessThanOrEqual, mask, negatives, prettyPrint, removeZeros, subtractNonNegative, type ResourceList,
} from '../meta/resource-lists.js';
import { evaluatorFor, quotaHard, quotaMatches, usageStats, type QuotaEvaluator } from './quota-evaluators.js';
import { forbidden, type AdmissionAttributes, type AdmissionPlugin } from './types.js';

/**
 * How long an admitted create counts while its object is not in storage:
 * long enough to cover the write that follows admission, short enough that
 * a create that failed afterwards (or an object created and deleted
 * meanwhile) is not charged for long.
 */
const PENDING_MS = 2000;

interface Pending { object: KObject; expires: number }

/** Admitted creates per store, namespace and resource, by object name. */
const pendingByStore = new WeakMap<object, Map<string, Map<string, Pending>>>();

function pendingOf(lookup: object): Map<string, Map<string, Pending>> {
  let m = pendingByStore.get(lookup);
  if (!m) pendingByStore.set(lookup, m = new Map());
  return m;
}

function pendingKey(namespace: string, ev: QuotaEvaluator): string {
  return `${namespace}\u0000${ev.group}/${ev.resource}`;
}

/**
 * Stored objects, with admitted-but-unwritten creates added. An entry goes
 * once an object of its name is stored (written, or the create lost to an
 * existing one); one named like the object being admitted is not counted
 * (that create landed and was deleted since, or is failing as a duplicate).
 */
function withPending(pending: Map<string, Map<string, Pending>>, namespace: string, ev: QuotaEvaluator, items: KObject[],
  current: string): KObject[] {
  const map = pending.get(pendingKey(namespace, ev));
  if (!map) return items;
  const now = Date.now();
  const stored = new Set(items.map((i) => i.metadata.name));
  const out = [...items];
  for (const [name, p] of map) {
    if (p.expires < now || stored.has(name)) { map.delete(name); continue; }
    if (name !== current) out.push(p.object);
  }
  if (!map.size) pending.delete(pendingKey(namespace, ev));
  return out;
}

const locks = new Map<string, Promise<void>>();

/** Runs quota checks of one namespace one at a time. */
async function serialized<T>(namespace: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(namespace) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => { release = r; });
  const tail = prev.then(() => mine);
  locks.set(namespace, tail);
  await prev;
  try {
    return await fn();
  } finally {
    release();
    if (locks.get(namespace) === tail) locks.delete(namespace);
  }
}

function sortedByName(items: KObject[]): KObject[] {
  return [...items].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

/** CheckRequest. */
async function check(a: AdmissionAttributes, ev: QuotaEvaluator): Promise<void> {
  const quotas = sortedByName(await listAll(a.lookup, '', 'resourcequotas', a.namespace));
  if (!quotas.length) return;
  const pending = pendingOf(a.lookup);
  const obj = a.object;
  const now = a.ctx.now;
  const interesting: KObject[] = [];
  for (const rq of quotas) {
    if (!quotaMatches(ev, rq, obj)) continue;
    const restricted = ev.matchingResources(Object.keys(quotaHard(rq)));
    const err = ev.constraints(restricted, obj);
    if (err) throw forbidden(a, `failed quota: ${rq.metadata.name}: ${err}`);
    interesting.push(rq);
  }
  if (!interesting.length) return;

  const inputUsage = ev.usage(obj, now);
  const negative = negatives(inputUsage);
  if (negative.length) throw forbidden(a, `quota usage is negative for resource(s): ${negative.sort().join(',')}`);

  const deltas = new Map<KObject, ResourceList>();
  for (const rq of interesting) deltas.set(rq, inputUsage);
  if (a.operation === 'UPDATE' && a.oldObject?.metadata?.resourceVersion) {
    const delta = subtractNonNegative(inputUsage, ev.usage(a.oldObject, now));
    for (const rq of interesting) if (quotaMatches(ev, rq, a.oldObject)) deltas.set(rq, delta);
  }
  for (const [rq, d] of deltas) {
    const nz = removeZeros(d);
    if (Object.keys(nz).length) deltas.set(rq, nz); else deltas.delete(rq);
  }
  if (!deltas.size) return;

  for (const rq of interesting) {
    const delta = deltas.get(rq);
    if (!delta) continue;
    const hard = quotaHard(rq);
    const requested = mask(delta, Object.keys(hard));
    const tracked = ev.matchingResources(Object.keys(hard));
    const used = await usageStats(a.lookup, ev, a.namespace, rq, tracked, now,
      (items) => withPending(pending, a.namespace, ev, items, a.name));
    const newUsage = mask(addLists(used, requested), Object.keys(requested));
    const { ok, exceeded } = lessThanOrEqual(newUsage, hard);
    if (!ok) {
      throw forbidden(a, `exceeded quota: ${rq.metadata.name}, requested: ${prettyPrint(mask(requested, exceeded))}, ` +
        `used: ${prettyPrint(mask(used, exceeded))}, limited: ${prettyPrint(mask(hard, exceeded))}`);
    }
  }

  if (a.operation === 'CREATE' && !a.ctx.dryRun && a.name) {
    const key = pendingKey(a.namespace, ev);
    if (!pending.has(key)) pending.set(key, new Map());
    pending.get(key)!.set(a.name, { object: structuredClone(obj), expires: Date.now() + PENDING_MS });
  }
}

export const resourceQuota: AdmissionPlugin = {
  name: 'ResourceQuota',
  async validate(a) {
    // Subresources and cluster-scoped objects are not charged.
    if (a.subresource || !a.namespace) return;
    const ev = evaluatorFor(a.def.group, a.def.resource);
    if (!ev.handles(a.operation)) return;
    await serialized(a.namespace, () => check(a, ev));
  },
};
