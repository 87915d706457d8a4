/**
 * The client side of `winkube node`: finds the running server through a
 * kubeconfig (the data directory's admin kubeconfig unless told otherwise)
 * and calls its node control endpoint with the kubeconfig's credentials.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ServerTarget } from '../../client/https.js';

/** Where the server serves the node control endpoint (`winkube node`'s calls). */
export const NODE_CONTROL_PREFIX = '/winkube/v1/nodes';

const b64 = (s: string | undefined) => (s ? Buffer.from(s, 'base64') : undefined);
const file = (p: string | undefined, base: string) => (p ? readFileSync(resolve(base, p)) : undefined);

/** The current context's server and credentials (inline data, files, or a token). */
export function targetFromKubeconfig(path: string): ServerTarget {
  if (!existsSync(path)) throw new Error(`no kubeconfig at ${path}: is the cluster up (winkube up --data-dir ...)?`);
  const cfg = parseYaml(readFileSync(path, 'utf8')) as any;
  const base = resolve(path, '..');
  const ctxName = cfg['current-context'];
  const ctx = (cfg.contexts ?? []).find((c: any) => c.name === ctxName)?.context;
  if (!ctx) throw new Error(`kubeconfig ${path}: no current context`);
  const cluster = (cfg.clusters ?? []).find((c: any) => c.name === ctx.cluster)?.cluster;
  const user = (cfg.users ?? []).find((u: any) => u.name === ctx.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`kubeconfig ${path}: cluster ${ctx.cluster} has no server`);
  return {
    server: new URL(cluster.server),
    ca: b64(cluster['certificate-authority-data']) ?? file(cluster['certificate-authority'], base),
    cert: b64(user['client-certificate-data']) ?? file(user['client-certificate'], base),
    key: b64(user['client-key-data']) ?? file(user['client-key'], base),
    token: user.token,
  };
}

/** Which kubeconfig: --kubeconfig, else --data-dir's, else $KUBECONFIG, else ./.winkube's. */
export function kubeconfigPath(opts: { kubeconfig?: string; dataDir?: string }): string {
  if (opts.kubeconfig) return opts.kubeconfig;
  if (opts.dataDir) return join(opts.dataDir, 'kubeconfig.yaml');
  const env = process.env.KUBECONFIG?.split(':').find(Boolean);
  return env ?? join('.winkube', 'kubeconfig.yaml');
}

export interface ControlResponse { status: number; body: any }

export function callControl(t: ServerTarget, method: string, path: string, body?: unknown): Promise<ControlResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolvePromise, reject) => {
    const req = request({
      host: t.server.hostname, port: t.server.port || 443, method, path,
      agent: new Agent({ ca: t.ca, cert: t.cert, key: t.key }),
      headers: {
        Accept: 'application/json',
        ...(payload !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
        ...(t.token ? { Authorization: `Bearer ${t.token}` } : {}),
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try { parsed = JSON.parse(text); } catch { /* not JSON */ }
        resolvePromise({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', (e) => reject(new Error(`cannot reach the winkube server at ${t.server.origin}: ${e.message}`)));
    req.end(payload);
  });
}

/** A failed call as kubectl prints a server error: `Error from server (NotFound): nodes "x" not found`. */
export function describeFailure(r: ControlResponse): string {
  if (r.body && typeof r.body === 'object' && r.body.kind === 'Status') {
    return `Error from server (${r.body.reason ?? 'Unknown'}): ${r.body.message}`;
  }
  return `Error from server: ${typeof r.body === 'string' ? r.body.trim() : JSON.stringify(r.body)} (HTTP ${r.status})`;
}
