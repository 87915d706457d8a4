/**
 * The one cron grammar: github.com/robfig/cron/v3 ParseStandard, which both
 * CronJob validation (its error messages) and the CronJob controller (the
 * activation times) use upstream. Five fields (minute hour day-of-month month
 * day-of-week) or a descriptor (`@hourly`, `@every 1h30m`, ...), with an
 * optional `TZ=`/`CRON_TZ=` prefix. Fields parse into bit sets as robfig's
 * do, and `next` walks them as SpecSchedule.Next does, in the schedule's zone.
 */
import { parseGoDuration } from './duration.js';

interface Bounds { min: number; max: number; names?: Record<string, number> }

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1, max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** Set when a field was `*` or `?`: day-of-month and day-of-week then AND instead of OR. */
const STAR_BIT = 1n << 63n;

/** An activation schedule. */
export interface CronSchedule {
  /** The first activation strictly after `t`; Go's zero time (year 1) when none comes within five years. */
  next(t: Date): Date;
}

/** strconv.Atoi, with its error text. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63) {
    throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  }
  return n;
}

function mustParseInt(expr: string): number {
  let n: number;
  try { n = atoi(expr); } catch (e) { throw new Error(`failed to parse int from ${expr}: ${(e as Error).message}`, { cause: e }); }
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names?: Record<string, number>): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

function getBits(min: number, max: number, step: number): bigint {
  let bits = 0n;
  for (let i = min; i <= max; i += step) bits |= 1n << BigInt(i);
  return bits;
}

/** getRange: `number | number "-" number [ "/" number ]`, or `*`/`?`. */
function getRange(expr: string, r: Bounds): bigint {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  const singleDigit = lowAndHigh.length === 1;
  const low = lowAndHigh[0] ?? '';
  let start: number;
  let end: number;
  let extra = 0n;
  if (low === '*' || low === '?') {
    start = r.min;
    end = r.max;
    extra = STAR_BIT;
  } else {
    start = parseIntOrName(low, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] ?? '', r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1] ?? '');
    // "N/step" means "N-max/step".
    if (singleDigit) end = r.max;
    if (step > 1) extra = 0n;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  return getBits(start, end, step) | extra;
}

/** getField: a comma-separated list of ranges (empty items skipped, as strings.FieldsFunc does). */
function getField(f: string, r: Bounds): bigint {
  let bits = 0n;
  for (const expr of f.split(',').filter((x) => x !== '')) bits |= getRange(expr, r);
  return bits;
}

const all = (r: Bounds): bigint => getBits(r.min, r.max, 1) | STAR_BIT;
const first = (r: Bounds): bigint => 1n << BigInt(r.min);

interface Spec { minute: bigint; hour: bigint; dom: bigint; month: bigint; dow: bigint }

const DESCRIPTORS: Record<string, Spec> = {
  '@yearly': { minute: first(MINUTES), hour: first(HOURS), dom: first(DOM), month: first(MONTHS), dow: all(DOW) },
  '@annually': { minute: first(MINUTES), hour: first(HOURS), dom: first(DOM), month: first(MONTHS), dow: all(DOW) },
  '@monthly': { minute: first(MINUTES), hour: first(HOURS), dom: first(DOM), month: all(MONTHS), dow: all(DOW) },
  '@weekly': { minute: first(MINUTES), hour: first(HOURS), dom: all(DOM), month: all(MONTHS), dow: first(DOW) },
  '@daily': { minute: first(MINUTES), hour: first(HOURS), dom: all(DOM), month: all(MONTHS), dow: all(DOW) },
  '@midnight': { minute: first(MINUTES), hour: first(HOURS), dom: all(DOM), month: all(MONTHS), dow: all(DOW) },
  '@hourly': { minute: first(MINUTES), hour: all(HOURS), dom: all(DOM), month: all(MONTHS), dow: all(DOW) },
};

/**
 * time.LoadLocation succeeds: "", "UTC", "Local", or a zoneinfo name. Intl
 * knows the names but matches them case-insensitively; zoneinfo files are
 * found case-sensitively, and every IANA name starts with a capital (or is
 * exactly what Intl resolves it to).
 */
