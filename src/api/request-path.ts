/**
 * The path of a request as Go's net/http hands it to the apiserver: `url.ParseRequestURI` splits
 * the query off and percent-decodes the rest into `URL.Path`. Nothing else: dot segments are not
 * resolved and an encoded slash becomes a separator, so the path means exactly what
 * RequestInfoFactory reads from it (WHATWG `URL` would resolve `..` and `%2e%2e` instead).
 */

/** The request line's target cannot be parsed (Go: `invalid URL escape "%ZZ"`). */
export class MalformedRequestURI extends Error {}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

/** Go's url.unescape in path mode: every `%` must start two hex digits; the bytes decode as UTF-8. */
export function unescapePath(escaped: string): string {
  if (!escaped.includes('%')) return escaped;
  const bytes = Buffer.from(escaped, 'utf8');
  const out = Buffer.alloc(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.readUInt8(i);
    if (c !== 0x25) { out[n++] = c; continue; }
    const hi = i + 2 < bytes.length ? hexValue(bytes.readUInt8(i + 1)) : -1;
    const lo = hi >= 0 ? hexValue(bytes.readUInt8(i + 2)) : -1;
    if (lo < 0) throw new MalformedRequestURI(`invalid URL escape ${JSON.stringify(bytes.subarray(i, i + 3).toString('latin1'))}`);
    out[n++] = hi * 16 + lo;
    i += 2;
  }
  return out.subarray(0, n).toString('utf8');
}

/** The escaped path of a request target: origin-form as is, absolute-form without scheme and authority. */
function escapedPathOf(target: string): string {
  const noQuery = target.split('?', 1)[0] ?? '';
  if (noQuery.startsWith('/')) return noQuery;
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(\/.*)?$/.exec(noQuery);
  return m ? (m[1] ?? '') : noQuery;
}

/** `URL.Path` of a request target; throws MalformedRequestURI where Go's server answers 400. */
export function requestPath(target: string): string {
  return unescapePath(escapedPathOf(target));
}
