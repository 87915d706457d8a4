/**
 * The aggregator's proxy to a service-backed APIService (kube-aggregator v0.32
 * pkg/apiserver/handler_proxy.go proxyHandler.ServeHTTP and updateAPIService, through
 * apimachinery's UpgradeAwareHandler, its proxy Transport and Go's httputil.ReverseProxy).
 *
 * A request reaches it authenticated and authorized; the user's credentials (Authorization, the
 * Impersonate-* headers) were taken off by those filters and the user is told to the backend in
 * X-Remote-* headers, the connection authenticated with the front-proxy client certificate. The
 * backend is verified as `<service>.<namespace>.svc` against the APIService's caBundle (or not at
 * all with insecureSkipTLSVerify). Path and query go on as Go rebuilds them; the backend's
 * status, headers (hop-by-hop and CORS ones dropped) and body stream back, so watches stream.
 * Failures answer as http.Error does: text/plain, the message and a newline.
 *
 * Upgrade requests (exec, attach, port-forward of an extension API) are joined to a connection to
 * the backend once it switches protocols. Not emulated: the rewriting of links in text/html
 * answers, HTTP/2 to the backend.
 *
 * An endpoint that is an emulated pod (an extension API server deployed in the cluster) is
 * reached through the cluster network model (network/pod-endpoint-dial.ts), its certificate
 * checked the same way; the model carries whole messages, so such a backend's answer (a watch's
 * too) is passed on once complete, and upgrade requests to it are not modelled.
 */
import https from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { createGunzip, gunzipSync } from 'node:zlib';
import { goNetError } from '../admission/webhook-client.js';
import { isAvailable, type APIService } from '../apimachinery/apiservice.js';
import { dialTarget, resolveClusterAddress } from '../network/service-cluster-address.js';
import type { ObjectGetter } from '../network/service-endpoint.js';
import type { PemPair } from '../pki/certificates.js';
import type { HttpResponse } from '../apimachinery/http-exchange.js';
import { httpsExchangeBefore, type PodEndpointConnection, type PodEndpointDialer } from '../network/pod-endpoint-dial.js';
import { caBundleError } from '../validation/webhook-client-config.js';
import { KUBE_AGGREGATOR_USER, setAuthProxyHeaders, type HeaderLines, type ProxiedUser } from '../network/auth-proxy-headers.js';
import { goReencodeQuery, goReescapePath } from './go-url.js';
import type { ServiceGet } from './remote-discovery.js';
import type { AggregationTransport } from './server.js';
import { writeText } from './respond.js';
import { writeRawError } from './streaming/handshake.js';
import { CORS_HEADERS, hopByHopHeaders } from './proxy-headers.js';

export interface AggregationProxyOptions {
  /** How the Service and its Endpoints are read. */
  resolve: ObjectGetter;
  /** The front-proxy client certificate (kube-apiserver's --proxy-client-cert-file and key). */
  proxyClient: PemPair;
  /** How endpoints that are emulated pods are reached; absent or undefined: real sockets only. */
  podEndpoints?: () => PodEndpointDialer | undefined;
  /** The clock certificates are checked against on the model's connections. */
  now?: () => Date;
}

/** net.Dialer's default timeout, for a dropped SYN on a request without a deadline. */
const DIAL_TIMEOUT_MS = 30_000;

/** aggregatedDiscoveryTimeout: a discovery request (`/apis/<group>/<version>`) gets five seconds. */
const DISCOVERY_TIMEOUT_MS = 5000;
/** The discovery manager's http.TimeoutHandler. */
const DISCOVERY_FETCH_TIMEOUT_MS = 5000;

/** RejectForwardingRedirects (kube-apiserver --aggregator-reject-forwarding-redirect, on by default). */
const REDIRECT_REJECTED = 'the backend attempted to redirect this request, which is not permitted';

