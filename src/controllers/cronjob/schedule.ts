/**
 * Schedules as the CronJob controller evaluates them (robfig/cron/v3
 * ParseStandard through formatSchedule): five fields or a descriptor,
 * `@every <duration>`, a `TZ=`/`CRON_TZ=` prefix or the timeZone field.
 * Field matching itself is cron-parser's (standard semantics: day-of-month
 * and day-of-week OR together when both are restricted).
 */
import { CronExpressionParser } from 'cron-parser';

export interface Schedule {
  /** The first activation strictly after `t`. */
  next(t: Date): Date;
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0', '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** time.ParseDuration in milliseconds. */
function goDuration(s: string): number {
  let total = 0;
  for (const [, value, unit] of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    if (value !== undefined && unit !== undefined) total += Number(value) * (UNIT_MS[unit] ?? 0);
  }
  return s.startsWith('-') ? -total : total;
}

/** formatSchedule: the timeZone field becomes a TZ= prefix. */
export function formatSchedule(cj: { spec?: any }): string {
  const tz = cj.spec?.timeZone;
  return tz != null ? `TZ=${tz} ${cj.spec.schedule}` : cj.spec?.schedule ?? '';
}

/** cron.ParseStandard; the default location is the controller's (UTC here). Throws on what validation would reject. */
export function parseSchedule(spec: string): Schedule {
  let tz = 'UTC';
  let s = spec.trim();
  if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) {
    const i = s.indexOf(' ');
    if (i < 0) throw new Error('missing schedule after time zone');
    tz = s.slice(s.indexOf('=') + 1, i);
    if (tz === 'Local' || tz === '') tz = 'UTC';
    s = s.slice(i).trim();
  }
  if (s.startsWith('@every ')) {
    // ConstantDelaySchedule: at least a second, whole seconds, counted from the second of t.
    const delay = Math.max(1000, Math.floor(goDuration(s.slice(7)) / 1000) * 1000);
    return { next: (t) => new Date(Math.floor(t.getTime() / 1000) * 1000 + delay) };
  }
  const expr = DESCRIPTORS[s] ?? s;
  const fields = expr.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  // robfig accepts '?' for '*'.
  const normalized = fields.map((f) => (f === '?' ? '*' : f)).join(' ');
  CronExpressionParser.parse(normalized, { tz });
  return {
    next(t: Date): Date {
      return CronExpressionParser.parse(normalized, { currentDate: t, tz }).next().toDate();
    },
  };
}

/** time.Format(RFC3339) of an instant in a zone ("Z" for UTC, else ±hh:mm). */
export function rfc3339InZone(d: Date, tz: string | undefined): string {
  const zone = !tz || tz === 'Local' ? 'UTC' : tz;
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    timeZoneName: 'longOffset',
  }).formatToParts(d).map((p) => [p.type, p.value]));
  const gmt = parts.timeZoneName ?? 'GMT';
  const offset = gmt === 'GMT' ? 'Z' : gmt.replace('GMT', '');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset === '+00:00' ? 'Z' : offset}`;
}
