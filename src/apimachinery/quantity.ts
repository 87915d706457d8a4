/**
 * resource.Quantity as upstream decodes and re-encodes it
 * (k8s.io/apimachinery/pkg/api/resource/quantity.go): parsing with Go's
 * error messages, rounding to nano on parse and to milli for ResourceLists
 * (SetDefaults_ResourceList), and the canonical string form. The exact value
 * is kept as sign × unscaled × 10^scale in BigInt so no precision is lost.
 */

/** A decode failure: the API answers 400 "<Kind> in version ... cannot be handled as a <Kind>: <message>". */
export class DecodeError extends Error {}

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  neg: boolean;
  /** Magnitude without the decimal point. */
  unscaled: bigint;
  /** Power of ten: value = unscaled × 10^scale. */
  scale: number;
  format: QuantityFormat;
  /** The input string, kept when upstream keeps it (already canonical). */
  s?: string;
}

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE}'`;
export const ERR_NUMERIC = "unable to parse quantity's numeric part";
export const ERR_SUFFIX = "unable to parse quantity's suffix";

const DEC_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_BY_EXP = new Map(Object.entries(DEC_SUFFIXES).map(([k, v]) => [v, k]));
const BIN_BY_EXP = new Map<number, string>([[0, ''], ...Object.entries(BIN_SUFFIXES).map(([k, v]) => [v, k] as [number, string])]);
const MAX_INT64 = (1n << 63n) - 1n;
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

interface Parts { positive: boolean; value: string; num: string; denom: string; suffix: string }

/** parseQuantityString, step for step (leading zeros stripped, "1.G" allowed). */
function parseParts(str: string): Parts {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end && (str[0] === '-' || str[0] === '+')) { positive = str[0] !== '-'; pos++; }
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
    if (str[i] === '0') pos++; else break;
  }
  let num: string;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
    if (!isDigit(str[i])) { num = str.slice(pos, i); pos = i; break; }
  }
  if (num === '') num = '0';
  let denom = '';
  if (pos < end && str[pos] === '.') {
    pos++;
    for (let i = pos; ; i++) {
      if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: '' };
      if (!isDigit(str[i])) { denom = str.slice(pos, i); pos = i; break; }
    }
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!'eEinumkKMGTP'.includes(str.charAt(i))) { pos = i; break; }
  }
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!isDigit(str[i])) break;
  }
  throw new DecodeError(ERR_FORMAT_WRONG);
}

