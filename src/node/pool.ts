/**
 * Node pools: what a cluster's emulated machines look like, and the
 * default cluster `winkube up` brings up.
 */
import { lookupWindowsVersion, type WindowsVersion } from '../os/windows-versions.js';
import { CONTAINER_RUNTIMES, containerRuntime, type ContainerRuntime, type ContainerRuntimeName } from './container-runtime.js';
import { CNI_PLUGINS, DEFAULT_NETWORK, DEFAULT_POD_SUBNET, NETWORK_MODES, nodeNetwork, podSubnetCapacity, type ClusterNetwork, type NodeNetwork } from './network.js';
import { DecodeError } from '../apimachinery/quantity.js';
import { parseBytes, parseMilliCPU } from './quantity.js';

export type PoolOS = 'linux' | 'windows';
export type PoolRole = 'control-plane' | 'worker';

export interface Taint { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }

/** Kubelet reservations (KubeletConfiguration systemReserved / kubeReserved / evictionHard). */
export interface KubeletReservations {
  systemReserved?: Record<string, string>;
  kubeReserved?: Record<string, string>;
  /** Signal → threshold, e.g. `memory.available: 100Mi`, `nodefs.available: 10%`. */
  evictionHard?: Record<string, string>;
}

export interface NodePool extends KubeletReservations {
  /** Node names are `<name>-<n>` (n from 1), or `<name>` when count is 1 and `exactName` is set. */
  name: string;
  count: number;
  os: PoolOS;
  role?: PoolRole;
  /** ltsc2019, ltsc2022, ltsc2025, 1809, 1903, 1909, 2004, 20H2 (Windows pools only). */
  windowsVersion?: string;
  arch?: 'amd64' | 'arm64';
  cpu?: string;
  memory?: string;
  /** Node ephemeral storage (the kubelet's root filesystem). */
  storage?: string;
  maxPods?: number;
  taints?: Taint[];
  labels?: Record<string, string>;
  exactName?: boolean;
  /** containerd (default) or docker (Docker EE / Mirantis Container Runtime through cri-dockerd). */
  containerRuntime?: ContainerRuntimeName;
  /** The Windows kubelet's --windows-priorityclass (Windows pools only). */
  windowsPriorityClass?: string;
  /** The cluster's pod network (the cluster file's top-level `network`, stamped on every pool). */
  network?: ClusterNetwork;
  /** KubeletConfiguration nodeLeaseDurationSeconds (40); the Lease is renewed at a quarter of it. */
  nodeLeaseDurationSeconds?: number;
  /** The runtime's sandbox (pause) image (containerd's sandbox_image); registry.k8s.io/pause:3.10 when absent. */
  sandboxImage?: string;
}

/** One node of a pool, every default filled in. */
export interface NodeConfig {
  name: string;
  pool: string;
  os: PoolOS;
  role: PoolRole;
  windows?: WindowsVersion;
  arch: 'amd64' | 'arm64';
  cpu: string;
  memory: string;
  storage: string;
  maxPods: number;
  taints: Taint[];
  labels: Record<string, string>;
  systemReserved: Record<string, string>;
  kubeReserved: Record<string, string>;
  evictionHard: Record<string, string>;
  /** The runtime and its documented differences (see container-runtime.ts). */
  runtime: ContainerRuntime;
  /** The CNI plugin and mode, with the Windows HNS network it implies. */
  network: NodeNetwork;
  /** Windows only: the kubelet's process priority class (NORMAL_PRIORITY_CLASS by default). */
  windowsPriorityClass?: string;
  nodeLeaseDurationSeconds: number;
  /** The runtime's sandbox image when the pool names one (the kubelet's default otherwise). */
  sandboxImage?: string;
}

/** The kubelet's default evictionHard (pkg/kubelet/apis/config/v1beta1 defaults_linux.go / defaults_windows.go). */
export const DEFAULT_EVICTION_HARD: Record<PoolOS, Record<string, string>> = {
  linux: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%' },
  windows: { 'memory.available': '500Mi', 'nodefs.available': '10%' },
};

