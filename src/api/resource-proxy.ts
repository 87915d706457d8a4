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
import type { HttpReply, HttpRequest } from '../apimachinery/http-exchange.js';
import { errors } from '../apimachinery/errors.js';
import { podProxyLocation, serviceProxyLocation, serviceUnavailable, type ProxyLocation } from '../registry/core/proxy-location.js';
import { readBody } from './body.js';

/** A TCP connection from a node's address to ip:port in the cluster network, as the model answers it. */
export type ProxyDialResult =
  | { kind: 'connected'; exchange(req: HttpRequest): Promise<HttpReply> }
  | { kind: 'refused' }
  | { kind: 'timeout' };

/** Dials ip:port from `from` (the node of the pod that has ip: the control plane reaches every pod as its node does). */
export type ProxyDialer = (from: string, ip: string, port: number) => ProxyDialResult;

/** ProxyREST.ConnectMethods. */
const PROXY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const RESOURCE_PROXY = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|services)\/([^/]+)\/proxy(\/.*)?$/;
/** Hop-by-hop headers httputil.ReverseProxy drops both ways. */
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization',
  'te', 'trailer', 'transfer-encoding', 'upgrade']);

export interface ResourceProxyRequest { namespace: string; resource: 'pods' | 'services'; id: string; path: string }

/** The object and proxied path a `/api/v1/namespaces/NS/{pods,services}/ID/proxy[/path]` URL names, or undefined. */
export function matchResourceProxy(decodedPath: string): ResourceProxyRequest | undefined {
  const m = RESOURCE_PROXY.exec(decodedPath);
  if (!m) return undefined;
  return { namespace: m[1]!, resource: m[2] as 'pods' | 'services', id: m[3]!, path: subpath(m[4] ?? '') };
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

/** The request as the reverse proxy sends it to the backend: hop-by-hop headers and credentials dropped, X-Forwarded-For added. */
export function backendRequest(method: string, path: string, rawQuery: string, headers: IncomingMessage['rawHeaders'], body: Uint8Array, clientIP: string): HttpRequest {
  const out: [string, string][] = [];
  let forwardedFor = '';
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i]!; const value = headers[i + 1]!;
    const lower = name.toLowerCase();
    // The authentication filter removed the credentials, impersonation its headers.
    if (HOP_BY_HOP.has(lower) || lower === 'authorization' || lower.startsWith('impersonate-')) continue;
    if (lower === 'x-forwarded-for') { forwardedFor = forwardedFor ? `${forwardedFor}, ${value}` : value; continue; }
    out.push([name, value]);
  }
  out.push(['X-Forwarded-For', forwardedFor ? `${forwardedFor}, ${clientIP}` : clientIP]);
  // url.URL with an empty path sends "/".
  const target = `${encodeURI(path || '/')}${rawQuery ? `?${rawQuery}` : ''}`;
  return { method, target, headers: out, body };
}

export async function serveResourceProxy(req: IncomingMessage, res: ServerResponse, store: Store, dial: ProxyDialer | undefined,
  request: ResourceProxyRequest, rawQuery: string): Promise<void> {
  const method = req.method ?? 'GET';
  if (!PROXY_METHODS.includes(method)) throw errors.methodNotAllowed();
  const get = (resource: string, namespace: string, name: string) => store.get('', resource, namespace, name);
  const loc: ProxyLocation = request.resource === 'pods'
    ? await podProxyLocation(get, request.namespace, request.id)
    : await serviceProxyLocation(get, request.namespace, request.id);
  const body = await readBody(req);
  const clientIP = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  const outgoing = backendRequest(method, request.path, rawQuery, req.rawHeaders, body, clientIP);
  const port = lookupPort(loc.port);
  if (port === undefined && /^\d+$/.test(loc.port)) throw serviceUnavailable(`error trying to reach service: dial tcp: address ${loc.port}: invalid port`);
  if (port === undefined) throw serviceUnavailable(`error trying to reach service: dial tcp: lookup tcp/${loc.port}: unknown port`);
  const conn: ProxyDialResult = dial ? dial(loc.hostIP, loc.ip, port) : { kind: 'refused' };
  if (conn.kind !== 'connected') throw serviceUnavailable(`error trying to reach service: ${dialError(conn.kind, loc.ip, port)}`);
  // The model's servers speak plain HTTP: a TLS client's first record gets an HTTP answer.
  if (loc.scheme === 'https') throw serviceUnavailable('error trying to reach service: tls: first record does not look like a TLS handshake');
  const reply = await conn.exchange(outgoing);
  if (reply === 'reset') throw serviceUnavailable('error trying to reach service: EOF');
  const flat: string[] = [];
  for (const [k, v] of reply.headers) {
    if (HOP_BY_HOP.has(k.toLowerCase()) || k.toLowerCase() === 'content-length') continue;
    flat.push(k, v);
  }
  flat.push('Content-Length', String(reply.body.byteLength));
  res.writeHead(reply.status, reply.reason, flat);
  res.end(method === 'HEAD' ? undefined : Buffer.from(reply.body));
}