function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | undefined {
  const decimal = DEC_SUFFIXES[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  const binary = BIN_SUFFIXES[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    // strconv.ParseInt: optional sign, decimal digits only.
    if (!/^[+-]?\d+$/.test(suffix.slice(1))) return undefined;
    const e = Number(suffix.slice(1));
    if (!Number.isSafeInteger(e)) return undefined;
    return { base: 10, exponent: e, format: 'DecimalExponent' };
  }
  return undefined;
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** Rounds the magnitude up (away from zero) to at most `-minScale` fractional digits. */
function roundUpTo(q: Quantity, minScale: number): Quantity {
  if (q.scale >= minScale) return q;
  const div = pow10(minScale - q.scale);
  let v = q.unscaled / div;
  if (v * div !== q.unscaled) v += 1n;
  return { ...q, unscaled: v, scale: minScale, s: undefined };
}

/**
 * Parsed quantities by input: the same few strings ("100m", "128Mi") are
 * parsed for every container of every stats read and scheduling pass.
 * Entries are frozen (callers copy, never mutate); the cache is emptied
 * when full rather than kept in order, since the working set is small.
 */
const parsed = new Map<string, Quantity>();
const PARSED_MAX = 4096;

/** resource.ParseQuantity. Throws DecodeError with upstream's messages. */
export function parseQuantity(input: string | number): Quantity {
  if (typeof input === 'number') return parseUncached(input);
  const hit = parsed.get(input);
  if (hit) return hit;
  const q = Object.freeze(parseUncached(input));
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(input, q);
  return q;
}

function parseUncached(input: string | number): Quantity {
  const str = typeof input === 'number' ? String(input) : input.trim();
  if (str.length === 0) throw new DecodeError(ERR_FORMAT_WRONG);
  if (str === '0') return { neg: false, unscaled: 0n, scale: 0, format: 'DecimalSI', s: str };
  const p = parseParts(str);
  const suf = interpretSuffix(p.suffix);
  if (!suf) throw new DecodeError(ERR_SUFFIX);
  const digits = BigInt(p.num + p.denom);
  let unscaled: bigint;
  let scale: number;
  if (suf.base === 10) {
    unscaled = digits;
    scale = suf.exponent - p.denom.length;
  } else {
    unscaled = digits << BigInt(suf.exponent);
    scale = -p.denom.length;
  }
  // Upstream's int64 fast path keeps the input string when it is already canonical.
  let keep = false;
  let precision: number;
  if (suf.format === 'BinarySI') {
    precision = suf.exponent >= 0 && p.denom.length === 0
      ? 15 - p.num.length - Math.trunc(suf.exponent * 3 / 10) - 1 : -1;
  } else {
    precision = 18 - (p.num.length + p.denom.length);
  }
  if (precision >= 0) {
    const fastScale = (suf.base === 10 ? suf.exponent : 0) - p.denom.length;
    if (fastScale >= -9) {
      const shifted = p.num + p.denom;
      const value = BigInt(shifted);
      if (value > MAX_INT64) throw new DecodeError(ERR_NUMERIC);
      const mantissa = suf.base === 2 ? 1n << BigInt(suf.exponent) : 1n;
      if (value * mantissa <= MAX_INT64) {
        keep = suf.format === 'BinarySI'
          ? suf.exponent % 10 === 0 && (value & 7n) !== 0n
          : fastScale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
      }
    }
  }
  let q: Quantity = { neg: !p.positive && unscaled !== 0n, unscaled, scale, format: suf.format };
  if (keep) return { ...q, s: str };
  // Non-zero values below a nano round up to the smallest representable one.
  q = roundUpTo(q, -9);
  if (q.format === 'BinarySI' && q.scale >= 0 && q.unscaled * pow10(q.scale) > MAX_INT64) {
    q = { ...q, unscaled: MAX_INT64, scale: 0 };
  }
  return q;
}

/** Quantity.RoundUp(-3), as SetDefaults_ResourceList applies it; keeps the string when nothing changes. */
export function roundUpMilli(q: Quantity): Quantity {
  return roundUpTo(q, -3);
}

function removeFactors(v: bigint, f: bigint): [bigint, number] {
  let times = 0;
  if (v === 0n) return [v, 0];
  while (v % f === 0n) { v /= f; times++; }
  return [v, times];
}

/** Quantity.String(): the kept input, or the canonical form. */
export function formatQuantity(q: Quantity): string {
  if (q.s !== undefined) return q.s;
  if (q.unscaled === 0n) return '0';
  const sign = q.neg ? '-' : '';
  let format = q.format;
  if (format === 'BinarySI') {
    const isInt = q.scale >= 0 || q.unscaled % pow10(-q.scale) === 0n;
    const magnitude1024 = q.scale >= 0 ? q.unscaled * pow10(q.scale) < 1024n
      : q.unscaled < 1024n * pow10(-q.scale);
    if (magnitude1024 || !isInt) format = 'DecimalSI';
    else {
      const n = q.scale >= 0 ? q.unscaled * pow10(q.scale) : q.unscaled / pow10(-q.scale);
      const [m, e] = removeFactors(n, 1024n);
      return sign + m.toString() + (BIN_BY_EXP.get(e * 10) ?? '');
    }
  }
  let [amount, times] = removeFactors(q.unscaled, 10n);
  let exponent = q.scale + times;
  while (exponent % 3 !== 0) { amount *= 10n; exponent--; }
  let suffix: string;
  if (format === 'DecimalExponent') suffix = exponent === 0 ? '' : `e${exponent}`;
  // Upstream drops an unknown SI suffix silently (constructBytes' result is ignored).
  else suffix = DEC_BY_EXP.get(exponent) ?? '';
  return sign + amount.toString() + suffix;
}

/** Compares two quantities by value. */
export function cmpQuantity(a: Quantity, b: Quantity): number {
  const scale = Math.min(a.scale, b.scale);
  const av = (a.neg ? -1n : 1n) * a.unscaled * pow10(a.scale - scale);
  const bv = (b.neg ? -1n : 1n) * b.unscaled * pow10(b.scale - scale);
  return av < bv ? -1 : av > bv ? 1 : 0;
}

export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const scale = Math.min(a.scale, b.scale);
  const v = (a.neg ? -1n : 1n) * a.unscaled * pow10(a.scale - scale) + (b.neg ? -1n : 1n) * b.unscaled * pow10(b.scale - scale);
  return { neg: v < 0n, unscaled: v < 0n ? -v : v, scale, format: a.format };
}

export function isPositive(q: Quantity): boolean {
  return !q.neg && q.unscaled > 0n;
}

/**
 * SetDefaults_ResourceList on a JSON map: every value parsed (a bad one is a
 * decode error), rounded up to milli and written back in canonical form.
 */
export function defaultResourceList(list: Record<string, unknown> | undefined | null): void {
  if (!list || typeof list !== 'object') return;
  for (const [k, v] of Object.entries(list)) {
    if (v === null) continue;
    if (typeof v !== 'string' && typeof v !== 'number') throw new DecodeError(ERR_FORMAT_WRONG);
    list[k] = formatQuantity(roundUpMilli(parseQuantity(v)));
  }
}

/** A lone Quantity field (not in a ResourceList): decoded and re-encoded, no milli rounding. */
export function canonicalQuantity(v: unknown): unknown {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string' && typeof v !== 'number') throw new DecodeError(ERR_FORMAT_WRONG);
  return formatQuantity(parseQuantity(v));
}
