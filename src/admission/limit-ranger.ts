/**
 * The LimitRanger admission plugin (plugin/pkg/admission/limitranger,
 * v1.32). Mutating: containers and init containers of a new pod get the
 * LimitRanges' `default` limits and `defaultRequest` requests where they set
 * none, noted in the `kubernetes.io/limit-ranger` annotation. Validating:
 * Container, Pod and PersistentVolumeClaim min/max/maxLimitRequestRatio,
 * refused with upstream's messages as 403 Forbidden. Pod updates are not
 * checked (their containers cannot change), nor subresources, nor objects
 * already being deleted.
 */
import type { KObject } from '../apimachinery/object.js';
import { listAll } from './lookup.js';
import type { Quantity } from '../apimachinery/quantity.js';
import {
  MAX_MILLI_VALUE, milliValue, parseList, podResources, str, value, zero, type ResourceList,
} from '../meta/resource-lists.js';
import { aggregateMessage, forbidden, memoized, type AdmissionAttributes, type AdmissionPlugin } from './types.js';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

function isPod(a: AdmissionAttributes): boolean {
  return a.def.group === '' && a.def.resource === 'pods';
}

function isPVC(a: AdmissionAttributes): boolean {
  return a.def.group === '' && a.def.resource === 'persistentvolumeclaims';
}

/** SupportsAttributes, plus runLimitFunc's skip of objects marked for deletion. */
function applies(a: AdmissionAttributes): boolean {
  if (a.subresource) return false;
  if (isPod(a) && a.operation === 'UPDATE') return false;
  if (!isPod(a) && !isPVC(a)) return false;
  return !a.oldObject?.metadata?.deletionTimestamp;
}

/** The namespace's LimitRanges, in name order (a live list, as upstream's lookup does on a cache miss). */
async function limitRanges(a: AdmissionAttributes): Promise<KObject[]> {
  return memoized(a, 'limitranges', async () => {
    const items = await listAll(a.lookup, '', 'limitranges', a.namespace);
    return [...items].sort((x, y) => (x.metadata.name ?? '').localeCompare(y.metadata.name ?? ''));
  });
}

function limitItems(lr: KObject): any[] {
  const limits = (lr.spec as any)?.limits;
  return Array.isArray(limits) ? limits.filter((l) => l && typeof l === 'object') : [];
}

/** Keys of a ResourceList map in sorted order (upstream stores maps with sorted keys). */
function sortedEntries(raw: unknown): [string, Quantity][] {
  const list = parseList(raw);
  return Object.entries(list).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

// --- mutation ---------------------------------------------------------------

/** defaultContainerResourceRequirements: the Container items' defaults (later items win). */
function defaultRequirements(lr: KObject): { requests: Record<string, unknown>; limits: Record<string, unknown> } {
  const requests: Record<string, unknown> = {};
  const limits: Record<string, unknown> = {};
  for (const item of limitItems(lr)) {
    if (item.type !== 'Container') continue;
    for (const [k, v] of Object.entries(item.defaultRequest ?? {})) requests[k] = v;
    for (const [k, v] of Object.entries(item.default ?? {})) limits[k] = v;
  }
  return { requests, limits };
}

/** A map with the new keys merged and every key in sorted order, as Go would serialize it. */
function sortedMerge(existing: Record<string, unknown> | undefined, add: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(existing ?? {}), ...add };
  return Object.fromEntries(Object.keys(merged).sort().map((k) => [k, merged[k]]));
}

/** mergeContainerResources: fills what the container lacks; returns the annotation parts. */
function mergeContainer(c: any, defaults: ReturnType<typeof defaultRequirements>, kind: string, notes: string[]): void {
  if (!c || typeof c !== 'object') return;
  const resources = c.resources && typeof c.resources === 'object' ? c.resources : {};
  const setLimits: Record<string, unknown> = {};
  const setRequests: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(defaults.limits)) {
    if (!(resources.limits && typeof resources.limits === 'object' && k in resources.limits)) setLimits[k] = v;
  }
  for (const [k, v] of Object.entries(defaults.requests)) {
    if (!(resources.requests && typeof resources.requests === 'object' && k in resources.requests)) setRequests[k] = v;
  }
  if (Object.keys(setLimits).length) resources.limits = sortedMerge(resources.limits, setLimits);
  if (Object.keys(setRequests).length) resources.requests = sortedMerge(resources.requests, setRequests);
  if (Object.keys(setLimits).length || Object.keys(setRequests).length) c.resources = resources;
  if (Object.keys(setRequests).length) notes.push(`${Object.keys(setRequests).sort().join(', ')} request for ${kind} ${c.name}`);
  if (Object.keys(setLimits).length) notes.push(`${Object.keys(setLimits).sort().join(', ')} limit for ${kind} ${c.name}`);
}

