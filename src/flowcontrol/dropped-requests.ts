/**
 * The Retry-After a rejected request is told (k8s.io/apiserver/pkg/util/flowcontrol/dropped_requests_tracker.go):
 * per priority level, 1 s at first, doubled (up to 32 s) while rejections keep
 * coming at 3 per second of the current value or more, lowered by one when
 * they fall below 1 per second of it.
 */
const MAX_RETRY_AFTER = 32;

class LevelStats {
  private history: { unix: number; count: number }[] = [];
  private currentUnix = 0;
  private currentCount = 0;
  retryAfter = 1;
  private retryAfterUpdateUnix = 0;

  record(unix: number): void {
    if (this.currentUnix === unix) { this.currentCount++; return; }
    this.updateHistory(this.currentUnix, this.currentCount);
    this.currentUnix = unix;
    this.currentCount = 1;
    this.updateRetryAfter(unix);
  }

  private updateHistory(unix: number, count: number): void {
    this.history.push({ unix, count });
    const maxHistory = Math.min(2 * this.retryAfter, MAX_RETRY_AFTER);
    // The first entry recent enough to keep; the one just pushed always is.
    const start = this.history.findIndex((h) => unix - h.unix <= maxHistory);
    if (start !== 0) this.history = start < 0 ? [] : this.history.slice(start);
  }

  private updateRetryAfter(unix: number): void {
    let dropped = 0;
    for (const h of this.history.slice().reverse()) {
      if (unix - h.unix > this.retryAfter) break;
      if (h.unix < unix) dropped += h.count;
    }
    if (unix - this.retryAfterUpdateUnix >= this.retryAfter && dropped >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(this.retryAfter * 2, MAX_RETRY_AFTER);
      this.retryAfterUpdateUnix = unix;
      return;
    }
    if (dropped < this.retryAfter && this.retryAfter > 1) this.retryAfter--;
  }
}

export class DroppedRequestsTracker {
  private readonly levels = new Map<string, LevelStats>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  record(level: string): void {
    let s = this.levels.get(level);
    if (!s) this.levels.set(level, s = new LevelStats());
    s.record(Math.floor(this.nowMs() / 1000));
  }

  retryAfter(level: string): number {
    return this.levels.get(level)?.retryAfter ?? 1;
  }
}