export const CONTROL_PLANE_TAINT: Taint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };
export const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

export class PoolError extends Error {}

/** The default cluster: a Linux control plane, two Linux workers, two Windows Server 2019 and one 2022 worker. */
export const DEFAULT_POOLS: readonly NodePool[] = [
  { name: 'winkube-control-plane', count: 1, os: 'linux', role: 'control-plane', exactName: true, cpu: '4', memory: '8Gi' },
  { name: 'linux', count: 2, os: 'linux', cpu: '4', memory: '16Gi' },
  { name: 'win2019', count: 2, os: 'windows', windowsVersion: 'ltsc2019', cpu: '4', memory: '16Gi' },
  { name: 'win2022', count: 1, os: 'windows', windowsVersion: 'ltsc2022', cpu: '4', memory: '16Gi' },
];

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * --windows-priorityclass values and their Win32 constants
 * (cmd/kubelet/app/init_windows.go getPriorityValue).
 */
export const WINDOWS_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  IDLE_PRIORITY_CLASS: 64,
  BELOW_NORMAL_PRIORITY_CLASS: 16384,
  NORMAL_PRIORITY_CLASS: 32,
  ABOVE_NORMAL_PRIORITY_CLASS: 32768,
  HIGH_PRIORITY_CLASS: 128,
  REALTIME_PRIORITY_CLASS: 256,
};
export const DEFAULT_WINDOWS_PRIORITY_CLASS = 'NORMAL_PRIORITY_CLASS';

