/**
 * The kubelet's Summary API (`/stats/summary`, k8s.io/kubelet statsapi.Summary
 * v1alpha1) built from what the node model knows: capacities from the pool,
 * the pods bound to the node and their running containers, the images the
 * runtime holds. Usage the model does not measure (CPU time, working sets,
 * network bytes, written layers) is reported as zero, never invented.
 */
import { createHash } from 'node:crypto';
import type { KObject } from '../../apimachinery/object.js';
import type { NodeConfig } from '../pool.js';
import { parseBytes } from '../quantity.js';

export interface CPUStats { time: string; usageNanoCores: number; usageCoreNanoSeconds: number }
export interface MemoryStats {
  time: string; availableBytes?: number; usageBytes: number; workingSetBytes: number;
  rssBytes: number; pageFaults: number; majorPageFaults: number;
}
export interface FsStats {
  time: string; availableBytes: number; capacityBytes: number; usedBytes: number;
  inodesFree?: number; inodes?: number; inodesUsed?: number;
}
export interface InterfaceStats { name: string; rxBytes: number; rxErrors?: number; txBytes: number; txErrors?: number }
export interface NetworkStats extends InterfaceStats { time: string; interfaces: InterfaceStats[] }
export interface ContainerStats {
  name: string; startTime: string; cpu?: CPUStats; memory?: MemoryStats; rootfs?: FsStats; logs?: FsStats;
}
export interface VolumeStats extends FsStats { name: string }
export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerStats[];
  cpu: CPUStats;
  memory: MemoryStats;
  network?: NetworkStats;
  volume?: VolumeStats[];
  'ephemeral-storage'?: FsStats;
  process_stats?: { process_count: number };
}
export interface NodeStats {
  nodeName: string;
  systemContainers: ContainerStats[];
  startTime: string;
  cpu: CPUStats;
  memory: MemoryStats;
  network?: NetworkStats;
  fs?: FsStats;
  runtime?: { imageFs: FsStats; containerFs: FsStats };
  rlimit?: { time: string; maxpid: number; curproc: number };
}
export interface Summary { node: NodeStats; pods: PodStats[] }

export interface SummaryInput {
  cfg: NodeConfig;
  /** When the machine booted: the root cgroup's (and the pods cgroup's) start. */
  bootTime: Date;
  /** When the kubelet process started (its system container's start). */
  kubeletStartTime: Date;
  now: Date;
  /** The pods bound to this node. */
  pods: readonly KObject[];
  /** Bytes of the images the runtime holds (the image filesystem's use). */
  imageBytes: number;
}

/** ext4's default bytes-per-inode ratio (mke2fs.conf inode_ratio): the inode count of a Linux node's root filesystem. */
const EXT4_BYTES_PER_INODE = 16384;
/** /proc/sys/kernel/pid_max of a 64-bit Linux kernel with more than 32 CPUs' worth of defaults: 4194304 (systemd raises it). */
const LINUX_PID_MAX = 4194304;

/** metav1.Time: RFC 3339 to the second. */
function time(d: Date): string { return d.toISOString().replace(/\.\d{3}Z$/, 'Z'); }

/** The node's default interface as its stats name it: eth0 on Linux; the HNS host vNIC on Windows. */
export function defaultInterface(cfg: NodeConfig): string { return cfg.os === 'windows' ? 'vEthernet (Ethernet)' : 'eth0'; }

function cpu(t: string): CPUStats { return { time: t, usageNanoCores: 0, usageCoreNanoSeconds: 0 }; }

function memory(t: string, limitBytes?: number): MemoryStats {
  // availableBytes = limit − workingSet, omitted when there is no limit.
  return { time: t, ...(limitBytes !== undefined ? { availableBytes: limitBytes } : {}), usageBytes: 0, workingSetBytes: 0, rssBytes: 0, pageFaults: 0, majorPageFaults: 0 };
}

/**
 * A Windows pod's network: its HNS endpoint (`<sandbox ID>_<HNS network>`, as
 * the CNI plugins name it) with the bytes HNS counts and no error counts
 * (cri_stats_provider_windows.go hcsStatToInterfaceStat). The model has no
 * sandbox IDs: the pod UID's SHA-256 stands for it, stable for the pod's life.
 */
function windowsPodNetwork(t: string, cfg: NodeConfig, podUID: string): NetworkStats {
  const sandbox = createHash('sha256').update(podUID).digest('hex');
  const iface = { name: `${sandbox}_${cfg.network.hnsNetworkName ?? ''}`, rxBytes: 0, txBytes: 0 };
  return { time: t, ...iface, interfaces: [{ ...iface }] };
}

function network(t: string, name: string): NetworkStats {
  const iface = { name, rxBytes: 0, rxErrors: 0, txBytes: 0, txErrors: 0 };
  return { time: t, ...iface, interfaces: [{ ...iface }] };
}

/** A filesystem of `capacity` bytes with `used` of them taken; NTFS has no inode counts (Windows omits them). */
function fs(t: string, cfg: NodeConfig, capacity: number, used: number, inodesUsed = 0): FsStats {
  const out: FsStats = { time: t, availableBytes: Math.max(0, capacity - used), capacityBytes: capacity, usedBytes: used };
  if (cfg.os === 'linux') {
    const inodes = Math.floor(capacity / EXT4_BYTES_PER_INODE);
    out.inodesFree = inodes - inodesUsed;
    out.inodes = inodes;
    out.inodesUsed = inodesUsed;
  }
  return out;
}

