/**
 * The little resource arithmetic the kubelet does for capacity and
 * allocatable: quantities as integer bytes or millicores, and back to the
 * canonical form resource.Quantity prints.
 */

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };
const DECIMAL: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };

/** Bytes (or a plain count) from `16Gi`, `100Mi`, `500M`, `1024`. */
export function parseBytes(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = /^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/.exec(q.trim());
  if (!m) throw new Error(`invalid quantity ${JSON.stringify(q)}`);
  const unit = m[2] ?? '';
  const mult = BINARY[unit] ?? DECIMAL[unit];
  if (mult === undefined) throw new Error(`invalid quantity ${JSON.stringify(q)}`);
  return Math.round(Number(m[1]) * mult);
}

/** Millicores from `4`, `100m`, `0.5`. */
export function parseMilliCPU(q: string | number): number {
  if (typeof q === 'number') return Math.round(q * 1000);
  const m = /^([0-9]+(?:\.[0-9]+)?)(m)?$/.exec(q.trim());
  if (!m) throw new Error(`invalid cpu quantity ${JSON.stringify(q)}`);
  return m[2] ? Math.round(Number(m[1])) : Math.round(Number(m[1]) * 1000);
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
