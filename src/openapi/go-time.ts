/**
 * metav1.Time and metav1.MicroTime as Go decodes and re-encodes them: UTC,
 * whole seconds for Time, six fractional digits for MicroTime; a zero value
 * is written as null.
 */
import { DecodeError } from '../apimachinery/quantity.js';

const RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Whether parse accepts ts (without building the parsed value). */
export function isRFC3339(ts: string): boolean {
  return RE.test(ts);
}

function parse(ts: string): { ms: number; frac: string } {
  const m = RE.exec(ts);
  if (!m) throw new DecodeError(`parsing time ${JSON.stringify(ts)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(ts)} as "2006"`);
  // Every group but the fraction (7) takes part in any match.
  const [, year = '', month = '', day = '', hour = '', minute = '', second = '', fraction = '', offset = ''] = m;
  const zone = offset.toUpperCase() === 'Z' ? 0 : (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
  const ms = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second) - zone * 60_000;
  return { ms, frac: fraction.slice(1) };
}

const seconds = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/** A Time field: null stays null, anything else is re-encoded in UTC without fractions. */
export function goTime(v: unknown): unknown {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') throw new DecodeError('invalid time value');
  return `${seconds(parse(v).ms)}Z`;
}

/** A MicroTime field: UTC with exactly six fractional digits (truncated). */
export function goMicroTime(v: unknown): unknown {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') throw new DecodeError('invalid time value');
  const { ms, frac } = parse(v);
  return `${seconds(ms)}.${frac.slice(0, 6).padEnd(6, '0')}Z`;
}
