/**
 * Posting an AdmissionReview to a webhook (apiserver pkg/util/webhook ClientManager and the REST
 * client it builds): a `url` target, or a `service` one resolved through the Service's endpoints
 * (network/service-endpoint.ts) and verified as `<service>.<namespace>.svc`; `caBundle` verifies
 * the server, else the system roots. One keep-alive https.Agent per webhook. Failures read as Go's
 * net/http ones do (`Post "<url>?timeout=10s": ...`).
 */
import https from 'node:https';
import tls from 'node:tls';
import type { WebhookClientConfig } from 'kubernetes-types/admissionregistration/v1.js';
import { StatusError } from '../apimachinery/errors.js';
import { resolveServiceEndpoint, type ObjectGetter } from '../network/service-endpoint.js';

/** What a call needs of a webhook: its client config and the agent its connections live in. */
export interface WebhookEndpoint {
  clientConfig: WebhookClientConfig;
  agent: https.Agent;
}

export function newWebhookAgent(cfg: WebhookClientConfig): https.Agent {
  const ca = cfg.caBundle ? Buffer.from(cfg.caBundle, 'base64').toString('utf8') : undefined;
  return new https.Agent({ keepAlive: true, ...(ca ? { ca } : {}) });
}

/** The call failed before an answer came: the reason as Go's client words it. */
export class CallFailure extends Error {}

/** A time.Duration as Go prints whole seconds (`10s`, `1m0s`). */
function goSeconds(s: number): string {
  return s >= 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s}s`;
}

/** The text Go's dialer and TLS stack give for what Node reports. */
function goNetError(e: NodeJS.ErrnoException & { reason?: string }, host: string, port: number, serverName: string): string {
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  switch (e.code) {
    case 'ECONNREFUSED': return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET': return 'EOF';
    case 'EHOSTUNREACH': return `dial tcp ${addr}: connect: no route to host`;
    case 'ENOTFOUND': return `dial tcp: lookup ${host}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY': case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED': return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `tls: failed to verify certificate: x509: certificate is not valid for ${serverName}`;
    default: return e.message;
  }
}

/**
 * Posts the review and returns the answer's body. Throws CallFailure with the reason
 * (`failed to call webhook: ...` is the caller's to add).
 */
export async function postReview(ep: WebhookEndpoint, getObject: ObjectGetter, body: string, timeoutSeconds: number): Promise<string> {
  const cc = ep.clientConfig;
  let url: URL;
  let host: string;
  let port: number;
  let serverName: string;
  const query = `timeout=${goSeconds(timeoutSeconds)}`;
  if (cc.service) {
    const svc = cc.service;
    const svcPort = svc.port ?? 443;
    serverName = `${svc.name}.${svc.namespace}.svc`;
    url = new URL(`https://${serverName}:${svcPort}${svc.path ?? ''}?${query}`);
    try {
      ({ host, port } = await resolveServiceEndpoint(getObject, svc.namespace, svc.name, svcPort));
    } catch (e) {
      throw new CallFailure(`Post "${url.href}": ${e instanceof StatusError ? e.status.message : (e as Error).message}`);
    }
  } else {
    url = new URL(cc.url ?? '');
    url.search = query;
    host = url.hostname.replace(/^\[|\]$/g, '');
    port = url.port ? Number(url.port) : 443;
    serverName = host;
  }
  const isIP = /^[\d.]+$/.test(serverName) || serverName.includes(':');
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      reject(new CallFailure(`Post "${url.href}": ${reason}`));
    };
    const req = https.request({
      agent: ep.agent, host, port, method: 'POST', path: `${url.pathname}${url.search}`,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(body) },
      ...(isIP ? {} : { servername: serverName }),
      // A service target is verified as its DNS name, whatever address it was reached at.
      checkServerIdentity: (_h, cert) => tls.checkServerIdentity(serverName, cert),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => fail(e.message));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 300) { resolve(text); return; }
        reject(new CallFailure(unexpectedStatus(code, text)));
      });
    });
    const timer = setTimeout(() => { fail('context deadline exceeded'); req.destroy(); }, timeoutSeconds * 1000);
    req.on('error', (e) => { clearTimeout(timer); fail(goNetError(e, host, port, serverName)); });
    req.end(body);
  });
}

/** The REST client's error for an answer that is not 2xx: the Status it carries, else the generic text. */
function unexpectedStatus(code: number, text: string): string {
  try {
    const s = JSON.parse(text) as { kind?: string; message?: string };
    if (s?.kind === 'Status' && s.message) return s.message;
  } catch { /* not a Status */ }
  return `an error on the server ("${text.trim()}") has prevented the request from succeeding`;
}
