import { goQuote } from './go-quote.js';

/**
 * Go's strconv parsers for query parameters, with their error texts: upstream converts query
 * strings with them, and a client that sends a bad value reads their words in the answer.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** strconv.ParseInt(s, 10, 64), as a (possibly rounded) number; throws Go's *NumError text. */
export function parseInt64(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n < INT64_MIN || n > INT64_MAX) throw new Error(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  return Number(n);
}

/** strconv.ParseUint(s, 10, 64); throws Go's *NumError text. */
export function parseUint64(s: string): number {
  if (!/^[0-9]+$/.test(s)) throw new Error(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > UINT64_MAX) throw new Error(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return Number(n);
}

/**
 * runtime.Convert_Slice_string_To_bool: how upstream reads a boolean query parameter. Only "0"
 * and "false" in any case are false; anything else, the empty string included, is true.
 */
export function queryBool(value: string): boolean {
  return !(value === '0' || value.toLowerCase() === 'false');
}
