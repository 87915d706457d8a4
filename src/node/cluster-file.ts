/**
 * The cluster file (`winkube up --config cluster.yaml`): the node pools of
 * the cluster and its pod network. Unknown fields and wrong types are
 * refused; every error names the pool and the field.
 */
import { parse as parseYaml } from 'yaml';
import { isObject } from '../meta/json.js';
import { PoolError, expandPools, type NodePool, type Taint } from './pool.js';
import {
  DEFAULT_NETWORK, KUBE_PROXY_GATE_DEFAULTS, LINUX_PROXY_MODES, podSubnetCapacity,
  type ClusterNetwork, type KubeProxySettings, type LinuxProxyMode, type NetworkMode,
} from './network.js';

export const CLUSTER_FILE_API_VERSION = 'winkube.io/v1alpha1';

const POOL_FIELDS = new Set(['name', 'count', 'os', 'role', 'windowsVersion', 'arch', 'cpu', 'memory', 'storage', 'maxPods',
  'taints', 'labels', 'systemReserved', 'kubeReserved', 'evictionHard', 'exactName', 'containerRuntime', 'windowsPriorityClass', 'nodeLeaseDurationSeconds', 'sandboxImage']);
const EFFECTS = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

function stringMap(v: unknown, where: string): Record<string, string> {
  if (!isObject(v)) throw new PoolError(`${where} must be a map of strings`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string' && typeof x !== 'number') throw new PoolError(`${where}.${k} must be a string`);
    out[k] = String(x);
  }
  return out;
}

/** A quantity field's text; expandPools parses it (resource.ParseQuantity) and reports what is malformed. */
function quantity(v: unknown, where: string): string {
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') throw new PoolError(`${where} must be a quantity`);
  return v;
}

function str(v: unknown, where: string): string {
  if (typeof v !== 'string' && typeof v !== 'number') throw new PoolError(`${where} must be a string`);
  return String(v);
}

/** One entry of `nodePools`, as raw YAML (also what `winkube node add` sends). */
export function parsePool(raw: unknown, i: number, network?: ClusterNetwork): NodePool {
  if (!isObject(raw)) throw new PoolError(`nodePools[${i}] must be a map`);
  if (typeof raw.name !== 'string') throw new PoolError(`nodePools[${i}].name is required`);
  const where = `node pool ${raw.name}:`;
  for (const k of Object.keys(raw)) if (!POOL_FIELDS.has(k)) throw new PoolError(`${where} unknown field "${k}"`);
  if (raw.os === undefined) throw new PoolError(`${where} os is required (linux or windows)`);
  if (raw.count !== undefined && (!Number.isInteger(raw.count) || (raw.count as number) < 0)) {
    throw new PoolError(`${where} count must be a non-negative integer`);
  }
  const p: NodePool = {
    name: raw.name,
    count: raw.count === undefined ? 1 : (raw.count as number),
    os: raw.os as NodePool['os'],
  };
  if (raw.role !== undefined) p.role = raw.role as NodePool['role'];
  if (raw.windowsVersion !== undefined) p.windowsVersion = str(raw.windowsVersion, `${where} windowsVersion`);
  if (raw.arch !== undefined) {
    if (raw.arch !== 'amd64' && raw.arch !== 'arm64') throw new PoolError(`${where} arch must be amd64 or arm64`);
    p.arch = raw.arch;
  }
  for (const f of ['cpu', 'memory', 'storage'] as const) if (raw[f] !== undefined) p[f] = quantity(raw[f], `${where} ${f}`);
  if (raw.maxPods !== undefined) {
    if (!Number.isInteger(raw.maxPods) || (raw.maxPods as number) < 1) throw new PoolError(`${where} maxPods must be a positive integer`);
    p.maxPods = raw.maxPods as number;
  }
  if (raw.exactName !== undefined) p.exactName = raw.exactName === true;
  if (raw.nodeLeaseDurationSeconds !== undefined) {
    if (!Number.isInteger(raw.nodeLeaseDurationSeconds)) throw new PoolError(`${where} nodeLeaseDurationSeconds must be an integer`);
    p.nodeLeaseDurationSeconds = raw.nodeLeaseDurationSeconds as number;
  }
  if (raw.labels !== undefined) p.labels = stringMap(raw.labels, `${where} labels`);
  for (const f of ['systemReserved', 'kubeReserved', 'evictionHard'] as const) {
    if (raw[f] !== undefined) p[f] = stringMap(raw[f], `${where} ${f}`);
  }
  if (raw.containerRuntime !== undefined) p.containerRuntime = str(raw.containerRuntime, `${where} containerRuntime`) as NodePool['containerRuntime'];
  if (raw.sandboxImage !== undefined) {
    if (typeof raw.sandboxImage !== 'string' || raw.sandboxImage === '') throw new PoolError(`${where} sandboxImage must be an image reference`);
    p.sandboxImage = raw.sandboxImage;
  }
  if (raw.windowsPriorityClass !== undefined) p.windowsPriorityClass = str(raw.windowsPriorityClass, `${where} windowsPriorityClass`);
  if (raw.taints !== undefined) {
    if (!Array.isArray(raw.taints)) throw new PoolError(`${where} taints must be a list`);
    p.taints = raw.taints.map((t, j): Taint => {
      if (!isObject(t) || typeof t.key !== 'string' || !EFFECTS.has(t.effect as string)) {
        throw new PoolError(`${where} taints[${j}] needs a key and an effect (NoSchedule, PreferNoSchedule or NoExecute)`);
      }
      return { key: t.key, ...(t.value !== undefined ? { value: String(t.value) } : {}), effect: t.effect as Taint['effect'] };
    });
  }
  if (network) p.network = network;
  return p;
}

