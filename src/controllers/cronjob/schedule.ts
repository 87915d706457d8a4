/**
 * What the CronJob controller adds to the one cron grammar (apimachinery's
 * cron-schedule, robfig/cron/v3 ParseStandard): formatSchedule, which turns
 * the timeZone field into a TZ= prefix, and the zone-aware RFC 3339 text of
 * the scheduled-timestamp annotation.
 */

/** formatSchedule: the timeZone field becomes a TZ= prefix. */
export function formatSchedule(cj: { spec?: { schedule?: string; timeZone?: string | null } }): string {
  const tz = cj.spec?.timeZone;
  return tz != null ? `TZ=${tz} ${cj.spec?.schedule ?? ''}` : cj.spec?.schedule ?? '';
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
