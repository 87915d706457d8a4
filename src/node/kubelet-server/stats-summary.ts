/**
 * The kubelet's Summary API (`/stats/summary`, k8s.io/kubelet statsapi.Summary
 * v1alpha1) built from what the node model knows: capacities from the pool,
 * the pods bound to the node and their running containers, the images the
 * runtime holds. CPU and working sets come from the usage model
 * (src/node/usage): each running container's, the pods' sums, and the
 * node's own use on top. What the model does not measure (network bytes,
 * written layers, page faults) is reported as zero, never invented.
 */
import { createHash } from 'node:crypto';
import type { KObject } from '../../apimachinery/object.js';
import type { NodeConfig } from '../pool.js';
import { parseBytes, parseMilliCPU } from '../quantity.js';
import { KUBELET_IDLE, NODE_IDLE } from '../usage/idle-usage.js';
import { podContainerUsage, type NodeFacts, type RunningContainerUsage } from '../usage/pod-usage.js';
import type { ServedWorkStore } from '../usage/served-work.js';

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
  /** The CPU the containers' servers spent on requests. */
  served?: ServedWorkStore;
  /**
   * The node's CPU time so far (core-nanoseconds) given its rate now: a counter that only grows,
   * as the root cgroup's does, though pods come and go. Without one: the rate times the uptime.
   */
  nodeCPUTime?: (nowMs: number, nanoCores: number) => number;
  /** GetCPUAndMemoryStats: only the CPU and memory stats of the node, its system containers, pods and containers. */
  cpuAndMemoryOnly?: boolean;
}

/** ext4's default bytes-per-inode ratio (mke2fs.conf inode_ratio): the inode count of a Linux node's root filesystem. */
const EXT4_BYTES_PER_INODE = 16384;
/** /proc/sys/kernel/pid_max of a 64-bit Linux kernel with more than 32 CPUs' worth of defaults: 4194304 (systemd raises it). */
const LINUX_PID_MAX = 4194304;

/** metav1.Time: RFC 3339 to the second. */
function time(d: Date): string { return d.toISOString().replace(/\.\d{3}Z$/, 'Z'); }

/** The node's default interface as its stats name it: eth0 on Linux; the HNS host vNIC on Windows. */
export function defaultInterface(cfg: NodeConfig): string { return cfg.os === 'windows' ? 'vEthernet (Ethernet)' : 'eth0'; }

/** CPU and working set at one instant (usage-model units). */
interface Use { nanoCores: number; usageCoreNanoSeconds: number; workingSetBytes: number }
const NO_USE: Use = { nanoCores: 0, usageCoreNanoSeconds: 0, workingSetBytes: 0 };
const addUse = (a: Use, b: Use): Use => ({ nanoCores: a.nanoCores + b.nanoCores, usageCoreNanoSeconds: a.usageCoreNanoSeconds + b.usageCoreNanoSeconds, workingSetBytes: a.workingSetBytes + b.workingSetBytes });

function cpu(t: string, use: Use = NO_USE): CPUStats {
  return { time: t, usageNanoCores: Math.round(use.nanoCores), usageCoreNanoSeconds: Math.round(use.usageCoreNanoSeconds) };
}

function memory(t: string, limitBytes?: number, use: Use = NO_USE): MemoryStats {
  const ws = Math.round(use.workingSetBytes);
  // availableBytes = limit − workingSet, omitted when there is no limit; usage and RSS shown as the working set (no page cache modelled).
  return { time: t, ...(limitBytes !== undefined ? { availableBytes: Math.max(0, limitBytes - ws) } : {}), usageBytes: ws, workingSetBytes: ws, rssBytes: ws, pageFaults: 0, majorPageFaults: 0 };
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

/** Volumes the kubelet measures (those with a MetricsProvider on the node's filesystem). */
const MEASURED_VOLUMES = ['emptyDir', 'configMap', 'secret', 'projected', 'downwardAPI'];

function nodeFacts(cfg: NodeConfig): NodeFacts {
  return { os: cfg.os, logicalCPUs: Math.max(1, Math.floor(parseMilliCPU(cfg.cpu) / 1000)), memoryBytes: parseBytes(cfg.memory) };
}

function podStats(input: SummaryInput, pod: KObject, t: string, nodefsBytes: number): { stats: PodStats; use: Use } | undefined {
  const spec = (pod.spec ?? {}) as { containers?: ContainerSpec[]; initContainers?: ContainerSpec[]; volumes?: Array<Record<string, unknown> & { name: string }> };
  const status = (pod.status ?? {}) as { phase?: string; startTime?: string };
  // Stats come from the runtime's live sandboxes: terminal pods and pods not started yet have none.
  if (!status.startTime || status.phase === 'Succeeded' || status.phase === 'Failed') return undefined;
  const { cfg } = input;
  const containers: ContainerStats[] = [];
  let podUse = NO_USE;
  const usage: RunningContainerUsage[] = podContainerUsage(pod, nodeFacts(cfg), Date.parse(t), input.served);
  for (const u of usage) {
    const limit = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].find((c) => c.name === u.name)?.resources?.limits?.memory;
    podUse = addUse(podUse, u);
    const c: ContainerStats = { name: u.name, startTime: u.startedAt, cpu: cpu(t, u), memory: memory(t, limit !== undefined ? parseBytes(limit) : undefined, u) };
    if (!input.cpuAndMemoryOnly) { c.rootfs = fs(t, cfg, nodefsBytes, 0); c.logs = fs(t, cfg, nodefsBytes, 0); }
    containers.push(c);
  }
  containers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const podRef = { name: pod.metadata.name!, namespace: pod.metadata.namespace!, uid: pod.metadata.uid! };
  if (input.cpuAndMemoryOnly) return { stats: { podRef, startTime: status.startTime, containers, cpu: cpu(t, podUse), memory: memory(t, undefined, podUse) }, use: podUse };
  const volumes = (spec.volumes ?? [])
    .filter((v) => MEASURED_VOLUMES.some((k) => v[k] !== undefined))
    .map((v) => ({ ...fs(t, cfg, nodefsBytes, 0), name: v.name }));
  const stats: PodStats = {
    podRef,
    startTime: status.startTime,
    containers,
    cpu: cpu(t, podUse),
    memory: memory(t, undefined, podUse),
    network: cfg.os === 'windows' ? windowsPodNetwork(t, cfg, pod.metadata.uid ?? '') : network(t, 'eth0'),
    ...(volumes.length ? { volume: volumes } : {}),
    'ephemeral-storage': fs(t, cfg, nodefsBytes, 0),
    process_stats: { process_count: 0 },
  };
  return { stats, use: podUse };
}

