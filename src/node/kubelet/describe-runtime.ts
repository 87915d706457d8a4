/**
 * `winkube describe-runtime POD`: reads the pod and its node through the
 * API (as any client, with the kubeconfig's credentials) and prints what the
 * node's kubelet hands the runtime for each container.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parse as parseYaml } from 'yaml';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { formatRuntimeSettings, podRuntimeSettings, type ContainerRuntimeSettings } from './runtime-settings.js';

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

/** What `describe-runtime` shows of one pod: its node, that node's OS and CPUs, and each container's settings. */
export interface PodRuntime { pod: string; node: string; os: 'linux' | 'windows'; cpus: number; containers: ContainerRuntimeSettings[] }

/** An answer of the API server that was not 200: its message (a Status's) and code. */
export class RuntimeLookupError extends Error {
  constructor(readonly status: number, message: string, readonly body: unknown) { super(message); }
}

/**
 * Reads the pod and its node through `get` (a GET of an API path as some user) and computes the settings:
 * the command line's and the web view's shared part, so both show the same numbers.
 */
export async function podRuntimeFrom(get: (path: string) => Promise<{ status: number; body: unknown }>, ns: string, name: string): Promise<PodRuntime> {
  const message = (body: unknown) => (body as { message?: string } | undefined)?.message;
  const pod = await get(`/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}`);
  if (pod.status !== 200) throw new RuntimeLookupError(pod.status, message(pod.body) ?? `pod ${ns}/${name}: HTTP ${pod.status}`, pod.body);
  const podObject = pod.body as Pod;
  const nodeName = podObject.spec?.nodeName;
  if (!nodeName) throw new RuntimeLookupError(400, `pod ${ns}/${name} is not bound to a node yet`, undefined);
  const node = await get(`/api/v1/nodes/${encodeURIComponent(nodeName)}`);
  if (node.status !== 200) throw new RuntimeLookupError(node.status, message(node.body) ?? `node ${nodeName}: HTTP ${node.status}`, node.body);
  const status = (node.body as Node).status;
  const os = status?.nodeInfo?.operatingSystem === 'windows' ? 'windows' : 'linux';
  const cpus = Math.max(1, Number.parseInt(String(status?.capacity?.cpu ?? '1'), 10) || 1);
  return { pod: `${ns}/${name}`, node: nodeName, os, cpus, containers: podRuntimeSettings(podObject, os, cpus) };
}

export async function describeRuntime(kubeconfigPath: string, name: string, namespace?: string): Promise<string> {
  const c = connect(kubeconfigPath);
  const r = await podRuntimeFrom((path) => get(c, path), namespace ?? c.namespace, name);
  return formatRuntimeSettings(r.pod, r.node, r.os, r.cpus, r.containers);
}
