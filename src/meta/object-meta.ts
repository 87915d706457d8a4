import { randomInt } from 'node:crypto';

/** The alphabet of upstream's generated name suffixes (no vowels, no look-alikes). */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_NAME_LENGTH = 63;
const SUFFIX_LENGTH = 5;

export function randomSuffix(n = SUFFIX_LENGTH): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHANUMS[randomInt(ALPHANUMS.length)];
  return s;
}

/** names.SimpleNameGenerator: the base, cut to leave room, plus five random characters. */
export function generateName(base: string): string {
  const room = MAX_NAME_LENGTH - SUFFIX_LENGTH;
  return (base.length > room ? base.slice(0, room) : base) + randomSuffix();
}