export function isKnownTimeZone(tz: string): boolean {
  if (tz === '' || tz === 'UTC' || tz === 'Local') return true;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    return resolved === tz || /^[A-Z]/.test(tz);
  } catch {
    return false;
  }
}

/**
 * cron.ParseStandard. `local` is the zone of a schedule without a TZ= prefix
 * (and of TZ=Local): the process's, which is UTC here. Throws robfig's errors.
 */
export function parseCronSchedule(schedule: string, local = 'UTC'): CronSchedule {
  let spec = schedule;
  if (spec.length === 0) throw new Error('empty spec string');
  let zone = local;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    // Go's spec[eq+1 : -1] panics; the apiserver's recovery reports the panic.
    if (i < 0) throw new Error('runtime error: slice bounds out of range [:-1]');
    const tz = spec.slice(eq + 1, i);
    if (!isKnownTimeZone(tz)) throw new Error(`provided bad location ${tz}: unknown time zone ${tz}`);
    zone = tz === '' || tz === 'UTC' ? 'UTC' : tz === 'Local' ? local : tz;
    spec = spec.slice(i).trim();
  }
  if (spec.startsWith('@')) {
    const descriptor = DESCRIPTORS[spec];
    if (descriptor) return specSchedule(descriptor, zone);
    if (spec.startsWith('@every ')) {
      let delay: bigint;
      try {
        delay = parseGoDuration(spec.slice('@every '.length));
      } catch (e) {
        throw new Error(`failed to parse duration ${spec}: ${(e as Error).message}`, { cause: e });
      }
      return every(delay);
    }
    throw new Error(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute = '', hour = '', dom = '', month = '', dow = ''] = fields;
  return specSchedule({
    minute: getField(minute, MINUTES), hour: getField(hour, HOURS), dom: getField(dom, DOM),
    month: getField(month, MONTHS), dow: getField(dow, DOW),
  }, zone);
}

/** The parse error text, or undefined for a valid schedule (what CronJob validation reports). */
export function cronScheduleError(schedule: string): string | undefined {
  try {
    parseCronSchedule(schedule);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

const SECOND_NS = 1_000_000_000n;

/** cron.Every: at least a second, whole seconds; Next counts from the second of t. */
function every(delayNs: bigint): CronSchedule {
  const d = delayNs < SECOND_NS ? SECOND_NS : delayNs;
  const delayMs = Number((d - (d % SECOND_NS)) / 1_000_000n);
  return { next: (t) => new Date(Math.floor(t.getTime() / 1000) * 1000 + delayMs) };
}

/** time.Time{}: what Next returns when nothing matches within five years. */
const GO_ZERO_TIME = -62135596800000;

const has = (bits: bigint, n: number): boolean => (bits & (1n << BigInt(n))) !== 0n;

/** SpecSchedule.Next, step for step, on wall-clock fields in the schedule's zone. */
function specSchedule(s: Spec, zoneName: string): CronSchedule {
  const zone = zoneOf(zoneName);
  const dayMatches = (w: Wall): boolean => {
    const domMatch = has(s.dom, w.day);
    const dowMatch = has(s.dow, w.weekday);
    return (s.dom & STAR_BIT) !== 0n || (s.dow & STAR_BIT) !== 0n ? domMatch && dowMatch : domMatch || dowMatch;
  };
  return {
    next(from: Date): Date {
      // The earliest possible time: the upcoming second.
      let t = Math.floor(from.getTime() / 1000) * 1000 + 1000;
      let w = zone.wall(t);
      let added = false;
      const yearLimit = w.year + 5;
      wrap: for (;;) {
        if (w.year > yearLimit) return new Date(GO_ZERO_TIME);
        while (!has(s.month, w.month)) {
          if (!added) {
            added = true;
            t = zone.date(w.year, w.month, 1, 0, 0, 0);
          }
          w = zone.wall(t);
          t = zone.date(w.year, w.month + 1, w.day, w.hour, w.minute, w.second); // AddDate(0, 1, 0)
          w = zone.wall(t);
          if (w.month === 1) continue wrap;
        }
        while (!dayMatches(w)) {
          if (!added) {
            added = true;
            t = zone.date(w.year, w.month, w.day, 0, 0, 0);
            w = zone.wall(t);
          }
          t = zone.date(w.year, w.month, w.day + 1, w.hour, w.minute, w.second); // AddDate(0, 0, 1)
          w = zone.wall(t);
          // Midnight may not exist on a DST change: move back to it.
          if (w.hour !== 0) {
            t += (w.hour > 12 ? 24 - w.hour : -w.hour) * 3_600_000;
            w = zone.wall(t);
          }
          if (w.day === 1) continue wrap;
        }
        while (!has(s.hour, w.hour)) {
          if (!added) {
            added = true;
            t = zone.date(w.year, w.month, w.day, w.hour, 0, 0);
          }
          t += 3_600_000;
          w = zone.wall(t);
          if (w.hour === 0) continue wrap;
        }
        while (!has(s.minute, w.minute)) {
          if (!added) {
            added = true;
            t = Math.floor(t / 60_000) * 60_000; // Truncate(time.Minute)
          }
          t += 60_000;
          w = zone.wall(t);
          if (w.minute === 0) continue wrap;
        }
        // Seconds: ParseStandard always schedules second 0.
        while (w.second !== 0) {
          if (!added) {
            added = true;
            t = Math.floor(t / 1000) * 1000;
          }
          t += 1000;
          w = zone.wall(t);
          if (w.second === 0) continue wrap;
        }
        return new Date(t);
      }
    },
  };
}

/** Wall-clock fields of an instant in a zone (month 1-12, weekday 0 = Sunday). */
interface Wall { year: number; month: number; day: number; hour: number; minute: number; second: number; weekday: number }

interface Zone {
  wall(ms: number): Wall;
  /** time.Date in the zone: fields normalized as Go does, a wall time in a DST gap or overlap resolved as Go resolves it. */
  date(year: number, month: number, day: number, hour: number, minute: number, second: number): number;
}

function utcWall(ms: number): Wall {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(),
    hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), weekday: d.getUTCDay(),
  };
}

