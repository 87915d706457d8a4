/**
 * Node pools: what a cluster's emulated machines look like, and the
 * default cluster `winkube up` brings up.
 */
import { lookupWindowsVersion, type WindowsVersion } from '../os/windows-versions.js';

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

/** Expands pools into nodes, refusing what a real cluster cannot have. */
export function expandPools(pools: readonly NodePool[]): NodeConfig[] {
  const nodes: NodeConfig[] = [];
  const seen = new Set<string>();
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
    if (p.os === 'windows' && arch !== 'amd64') throw new PoolError(`node pool ${p.name}: Windows nodes are amd64 only`);
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
      });
    }
  }
  return nodes;
}