/** Signals the kubelet's eviction manager knows (pkg/kubelet/eviction/api signalToResource). */
export const EVICTION_SIGNALS: ReadonlySet<string> = new Set(['memory.available', 'allocatableMemory.available', 'nodefs.available',
  'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'containerfs.available', 'containerfs.inodesFree', 'pid.available']);

/** Millicores of a cpu quantity, bytes of any other; or the Error resource.ParseQuantity returns. */
function parseQuantity(q: string, cpu: boolean): number | Error {
  try {
    return cpu ? parseMilliCPU(q) : parseBytes(q);
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
}

/** kubelet parseResourceList (cmd/kubelet/app/server.go) for kubeReserved / systemReserved. */
function checkReservation(m: Record<string, string>): string | undefined {
  for (const [k, v] of Object.entries(m)) {
    if (!['cpu', 'memory', 'ephemeral-storage', 'pid'].includes(k)) return `cannot reserve "${k}" resource`;
    const q = parseQuantity(v, k === 'cpu');
    if (q instanceof Error) return `failed to parse quantity "${v}" for "${k}" resource: ${q.message}`;
    if (q < 0) return `resource quantity for "${k}" cannot be negative: ${v}`;
  }
  return undefined;
}

/** kubelet eviction parseThresholdStatement for evictionHard. */
function checkEvictionHard(m: Record<string, string>): string | undefined {
  for (const [signal, val] of Object.entries(m)) {
    if (!EVICTION_SIGNALS.has(signal)) return `unsupported eviction signal ${signal}`;
    if (val.endsWith('%')) {
      const pct = Number(val.slice(0, -1));
      if (Number.isNaN(pct) || val.slice(0, -1).trim() === '') return `invalid percentage ${val}`;
      if (pct < 0) return `eviction percentage threshold ${signal} must be >= 0%: ${val}`;
      if (pct > 100) return `eviction percentage threshold ${signal} must be <= 100%: ${val}`;
      continue;
    }
    const q = parseQuantity(val, false);
    if (q instanceof Error) return q.message;
    if (q <= 0) return `eviction threshold ${signal} must be positive: ${val}`;
  }
  return undefined;
}

function sameNetwork(a: ClusterNetwork, b: ClusterNetwork): boolean {
  return a.plugin === b.plugin && a.mode === b.mode && (a.podSubnet ?? DEFAULT_POD_SUBNET) === (b.podSubnet ?? DEFAULT_POD_SUBNET);
}

/** Expands pools into nodes, refusing what a real cluster cannot have. */
export function expandPools(pools: readonly NodePool[]): NodeConfig[] {
  const nodes: NodeConfig[] = [];
  const seen = new Set<string>();
  let clusterNetwork: ClusterNetwork | undefined;
  for (const p of pools) {
    if (!p.name || !DNS1123_LABEL.test(p.name)) throw new PoolError(`node pool name ${JSON.stringify(p.name)} must be a lowercase DNS label`);
    if (p.os !== 'linux' && p.os !== 'windows') throw new PoolError(`node pool ${p.name}: os must be linux or windows, not ${JSON.stringify(p.os)}`);
    const role = p.role ?? 'worker';
    if (role !== 'worker' && role !== 'control-plane') throw new PoolError(`node pool ${p.name}: role must be control-plane or worker`);
    if (role === 'control-plane' && p.os === 'windows') {
      throw new PoolError(`node pool ${p.name}: a Windows pool cannot have the control-plane role: the Kubernetes control plane runs on Linux only`);
    }
    if (!Number.isInteger(p.count) || p.count < 0) throw new PoolError(`node pool ${p.name}: count must be a non-negative integer`);
    if (p.exactName && p.count > 1) throw new PoolError(`node pool ${p.name}: exactName needs count 1`);
    let windows: WindowsVersion | undefined;
    if (p.os === 'windows') {
      windows = lookupWindowsVersion(p.windowsVersion ?? 'ltsc2022');
      if (!windows) throw new PoolError(`node pool ${p.name}: unknown windowsVersion ${JSON.stringify(p.windowsVersion)}`);
    } else if (p.windowsVersion !== undefined) {
      throw new PoolError(`node pool ${p.name}: windowsVersion is only for Windows pools`);
    }
    const arch = p.arch ?? 'amd64';
    if (arch !== 'amd64' && arch !== 'arm64') throw new PoolError(`node pool ${p.name}: arch must be amd64 or arm64, not ${JSON.stringify(arch)}`);
    if (p.os === 'windows' && arch !== 'amd64') throw new PoolError(`node pool ${p.name}: Windows nodes are amd64 only`);
    for (const [field, cpu] of [['cpu', true], ['memory', false], ['storage', false]] as const) {
      const v = p[field];
      if (v === undefined) continue;
      const q = parseQuantity(v, cpu);
      if (q instanceof Error) throw new PoolError(`node pool ${p.name}: ${field}: ${q.message}`);
      if (q <= 0) throw new PoolError(`node pool ${p.name}: ${field} must be greater than zero, not ${v}`);
    }
    if (p.maxPods !== undefined && (!Number.isInteger(p.maxPods) || p.maxPods < 1)) {
      throw new PoolError(`node pool ${p.name}: maxPods must be a positive integer`);
    }
    for (const field of ['systemReserved', 'kubeReserved'] as const) {
      const err = p[field] && checkReservation(p[field]!);
      if (err) throw new PoolError(`node pool ${p.name}: ${field}: ${err}`);
    }
    const evictionErr = p.evictionHard && checkEvictionHard(p.evictionHard);
    if (evictionErr) throw new PoolError(`node pool ${p.name}: evictionHard: ${evictionErr}`);
    if (p.nodeLeaseDurationSeconds !== undefined && (!Number.isInteger(p.nodeLeaseDurationSeconds) || p.nodeLeaseDurationSeconds <= 0)) {
      // kubelet config validation (pkg/kubelet/apis/config/validation).
      throw new PoolError(`node pool ${p.name}: invalid configuration: nodeLeaseDurationSeconds must be greater than 0`);
    }
    const runtimeName = p.containerRuntime ?? 'containerd';
    if (!CONTAINER_RUNTIMES.includes(runtimeName)) {
      throw new PoolError(`node pool ${p.name}: containerRuntime must be containerd or docker (Docker EE / Mirantis Container Runtime), not ${JSON.stringify(runtimeName)}`);
    }
    let windowsPriorityClass: string | undefined;
    if (p.windowsPriorityClass !== undefined) {
      // The flag exists only in the Windows kubelet (cmd/kubelet/app/options/osflags_windows.go).
      if (p.os !== 'windows') throw new PoolError(`node pool ${p.name}: windowsPriorityClass is only for Windows pools`);
      if (!WINDOWS_PRIORITY_CLASSES[p.windowsPriorityClass]) {
        throw new PoolError(`node pool ${p.name}: windowsPriorityClass: unknown priority class ${p.windowsPriorityClass}, valid ones are available at https://docs.microsoft.com/en-us/windows/win32/procthread/scheduling-priorities`);
      }
    }
    if (p.os === 'windows') windowsPriorityClass = p.windowsPriorityClass ?? DEFAULT_WINDOWS_PRIORITY_CLASS;
    const network = p.network ?? DEFAULT_NETWORK;
    if (!CNI_PLUGINS.includes(network.plugin)) throw new PoolError(`node pool ${p.name}: network.plugin must be flannel or calico, not ${JSON.stringify(network.plugin)}`);
    if (!NETWORK_MODES.includes(network.mode)) throw new PoolError(`node pool ${p.name}: network.mode must be overlay or l2bridge, not ${JSON.stringify(network.mode)}`);
    if (podSubnetCapacity(network.podSubnet ?? DEFAULT_POD_SUBNET) === undefined) {
      throw new PoolError(`node pool ${p.name}: network.podSubnet must be an IPv4 CIDR from /8 to /24, not ${JSON.stringify(network.podSubnet)}`);
    }
    if (clusterNetwork && !sameNetwork(clusterNetwork, network)) {
      throw new PoolError(`node pool ${p.name}: every pool of a cluster has the same network (one CNI plugin and mode)`);
    }
    clusterNetwork ??= network;
    const runtime = containerRuntime(runtimeName, p.os);
    const nodeNet = nodeNetwork(network, p.os === 'windows');
    for (let i = 1; i <= p.count; i++) {
      const name = p.exactName ? p.name : `${p.name}-${i}`;
      if (seen.has(name)) throw new PoolError(`node ${name} is defined twice`);
      seen.add(name);
      const taints = [...(role === 'control-plane' ? [CONTROL_PLANE_TAINT] : []), ...(p.taints ?? [])];
      const labels = { ...(role === 'control-plane' ? { [CONTROL_PLANE_LABEL]: '' } : {}), ...(p.labels ?? {}) };
      nodes.push({
        name, pool: p.name, os: p.os, role, windows, arch,
        cpu: p.cpu ?? '4', memory: p.memory ?? '16Gi', storage: p.storage ?? (p.os === 'windows' ? '127Gi' : '100Gi'),
        maxPods: p.maxPods ?? 110, taints, labels,
        systemReserved: p.systemReserved ?? {}, kubeReserved: p.kubeReserved ?? {},
        evictionHard: p.evictionHard ?? DEFAULT_EVICTION_HARD[p.os],
        runtime, network: nodeNet,
        nodeLeaseDurationSeconds: p.nodeLeaseDurationSeconds ?? 40,
        ...(windowsPriorityClass ? { windowsPriorityClass } : {}),
        ...(p.sandboxImage !== undefined ? { sandboxImage: p.sandboxImage } : {}),
      });
    }
  }
  const subnet = clusterNetwork?.podSubnet ?? DEFAULT_POD_SUBNET;
  const room = podSubnetCapacity(subnet)!;
  if (nodes.length > room) {
    throw new PoolError(`the pod subnet ${subnet} has room for ${room} nodes (a /24 each), not ${nodes.length}: set network.podSubnet (e.g. 10.128.0.0/9)`);
  }
  return nodes;
}
