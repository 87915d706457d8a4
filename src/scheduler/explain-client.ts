/**
 * The client side of `winkube explain-scheduling`: reads the kubeconfig,
 * lists what the scheduler reads over HTTPS, and explains one pod with the
 * scheduler's own plugin code.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:https';
import { parse as parseYaml } from 'yaml';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { explain, formatExplanation, type Explanation } from './explain.js';
import { InformerListers } from './listers.js';
import { defaultConfig, parseSchedulerConfig, type SchedulerConfig } from './profile.js';

interface Client { get: (path: string) => Promise<any> }

function client(kubeconfigPath: string): { client: Client; namespace: string } {
  const cfg = parseYaml(readFileSync(kubeconfigPath, 'utf8'));
  const ctxName = cfg['current-context'];
  const ctx = (cfg.contexts ?? []).find((c: any) => c.name === ctxName)?.context ?? {};
  const cluster = (cfg.clusters ?? []).find((c: any) => c.name === ctx.cluster)?.cluster ?? cfg.clusters?.[0]?.cluster;
  const user = (cfg.users ?? []).find((u: any) => u.name === ctx.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`no cluster server in ${kubeconfigPath}`);
  const b = (s?: string) => (s ? Buffer.from(s, 'base64') : undefined);
  const file = (f?: string) => (f ? readFileSync(f) : undefined);
  const agent = new Agent({
    ca: b(cluster['certificate-authority-data']) ?? file(cluster['certificate-authority']),
    cert: b(user['client-certificate-data']) ?? file(user['client-certificate']),
    key: b(user['client-key-data']) ?? file(user['client-key']),
    rejectUnauthorized: !cluster['insecure-skip-tls-verify'],
    keepAlive: true,
  });
  const server = new URL(cluster.server);
  const get = (path: string) => new Promise<any>((resolve, reject) => {
    const req = request({
      host: server.hostname, port: server.port || 443, path, method: 'GET', agent,
      headers: { Accept: 'application/json', ...(user.token ? { Authorization: `Bearer ${user.token}` } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any;
        try { body = JSON.parse(text); } catch { body = { message: text }; }
        if ((res.statusCode ?? 500) >= 400) reject(new Error(body?.message ?? `HTTP ${res.statusCode}`)); else resolve(body);
      });
    });
    req.on('error', reject);
    req.end();
  });
  return { client: { get }, namespace: ctx.namespace ?? 'default' };
}

export interface ExplainOptions { namespace?: string; kubeconfig?: string; schedulerConfig?: string }

export async function explainScheduling(podName: string, opts: ExplainOptions): Promise<string> {
  const path = opts.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config');
  const { client: c, namespace: defaultNs } = client(path);
  const config = opts.schedulerConfig ? parseSchedulerConfig(readFileSync(opts.schedulerConfig, 'utf8')) : defaultConfig();
  return formatExplanation(await explainPodFrom(c.get, opts.namespace ?? defaultNs, podName, config));
}

/**
 * Lists what the scheduler reads through `get` (a GET of an API path as some user) and explains one pod:
 * the command line's and the web view's shared part, so both show the same verdicts.
 */
export async function explainPodFrom(get: (path: string) => Promise<unknown>, ns: string, podName: string,
  config: SchedulerConfig = defaultConfig()): Promise<Explanation> {
  const pod = await get(`/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(podName)}`) as Pod;
  const profile = config.profiles.find((p) => p.schedulerName === (pod.spec?.schedulerName || 'default-scheduler'));
  if (!profile) throw new Error(`pod ${ns}/${podName} is for scheduler "${pod.spec?.schedulerName}", which has no profile here`);
  const list = async (g: string, v: string, r: string) => (await get(`${g ? `/apis/${g}/${v}` : '/api/v1'}/${r}`) as { items?: unknown[] }).items ?? [];
  const [nodes, pods, ...others] = await Promise.all([
    list('', 'v1', 'nodes'), list('', 'v1', 'pods'), ...InformerListers.RESOURCES.map(([g, v, r]) => list(g, v, r).catch(() => [])),
  ]);
  const byResource = Object.fromEntries(InformerListers.RESOURCES.map(([, , r], i) => [r, others[i]]));
  return explain(profile.framework, pod, { nodes, pods, others: byResource });
}