/** Wall fields as if in UTC, normalized (Date.UTC carries overflowing fields as Go's time.Date does). */
function wallAsUTC(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

const DAY_MS = 86_400_000;
const zones = new Map<string, Zone>();

function zoneOf(name: string): Zone {
  let z = zones.get(name);
  if (!z) zones.set(name, (z = name === 'UTC' ? utcZone() : ianaZone(name)));
  return z;
}

function utcZone(): Zone {
  return { wall: utcWall, date: wallAsUTC };
}

function ianaZone(name: string): Zone {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
    hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short',
  });
  /** Offset east of UTC, in ms, at an instant, as Intl reads the zone (to the second). */
  const formattedOffset = (ms: number): number => {
    const p = Object.fromEntries(fmt.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
    const year = p.era === 'BC' ? 1 - Number(p.year) : Number(p.year);
    const local = wallAsUTC(year, Number(p.month), Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
    return local - Math.floor(ms / 1000) * 1000;
  };
  // Formatting is slow and Next asks for many nearby instants: each UTC day's
  // offsets are read once, with the instant of its transition if it has one.
  const days = new Map<number, { before: number; after: number; at: number }>();
  const offsetAt = (ms: number): number => {
    const day = Math.floor(ms / DAY_MS);
    let e = days.get(day);
    if (!e) {
      const start = day * DAY_MS;
      let lo = start;
      let hi = start + DAY_MS - 1000;
      const before = formattedOffset(lo);
      const after = formattedOffset(hi);
      // Binary search for the first second of the new offset.
      if (before !== after) {
        while (hi - lo > 1000) {
          const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
          if (formattedOffset(mid) === before) lo = mid; else hi = mid;
        }
      }
      e = { before, after, at: before === after ? Infinity : hi };
      if (days.size > 10_000) days.clear();
      days.set(day, e);
    }
    return ms < e.at ? e.before : e.after;
  };
  return {
    wall: (ms) => utcWall(ms + offsetAt(ms)),
    date(year, month, day, hour, minute, second) {
      // time.Date: the offset in force at the wall time read as UTC, unless the
      // resulting instant lies in another period; then the offset at that instant.
      const unix = wallAsUTC(year, month, day, hour, minute, second);
      let offset = offsetAt(unix);
      if (offset !== 0) {
        const utc = unix - offset;
        const atUtc = offsetAt(utc);
        if (atUtc !== offset) offset = atUtc;
      }
      return unix - offset;
    },
  };
}