/** Header lines of a raw header list, names lower-cased, values in order. */
function headerLines(rawHeaders: string[]): HeaderLines {
  const lines: HeaderLines = new Map();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    lines.set(name, [...(lines.get(name) ?? []), rawHeaders[i + 1]!]);
  }
  return lines;
}

function removeHopByHop(lines: HeaderLines): void {
  for (const h of hopByHopHeaders(lines.get('connection') ?? [])) lines.delete(h);
}

/** The client's address as Go's RemoteAddr host gives it (an IPv4 client of a dual-stack socket unmapped). */
function clientIP(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

function toOutgoing(lines: HeaderLines): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of lines) out[k] = v.length === 1 ? v[0] : v;
  return out;
}

/** http.Error */
function httpError(res: ServerResponse, code: number, message: string): void {
  writeText(res, code, `${message}\n`);
}

/** The request to pass on: the client's, or one of the aggregator's own. */
interface ProxiedRequest { method: string; url: string; rawHeaders: string[]; clientIP: string; body?: Readable }

/** Where the answer goes: the client's response, or memory. */
interface Sink {
  readonly headersSent: boolean;
  /** http.Error */
  error(code: number, message: string): void;
  head(status: number, headers: HeaderLines): void;
  write(chunk: Buffer): void;
  end(done?: () => void): void;
  destroy(): void;
  /** Called when the receiver goes away before the answer is complete. */
  onClose(fn: () => void): void;
}

/** Where a request to an APIService goes. */
interface Backend {
  /** The endpoint to connect to; none when the Service has no endpoint. */
  target?: { host: string; port: number };
  /** The Service's cluster address, host:port. */
  hostPort: string;
  serverName: string;
  tls: TransportKey;
  dialError(e: NodeJS.ErrnoException): string;
}

