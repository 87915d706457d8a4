/**
 * The HTTPS call to a webhook, for admission and CRD conversion webhooks alike (apiserver
 * pkg/util/webhook ClientManager, client.go hookClientConfig, and the REST client it builds): a
 * `url` target, or a `service` one resolved through the Service's endpoints
 * (network/service-endpoint.ts) and verified as `<service>.<namespace>.svc`; the URL's path
 * cleaned as path.Join("/", path) is; `caBundle` verifies the server, else the system roots; each
 * caller keeps its keep-alive https.Agent. An endpoint that is an emulated pod is reached through
 * the cluster network model (network/pod-endpoint-dial.ts), its TLS checked the same way. Failures
 * read as Go's net/http ones do (`Post "<url>": ...`); what a caller adds (a timeout, how it reads
 * the answer) is its own.
 */
import https from 'node:https';
import { posix } from 'node:path';
import type { WebhookClientConfig } from 'kubernetes-types/admissionregistration/v1.js';
import { StatusError } from '../apimachinery/errors.js';
import { goQuote } from '../apimachinery/go-quote.js';
import { resolveServiceEndpoint, type ObjectGetter } from '../network/service-endpoint.js';
import { httpsExchangeBefore, type PodEndpointConnection, type PodEndpointDialer } from '../network/pod-endpoint-dial.js';

/** What a call needs of a webhook: its client config and the agent its connections live in. */
export interface WebhookEndpoint {
  clientConfig: WebhookClientConfig;
  agent: https.Agent;
}

/** The caBundle's PEM text (the API holds it base64-encoded); empty without one. */
function caBundlePEM(cfg: { caBundle?: string }): string {
  return cfg.caBundle ? Buffer.from(cfg.caBundle, 'base64').toString('utf8') : '';
}

/** A keep-alive agent that verifies the server with the caBundle, else the system roots. */
export function newWebhookAgent(cfg: { caBundle?: string }): https.Agent {
  const ca = caBundlePEM(cfg);
  return new https.Agent({ keepAlive: true, ...(ca ? { ca } : {}) });
}

/** x509.HostnameError: the names the certificate is valid for (its IP SANs when an IP was wanted), and the one wanted. */
function goHostnameError(subjectAltName: string | undefined, host: string): string {
  const sans = (subjectAltName ?? '').split(', ').filter(Boolean);
  const isIP = /^[\d.]+$|:/.test(host);
  const valid = sans.filter((s) => s.startsWith(isIP ? 'IP Address:' : 'DNS:')).map((s) => s.slice(s.indexOf(':') + 1));
  if (isIP && !valid.length) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
  if (!valid.length) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${valid.join(', ')}, not ${host}`;
}

/** The call failed before an answer came: the reason as Go's client words it. */
export class CallFailure extends Error {}

/** The text Go's dialer and TLS stack give for what Node reports. */
export function goNetError(e: NodeJS.ErrnoException, host: string, port: number, serverName: string): string {
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  switch (e.code) {
    case 'ECONNREFUSED': return `dial tcp ${addr}: connect: connection refused`;
    case 'ETIMEDOUT': return `dial tcp ${addr}: i/o timeout`;
    case 'ECONNRESET': return 'EOF';
    case 'EHOSTUNREACH': return `dial tcp ${addr}: connect: no route to host`;
    case 'ENOTFOUND': return `dial tcp: lookup ${host}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY': case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED': return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `tls: failed to verify certificate: ${goHostnameError((e as { cert?: { subjectaltname?: string } }).cert?.subjectaltname, serverName)}`;
    default: return e.message;
  }
}

/** Go's path.Join("/", p): cleaned, without a trailing slash (node's join keeps one). */
function rooted(p: string): string {
  const joined = posix.join('/', p);
  return joined.length > 1 ? joined.replace(/\/+$/, '') : joined;
}

/** Where a call goes: the URL the REST client posts to (Host plus the rooted path, then the query) and the address it dials. */
interface Target { url: string; hostHeader: string; path: string; host: string; port: number; serverName: string }

