/**
 * resource.Quantity's String() (k8s.io/apimachinery/pkg/api/resource): the canonical
 * form a quantity prints in, so cells read "1500m" and "1Gi" whatever spelling was stored.
 */

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX = Object.fromEntries(Object.entries(DECIMAL).map(([k, v]) => [v, k])) as Record<number, string>;
const BINARY_SUFFIX: Record<number, string> = { 0: '', 10: 'Ki', 20: 'Mi', 30: 'Gi', 40: 'Ti', 50: 'Pi', 60: 'Ei' };
const INT64_MAX = (1n << 63n) - 1n;

interface Parsed { negative: boolean; num: string; denom: string; format: Format; exponent: number }

/** parseQuantityString plus the suffix lookup; undefined where ParseQuantity errs. */
function parse(s: string): Parsed | undefined {
  if (s === '') return undefined;
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(s);
  if (!m) return undefined;
  const [, sign = '', num = '', denom = '', suffix = ''] = m;
  const decimal = DECIMAL[suffix];
  if (decimal !== undefined) return { negative: sign === '-', num: num || '0', denom, format: 'DecimalSI', exponent: decimal };
  const binary = BINARY[suffix];
  if (binary !== undefined) return { negative: sign === '-', num: num || '0', denom, format: 'BinarySI', exponent: binary };
  const e = /^[eE]([+-]?\d+)$/.exec(suffix);
  if (e) return { negative: sign === '-', num: num || '0', denom, format: 'DecimalExponent', exponent: Number(e[1]) };
  return undefined;
}

/** Whether ParseQuantity keeps the caller's spelling, which String() then returns verbatim. */
function keepsSpelling(p: Parsed): boolean {
  const shifted = p.num + p.denom;
  if (p.format === 'BinarySI') {
    if (p.denom !== '') return false;
    const precision = 15 - p.num.length - Math.trunc((p.exponent * 3) / 10) - 1;
    if (precision < 0) return false;
    const value = BigInt(shifted);
    if (value * (1n << BigInt(p.exponent)) > INT64_MAX) return false;
    return p.exponent % 10 === 0 && (value & 7n) !== 0n;
  }
  if (18 - shifted.length < 0) return false;
  const scale = p.exponent - p.denom.length;
  if (scale < -9 || BigInt(shifted) > INT64_MAX) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

/** Quantity.String() of a stored quantity; the input itself when it does not parse. */
export function quantityString(q: unknown): string {
  if (q === undefined || q === null) return '0';
  const s = String(q);
  if (s === '0') return '0';
  const p = parse(s);
  if (!p) return s;
  if (keepsSpelling(p)) return s;

  // value = mantissa × 10^exp10, mantissa ≥ 0
  let mantissa = BigInt(p.num + p.denom);
  let exp10 = -p.denom.length;
  if (p.format === 'BinarySI') mantissa <<= BigInt(p.exponent);
  else exp10 += p.exponent;
  if (mantissa === 0n) return '0';
  // Parsing rounds anything finer than 1n up to 1n.
  if (exp10 < -9) {
    const d = 10n ** BigInt(-9 - exp10);
    mantissa = (mantissa + d - 1n) / d;
    exp10 = -9;
  }
  const sign = p.negative ? '-' : '';

  if (p.format === 'BinarySI') {
    const integer = exp10 >= 0 ? mantissa * 10n ** BigInt(exp10) : mantissa % 10n ** BigInt(-exp10) === 0n ? mantissa / 10n ** BigInt(-exp10) : undefined;
    // Values under 1024, and fractions, print in decimal rather than lose precision.
    if (integer !== undefined && integer >= 1024n) {
      let n = integer;
      let e = 0;
      while (n % 1024n === 0n) { n /= 1024n; e += 10; }
      return sign + n.toString() + (BINARY_SUFFIX[e] ?? '');
    }
  }

  while (mantissa % 10n === 0n) { mantissa /= 10n; exp10++; }
  while (exp10 % 3 !== 0) { mantissa *= 10n; exp10--; }
  let suffix: string;
  if (p.format === 'DecimalExponent') suffix = exp10 === 0 ? '' : `e${exp10}`;
  else suffix = DECIMAL_SUFFIX[exp10] ?? '';
  return sign + mantissa.toString() + suffix;
}