/** PodMutateLimitFunc for one LimitRange. */
export function mutatePod(lr: KObject, pod: KObject): void {
  const defaults = defaultRequirements(lr);
  const spec = (pod.spec ?? {}) as any;
  const notes: string[] = [];
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) mergeContainer(c, defaults, 'container', notes);
  for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : []) mergeContainer(c, defaults, 'init container', notes);
  if (notes.length) {
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

// --- validation ---------------------------------------------------------------

/** requestLimitEnforcedValues: milli precision when nothing overflows, else whole units. */
function enforcedValues(req: Quantity, lim: Quantity, enforced: Quantity): [bigint, bigint, bigint] {
  const r = value(req);
  const l = value(lim);
  const e = value(enforced);
  if (r <= MAX_MILLI_VALUE && l <= MAX_MILLI_VALUE && e <= MAX_MILLI_VALUE) {
    return [milliValue(req), milliValue(lim), milliValue(enforced)];
  }
  return [r, l, e];
}

export function minConstraint(limitType: string, name: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request[name];
  const lim = limit[name];
  const [r, l, e] = enforcedValues(req ?? zero(), lim ?? zero(), enforced);
  if (!req) return `minimum ${name} usage per ${limitType} is ${str(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${limitType} is ${str(enforced)}, but request is ${str(req)}`;
  if (lim && l < e) return `minimum ${name} usage per ${limitType} is ${str(enforced)}, but limit is ${str(lim)}`;
  return undefined;
}

/** maxRequestConstraint: for PVCs, whose limits are not user input. */
export function maxRequestConstraint(limitType: string, name: string, enforced: Quantity, request: ResourceList): string | undefined {
  const req = request[name];
  const [r, , e] = enforcedValues(req ?? zero(), zero(), enforced);
  if (!req) return `maximum ${name} usage per ${limitType} is ${str(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${limitType} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

export function maxConstraint(limitType: string, name: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request[name];
  const lim = limit[name];
  const [r, l, e] = enforcedValues(req ?? zero(), lim ?? zero(), enforced);
  if (!lim) return `maximum ${name} usage per ${limitType} is ${str(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${limitType} is ${str(enforced)}, but limit is ${str(lim)}`;
  if (req && r > e) return `maximum ${name} usage per ${limitType} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

/** Go's %f: six decimals. */
function goFloat(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : x < 0 ? '-Inf' : 'NaN';
  return x.toFixed(6);
}

export function limitRequestRatioConstraint(limitType: string, name: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request[name];
  const lim = limit[name];
  const [r, l] = enforcedValues(req ?? zero(), lim ?? zero(), enforced);
  if (!req || r === 0n) {
    return `${name} max limit to request ratio per ${limitType} is ${str(enforced)}, but no request is specified or request is 0`;
  }
  if (!lim || l === 0n) {
    return `${name} max limit to request ratio per ${limitType} is ${str(enforced)}, but no limit is specified or limit is 0`;
  }
  let observed = Number(l) / Number(r);
  const display = observed;
  let max = Number(value(enforced));
  if (value(enforced) <= MAX_MILLI_VALUE) {
    observed *= 1000;
    max = Number(milliValue(enforced));
  }
  if (observed > max) {
    return `${name} max limit to request ratio per ${limitType} is ${str(enforced)}, but provided ratio is ${goFloat(display)}`;
  }
  return undefined;
}

function checkItem(item: any, request: ResourceList, limit: ResourceList, errs: string[]): void {
  const type = String(item.type ?? '');
  for (const [k, v] of sortedEntries(item.min)) { const e = minConstraint(type, k, v, request, limit); if (e) errs.push(e); }
  for (const [k, v] of sortedEntries(item.max)) { const e = maxConstraint(type, k, v, request, limit); if (e) errs.push(e); }
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio)) {
    const e = limitRequestRatioConstraint(type, k, v, request, limit);
    if (e) errs.push(e);
  }
}

/** PodValidateLimitFunc: the error message, or undefined. */
export function validatePod(lr: KObject, pod: KObject): string | undefined {
  const errs: string[] = [];
  const spec = (pod.spec ?? {}) as any;
  for (const item of limitItems(lr)) {
    if (item.type === 'Container') {
      for (const list of [spec.containers, spec.initContainers]) {
        for (const c of Array.isArray(list) ? list : []) {
          if (!c || typeof c !== 'object') continue;
          checkItem(item, parseList(c.resources?.requests), parseList(c.resources?.limits), errs);
        }
      }
    }
    if (item.type === 'Pod') {
      checkItem(item, podResources(pod, 'requests', false), podResources(pod, 'limits', false), errs);
    }
  }
  return errs.length ? aggregateMessage(errs) : undefined;
}

/** PersistentVolumeClaimValidateLimitFunc: min and max of spec.resources.requests. */
export function validatePVC(lr: KObject, pvc: KObject): string | undefined {
  const errs: string[] = [];
  const requests = parseList((pvc.spec as any)?.resources?.requests);
  for (const item of limitItems(lr)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of sortedEntries(item.min)) {
      const e = minConstraint('PersistentVolumeClaim', k, v, requests, {});
      if (e) errs.push(e);
    }
    for (const [k, v] of sortedEntries(item.max)) {
      const e = maxRequestConstraint('PersistentVolumeClaim', k, v, requests);
      if (e) errs.push(e);
    }
  }
  return errs.length ? aggregateMessage(errs) : undefined;
}

export const limitRanger: AdmissionPlugin = {
  name: 'LimitRanger',
  async admit(a) {
    if (!applies(a) || !isPod(a)) return;
    for (const lr of await limitRanges(a)) mutatePod(lr, a.object);
  },
  async validate(a) {
    if (!applies(a)) return;
    for (const lr of await limitRanges(a)) {
      const err = isPod(a) ? validatePod(lr, a.object) : validatePVC(lr, a.object);
      if (err) throw forbidden(a, err);
    }
  },
};

