/**
 * The HTTPS call to a CRD's conversion webhook, as apiserver's webhook ClientManager makes it
 * (pkg/util/webhook/client.go hookClientConfig) and client-go's rest.Result.Into reads the answer:
 * a POST of JSON to the URL (or the service), the server verified with the CRD's caBundle (the
 * system roots without one), no client timeout (webhook_converter.go sets none), and failures in
 * the words Go's HTTP client and client-go use.
 */
import https from 'node:https';
import { posix } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { WebhookClientConfig } from 'kubernetes-types/apiextensions/v1.js';
import { goQuote } from '../../apimachinery/go-quote.js';

/** Resolves a Service to the address ("host:port") to dial, or throws the resolver's error. */
export type ServiceResolver = (namespace: string, name: string, port: number) => Promise<string>;

/**
 * ClusterIPServiceResolver's answer when it cannot find the Service (the lister's NotFound).
 * TODO: resolve through src/network/service-endpoint.ts (webhooks' Service resolution).
 */
const unresolvedService: ServiceResolver = async (_namespace, name) => { throw new Error(`service ${goQuote(name)} not found`); };

let serviceResolver: ServiceResolver = unresolvedService;

/** Sets how `service` targets are reached (the cluster's Service to endpoint resolution). */
export function setConversionServiceResolver(resolver: ServiceResolver): void {
  serviceResolver = resolver;
}

/** One keep-alive agent per CRD, replaced when the CRD's client configuration changes. */
const agents = new Map<string, { config: string; agent: https.Agent }>();

function agentFor(crdName: string, config: WebhookClientConfig): https.Agent {
  const key = JSON.stringify(config);
  const cached = agents.get(crdName);
  if (cached?.config === key) return cached.agent;
  cached?.agent.destroy();
  const ca = config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  const agent = new https.Agent({ keepAlive: true, ...(ca ? { ca } : {}) });
  agents.set(crdName, { config: key, agent });
  return agent;
}

/** Closes the connections of a CRD that no longer converts through a webhook. */
export function releaseConversionClient(crdName: string): void {
  agents.get(crdName)?.agent.destroy();
  agents.delete(crdName);
}

/** Go's path.Join("/", p): cleaned, without a trailing slash (node's join keeps one). */
function rooted(p: string): string {
  const joined = posix.join('/', p);
  return joined.length > 1 ? joined.replace(/\/+$/, '') : joined;
}

interface Target { url: string; dial: () => Promise<{ host: string; port: number }>; servername: string }

/** The URL the rest client posts to (Host plus path.Join("/", APIPath)) and where it connects. */
function targetOf(config: WebhookClientConfig): Target {
  if (config.service) {
    const { namespace, name } = config.service;
    const port = config.service.port || 443;
    const servername = `${name}.${namespace}.svc`;
    return {
      url: `https://${servername}:${port}${rooted(config.service.path ?? '')}`,
      servername,
      dial: async () => {
        const addr = await serviceResolver(namespace, name, port);
        const i = addr.lastIndexOf(':');
        return { host: addr.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(addr.slice(i + 1)) };
      },
    };
  }
  if (!config.url) throw new Error('webhook configuration must have either service or URL');
  const u = new URL(config.url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return {
    url: `${u.protocol}//${u.host}${rooted(u.pathname)}`,
    servername: host,
    dial: async () => ({ host, port: Number(u.port || 443) }),
  };
}

/** Go's net/crypto error text for a failed connection or handshake. */
function goDialError(e: NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string }, host: string, port: number): string {
  const addr = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (e.code) {
    case 'ECONNREFUSED': return `dial tcp ${addr}: connect: connection refused`;
    case 'ETIMEDOUT': return `dial tcp ${addr}: i/o timeout`;
    case 'EHOSTUNREACH': return `dial tcp ${addr}: connect: no route to host`;
    case 'ENOTFOUND': return `dial tcp: lookup ${host}: no such host`;
    case 'ECONNRESET': return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY': case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED': return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `tls: failed to verify certificate: x509: certificate is not valid for ${host}`;
    default: return e.message;
  }
}

/** errors.NewGenericServerResponse's message for an answer that is neither 2xx nor a Status. */
function genericServerMessage(code: number, serverMessage: string): string {
  switch (code) {
    case 409: return 'the server reported a conflict';
    case 404: return 'the server could not find the requested resource';
    case 400: return 'the server rejected our request for an unknown reason';
    case 401: return 'the server has asked for the client to provide credentials';
    case 403: return serverMessage;
    case 406: return !serverMessage || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage;
    case 415: return serverMessage;
    case 405: return 'the server does not allow this method on the requested resource';
    case 422: return 'the server rejected our request due to an error in our request';
    case 503: return 'the server is currently unable to handle the request';
    case 504: return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429: return 'the server has received too many requests and has asked us to try again later';
    default:
      return code >= 500 ? `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`
        : `the server responded with the status code ${code} but did not return more information`;
  }
}

function parseJSON(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (e) {
    throw new Error(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}

/** rest.Result.Into: the decoded answer, or the error client-go makes of it. */
function readAnswer(res: IncomingMessage, body: string): unknown {
  const code = res.statusCode ?? 0;
  const contentType = res.headers['content-type'] ?? '';
  let status: { kind?: unknown; status?: unknown; message?: unknown } | undefined;
  try {
    const v = JSON.parse(body) as unknown;
    if (typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status') status = v as typeof status;
  } catch { /* not a Status */ }
  if (code < 200 || code > 206) {
    if (status) throw new Error(typeof status.message === 'string' ? status.message : '');
    const text = contentType.split(';')[0]!.trim().toLowerCase() === 'text/plain' ? body.slice(0, 1024).trim() : 'unknown';
    throw new Error(genericServerMessage(code, text));
  }
  if (!body.length) throw new Error(`0-length response with status code: ${code} and content type: ${contentType}`);
  if (status && status.status !== 'Success') throw new Error(typeof status.message === 'string' ? status.message : '');
  return parseJSON(body);
}

/**
 * Posts a ConversionReview to the CRD's webhook and returns the decoded answer; a failure throws
 * the error Go's client returns (`Post "<url>": <cause>` for transport errors).
 */
export async function postConversionReview(crdName: string, config: WebhookClientConfig, review: unknown): Promise<unknown> {
  const target = targetOf(config);
  const payload = JSON.stringify(review);
  const fail = (cause: string) => new Error(`Post ${goQuote(target.url)}: ${cause}`);
  let where: { host: string; port: number };
  try {
    where = await target.dial();
  } catch (e) {
    throw fail((e as Error).message);
  }
  const agent = agentFor(crdName, config);
  const path = new URL(target.url).pathname;
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: where.host, port: where.port, path, method: 'POST', agent,
      servername: /^[\d.]+$|:/.test(target.servername) ? undefined : target.servername,
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(payload),
        Host: new URL(target.url).host,
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => reject(fail(goDialError(e, where.host, where.port))));
      res.on('end', () => {
        try {
          resolve(readAnswer(res, Buffer.concat(chunks).toString('utf8')));
        } catch (e) {
          reject(e);
        }
      });
    });
    req.on('error', (e) => reject(fail(goDialError(e, where.host, where.port))));
    req.end(payload);
  });
}
