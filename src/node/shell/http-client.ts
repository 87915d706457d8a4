/**
 * What every HTTP client of the container model does before it prints
 * anything of its own: parse the URL, resolve the host by the pod's
 * resolver, connect through the cluster network, send one HTTP/1.1 request
 * and wait for the response. The clients (curl, wget, curl.exe,
 * Invoke-WebRequest) turn the outcome into their own output and errors.
 *
 * Without a network (a container this process does not run) only the
 * container itself answers: loopback is refused, other addresses never
 * answer and names other than localhost do not resolve.
 */
import { pemBlocks } from '../../pki/certificate-request.js';
import { curlPeerVerification } from './curl-tls.js';
import { speaksTLS, type ConnectResult, type Endpoint, type HttpRequest, type HttpResponse } from './net-types.js';
import { GO_TLS_LISTENER_PLAIN_HTTP_ANSWER } from '../../apimachinery/http-exchange.js';
import { Pending } from './pending.js';
import type { ShellContext } from './types.js';

export interface HttpTarget {
  scheme: 'http' | 'https';
  /** The host as written (brackets of an IPv6 literal removed). */
  host: string;
  port: number;
  /** Path and query, `/` when the URL has none. */
  target: string;
  /** The Host header: the host, with the port when it is not the scheme's default. */
  hostHeader: string;
}

/** A URL as curl reads one (the scheme defaults to http); undefined when it has no host. */
export function parseHttpUrl(url: string): HttpTarget | undefined {
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\[[^\]]+\]|[^/:?#]*)(?::(\d*))?([/?#].*)?$/i.exec(url);
  if (!m) return undefined;
  const [, rawScheme, rawHost = '', rawPort, rest = ''] = m;
  const scheme = (rawScheme ?? 'http').toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  if (!rawHost) return undefined;
  const host = rawHost.replace(/^\[|\]$/g, '');
  const defaultPort = scheme === 'https' ? 443 : 80;
  const port = rawPort ? Number(rawPort) : defaultPort;
  const path = rest.replace(/#.*$/, '');
  return {
    scheme, host, port,
    target: path === '' ? '/' : path.startsWith('?') ? `/${path}` : path,
    hostHeader: port === defaultPort ? rawHost : `${rawHost}:${port}`,
  };
}

export type FetchOutcome =
  | { kind: 'response'; response: HttpResponse; remote: Endpoint; local: Endpoint }
  | { kind: 'unresolved' }
  | { kind: 'refused'; ip: string }
  | { kind: 'timeout'; ip: string }
  /** The connection was reset before the response came (the server's process went away). */
  | { kind: 'reset'; ip: string }
  /** A server that does not speak TLS: an https URL gets what a plain-HTTP server gives a TLS client. */
  | { kind: 'tls'; ip: string }
  /** A TLS server whose certificate the client does not accept: curl's message after `curl: (60) `. */
  | { kind: 'untrusted'; ip: string; message: string };

/**
 * What a client trusts for https: every certificate (curl -k), or the CAs of a PEM bundle (curl
 * --cacert; without one, the image's system bundle, which holds no cluster CA). `unverified`: a
 * client that speaks TLS but checks no certificate (busybox wget's own TLS).
 */
export interface ClientTrust { insecure: boolean; caBundle?: string; unverified?: boolean }

/** Whether the PEM bundle holds the CA's certificate. */
export function bundleHolds(bundle: string, ca: string): boolean {
  const want = pemBlocks(ca)[0]?.der;
  return want !== undefined && pemBlocks(bundle).some((b) => b.type === 'CERTIFICATE' && b.der.equals(want));
}

const isLoopbackName = (host: string) => /^localhost$/i.test(host) || /^127\./.test(host) || host === '::1';

/** The address a client connects to for `host`, by the pod's resolver; undefined when it does not resolve. */
export function resolveHost(host: string, ctx: ShellContext): string | undefined {
  if (isLoopbackName(host)) return /^localhost$/i.test(host) ? '127.0.0.1' : host;
  if (host.toLowerCase() === ctx.hostname.toLowerCase()) return ctx.net?.podIP ?? ctx.network?.podIP ?? '127.0.0.1';
  if (ctx.net) return ctx.net.resolve(host)?.[0];
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':') ? host : undefined;
}

/**
 * Sends the request; the outcome settles when the response has come (at
 * once for a failure). A server that never answers leaves it pending, as a
 * client without a timeout waits.
 */
export function fetchHttp(ctx: ShellContext, t: HttpTarget, req: HttpRequest, trust?: ClientTrust): Pending<FetchOutcome> {
  const ip = resolveHost(t.host, ctx);
  if (ip === undefined) return Pending.of<FetchOutcome>({ kind: 'unresolved' });
  const conn = ctx.net
    ? ctx.net.connect(ip, t.port)
    : { kind: isLoopbackName(ip) || ip === ctx.network?.podIP ? 'refused' as const : 'timeout' as const };
  if (conn.kind !== 'connected') return Pending.of<FetchOutcome>({ kind: conn.kind, ip });
  if (t.scheme === 'https') {
    const refused = tlsRefusal(conn, t.host, ip, trust, ctx.now?.() ?? new Date());
    if (refused) return Pending.of<FetchOutcome>(refused);
  } else if (speaksTLS(conn)) {
    // Plain HTTP to a TLS listener (the API server's or a pod's Go server).
    return Pending.of<FetchOutcome>({ kind: 'response', remote: conn.remote, local: conn.local, response: GO_TLS_LISTENER_PLAIN_HTTP_ANSWER });
  }
  const out = new Pending<FetchOutcome>();
  const response = conn.exchange(req);
  response.onSettle(() => {
    const reply = response.value;
    out.settle(reply === 'reset' ? { kind: 'reset', ip } : { kind: 'response', response: reply, remote: conn.remote, local: conn.local });
  });
  return out;
}

/** Why the TLS handshake (or the client's check after it) ends the request; undefined when it goes on. */
function tlsRefusal(conn: Extract<ConnectResult, { kind: 'connected' }>, host: string, ip: string, trust: ClientTrust | undefined,
  now: Date): FetchOutcome | undefined {
  // A client without a trust setting is one whose TLS is not modelled: it gets no further than the handshake.
  if (!trust || !speaksTLS(conn)) return { kind: 'tls', ip };
  if (trust.insecure || trust.unverified) return undefined;
  if (conn.serverCertificate !== undefined) {
    const message = curlPeerVerification(conn.serverCertificate, trust.caBundle ?? '', host, now);
    return message === undefined ? undefined : { kind: 'untrusted', ip, message };
  }
  // The API server: only whether the bundle holds its CA is modelled.
  if (!bundleHolds(trust.caBundle ?? '', conn.tlsCA ?? '')) return { kind: 'untrusted', ip, message: 'SSL certificate problem: unable to get local issuer certificate' };
  return undefined;
}

/** Waits for a pending outcome inside a program. */
export function* awaitPending<T>(p: Pending<T>): Generator<{ kind: 'wait'; on: Pending<unknown> }, T, void> {
  while (!p.settled) yield { kind: 'wait', on: p };
  return p.value;
}

/** `HTTP/1.1 200 OK` and the header lines, CRLF-terminated, as a server sent them. */
export function responseHead(r: HttpResponse): string {
  return `HTTP/${r.version ?? '1.1'} ${r.status} ${r.reason}\r\n${r.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

/** RFC 9110 reason phrases of the status codes the model's servers send. */
export const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found', 304: 'Not Modified',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable',
};
