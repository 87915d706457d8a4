/**
 * `winkube describe-runtime POD`: reads the pod and its node through the
 * API (as any client, with the kubeconfig's credentials) and prints what the
 * node's kubelet hands the runtime for each container.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parse as parseYaml } from 'yaml';
import { formatRuntimeSettings, podRuntimeSettings } from './runtime-settings.js';

interface Conn { server: URL; agent: Agent; namespace: string }

function connect(kubeconfigPath: string): Conn {
  const cfg = parseYaml(readFileSync(kubeconfigPath, 'utf8'));
  const ctxName = cfg['current-context'];
  const ctx = (cfg.contexts ?? []).find((c: any) => c.name === ctxName)?.context ?? cfg.contexts?.[0]?.context ?? {};
  const cluster = (cfg.clusters ?? []).find((c: any) => c.name === ctx.cluster)?.cluster ?? cfg.clusters?.[0]?.cluster;
  const user = (cfg.users ?? []).find((u: any) => u.name === ctx.user)?.user ?? cfg.users?.[0]?.user ?? {};
  const b = (s?: string) => (s ? Buffer.from(s, 'base64') : undefined);
  return {
    server: new URL(cluster.server),
    agent: new Agent({ ca: b(cluster['certificate-authority-data']), cert: b(user['client-certificate-data']), key: b(user['client-key-data']) }),
    namespace: ctx.namespace ?? 'default',
  };
}

function get(c: Conn, path: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: c.server.hostname, port: c.server.port, path, method: 'GET', agent: c.agent, headers: { Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try { resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }); } catch { resolve({ status: res.statusCode ?? 0, body: text }); }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

export async function describeRuntime(kubeconfigPath: string, name: string, namespace?: string): Promise<string> {
  const c = connect(kubeconfigPath);
  const ns = namespace ?? c.namespace;
  const pod = await get(c, `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}`);
  if (pod.status !== 200) throw new Error(pod.body?.message ?? `pod ${ns}/${name}: HTTP ${pod.status}`);
  const nodeName: string | undefined = pod.body.spec?.nodeName;
  if (!nodeName) throw new Error(`pod ${ns}/${name} is not bound to a node yet`);
  const node = await get(c, `/api/v1/nodes/${encodeURIComponent(nodeName)}`);
  if (node.status !== 200) throw new Error(node.body?.message ?? `node ${nodeName}: HTTP ${node.status}`);
  const os = node.body.status?.nodeInfo?.operatingSystem === 'windows' ? 'windows' : 'linux';
  const cpus = Math.max(1, Number.parseInt(String(node.body.status?.capacity?.cpu ?? '1'), 10) || 1);
  return formatRuntimeSettings(`${ns}/${name}`, nodeName, os, cpus, podRuntimeSettings(pod.body, os, cpus));
}
