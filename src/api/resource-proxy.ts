/**
 * The pods/proxy and services/proxy subresources (pkg/registry/core/pod/rest
 * and service/proxy.go ProxyREST.Connect): the registry's ResourceLocation
 * names the backend, and the request is passed there through the cluster
 * network as the API server's host dials it (apimachinery util/proxy
 * UpgradeAwareHandler with the wrapped transport). A backend that cannot be
 * reached makes transport.go's 503 `error trying to reach service: <dial
 * error>`.
 *
 * Not modelled: proxyutil.Transport's rewriting of links in text/html
 * bodies and of redirect Locations to the proxy path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { posix } from 'node:path';
import type { Store } from '../registry/store.js';
import { GO_TLS_LISTENER_PLAIN_HTTP_ANSWER, type HttpReply, type HttpRequest } from '../apimachinery/http-exchange.js';
import { errors } from '../apimachinery/errors.js';
import { podProxyLocation, serviceProxyLocation, serviceUnavailable, type ProxyLocation } from '../registry/core/proxy-location.js';
import { readBody } from './body.js';
import type { PodEndpointConnection, PodEndpointDialer } from '../network/pod-endpoint-dial.js';
import { CORS_HEADERS, hopByHopHeaders } from './proxy-headers.js';


/** ProxyREST.ConnectMethods. */
const PROXY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const RESOURCE_PROXY = /^(\/api\/v1\/namespaces\/([^/]+)\/(pods|services)\/([^/]+)\/proxy)(\/.*)?$/;

/** `prefix`: the URL's path up to `/proxy`; `path`: the proxied path below it. */
export interface ResourceProxyRequest { namespace: string; resource: 'pods' | 'services'; id: string; prefix: string; path: string }

/** The object and proxied path a `/api/v1/namespaces/NS/{pods,services}/ID/proxy[/path]` URL names, or undefined. */
export function matchResourceProxy(decodedPath: string): ResourceProxyRequest | undefined {
  const m = RESOURCE_PROXY.exec(decodedPath);
  if (!m) return undefined;
  return { namespace: m[2]!, resource: m[3] as 'pods' | 'services', id: m[4]!, prefix: m[1]!, path: subpath(m[5] ?? '') };
}

/**
 * The connect handler's `path` option (handlers/rest.go getRequestOptions):
 * the parts after `proxy`, rooted, keeping a trailing slash; then
 * net.JoinPreservingTrailingSlash cleans it.
 */
export function subpath(rest: string): string {
  const p = rest.split('/').filter((s, i, all) => !(s === '' && (i === 0 || i === all.length - 1))).join('/');
  if (p === '' && !rest.endsWith('/')) return '';
  const cleaned = posix.normalize(`/${p}`).replace(/\/+$/, '');
  return rest.endsWith('/') ? `${cleaned}/` : cleaned;
}

/** What the dial error says, as Go's net package prints it. */
function dialError(kind: 'refused' | 'timeout', ip: string, port: number): string {
  return kind === 'refused' ? `dial tcp ${ip}:${port}: connect: connection refused` : `dial tcp ${ip}:${port}: i/o timeout`;
}

/** Go's net.LookupPort without /etc/services: numbers, and the service names its built-in table has for HTTP. */
export function lookupPort(port: string): number | undefined {
  if (/^\d+$/.test(port)) return Number(port) <= 65535 ? Number(port) : undefined;
  return ({ http: 80, https: 443 } as Record<string, number>)[port.toLowerCase()];
}

/** textproto.CanonicalMIMEHeaderKey: each dash-separated word capitalised. */
export function canonicalHeaderKey(name: string): string {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return name;
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => `${dash}${c.toUpperCase()}`);
}

const byKey = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * The request as the reverse proxy sends it to the backend: hop-by-hop
 * headers and credentials dropped, X-Forwarded-For appended and
 * X-Forwarded-Uri set (the path the client asked for), in the order Go's
 * Request.write puts them: Host, User-Agent, Content-Length, the rest
 * sorted, then the transport's Accept-Encoding.
 */
