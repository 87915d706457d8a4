/**
 * The client side of `winkube describe-node-network NODE`: reads the Node,
 * its pods and kube-system's network objects through the API with the
 * kubeconfig's credentials, as any client would, and prints the node's
 * network model.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parse as parseYaml } from 'yaml';
import type { ConfigMap, Node, PodList } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { clusterNetworkFromKubeSystem } from './cluster-network-config.js';
import { formatNodeNetwork } from './describe-node-network.js';
import { nodeNetworkModel } from './node-network-model.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' ? v as Rec : {});
const named = (list: unknown, name: unknown): Rec => rec((Array.isArray(list) ? list : []).find((e) => rec(e).name === name));
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

type Get = (path: string) => Promise<{ status: number; body: unknown }>;

function connect(kubeconfigPath: string): Get {
  const cfg = rec(parseYaml(readFileSync(kubeconfigPath, 'utf8')));
  const ctx = rec(named(cfg.contexts, cfg['current-context']).context);
  const cluster = rec(named(cfg.clusters, ctx.cluster).cluster);
  const user = rec(named(cfg.users, ctx.user).user);
  const server = str(cluster.server);
  if (!server) throw new Error(`no cluster server in ${kubeconfigPath}`);
  const data = (k: string, o: Rec) => { const d = str(o[`${k}-data`]); const f = str(o[k]); return d ? Buffer.from(d, 'base64') : f ? readFileSync(f) : undefined; };
  const agent = new Agent({ ca: data('certificate-authority', cluster), cert: data('client-certificate', user), key: data('client-key', user) });
  const url = new URL(server);
  const token = str(user.token);
  return (path) => new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname, port: url.port || 443, path, method: 'GET', agent,
      headers: { Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try { body = JSON.parse(text); } catch { body = { message: text }; }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function must<T>(get: Get, path: string): Promise<T> {
  const r = await get(path);
  if (r.status !== 200) throw new Error(str(rec(r.body).message) ?? `${path}: HTTP ${r.status}`);
  return r.body as T;
}

async function optional<T>(get: Get, path: string): Promise<T | undefined> {
  const r = await get(path);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(str(rec(r.body).message) ?? `${path}: HTTP ${r.status}`);
  return r.body as T;
}

export async function describeNodeNetwork(kubeconfigPath: string, nodeName: string): Promise<string> {
  const get = connect(kubeconfigPath);
  const ks = '/api/v1/namespaces/kube-system';
  const [node, pods, kubeadmConfig, flannelConfig, kubeProxyConfig, calicoNode] = await Promise.all([
    must<Node>(get, `/api/v1/nodes/${encodeURIComponent(nodeName)}`),
    must<PodList>(get, `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${nodeName}`)}`),
    optional<ConfigMap>(get, `${ks}/configmaps/kubeadm-config`),
    optional<ConfigMap>(get, `${ks}/configmaps/kube-flannel-cfg`),
    optional<ConfigMap>(get, `${ks}/configmaps/kube-proxy`),
    optional<DaemonSet>(get, '/apis/apps/v1/namespaces/kube-system/daemonsets/calico-node'),
  ]);
  const { network, serviceSubnet } = clusterNetworkFromKubeSystem({ kubeadmConfig, flannelConfig, kubeProxyConfig, calicoNode });
  const os = node.status?.nodeInfo?.operatingSystem === 'windows' ? 'windows' : 'linux';
  const podCIDR = node.spec?.podCIDR;
  const internalIP = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  if (!podCIDR || !internalIP) throw new Error(`node ${nodeName} has no pod CIDR or InternalIP yet`);
  const labels = node.metadata?.labels ?? {};
  const build = labels['node.kubernetes.io/windows-build'];
  const osDetail = os === 'windows' ? `windows${build ? ` (build ${build})` : ''}` : `linux (${node.status?.nodeInfo?.osImage ?? ''})`;
  const model = nodeNetworkModel({
    node: { name: nodeName, os, podCIDR, internalIP }, network, serviceSubnet,
    pods: pods.items.map((p) => ({
      namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '', uid: p.metadata?.uid ?? '',
      ip: p.status?.podIP, hostNetwork: p.spec?.hostNetwork === true,
    })),
  });
  return formatNodeNetwork({ name: nodeName, os, osDetail, internalIP, podCIDR }, network, model);
}
