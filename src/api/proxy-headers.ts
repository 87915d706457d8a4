/**
 * The header names the API server's proxies (the aggregator's, pods/proxy and services/proxy)
 * never pass on, as apimachinery's util/proxy and net/http/httputil define them.
 */

/** Hop-by-hop headers httputil.ReverseProxy drops in both directions (RFC 7230 6.1). */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate',
  'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** removeCORSHeaders / corsRemovingTransport: the backend's CORS answer is not passed on. */
export const CORS_HEADERS: ReadonlySet<string> = new Set(['access-control-allow-credentials', 'access-control-allow-headers',
  'access-control-allow-methods', 'access-control-allow-origin']);