interface ContainerSpec { name: string; resources?: { limits?: Record<string, string> } }
interface ContainerStatusLike { name: string; state?: { running?: { startedAt?: string } } }

/** Volumes the kubelet measures (those with a MetricsProvider on the node's filesystem). */
const MEASURED_VOLUMES = ['emptyDir', 'configMap', 'secret', 'projected', 'downwardAPI'];

function podStats(input: SummaryInput, pod: KObject, t: string, nodefsBytes: number): PodStats | undefined {
  const spec = (pod.spec ?? {}) as { containers?: ContainerSpec[]; volumes?: Array<Record<string, unknown> & { name: string }> };
  const status = (pod.status ?? {}) as { phase?: string; startTime?: string; containerStatuses?: ContainerStatusLike[] };
  // Stats come from the runtime's live sandboxes: terminal pods and pods not started yet have none.
  if (!status.startTime || status.phase === 'Succeeded' || status.phase === 'Failed') return undefined;
  const { cfg } = input;
  const containers: ContainerStats[] = [];
  for (const cs of status.containerStatuses ?? []) {
    const startedAt = cs.state?.running?.startedAt;
    if (!startedAt) continue;
    const limit = spec.containers?.find((c) => c.name === cs.name)?.resources?.limits?.memory;
    containers.push({
      name: cs.name, startTime: startedAt,
      cpu: cpu(t), memory: memory(t, limit !== undefined ? parseBytes(limit) : undefined),
      rootfs: fs(t, cfg, nodefsBytes, 0), logs: fs(t, cfg, nodefsBytes, 0),
    });
  }
  containers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const volumes = (spec.volumes ?? [])
    .filter((v) => MEASURED_VOLUMES.some((k) => v[k] !== undefined))
    .map((v) => ({ ...fs(t, cfg, nodefsBytes, 0), name: v.name }));
  return {
    podRef: { name: pod.metadata.name!, namespace: pod.metadata.namespace!, uid: pod.metadata.uid! },
    startTime: status.startTime,
    containers,
    cpu: cpu(t),
    memory: memory(t),
    network: cfg.os === 'windows' ? windowsPodNetwork(t, cfg, pod.metadata.uid ?? '') : network(t, 'eth0'),
    ...(volumes.length ? { volume: volumes } : {}),
    'ephemeral-storage': fs(t, cfg, nodefsBytes, 0),
    process_stats: { process_count: 0 },
  };
}

/** The Summary the node's kubelet answers at `input.now`. */
export function buildSummary(input: SummaryInput): Summary {
  const { cfg } = input;
  const t = time(input.now);
  const memoryBytes = parseBytes(cfg.memory);
  const nodefsBytes = parseBytes(cfg.storage);
  const boot = time(input.bootTime);
  // Linux: the kubelet's own cgroup and the pods cgroup; Windows: the pods (summed from the pods) and the global commit memory.
  const systemContainers: ContainerStats[] = cfg.os === 'windows'
    ? [
      { name: 'pods', startTime: boot, cpu: cpu(t), memory: memory(t, memoryBytes) },
      { name: 'windows-global-commit-memory', startTime: boot, memory: memory(t, memoryBytes) },
    ]
    : [
      { name: 'kubelet', startTime: time(input.kubeletStartTime), cpu: cpu(t), memory: memory(t) },
      { name: 'pods', startTime: boot, cpu: cpu(t), memory: memory(t, memoryBytes) },
    ];
  const node: NodeStats = {
    nodeName: cfg.name,
    systemContainers,
    startTime: boot,
    cpu: cpu(t),
    memory: memory(t, memoryBytes),
    network: network(t, defaultInterface(cfg)),
    fs: fs(t, cfg, nodefsBytes, input.imageBytes),
    // containerd keeps images and writable layers on the root filesystem: imageFs and containerFs are nodefs.
    runtime: { imageFs: fs(t, cfg, nodefsBytes, input.imageBytes), containerFs: fs(t, cfg, nodefsBytes, input.imageBytes) },
    ...(cfg.os === 'linux' ? { rlimit: { time: t, maxpid: LINUX_PID_MAX, curproc: 0 } } : {}),
  };
  const pods = input.pods
    .map((p) => podStats(input, p, t, nodefsBytes))
    .filter((p): p is PodStats => p !== undefined);
  return { node, pods };
}

/** GetCPUAndMemoryStats: the same summary with only the CPU and memory stats of the node, its system containers, pods and containers. */
export function cpuAndMemoryOnly(s: Summary): Summary {
  const container = (c: ContainerStats): ContainerStats => ({ name: c.name, startTime: c.startTime, ...(c.cpu ? { cpu: c.cpu } : {}), ...(c.memory ? { memory: c.memory } : {}) });
  const node = { nodeName: s.node.nodeName, systemContainers: s.node.systemContainers.map(container), startTime: s.node.startTime, cpu: s.node.cpu, memory: s.node.memory };
  const pods = s.pods.map((p) => ({ podRef: p.podRef, startTime: p.startTime, containers: p.containers.map(container), cpu: p.cpu, memory: p.memory }));
  return { node, pods };
}
