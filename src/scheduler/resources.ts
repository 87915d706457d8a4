/**
 * Pod and node resources as the scheduler counts them: integers (millicores,
 * bytes, counts) computed once per object, as framework.Resource holds them.
 * Pod requests follow resourcehelper.PodRequests (pkg/api/v1/resource): the
 * sum over containers and sidecars, at least the largest init container's,
 * plus the RuntimeClass overhead the admission copied into spec.overhead.
 */
import { parseQuantity } from '../apimachinery/quantity.js';
import { milliValue, value } from '../meta/resource-lists.js';

/** schedutil.DefaultMilliCPURequest and DefaultMemoryRequest (100m, 200MB) for containers without requests. */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/**
 * One class for every resource vector so that the filter's hot loop sees a
 * single object shape (V8 keeps such code optimized; object literals and
 * spreads of them gave the same function several shapes and made it ~10x slower).
 */
export class Resources {
  milliCPU = 0;
  memory = 0;
  ephemeralStorage = 0;
  /** AllowedPodNumber (allocatable only). */
  pods = 0;
  /** Extended resources, hugepages, attachable volumes. */
  scalars = new Map<string, number>();
}

export function emptyResources(): Resources {
  return new Resources();
}

/** schedutil.IsScalarResourceName: extended (domain-prefixed, not kubernetes.io), hugepages-, attachable-volumes-. */
export function isScalarResourceName(name: string): boolean {
  if (name.startsWith('hugepages-') || name.startsWith('attachable-volumes-')) return true;
  if (!name.includes('/')) return false;
  return !name.startsWith('kubernetes.io/') && !name.startsWith('requests.');
}

const quantityCache = new Map<string, { v: number; m: number }>();

function amount(q: unknown): { v: number; m: number } | undefined {
  if (typeof q !== 'string' && typeof q !== 'number') return undefined;
  const key = String(q);
  let hit = quantityCache.get(key);
  if (!hit) {
    try {
      const p = parseQuantity(q);
      hit = { v: Number(value(p)), m: Number(milliValue(p)) };
    } catch { return undefined; }
    if (quantityCache.size > 10_000) quantityCache.clear();
    quantityCache.set(key, hit);
  }
  return hit;
}

/** Resource.Add of one ResourceList. */
export function addList(r: Resources, list: Record<string, unknown> | undefined): void {
  if (!list) return;
  for (const k in list) {
    const a = amount(list[k]);
    if (!a) continue;
    if (k === 'cpu') r.milliCPU += a.m;
    else if (k === 'memory') r.memory += a.v;
    else if (k === 'ephemeral-storage') r.ephemeralStorage += a.v;
    else if (isScalarResourceName(k)) r.scalars.set(k, (r.scalars.get(k) ?? 0) + a.v);
  }
}

function addInto(r: Resources, o: Resources): void {
  r.milliCPU += o.milliCPU; r.memory += o.memory; r.ephemeralStorage += o.ephemeralStorage;
  for (const [k, v] of o.scalars) r.scalars.set(k, (r.scalars.get(k) ?? 0) + v);
}

function maxInto(r: Resources, o: Resources): void {
  r.milliCPU = Math.max(r.milliCPU, o.milliCPU); r.memory = Math.max(r.memory, o.memory);
  r.ephemeralStorage = Math.max(r.ephemeralStorage, o.ephemeralStorage);
  for (const [k, v] of o.scalars) r.scalars.set(k, Math.max(r.scalars.get(k) ?? 0, v));
}

function cloneResources(r: Resources): Resources {
  const c = new Resources();
  c.milliCPU = r.milliCPU; c.memory = r.memory; c.ephemeralStorage = r.ephemeralStorage; c.scalars = new Map(r.scalars);
  return c;
}

/** One container's requests; with `nonZero`, missing cpu/memory become the scheduler's defaults (NonMissingContainerRequests). */
function containerRequests(c: any, nonZero: boolean): Resources {
  const r = emptyResources();
  const req = c?.resources?.requests;
  addList(r, req);
  if (nonZero) {
    if (!req || req.cpu === undefined) r.milliCPU = DEFAULT_MILLI_CPU_REQUEST;
    if (!req || req.memory === undefined) r.memory = DEFAULT_MEMORY_REQUEST;
  }
  return r;
}

/** resourcehelper.PodRequests (AggregateContainerRequests + overhead). */
export function podRequests(pod: any, nonZero: boolean): Resources {
  const spec = pod?.spec ?? {};
  const reqs = emptyResources();
  for (const c of spec.containers ?? []) addInto(reqs, containerRequests(c, nonZero));
  const restartable = emptyResources();
  const initMax = emptyResources();
  for (const c of spec.initContainers ?? []) {
    const own = containerRequests(c, nonZero);
    let effective: Resources;
    if (c?.restartPolicy === 'Always') {
      addInto(reqs, own);
      addInto(restartable, own);
      effective = restartable;
    } else {
      effective = cloneResources(own);
      addInto(effective, restartable);
    }
    maxInto(initMax, effective);
  }
  maxInto(reqs, initMax);
  addList(reqs, spec.overhead);
  return reqs;
}

/** The node's allocatable as framework.Resource (with AllowedPodNumber). */
export function nodeAllocatable(node: any): Resources {
  const r = emptyResources();
  const alloc = node?.status?.allocatable ?? {};
  addList(r, alloc);
  r.pods = amount(alloc.pods)?.v ?? 0;
  return r;
}
