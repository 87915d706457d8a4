/**
 * The kubelet's view of capacity and allocatable quantities: integer bytes
 * or millicores (parsed by apimachinery's resource.Quantity), and back to
 * the canonical form resource.Quantity prints.
 */

import { parseQuantity } from '../apimachinery/quantity.js';
import { milliValue, value } from '../meta/resource-lists.js';

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };

// The same few quantities (pool sizes, container limits) are read for every pod at every stats read.
const bytes = new Map<string | number, number>();
const milliCPU = new Map<string | number, number>();
function memo(cache: Map<string | number, number>, q: string | number, compute: () => number): number {
  const hit = cache.get(q);
  if (hit !== undefined) return hit;
  const v = compute();
  if (cache.size >= 4096) cache.clear();
  cache.set(q, v);
  return v;
}

/**
 * Bytes (or a plain count) of a quantity such as `16Gi`, `500M`, `1024`:
 * resource.ParseQuantity then Quantity.Value(), which rounds a fraction up
 * (`0.5` is 1). Throws DecodeError with ParseQuantity's message.
 */
export function parseBytes(q: string | number): number {
  return memo(bytes, q, () => Number(value(parseQuantity(q))));
}

/**
 * Millicores of a cpu quantity such as `4`, `100m`, `0.5`:
 * Quantity.MilliValue(), which rounds up (`0.1m` is 1m).
 */
export function parseMilliCPU(q: string | number): number {
  return memo(milliCPU, q, () => Number(milliValue(parseQuantity(q))));
}

/**
 * A byte count in BinarySI canonical form: the largest binary suffix that
 * divides it exactly (`16Gi`, `16284Mi`, `16290984Ki`), the plain number
 * otherwise (as upstream prints 94580335255 for a 10% eviction threshold).
 */
export function formatBytes(bytes: number): string {
  if (bytes === 0) return '0';
  for (const [unit, mult] of Object.entries(BINARY).reverse()) {
    if (bytes % mult === 0) return `${bytes / mult}${unit}`;
  }
  return String(bytes);
}

/** Millicores in DecimalSI canonical form: `4`, `3900m`. */
export function formatMilliCPU(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}
