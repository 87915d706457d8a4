/**
 * client-go's workqueue rate limiters (util/workqueue/default_rate_limiters.go):
 * how long a key that failed waits before it is processed again.
 */
import type { Clock } from '../apimachinery/clock.js';

export interface RateLimiter {
  /** How long to wait before the key is added again (ms); counts a failure. */
  when(key: string): number;
  /** The key succeeded: its failures are forgotten. */
  forget(key: string): void;
  /** How many times the key has failed since it was last forgotten. */
  numRequeues(key: string): number;
}

/** ItemExponentialFailureRateLimiter: base * 2^failures, capped at max. */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(private readonly baseMs: number, private readonly maxMs: number) {}

  when(key: string): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const backoff = this.baseMs * 2 ** exp;
    return backoff > this.maxMs ? this.maxMs : backoff;
  }

  forget(key: string): void { this.failures.delete(key); }

  numRequeues(key: string): number { return this.failures.get(key) ?? 0; }
}

/**
 * BucketRateLimiter: golang.org/x/time/rate's token bucket, every when()
 * a reservation of one token (the bucket may go into debt: the delay is
 * the time until the debt is paid). Not per key: forget does nothing.
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(private readonly qps: number, private readonly burst: number, private readonly clock: Clock) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(): number {
    const now = this.clock.now();
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
      this.last = now;
    }
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(): void {}

  numRequeues(): number { return 0; }
}

/** MaxOfRateLimiter: the longest of the limiters' delays; each counts the failure. */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) { this.limiters = limiters; }

  when(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(key));
    return max;
  }

  forget(key: string): void { for (const l of this.limiters) l.forget(key); }

  numRequeues(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(key));
    return max;
  }
}

/**
 * DefaultControllerRateLimiter: per-key exponential back-off from 5 ms to
 * 1000 s, and overall 10 qps with a burst of 100 (only for retries: the
 * first add of a key is not limited).
 */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(5, 1000 * 1000), new BucketRateLimiter(10, 100, clock));
}
