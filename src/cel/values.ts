/**
 * JSON values as CEL values where no schema types them (admission expressions' `object`,
 * `oldObject`, `params`, `request`): whole numbers are CEL ints (unstructured JSON decodes them
 * as int64), other numbers doubles, objects maps.
 */
import type { CelInput } from '@bufbuild/cel';

export function jsonToCel(v: unknown): CelInput {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(jsonToCel);
  const m = new Map<string, CelInput>();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, jsonToCel(x));
  return m;
}