function parseNetwork(raw: unknown): ClusterNetwork {
  if (raw === undefined) return { ...DEFAULT_NETWORK };
  if (!isObject(raw)) throw new PoolError('cluster file: network must be a map');
  for (const k of Object.keys(raw)) {
    if (k !== 'plugin' && k !== 'mode' && k !== 'podSubnet' && k !== 'kubeProxy') throw new PoolError(`cluster file: network: unknown field "${k}"`);
  }
  const plugin = raw.plugin ?? DEFAULT_NETWORK.plugin;
  const mode = raw.mode ?? DEFAULT_NETWORK.mode;
  if (plugin !== 'flannel' && plugin !== 'calico') throw new PoolError(`cluster file: network.plugin must be flannel or calico, not ${JSON.stringify(plugin)}`);
  if (mode !== 'overlay' && mode !== 'l2bridge') throw new PoolError(`cluster file: network.mode must be overlay or l2bridge, not ${JSON.stringify(mode)}`);
  if (raw.podSubnet !== undefined && (typeof raw.podSubnet !== 'string' || podSubnetCapacity(raw.podSubnet) === undefined)) {
    throw new PoolError(`cluster file: network.podSubnet must be an IPv4 CIDR from /8 to /24, not ${JSON.stringify(raw.podSubnet)}`);
  }
  const kubeProxy = raw.kubeProxy === undefined ? undefined : parseKubeProxy(raw.kubeProxy, mode);
  return { plugin, mode, ...(raw.podSubnet !== undefined ? { podSubnet: raw.podSubnet as string } : {}), ...(kubeProxy ? { kubeProxy } : {}) };
}

/**
 * `network.kubeProxy`. The gate checks are the ones kube-proxy makes when it
 * starts on Windows (pkg/proxy/winkernel/proxier.go), refused here with
 * kube-proxy's words because the emulated kube-proxy never starts.
 */
function parseKubeProxy(raw: unknown, mode: NetworkMode): KubeProxySettings {
  if (!isObject(raw)) throw new PoolError('cluster file: network.kubeProxy must be a map');
  for (const k of Object.keys(raw)) {
    if (k !== 'mode' && k !== 'enableDSR' && k !== 'featureGates') throw new PoolError(`cluster file: network.kubeProxy: unknown field "${k}"`);
  }
  const out: KubeProxySettings = {};
  if (raw.mode !== undefined) {
    if (!LINUX_PROXY_MODES.includes(raw.mode as LinuxProxyMode)) throw new PoolError(`cluster file: network.kubeProxy.mode must be iptables or ipvs, not ${JSON.stringify(raw.mode)}`);
    out.mode = raw.mode as LinuxProxyMode;
  }
  if (raw.enableDSR !== undefined) {
    if (typeof raw.enableDSR !== 'boolean') throw new PoolError(`cluster file: network.kubeProxy.enableDSR must be true or false, not ${JSON.stringify(raw.enableDSR)}`);
    out.enableDSR = raw.enableDSR;
  }
  if (raw.featureGates !== undefined) {
    if (!isObject(raw.featureGates)) throw new PoolError('cluster file: network.kubeProxy.featureGates must be a map');
    const gates: Record<string, boolean> = {};
    for (const [k, v] of Object.entries(raw.featureGates)) {
      if (typeof v !== 'boolean') throw new PoolError(`cluster file: network.kubeProxy.featureGates.${k} must be true or false, not ${JSON.stringify(v)}`);
      gates[k] = v;
    }
    out.featureGates = gates;
  }
  const gate = (name: string) => out.featureGates?.[name] ?? KUBE_PROXY_GATE_DEFAULTS[name] ?? false;
  if (out.enableDSR === true && !gate('WinDSR')) throw new PoolError('cluster file: network.kubeProxy: WinDSR feature gate not enabled');
  if (mode === 'overlay' && !gate('WinOverlay')) throw new PoolError('cluster file: network.kubeProxy: WinOverlay feature gate not enabled');
  return out;
}

/** The node pools of a cluster file's text, checked (expandPools' rules included), each carrying the cluster network. */
export function parseClusterFile(text: string): NodePool[] {
  const doc = parseYaml(text) as unknown;
  if (!isObject(doc)) throw new PoolError('the cluster file must be a YAML map');
  if (doc.apiVersion !== CLUSTER_FILE_API_VERSION || doc.kind !== 'Cluster') {
    throw new PoolError(`the cluster file must have apiVersion: ${CLUSTER_FILE_API_VERSION} and kind: Cluster`);
  }
  for (const k of Object.keys(doc)) {
    if (!['apiVersion', 'kind', 'nodePools', 'network'].includes(k)) throw new PoolError(`cluster file: unknown field "${k}"`);
  }
  if (!Array.isArray(doc.nodePools)) throw new PoolError('cluster file: nodePools must be a list');
  const network = parseNetwork(doc.network);
  const pools = doc.nodePools.map((raw, i) => parsePool(raw, i, network));
  expandPools(pools);
  return pools;
}