/** What a connection to a Service without endpoints meets. */
const REFUSED: NodeJS.ErrnoException = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** The connection settings of one APIService (updateAPIService's transport.Config). */
interface TransportKey { serverName: string; caBundle?: string; insecure: boolean }

/**
 * The proxy of one API server: serves a request for a service-backed APIService completely. It
 * keeps a keep-alive agent per backend TLS configuration, as upstream keeps a transport per
 * APIService.
 */
export class APIServiceProxy implements AggregationTransport {
  private readonly agents = new Map<string, https.Agent>();

  constructor(private readonly opts: AggregationProxyOptions) {}

  /** Closes the kept connections. */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  private agentFor(key: TransportKey): https.Agent {
    const id = JSON.stringify(key);
    let agent = this.agents.get(id);
    if (!agent) {
      agent = new https.Agent({
        keepAlive: true, cert: this.opts.proxyClient.cert, key: this.opts.proxyClient.key,
        ...(key.caBundle ? { ca: key.caBundle } : {}), rejectUnauthorized: !key.insecure,
      });
      this.agents.set(id, agent);
    }
    return agent;
  }

  /** proxyHandler.ServeHTTP for an APIService with spec.service: the request answered on `res`. */
  async proxy(req: IncomingMessage, res: ServerResponse, apiService: APIService, user: ProxiedUser): Promise<void> {
    const sink: Sink = {
      get headersSent() { return res.headersSent; },
      error: (code, message) => httpError(res, code, message),
      head: (status, lines) => {
        for (const [k, v] of lines) res.setHeader(k, v.length === 1 ? v[0]! : v);
        res.writeHead(status);
        // A streamed answer (a watch) is passed on as it arrives.
        res.flushHeaders();
      },
      write: (chunk) => { res.write(chunk); },
      end: (done) => res.end(done),
      destroy: () => res.destroy(),
      onClose: (fn) => res.on('close', () => { if (!res.writableFinished) fn(); }),
    };
    await this.exchange({ method: req.method ?? 'GET', url: req.url ?? '/', rawHeaders: req.rawHeaders, clientIP: clientIP(req), body: req }, sink, apiService, user);
  }

  /**
   * A GET of the aggregator's own through the same handler (handler_discovery.go
   * fetchFreshDiscoveryForService): as system:kube-aggregator in system:masters, answered in
   * memory, cut after five seconds (http.TimeoutHandler: 503 "request timed out").
   */
  get(apiService: APIService): ServiceGet {
    return (path, accept) => new Promise((resolve) => {
      let status = 0; let contentType = ''; const chunks: Buffer[] = [];
      let closed: (() => void) | undefined;
      let finished = false;
      const timer = setTimeout(() => {
        if (finished) return;
        finished = true;
        closed?.();
        resolve({ status: 503, contentType: '', body: 'request timed out' });
      }, DISCOVERY_FETCH_TIMEOUT_MS);
      const done = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        resolve({ status, contentType, body: Buffer.concat(chunks).toString() });
      };
      const sink: Sink = {
        get headersSent() { return status !== 0; },
        error: (code, message) => { status = code; contentType = 'text/plain; charset=utf-8'; chunks.push(Buffer.from(`${message}\n`)); done(); },
        head: (code, lines) => { status = code; contentType = lines.get('content-type')?.[0] ?? ''; },
        write: (chunk) => { chunks.push(chunk); },
        end: (cb) => { done(); cb?.(); },
        destroy: done,
        onClose: (fn) => { closed = fn; },
      };
      void this.exchange({ method: 'GET', url: path, rawHeaders: ['Accept', accept], clientIP: '', body: undefined }, sink, apiService, KUBE_AGGREGATOR_USER).catch(done);
    });
  }

  /**
   * What every request to the APIService needs first: an Available APIService, usable CA data,
   * the Service's cluster address (upstream's resolver) and the endpoint this host connects to.
   */
  private async prepare(apiService: APIService): Promise<{ error: { code: number; message: string } } | { backend: Backend }> {
    const svc = apiService.spec?.service;
    if (!svc) throw new Error(`APIService ${apiService.metadata?.name ?? ''} is served locally`);
    if (!isAvailable(apiService)) return { error: { code: 503, message: 'service unavailable' } };
    const caBundle = apiService.spec?.caBundle ? Buffer.from(apiService.spec.caBundle, 'base64').toString('latin1') : undefined;
    // transportBuildingError: CA data TLS cannot use.
    const caError = caBundle ? caBundleError(caBundle) : undefined;
    if (caError) return { error: { code: 500, message: caError } };
    const namespace = svc.namespace ?? ''; const name = svc.name ?? ''; const port = svc.port ?? 443;
    let address;
    try {
      address = await resolveClusterAddress(this.opts.resolve, namespace, name, port);
    } catch {
      return { error: { code: 503, message: 'service unavailable' } };
    }
    const serverName = `${name}.${namespace}.svc`;
    const target = await dialTarget(this.opts.resolve, address, namespace, name, port);
    const hp = address.hostPort;
    const [hostName, hostPort] = hp.startsWith('[')
      ? [hp.slice(1, hp.indexOf(']')), Number(hp.slice(hp.indexOf(']') + 2))]
      : [hp.slice(0, hp.lastIndexOf(':')), Number(hp.slice(hp.lastIndexOf(':') + 1))];
    return {
      backend: {
        target, hostPort: hp, serverName, tls: { serverName, caBundle, insecure: !!apiService.spec?.insecureSkipTLSVerify },
        // Go's dial and TLS errors name the address upstream dials: the cluster address.
        dialError: (e) => goNetError(e, hostName, hostPort, serverName),
      },
    };
  }

  /**
   * An upgrade request (exec, attach, port-forward of an extension API): UpgradeAwareHandler's
   * tryUpgrade. The request is sent on a connection of its own with the identity headers set
   * beforehand and X-Forwarded-For appended, the rest of it as the client sent it; a 101 answer
   * joins the two connections, any other answer is passed back and the connection closed.
   */
  async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, apiService: APIService, user: ProxiedUser): Promise<void> {
    const prepared = await this.prepare(apiService);
    if ('error' in prepared) { writeRawError(socket, prepared.error.code, prepared.error.message, true); return; }
    const { target, hostPort, tls } = prepared.backend;
    // DialForUpgrade's error goes back as it is (responder.Error).
    if (!target) { writeRawError(socket, 503, prepared.backend.dialError(REFUSED), true); return; }
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = goReescapePath(q < 0 ? rawUrl : rawUrl.slice(0, q));
    const query = goReencodeQuery(q < 0 ? '' : rawUrl.slice(q + 1));
    const lines = headerLines(req.rawHeaders);
    lines.delete('authorization');
    for (const name of [...lines.keys()]) if (name.startsWith('impersonate-')) lines.delete(name);
    lines.delete('host');
    // utilnet.AppendForwardedForHeader
    const prior = lines.get('x-forwarded-for');
    const ip = clientIP(req);
    lines.set('x-forwarded-for', [prior?.length ? `${prior.join(', ')}, ${ip}` : ip]);
    setAuthProxyHeaders(lines, user);
    // Request.Write names Go's client when the request names none.
    if (!lines.has('user-agent')) lines.set('user-agent', ['Go-http-client/1.1']);
    const requestHead = [`${req.method ?? 'GET'} ${query ? `${path}?${query}` : path} HTTP/1.1`, `Host: ${hostPort}`];
    for (const [k, vs] of lines) for (const v of vs) requestHead.push(`${k}: ${v}`);

    const backend = tlsConnect({
      host: target.host, port: target.port, servername: tls.serverName, ALPNProtocols: ['http/1.1'],
      cert: this.opts.proxyClient.cert, key: this.opts.proxyClient.key,
      ...(tls.caBundle ? { ca: tls.caBundle } : {}), rejectUnauthorized: !tls.insecure,
    });
    await new Promise<void>((resolve) => {
      let connected = false;
      let answered = false;
      const closeBoth = () => { backend.destroy(); socket.destroy(); resolve(); };
      backend.once('secureConnect', () => {
        connected = true;
        backend.write(requestHead.join('\r\n') + '\r\n\r\n');
        if (head.length) backend.write(head);
      });
      backend.on('error', (e: NodeJS.ErrnoException) => {
        if (!connected) { writeRawError(socket, 503, prepared.backend.dialError(e), true); resolve(); return; }
        closeBoth();
      });
      socket.on('error', closeBoth);
      socket.on('close', () => { if (answered) closeBoth(); else { backend.destroy(); resolve(); } });
      // The backend's response head decides: a switch joins the connections, anything else is the answer.
      let buffered = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        backend.off('data', onData);
        answered = true;
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(buffered.subarray(0, end).toString('latin1'))?.[1] ?? 0);
        socket.write(buffered);
        if (status === 101) {
          backend.pipe(socket);
          socket.pipe(backend);
          backend.on('end', () => socket.end());
          socket.on('end', () => backend.end());
          backend.on('close', () => { socket.destroy(); resolve(); });
        } else {
          // The rest of the answer, then the connection closes.
          backend.pipe(socket);
          backend.on('close', () => { socket.end(); resolve(); });
        }
      };
      backend.on('data', onData);
    });
  }

  /** The exchange with a backend that is an emulated pod: the same request, over the cluster network model. */
  private async exchangeThroughModel(conn: PodEndpointConnection, req: ProxiedRequest, headers: OutgoingHttpHeaders, sink: Sink,
    backend: Backend, discovery: boolean, gunzip: boolean): Promise<void> {
    const unreachable = (reason: string) => sink.error(503, `error trying to reach service: ${reason}`);
    if (conn.kind === 'refused') { unreachable(backend.dialError(REFUSED)); return; }
    const body = await readBody(req.body);
    const headerList: [string, string][] = [];
    for (const [k, v] of Object.entries(headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [String(v)]) headerList.push([k === 'host' ? 'Host' : k, one]);
    }
    if (body.length) headerList.push(['content-length', String(body.length)]);
    const outcome = await httpsExchangeBefore(discovery ? DISCOVERY_TIMEOUT_MS : conn.kind === 'timeout' ? DIAL_TIMEOUT_MS : undefined,
      conn, backend.target!.host, backend.target!.port, { caBundle: backend.tls.caBundle ?? '', serverName: backend.serverName, insecure: backend.tls.insecure },
      { method: req.method, target: req.url, headers: headerList, body: new Uint8Array(body) }, (this.opts.now ?? (() => new Date()))());
    if (outcome === 'deadline') {
      unreachable(discovery ? 'context deadline exceeded' : backend.dialError({ ...new Error('i/o timeout'), code: 'ETIMEDOUT' } as NodeJS.ErrnoException));
      return;
    }
    if (outcome.kind === 'failed') { unreachable(outcome.reason); return; }
    relayModelled(sink, outcome.response, gunzip);
  }

  private async exchange(req: ProxiedRequest, sink: Sink, apiService: APIService, user: ProxiedUser): Promise<void> {
    const prepared = await this.prepare(apiService);
    if ('error' in prepared) { sink.error(prepared.error.code, prepared.error.message); return; }
    const { target, hostPort, serverName, tls } = prepared.backend;
    const unreachable = (e: NodeJS.ErrnoException) => `error trying to reach service: ${prepared.backend.dialError(e)}`;
    if (!target) {
      // kube-proxy rejects a connection to a Service without endpoints.
      sink.error(503, unreachable(REFUSED));
      return;
    }

    const q = req.url.indexOf('?');
    const path = goReescapePath(q < 0 ? req.url : req.url.slice(0, q));
    const query = goReencodeQuery(q < 0 ? '' : req.url.slice(q + 1));
    const headers = outgoingHeaders(req, user, hostPort, path);

    const discovery = path.replace(/^\/+|\/+$/g, '').split('/').length === 3;
    const gunzip = headers['accept-encoding'] === 'gzip' && !req.rawHeaders.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'accept-encoding');
    const modelled = this.opts.podEndpoints?.()?.dial(target.host, target.port);
    if (modelled) {
      await this.exchangeThroughModel(modelled, { ...req, url: query ? `${path}?${query}` : path }, headers, sink, prepared.backend, discovery, gunzip);
      return;
    }
    await new Promise<void>((resolve) => {
      let settled = false;
      const finish = () => { if (!settled) { settled = true; resolve(); } };
      const upstream = https.request({
        host: target.host, port: target.port, method: req.method, path: query ? `${path}?${query}` : path, headers,
        servername: serverName, agent: this.agentFor(tls),
      });
      const timer = discovery ? setTimeout(() => upstream.destroy(Object.assign(new Error('context deadline exceeded'), { code: 'DEADLINE' })), DISCOVERY_TIMEOUT_MS) : undefined;
      upstream.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (!sink.headersSent) {
          sink.error(503, e.code === 'DEADLINE' ? 'error trying to reach service: context deadline exceeded' : unreachable(e));
        } else {
          sink.destroy();
        }
        finish();
      });
      upstream.on('response', (answer) => {
        // The discovery deadline covers the whole exchange, as the request's context does.
        if (!discovery) clearTimeout(timer);
        relay(sink, answer, gunzip, () => { clearTimeout(timer); finish(); });
      });
      // The client went away: so does the backend request (a watch ends).
      sink.onClose(() => { upstream.destroy(); clearTimeout(timer); finish(); });
      if (req.body) req.body.pipe(upstream); else upstream.end();
    });
  }
}