/** The Summary the node's kubelet answers at `input.now`. */
export function buildSummary(input: SummaryInput): Summary {
  const { cfg } = input;
  const t = time(input.now);
  // Usage at the sample time the stats report (to the second), so rates between two samples are exact.
  const nowMs = Date.parse(t);
  const memoryBytes = parseBytes(cfg.memory);
  const nodefsBytes = parseBytes(cfg.storage);
  const boot = time(input.bootTime);
  const measured = input.pods
    .map((p) => podStats(input, p, t, nodefsBytes))
    .filter((p): p is { stats: PodStats; use: Use } => p !== undefined);
  const podsUse = measured.reduce((sum, p) => addUse(sum, p.use), NO_USE);
  // The node: its own idle use for as long as it has been up, and its pods'.
  const own = NODE_IDLE[cfg.os];
  const uptimeSeconds = Math.max(0, (nowMs - input.bootTime.getTime()) / 1000);
  const nodeRate = own.nanoCores + podsUse.nanoCores;
  const nodeUse: Use = {
    nanoCores: nodeRate,
    usageCoreNanoSeconds: input.nodeCPUTime ? input.nodeCPUTime(nowMs, nodeRate) : nodeRate * uptimeSeconds,
    workingSetBytes: Math.min(memoryBytes, own.workingSetBytes + podsUse.workingSetBytes),
  };
  const kubeletUptime = Math.max(0, (nowMs - input.kubeletStartTime.getTime()) / 1000);
  const kubeletUse: Use = { ...KUBELET_IDLE, usageCoreNanoSeconds: KUBELET_IDLE.nanoCores * kubeletUptime };
  // Linux: the kubelet's own cgroup and the pods cgroup; Windows: the pods (summed from the pods) and the global commit memory.
  const systemContainers: ContainerStats[] = cfg.os === 'windows'
    ? [
      { name: 'pods', startTime: boot, cpu: cpu(t, podsUse), memory: memory(t, memoryBytes, podsUse) },
      { name: 'windows-global-commit-memory', startTime: boot, memory: memory(t, memoryBytes, nodeUse) },
    ]
    : [
      { name: 'kubelet', startTime: time(input.kubeletStartTime), cpu: cpu(t, kubeletUse), memory: memory(t, undefined, kubeletUse) },
      { name: 'pods', startTime: boot, cpu: cpu(t, podsUse), memory: memory(t, memoryBytes, podsUse) },
    ];
  const node: NodeStats = { nodeName: cfg.name, systemContainers, startTime: boot, cpu: cpu(t, nodeUse), memory: memory(t, memoryBytes, nodeUse) };
  if (input.cpuAndMemoryOnly) return { node, pods: measured.map((p) => p.stats) };
  Object.assign(node, {
    network: network(t, defaultInterface(cfg)),
    fs: fs(t, cfg, nodefsBytes, input.imageBytes),
    // containerd keeps images and writable layers on the root filesystem: imageFs and containerFs are nodefs.
    runtime: { imageFs: fs(t, cfg, nodefsBytes, input.imageBytes), containerFs: fs(t, cfg, nodefsBytes, input.imageBytes) },
    ...(cfg.os === 'linux' ? { rlimit: { time: t, maxpid: LINUX_PID_MAX, curproc: 0 } } : {}),
  });
  return { node, pods: measured.map((p) => p.stats) };
}