export function backendRequest(method: string, path: string, rawQuery: string, headers: IncomingMessage['rawHeaders'], body: Uint8Array,
  clientIP: string, forwardedUri: string): HttpRequest {
  const fields = new Map<string, string[]>();
  const connection: string[] = [];
  for (let i = 0; i + 1 < headers.length; i += 2) if (headers[i]!.toLowerCase() === 'connection') connection.push(headers[i + 1]!);
  const hopByHop = hopByHopHeaders(connection);
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = canonicalHeaderKey(headers[i]!);
    const lower = name.toLowerCase();
    // The authentication filter removed the credentials, impersonation its headers.
    if (hopByHop.has(lower) || lower === 'authorization' || lower.startsWith('impersonate-') || lower === 'content-length') continue;
    fields.set(name, [...fields.get(name) ?? [], headers[i + 1]!]);
  }
  const prior = fields.get('X-Forwarded-For');
  fields.set('X-Forwarded-For', [prior ? `${prior.join(', ')}, ${clientIP}` : clientIP]);
  fields.set('X-Forwarded-Uri', [forwardedUri]);
  const host = fields.get('Host')?.[0]; fields.delete('Host');
  const agent = fields.get('User-Agent')?.[0]; fields.delete('User-Agent');
  const acceptEncoding = fields.has('Accept-Encoding');
  const out: [string, string][] = [];
  if (host !== undefined) out.push(['Host', host]);
  if (agent) out.push(['User-Agent', agent]);
  if (body.byteLength > 0 || !['GET', 'HEAD', 'OPTIONS', 'DELETE'].includes(method)) out.push(['Content-Length', String(body.byteLength)]);
  const rest: [string, string][] = [];
  for (const [k, vs] of fields) for (const v of vs) rest.push([k, v]);
  out.push(...rest.sort(byKey));
  if (!acceptEncoding && method !== 'HEAD') out.push(['Accept-Encoding', 'gzip']);
  // url.URL with an empty path sends "/".
  const target = `${encodeURI(path || '/')}${rawQuery ? `?${rawQuery}` : ''}`;
  return { method, target, headers: out, body };
}

/** The backend's response headers as the API server writes them: hop-by-hop and CORS headers dropped, keys canonical and sorted. */
export function proxiedResponseHeaders(headers: readonly [string, string][], bodyLength: number): [string, string][] {
  const out: [string, string][] = [];
  const hopByHop = hopByHopHeaders(headers.filter(([k]) => k.toLowerCase() === 'connection').map(([, v]) => v));
  for (const [k, v] of headers) {
    const lower = k.toLowerCase();
    if (hopByHop.has(lower) || CORS_HEADERS.has(lower) || lower === 'content-length') continue;
    out.push([canonicalHeaderKey(k), v]);
  }
  out.push(['Content-Length', String(bodyLength)]);
  return out.sort(byKey);
}

export async function serveResourceProxy(req: IncomingMessage, res: ServerResponse, store: Store, dialer: PodEndpointDialer | undefined,
  request: ResourceProxyRequest, rawQuery: string): Promise<void> {
  const method = req.method ?? 'GET';
  if (!PROXY_METHODS.includes(method)) throw errors.methodNotAllowed();
  const get = (resource: string, namespace: string, name: string) => store.get('', resource, namespace, name);
  const loc: ProxyLocation = request.resource === 'pods'
    ? await podProxyLocation(get, request.namespace, request.id)
    : await serviceProxyLocation(get, request.namespace, request.id);
  // proxyRedirectsforRootPath: a GET or HEAD of .../proxy without a path is sent to .../proxy/.
  if (request.path === '' && (method === 'GET' || method === 'HEAD')) {
    res.writeHead(301, { Location: `${request.prefix}/${rawQuery ? `?${rawQuery}` : ''}`, 'Content-Length': 0 });
    res.end();
    return;
  }
  const body = await readBody(req);
  const clientIP = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  const forwardedUri = `${posix.join(request.prefix, request.path)}${request.path.endsWith('/') ? '/' : ''}`.replace(/\/\/$/, '/');
  const outgoing = backendRequest(method, request.path, rawQuery, req.rawHeaders, body, clientIP, forwardedUri);
  const port = lookupPort(loc.port);
  if (port === undefined && /^\d+$/.test(loc.port)) throw serviceUnavailable(`error trying to reach service: dial tcp: address ${loc.port}: invalid port`);
  if (port === undefined) throw serviceUnavailable(`error trying to reach service: dial tcp: lookup tcp/${loc.port}: unknown port`);
  const conn: PodEndpointConnection = dialer ? dialer.dialFrom(loc.hostIP, loc.ip, port) : { kind: 'refused' };
  if (conn.kind !== 'connected') throw serviceUnavailable(`error trying to reach service: ${dialError(conn.kind, loc.ip, port)}`);
  const tlsServer = conn.serverCertificate !== undefined;
  // The proxy transport speaks TLS without checking the pod's certificate (InsecureSkipVerify); a plain
  // server's answer to its ClientHello is no TLS record.
  if (loc.scheme === 'https' && !tlsServer) throw serviceUnavailable('error trying to reach service: tls: first record does not look like a TLS handshake');
  const reply: HttpReply = loc.scheme !== 'https' && tlsServer ? GO_TLS_LISTENER_PLAIN_HTTP_ANSWER : await conn.exchange(outgoing);
  if (reply === 'reset') throw serviceUnavailable('error trying to reach service: EOF');
  const flat = proxiedResponseHeaders(reply.headers, reply.body.byteLength).flat();
  res.writeHead(reply.status, reply.reason, flat);
  res.end(method === 'HEAD' ? undefined : Buffer.from(reply.body));
}