/** The request's body, read whole (the model carries whole messages). */
async function readBody(body: Readable | undefined): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** The model's response as relay passes a backend's on: redirects refused, hop-by-hop and CORS headers dropped. */
function relayModelled(sink: Sink, r: HttpResponse, gunzip: boolean): void {
  const lines: HeaderLines = new Map();
  for (const [k, v] of r.headers) lines.set(k.toLowerCase(), [...(lines.get(k.toLowerCase()) ?? []), v]);
  if (r.status >= 300 && r.status <= 399 && lines.has('location')) {
    sink.head(502, new Map([['content-type', ['text/plain; charset=utf-8']], ['content-length', [String(Buffer.byteLength(REDIRECT_REJECTED))]]]));
    sink.write(Buffer.from(REDIRECT_REJECTED));
    sink.end();
    return;
  }
  removeHopByHop(lines);
  for (const h of CORS_HEADERS) lines.delete(h);
  let body = Buffer.from(r.body);
  if (gunzip && lines.get('content-encoding')?.[0] === 'gzip') {
    body = gunzipSync(body);
    lines.delete('content-encoding');
    lines.delete('content-length');
  }
  sink.head(r.status, lines);
  if (body.length) sink.write(body);
  sink.end();
}

/**
 * The headers the backend sees: the client's, less its credentials and the hop-by-hop ones,
 * plus the proxy's (X-Forwarded-*), the user's identity and the Host of the Service address.
 */
