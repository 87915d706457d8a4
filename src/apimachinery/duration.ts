/**
 * Go's time.ParseDuration (time/format.go), step for step: a possibly signed
 * sequence of decimal numbers, each with an optional fraction and a unit
 * (ns, us, µs, μs, ms, s, m, h), with Go's error texts, which reach users
 * (a CronJob's `@every` schedule is refused with them).
 */

const UNITS: Record<string, bigint> = {
  ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n,
};
const TWO_63 = 1n << 63n;

/** time's quote: bytes outside printable ASCII as \x escapes, `"` and `\` escaped. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch)) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else {
      out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    }
  }
  return `${out}"`;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** time.ParseDuration, in nanoseconds; throws an Error with Go's message. */
export function parseGoDuration(input: string): bigint {
  const invalid = (): Error => new Error(`time: invalid duration ${quote(input)}`);
  let s = input;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) throw invalid();
    // leadingInt: [0-9]*, an error past 2^63.
    let i = 0;
    let v = 0n;
    for (; isDigit(s[i]); i++) {
      if (v > TWO_63 / 10n) throw invalid();
      v = v * 10n + BigInt(Number(s[i]));
      if (v > TWO_63) throw invalid();
    }
    const pre = i > 0;
    s = s.slice(i);
    // leadingFraction: (\.[0-9]*)?, precision dropped once it would overflow.
    let post = false;
    let f = 0n;
    let scale = 1;
    if (s[0] === '.') {
      s = s.slice(1);
      let overflow = false;
      let j = 0;
      for (; isDigit(s[j]); j++) {
        if (overflow) continue;
        if (f > (TWO_63 - 1n) / 10n) { overflow = true; continue; }
        const y = f * 10n + BigInt(Number(s[j]));
        if (y > TWO_63) { overflow = true; continue; }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid();
    let u = 0;
    while (u < s.length && s[u] !== '.' && !isDigit(s[u])) u++;
    if (u === 0) throw new Error(`time: missing unit in duration ${quote(input)}`);
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = UNITS[unitName];
    if (unit === undefined) throw new Error(`time: unknown unit ${quote(unitName)} in duration ${quote(input)}`);
    if (v > TWO_63 / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      // Go computes the fraction in float64: uint64(float64(f) * (float64(unit) / scale)).
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_63) throw invalid();
    }
    d += v;
    if (d > TWO_63) throw invalid();
  }
  if (neg) return -d;
  if (d > TWO_63 - 1n) throw invalid();
  return d;
}

/** A Go duration ("40s", "1m30s", "500ms") in milliseconds; undefined when time.ParseDuration refuses it. */
export function parseDuration(s: string): number | undefined {
  try {
    return Number(parseGoDuration(s)) / 1e6;
  } catch {
    return undefined;
  }
}

/** Go's time.Duration.String() of a count of nanoseconds: 0s, 523ms, 1.2s, 5m0s, 1h0m0s. */
export function formatDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  const sign = neg ? '-' : '';
  const frac = (v: bigint, digits: number): string => {
    const s = v.toString().padStart(digits, '0').replace(/0+$/, '');
    return s ? `.${s}` : '';
  };
  if (u < 1_000_000_000n) {
    if (u < 1000n) return `${sign}${u}ns`;
    if (u < 1_000_000n) return `${sign}${u / 1000n}${frac(u % 1000n, 3)}µs`;
    return `${sign}${u / 1_000_000n}${frac(u % 1_000_000n, 6)}ms`;
  }
  let out = `${u % 60_000_000_000n / 1_000_000_000n}${frac(u % 1_000_000_000n, 9)}s`;
  u /= 60_000_000_000n;
  if (u > 0n) {
    out = `${u % 60n}m${out}`;
    u /= 60n;
    if (u > 0n) out = `${u}h${out}`;
  }
  return sign + out;
}
