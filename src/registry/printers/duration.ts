/**
 * Ages as upstream prints them: duration.HumanDuration
 * (k8s.io/apimachinery/pkg/util/duration) and the printers' translateTimestampSince.
 */

/** Go's zero time.Time (0001-01-01T00:00:00Z), which metav1.Time treats as unset. */
const GO_ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');

/**
 * A timestamp (RFC 3339 string, as JSON carries metav1.Time and MicroTime) as ms since the
 * epoch, or -Infinity when unset; -Infinity orders before every real time, as Go's zero time does.
 */
export function instant(ts: unknown): number {
  if (typeof ts !== 'string' || ts === '') return -Infinity;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) || ms === GO_ZERO_TIME ? -Infinity : ms;
}

/** A span of ms in upstream's ~2–3 significant figures ("59s", "2m3s", "3h", "5d2h", "2y3d"). */
export function humanDuration(ms: number): string {
  // Go truncates toward zero at every step (int(d.Seconds()), d / time.Minute).
  const seconds = Math.trunc(ms / 1000);
  // Up to 2s in the future is clock skew, read as "now".
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const years = Math.trunc(hours / 24 / 365);
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** translateTimestampSince (and its MicroTime twin): the age of a timestamp at `now`. */
export function since(ts: unknown, now: number): string {
  const t = instant(ts);
  return t === -Infinity ? '<unknown>' : humanDuration(now - t);
}
