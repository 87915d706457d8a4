/**
 * Turns, one key at a time, for writers that lost an optimistic-concurrency race.
 *
 * GuaranteedUpdate retries an unconditional update until it applies. When hundreds of writers
 * race on one object, letting every loser retry at once makes each round cost as many attempts
 * as there are writers left (quadratic work, each attempt running admission and validation).
 * Losers instead wait here and retry one after another, so each retry sees the latest object
 * and almost always applies. First attempts still run freely: a lone writer never waits.
 */
export class KeyQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier turn for `key` has finished. */
  async turn<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => { release = resolve; });
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
