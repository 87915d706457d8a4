/** A seeded pseudo-random source (mulberry32), so a chaos run can be replayed from its printed seed. */
export interface SeededRandom {
  readonly seed: number;
  /** In [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  between(min: number, max: number): number;
  /** The items in a random order. */
  shuffle<T>(items: readonly T[]): T[];
  /** A source of its own derived from this one (one per writer). */
  derive(): SeededRandom;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const between = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    between,
    shuffle: (items) => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = between(0, i);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
    derive: () => seededRandom(Math.floor(next() * 4294967296)),
  };
}

/** The seed from CHAOS_SEED (to replay a failure), or a new one. */
export function chaosSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.CHAOS_SEED;
  if (given !== undefined && given !== '') {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 0) throw new Error(`CHAOS_SEED must be a non-negative integer, not ${given}`);
    return n;
  }
  return Math.floor(Math.random() * 4294967296);
}
