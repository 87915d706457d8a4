/**
 * client-go's flowcontrol.Backoff as the kubelet uses it for container
 * restarts (10s initial, doubling to 300s; an entry unused for twice the
 * maximum starts over) and image pulls. Times are milliseconds.
 */
export const CONTAINER_BACKOFF_INITIAL_MS = 10_000;
export const CONTAINER_BACKOFF_MAX_MS = 300_000;

interface Entry { backoff: number; lastUpdate: number }

export class Backoff {
  private readonly entries = new Map<string, Entry>();
  constructor(private readonly initial = CONTAINER_BACKOFF_INITIAL_MS, private readonly max = CONTAINER_BACKOFF_MAX_MS) {}

  /** The current back-off of `key` (0 when none). */
  get(key: string): number { return this.entries.get(key)?.backoff ?? 0; }

  /** Records an event at `at`: starts at the initial period, or doubles it up to the maximum. */
  next(key: string, at: number): void {
    const e = this.entries.get(key);
    if (!e || at - e.lastUpdate > 2 * this.max) this.entries.set(key, { backoff: this.initial, lastUpdate: at });
    else { e.backoff = Math.min(e.backoff * 2, this.max); e.lastUpdate = at; }
  }

  /** IsInBackOffSince: whether `now` is still within the back-off counted from `since`. */
  inBackOffSince(key: string, since: number, now: number): boolean {
    const e = this.entries.get(key);
    if (!e || now - e.lastUpdate > 2 * this.max) return false;
    return now - since < e.backoff;
  }

  /** IsInBackOffSinceUpdate (image pulls): within the back-off counted from the last update. */
  inBackOffSinceUpdate(key: string, now: number): boolean {
    const e = this.entries.get(key);
    return !!e && now - e.lastUpdate < e.backoff;
  }

  delete(key: string): void { this.entries.delete(key); }
  deletePrefix(prefix: string): void { for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k); }
}
