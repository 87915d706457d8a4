/**
 * How Go's net/url rewrites a request target that a proxy rebuilds from the parsed URL
 * (kube-aggregator's handler_proxy: `location.Path = req.URL.Path`,
 * `location.RawQuery = req.URL.Query().Encode()`): the path decoded and escaped again
 * (URL.EscapedPath of a URL without RawPath), the query parsed and encoded again
 * (url.ParseQuery, then Values.Encode: keys sorted, QueryEscape).
 */

/** shouldEscape(c, encodePath): unreserved bytes and a path's sub-delimiters stay. */
const PATH_KEEP = /^[A-Za-z0-9\-_.~$&+,/:;=@]$/;
/** shouldEscape(c, encodeQueryComponent): only unreserved bytes stay. */
const QUERY_KEEP = /^[A-Za-z0-9\-_.~]$/;

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9A-Fa-f]$/.test(c);
}

/** url.unescape: the bytes a %-encoded string stands for ('+' a space in query mode), or undefined when an escape is malformed. */
function unescapeBytes(s: string, query: boolean): Buffer | undefined {
  const out: number[] = [];
  const bytes = Buffer.from(s, 'utf8');
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x25) {
      const h = String.fromCharCode(bytes[i + 1] ?? 0); const l = String.fromCharCode(bytes[i + 2] ?? 0);
      if (!isHex(h) || !isHex(l)) return undefined;
      out.push(parseInt(h + l, 16));
      i += 2;
    } else if (b === 0x2b && query) out.push(0x20);
    else out.push(b);
  }
  return Buffer.from(out);
}

function escapeBytes(bytes: Buffer, keep: RegExp, spaceAsPlus: boolean): string {
  let out = '';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    if (b === 0x20 && spaceAsPlus) out += '+';
    else if (b < 0x80 && keep.test(c)) out += c;
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The escaped path of a URL whose Path is the decoding of `rawPath`. */
export function goReescapePath(rawPath: string): string {
  const bytes = unescapeBytes(rawPath, false);
  return bytes ? escapeBytes(bytes, PATH_KEEP, false) : rawPath;
}

/** req.URL.Query().Encode(): pairs Go cannot parse dropped, keys sorted (values in order), each part query-escaped. */
export function goReencodeQuery(rawQuery: string): string {
  const values = new Map<string, Buffer[]>();
  for (const pair of rawQuery.split('&')) {
    if (!pair || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = unescapeBytes(eq < 0 ? pair : pair.slice(0, eq), true);
    const value = unescapeBytes(eq < 0 ? '' : pair.slice(eq + 1), true);
    if (!key || !value) continue;
    const k = key.toString('latin1');
    values.set(k, [...(values.get(k) ?? []), value]);
  }
  // sort.Strings compares bytes; latin1 keeps one character per byte.
  const keys = [...values.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const parts: string[] = [];
  for (const k of keys) {
    const ek = escapeBytes(Buffer.from(k, 'latin1'), QUERY_KEEP, true);
    for (const v of values.get(k)!) parts.push(`${ek}=${escapeBytes(v, QUERY_KEEP, true)}`);
  }
  return parts.join('&');
}
