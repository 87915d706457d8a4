/**
 * The API server as the pods' network reaches it: each HTTP exchange a
 * container's client sends to the kubernetes Service is made as a real
 * HTTPS request to the server, carrying the client's own headers (its
 * service account token) and no credentials of this process, so the
 * server authenticates and authorizes the pod's identity.
 */
import { request } from 'node:https';
import type { Acceptor, HttpReply } from '../shell/net-types.js';
import { Pending } from '../shell/pending.js';
import type { APIServerEndpoint } from './cluster-network.js';

/** Header fields the forwarding connection sets itself (hop-by-hop, or its own). */
const CONNECTION_FIELDS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host']);

export function apiServerEndpoint(server: URL, ca: string): APIServerEndpoint {
  const accept: Acceptor = (req) => {
    const out = new Pending<HttpReply>();
    const headers: Record<string, string[]> = {};
    for (const [k, v] of req.headers) if (!CONNECTION_FIELDS.has(k.toLowerCase())) (headers[k] ??= []).push(v);
    const r = request({
      host: server.hostname, port: server.port || 443, method: req.method, path: req.target, ca, headers,
      // The certificate names kubernetes.default.svc, as the pod asked for.
      servername: 'kubernetes.default.svc',
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        out.settle({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', headers: pairs, body: Buffer.concat(chunks) });
      });
      res.on('error', () => out.settle('reset'));
    });
    r.on('error', () => { if (!out.settled) out.settle('reset'); });
    r.end(Buffer.from(req.body));
    return out;
  };
  return { accept, ca };
}
