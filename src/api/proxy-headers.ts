/**
 * The header names the API server's proxies (the aggregator's, pods/proxy and services/proxy)
 * never pass on, as apimachinery's util/proxy and net/http/httputil define them.
 */

/** Hop-by-hop headers httputil.ReverseProxy drops in both directions (RFC 7230 6.1). */
const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate',
  'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** removeCORSHeaders / corsRemovingTransport: the backend's CORS answer is not passed on. */
export const CORS_HEADERS: ReadonlySet<string> = new Set(['access-control-allow-credentials', 'access-control-allow-headers',
  'access-control-allow-methods', 'access-control-allow-origin']);

/**
 * removeHopByHopHeaders: the fixed list and every header a Connection header's values name,
 * lower-cased.
 */
export function hopByHopHeaders(connectionValues: readonly string[]): Set<string> {
  const drop = new Set(HOP_BY_HOP_HEADERS);
  for (const v of connectionValues) {
    for (const token of v.split(',')) if (token.trim()) drop.add(token.trim().toLowerCase());
  }
  return drop;
}