function outgoingHeaders(req: ProxiedRequest, user: ProxiedUser, hostPort: string, path: string): OutgoingHttpHeaders {
  const lines = headerLines(req.rawHeaders);
  // WithAuthentication deletes Authorization once it has authenticated; WithImpersonation the Impersonate-* headers.
  lines.delete('authorization');
  for (const name of [...lines.keys()]) if (name.startsWith('impersonate-')) lines.delete(name);
  lines.delete('host');
  // ReverseProxy: a "Te: trailers" request keeps saying so.
  const teTrailers = (lines.get('te') ?? []).some((v) => v.split(',').some((t) => t.trim().toLowerCase() === 'trailers'));
  removeHopByHop(lines);
  if (teTrailers) lines.set('te', ['trailers']);
  // ReverseProxy appends the client to X-Forwarded-For (a request of the server's own has no client).
  const prior = lines.get('x-forwarded-for');
  if (req.clientIP) lines.set('x-forwarded-for', [prior?.length ? `${prior.join(', ')}, ${req.clientIP}` : req.clientIP]);
  // The proxy Transport's headers: the path forwarded, the backend location's host and scheme.
  lines.set('x-forwarded-uri', [path]);
  lines.set('x-forwarded-host', [hostPort]);
  lines.set('x-forwarded-proto', ['https']);
  setAuthProxyHeaders(lines, user);
  // Go's transport asks for gzip (and undoes it) when the request names no encoding.
  if (!lines.has('accept-encoding') && !lines.has('range') && req.method !== 'HEAD') lines.set('accept-encoding', ['gzip']);
  const out = toOutgoing(lines);
  // NewRequestForProxy: the Host is the Service address upstream dials.
  out.host = hostPort;
  return out;
}

/** ReverseProxy's copy of the answer: a redirect refused, else status, headers and the body as it comes. */
function relay(sink: Sink, answer: IncomingMessage, gunzip: boolean, done: () => void): void {
  const status = answer.statusCode ?? 502;
  if (status >= 300 && status <= 399 && answer.headers.location) {
    answer.resume();
    sink.head(502, new Map([['content-type', ['text/plain; charset=utf-8']], ['content-length', [String(Buffer.byteLength(REDIRECT_REJECTED))]]]));
    sink.write(Buffer.from(REDIRECT_REJECTED));
    sink.end(done);
    return;
  }
  const lines = headerLines(answer.rawHeaders);
  removeHopByHop(lines);
  for (const h of CORS_HEADERS) lines.delete(h);
  const decompress = gunzip && (answer.headers['content-encoding'] ?? '') === 'gzip';
  if (decompress) { lines.delete('content-encoding'); lines.delete('content-length'); }
  sink.head(status, lines);
  const body = decompress ? answer.pipe(createGunzip()) : answer;
  body.on('data', (chunk: Buffer) => sink.write(chunk));
  body.on('end', () => sink.end(done));
  body.on('error', () => { sink.destroy(); done(); });
}
