/**
 * The parts of Go's strconv and fmt a modelled Go program's answers depend
 * on: which strings strconv.Atoi and strconv.ParseFloat accept, and how
 * fmt prints an int64 and a float64 with `%v` (Println) and `%f`.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.Atoi on a 64-bit platform: an optional sign and decimal digits within int64; undefined on its error. */
export function goAtoi(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/**
 * strconv.ParseFloat(s, 64): decimal and hexadecimal forms (underscores only
 * between digits with a base prefix), `inf`, `infinity` and `nan` in any
 * case; undefined on its syntax or range error.
 */
export function goParseFloat(s: string): number | undefined {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return special[1] ? undefined : NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  const decimal = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.exec(s);
  if (decimal) {
    const v = Number(s);
    return Number.isFinite(v) ? v : undefined;
  }
  const hex = /^([+-]?)0[xX]((?:_?[0-9a-fA-F])*)\.?((?:_?[0-9a-fA-F])*)[pP]([+-]?\d+)$/.exec(s);
  if (hex && (hex[2] || hex[3])) {
    const int = hex[2]!.replace(/_/g, '');
    const frac = hex[3]!.replace(/_/g, '');
    const mantissa = parseInt(int + frac || '0', 16) / 16 ** frac.length;
    const v = mantissa * 2 ** Number(hex[4]);
    if (!Number.isFinite(v)) return undefined;
    return hex[1] === '-' ? -v : v;
  }
  return undefined;
}

/**
 * fmt's `%v` of a float64, strconv's shortest `'g'`: %e form when the
 * decimal exponent is below -4 or at least 6 (so Println(1e6) is `1e+06`).
 */
export function goFloatV(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa = '', exp = '0'] = v.toExponential().split('e');
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  // In this range JavaScript writes the same shortest digits without an exponent.
  return String(v);
}

/** fmt's `%f` of a float64: six decimals. */
export function goFloatF(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (Math.abs(v) < 1e21) return v.toFixed(6);
  // toFixed switches to an exponent at 1e21; Go writes every integer digit.
  return `${BigInt(Math.trunc(v)).toString()}.000000`;
}
