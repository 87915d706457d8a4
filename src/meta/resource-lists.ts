/**
 * ResourceList arithmetic as the admission plugins and the quota controller
 * do it upstream (resource.Quantity Add/Sub/Cmp/Value/MilliValue, the
 * k8s.io/apiserver/pkg/quota/v1 helpers, and PodRequests/PodLimits of
 * pkg/api/v1/resource), over the exact Quantity of apimachinery/quantity.ts.
 */
import { cmpQuantity, formatQuantity, parseQuantity, type Quantity } from '../apimachinery/quantity.js';

/** A parsed ResourceList, in the object's key order. */
export type ResourceList = Record<string, Quantity>;

const ZERO: Quantity = { neg: false, unscaled: 0n, scale: 0, format: 'DecimalSI' };

export function zero(format: Quantity['format'] = 'DecimalSI'): Quantity {
  return { ...ZERO, format };
}

/** resource.NewQuantity(n, DecimalSI). */
export function intQuantity(n: number | bigint): Quantity {
  const v = BigInt(n);
  return { neg: v < 0n, unscaled: v < 0n ? -v : v, scale: 0, format: 'DecimalSI' };
}

/** Parses a quantity, undefined when it does not parse (validation reports those). */
export function quantityOf(v: unknown): Quantity | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  try { return parseQuantity(v); } catch { return undefined; }
}

/** Parses a ResourceList from JSON, skipping values that do not parse. */
export function parseList(raw: unknown): ResourceList {
  const out: ResourceList = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const q = quantityOf(v);
    if (q) out[k] = q;
  }
  return out;
}

function signed(q: Quantity, scale: number): bigint {
  return (q.neg ? -1n : 1n) * q.unscaled * 10n ** BigInt(q.scale - scale);
}

function fromSigned(v: bigint, scale: number, format: Quantity['format']): Quantity {
  return { neg: v < 0n, unscaled: v < 0n ? -v : v, scale, format };
}

export function isZero(q: Quantity): boolean {
  return q.unscaled === 0n;
}

/** Quantity.Sign(). */
export function sign(q: Quantity): number {
  return q.unscaled === 0n ? 0 : q.neg ? -1 : 1;
}

/** Quantity.Add: the sum keeps the left operand's format unless the left one is zero. */
export function add(a: Quantity, b: Quantity): Quantity {
  const scale = Math.min(a.scale, b.scale);
  return fromSigned(signed(a, scale) + signed(b, scale), scale, isZero(a) ? b.format : a.format);
}

/** Quantity.Sub, with Add's format rule. */
export function sub(a: Quantity, b: Quantity): Quantity {
  const scale = Math.min(a.scale, b.scale);
  return fromSigned(signed(a, scale) - signed(b, scale), scale, isZero(a) ? b.format : a.format);
}

export const cmp = cmpQuantity;

/** Quantity.String(). */
export function str(q: Quantity): string {
  return formatQuantity(q);
}

function ceilScaled(q: Quantity, scale: number): bigint {
  // value × 10^-scale, rounded up (towards +∞) as Quantity.ScaledValue does.
  const shift = q.scale - scale;
  const s = (q.neg ? -1n : 1n) * q.unscaled;
  if (shift >= 0) return s * 10n ** BigInt(shift);
  const d = 10n ** BigInt(-shift);
  const t = s / d;
  return t * d === s || s < 0n ? t : t + 1n;
}

/** Quantity.Value(): the integer value, rounded up. */
export function value(q: Quantity): bigint {
  return ceilScaled(q, 0);
}

/** Quantity.MilliValue(): the value in thousandths, rounded up. */
export function milliValue(q: Quantity): bigint {
  return ceilScaled(q, -3);
}

/** resource.MaxMilliValue: the largest Value() whose MilliValue() fits an int64. */
export const MAX_MILLI_VALUE = ((1n << 63n) - 1n) / 1000n;

// --- k8s.io/apiserver/pkg/quota/v1 helpers -----------------------------------