async function targetOf(cc: WebhookClientConfig, getObject: ObjectGetter, query: string): Promise<Target> {
  const search = query ? `?${query}` : '';
  if (cc.service) {
    const svc = cc.service;
    const svcPort = svc.port || 443;
    const serverName = `${svc.name}.${svc.namespace}.svc`;
    const hostHeader = `${serverName}:${svcPort}`;
    const path = `${rooted(svc.path ?? '')}${search}`;
    const url = `https://${hostHeader}${path}`;
    try {
      const { host, port } = await resolveServiceEndpoint(getObject, svc.namespace, svc.name, svcPort);
      return { url, hostHeader, path, host, port, serverName };
    } catch (e) {
      throw new CallFailure(`Post ${goQuote(url)}: ${e instanceof StatusError ? e.status.message : (e as Error).message}`);
    }
  }
  if (!cc.url) throw new CallFailure('webhook configuration must have either service or URL');
  const u = new URL(cc.url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const path = `${rooted(u.pathname)}${search}`;
  return { url: `${u.protocol}//${u.host}${path}`, hostHeader: u.host, path, host, port: Number(u.port || 443), serverName: host };
}

/** The answer as it came: status code, content type and body. */
export interface WebhookAnswer { code: number; contentType: string; body: string }

export interface PostOptions {
  /** The query the call carries (`timeout=10s` for admission webhooks). */
  query?: string;
  /** Gives up after this many milliseconds with Go's `context deadline exceeded`; none: no limit. */
  timeoutMs?: number;
  /** Reaches endpoints that are emulated pods; without it (or for other addresses) a real socket is dialled. */
  podEndpoints?: PodEndpointDialer;
  /** The clock certificates are checked against on the model's connections. */
  now?: () => Date;
}

/** net.Dialer's default timeout (30 s), which bounds a call with no deadline of its own. */
const DIAL_TIMEOUT_MS = 30_000;

/** The request as the REST client sends it, carried over the cluster network model. */
async function postThroughModel(conn: PodEndpointConnection, ep: WebhookEndpoint, t: Target, body: string, opts: PostOptions): Promise<WebhookAnswer> {
  const caBundle = caBundlePEM(ep.clientConfig);
  const payload = Buffer.from(body, 'utf8');
  const req = {
    method: 'POST', target: t.path, body: new Uint8Array(payload),
    headers: [['Host', t.hostHeader], ['Content-Length', String(payload.length)], ['Accept', 'application/json, */*'],
      ['Content-Type', 'application/json']] as [string, string][],
  };
  // A dropped SYN leaves the client waiting for its deadline.
  const outcome = await httpsExchangeBefore(opts.timeoutMs ?? (conn.kind === 'timeout' ? DIAL_TIMEOUT_MS : undefined),
    conn, t.host, t.port, { caBundle, serverName: t.serverName }, req, (opts.now ?? (() => new Date()))());
  const fail = (reason: string) => new CallFailure(`Post ${goQuote(t.url)}: ${reason}`);
  if (outcome === 'deadline') {
    throw fail(opts.timeoutMs === undefined ? `dial tcp ${t.host}:${t.port}: i/o timeout` : 'context deadline exceeded');
  }
  if (outcome.kind === 'failed') throw fail(outcome.reason);
  const r = outcome.response;
  const contentType = r.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  return { code: r.status, contentType, body: Buffer.from(r.body).toString('utf8') };
}

/** POSTs the JSON body and returns the answer, whatever its status; a transport failure throws CallFailure. */
export async function postToWebhook(ep: WebhookEndpoint, getObject: ObjectGetter, body: string, opts: PostOptions = {}): Promise<WebhookAnswer> {
  const t = await targetOf(ep.clientConfig, getObject, opts.query ?? '');
  const modelled = opts.podEndpoints?.dial(t.host, t.port);
  if (modelled) return postThroughModel(modelled, ep, t, body, opts);
  const isIP = /^[\d.]+$/.test(t.serverName) || t.serverName.includes(':');
  return new Promise<WebhookAnswer>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new CallFailure(`Post ${goQuote(t.url)}: ${reason}`));
    };
    const req = https.request({
      agent: ep.agent, host: t.host, port: t.port, method: 'POST', path: t.path,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(body), Host: t.hostHeader },
      // A service target is verified as its DNS name, whatever address it was reached at.
      ...(isIP ? {} : { servername: t.serverName }),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => fail(goNetError(e, t.host, t.port, t.serverName)));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ code: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    if (opts.timeoutMs !== undefined) timer = setTimeout(() => { fail('context deadline exceeded'); req.destroy(); }, opts.timeoutMs);
    req.on('error', (e) => fail(goNetError(e, t.host, t.port, t.serverName)));
    req.end(body);
  });
}

/** A time.Duration as Go prints whole seconds (`10s`, `1m0s`). */
function goSeconds(s: number): string {
  return s >= 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s}s`;
}

/**
 * Posts an AdmissionReview and returns the answer's body. Throws CallFailure with the reason
 * (`failed to call webhook: ...` is the caller's to add).
 */
export async function postReview(ep: WebhookEndpoint, getObject: ObjectGetter, body: string, timeoutSeconds: number,
  podEndpoints?: PodEndpointDialer): Promise<string> {
  const answer = await postToWebhook(ep, getObject, body, {
    query: `timeout=${goSeconds(timeoutSeconds)}`, timeoutMs: timeoutSeconds * 1000, ...(podEndpoints ? { podEndpoints } : {}),
  });
  if (answer.code >= 200 && answer.code < 300) return answer.body;
  throw new CallFailure(unexpectedStatus(answer.code, answer.body));
}

/** The REST client's error for an answer that is not 2xx: the Status it carries, else the generic text. */
function unexpectedStatus(code: number, text: string): string {
  try {
    const s = JSON.parse(text) as { kind?: string; message?: string };
    if (s?.kind === 'Status' && s.message) return s.message;
  } catch { /* not a Status */ }
  return `an error on the server ("${text.trim()}") has prevented the request from succeeding`;
}
