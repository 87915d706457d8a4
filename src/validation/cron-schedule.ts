/**
 * The cron schedule parser CronJob validation uses: github.com/robfig/cron/v3
 * ParseStandard (minute hour day-of-month month day-of-week, descriptors,
 * an optional TZ=/CRON_TZ= prefix), with its error messages.
 */

interface Bounds { min: number; max: number; names?: Record<string, number> }

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1, max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** strconv.Atoi, with its error text. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 9223372036854775807) {
    throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  }
  return n;
}

function mustParseInt(expr: string): number {
  let n: number;
  try { n = atoi(expr); } catch (e) { throw new Error(`failed to parse int from ${expr}: ${(e as Error).message}`); }
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names?: Record<string, number>): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

function getRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const [rangePart = '', stepPart = ''] = rangeAndStep;
  const lowAndHigh = rangePart.split('-');
  const [low = '', high = ''] = lowAndHigh;
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (low === '*' || low === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(low, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(high, r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(stepPart);
    // "N/step" means "N-max/step".
    if (singleDigit) end = r.max;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

function getField(f: string, r: Bounds): void {
  for (const expr of f.split(',').filter((x) => x !== '')) getRange(expr, r);
}

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** Go's time.ParseDuration, as far as validity goes. */
function isGoDuration(s: string): boolean {
  if (s === '0') return true;
  return /^[+-]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s);
}

/**
 * time.LoadLocation succeeds: "", "UTC", "Local", or a zoneinfo name. Intl
 * knows the names but matches them case-insensitively; zoneinfo files are
 * found case-sensitively, and every IANA name starts with a capital (or is
 * exactly what Intl resolves it to).
 */
function isKnownTimeZone(tz: string): boolean {
  if (tz === '' || tz === 'UTC' || tz === 'Local') return true;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    return resolved === tz || /^[A-Z]/.test(tz);
  } catch {
    return false;
  }
}

/** The parse error text, or undefined for a valid schedule. */
export function cronScheduleError(schedule: string): string | undefined {
  try {
    let spec = schedule;
    if (spec.length === 0) return 'empty spec string';
    if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
      const i = spec.indexOf(' ');
      const eq = spec.indexOf('=');
      if (i < 0) return `runtime error: slice bounds out of range [:-1]`;
      const tz = spec.slice(eq + 1, i);
      if (!isKnownTimeZone(tz)) return `provided bad location ${tz}: unknown time zone ${tz}`;
      spec = spec.slice(i).trim();
    }
    if (spec.startsWith('@')) {
      if (DESCRIPTORS.includes(spec)) return undefined;
      if (spec.startsWith('@every ')) {
        const d = spec.slice('@every '.length);
        return isGoDuration(d) ? undefined : `failed to parse duration ${spec}: time: invalid duration ${JSON.stringify(d)}`;
      }
      return `unrecognized descriptor: ${spec}`;
    }
    const fields = spec.split(/\s+/).filter((f) => f !== '');
    const [minutes = '', hours = '', dom = '', months = '', dow = ''] = fields;
    if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
    getField(minutes, MINUTES);
    getField(hours, HOURS);
    getField(dom, DOM);
    getField(months, MONTHS);
    getField(dow, DOW);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export { isKnownTimeZone };