/** quota.Add. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) {
    const w = b[k];
    out[k] = w !== undefined ? add(v, w) : v;
  }
  for (const [k, v] of Object.entries(b)) if (!(k in out)) out[k] = v;
  return out;
}

/** quota.SubtractWithNonNegativeResult. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) {
    let q = v;
    const w = b[k];
    if (w !== undefined) q = sub(v, w);
    out[k] = sign(q) < 0 ? zero(q.format) : q;
  }
  for (const [k, v] of Object.entries(b)) if (!(k in out)) out[k] = zero(v.format);
  return out;
}

/** quota.Mask: only the named resources. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const keep = new Set(names);
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(list)) if (keep.has(k)) out[k] = v;
  return out;
}

/** quota.RemoveZeros. */
export function removeZeros(list: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(list)) if (!isZero(v)) out[k] = v;
  return out;
}

/** quota.IsNegative: the names of negative quantities. */
export function negatives(list: ResourceList): string[] {
  return Object.entries(list).filter(([, v]) => sign(v) < 0).map(([k]) => k);
}

/** quota.LessThanOrEqual: whether every resource of b present in a is not exceeded, and those that are. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { ok: boolean; exceeded: string[] } {
  const exceeded = Object.entries(b).filter(([k, w]) => {
    const v = a[k];
    return v !== undefined && cmp(v, w) > 0;
  }).map(([k]) => k);
  return { ok: exceeded.length === 0, exceeded };
}

/** The entries of a ResourceList, keys in the order Go writes maps (Object.keys().sort()). */
export function sortedByKey(list: ResourceList): [string, Quantity][] {
  return Object.entries(list).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A ResourceList as JSON, keys sorted as Go writes maps. */
export function toJSON(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of sortedByKey(list)) out[k] = str(v);
  return out;
}

/** The `k=v,k=v` form upstream's quota messages use, keys sorted. */
export function prettyPrint(list: ResourceList): string {
  return sortedByKey(list).map(([k, v]) => `${k}=${str(v)}`).join(',');
}

// --- pkg/api/v1/resource PodRequests / PodLimits -------------------------------

function addInto(list: ResourceList, more: ResourceList): void {
  for (const [k, v] of Object.entries(more)) {
    const have = list[k];
    list[k] = have !== undefined ? add(have, v) : v;
  }
}

function maxInto(list: ResourceList, more: ResourceList): void {
  for (const [k, v] of Object.entries(more)) {
    const have = list[k];
    if (have === undefined || cmp(v, have) > 0) list[k] = v;
  }
}

function containers(spec: any, key: 'containers' | 'initContainers'): any[] {
  return Array.isArray(spec?.[key]) ? spec[key].filter((c: unknown) => c && typeof c === 'object') : [];
}

/**
 * The pod's effective requests or limits: the sum over containers (and
 * sidecar init containers), at least the largest init container's, plus the
 * pod overhead when asked (for limits, only where a limit exists).
 * LimitRanger's own copy leaves the overhead out.
 */
export function podResources(pod: any, which: 'requests' | 'limits', withOverhead: boolean): ResourceList {
  const spec = pod?.spec ?? {};
  const out: ResourceList = {};
  for (const c of containers(spec, 'containers')) addInto(out, parseList(c.resources?.[which]));
  const restartable: ResourceList = {};
  const initMax: ResourceList = {};
  for (const c of containers(spec, 'initContainers')) {
    const own = parseList(c.resources?.[which]);
    let effective: ResourceList;
    if (c.restartPolicy === 'Always') {
      addInto(out, own);
      addInto(restartable, own);
      effective = { ...restartable };
    } else {
      effective = {};
      addInto(effective, own);
      addInto(effective, restartable);
    }
    maxInto(initMax, effective);
  }
  maxInto(out, initMax);
  if (withOverhead) {
    const overhead = parseList(spec.overhead);
    for (const [k, v] of Object.entries(overhead)) {
      const have = out[k];
      if (which === 'requests') out[k] = have !== undefined ? add(have, v) : v;
      else if (have !== undefined) out[k] = add(have, v);
    }
  }
  return out;
}
