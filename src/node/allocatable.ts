/**
 * Capacity and allocatable as the kubelet computes them
 * (pkg/kubelet/cm GetNodeAllocatableReservation + nodestatus MachineInfo):
 * allocatable = capacity − kubeReserved − systemReserved − evictionHard,
 * never below zero; memory also loses the hugepages capacity; pods are not reserved.
 */
import type { NodeConfig } from './pool.js';
import { formatBytes, formatMilliCPU, parseBytes, parseMilliCPU } from './quantity.js';

export type ResourceList = Record<string, string>;

/** The hard eviction signal that reserves each resource (hardEvictionReservation). */
const EVICTION_SIGNAL_RESOURCE: Record<string, string> = {
  'memory.available': 'memory',
  'nodefs.available': 'ephemeral-storage',
};

export function nodeCapacity(cfg: NodeConfig): ResourceList {
  const cap: ResourceList = {
    cpu: formatMilliCPU(parseMilliCPU(cfg.cpu)),
    'ephemeral-storage': formatBytes(parseBytes(cfg.storage)),
  };
  // cadvisor reports the hugepage sizes the Linux kernel supports; Windows has none.
  if (cfg.os === 'linux') { cap['hugepages-1Gi'] = '0'; cap['hugepages-2Mi'] = '0'; }
  cap.memory = formatBytes(parseBytes(cfg.memory));
  cap.pods = String(cfg.maxPods);
  return cap;
}

/**
 * A threshold's quantity against a capacity: an absolute quantity, or a
 * percentage the kubelet holds as a float32 and multiplies in float64
 * (`int64(float64(capacity.Value()) * float64(percentage))`).
 */
export function evictionThresholdBytes(threshold: string, capacityBytes: number): number {
  // parseThresholdStatement ignores 0% and 100% thresholds.
  if (threshold.trim() === '0%' || threshold.trim() === '100%') return 0;
  const pct = /^([0-9.]+)%$/.exec(threshold.trim());
  if (pct) return Math.trunc(capacityBytes * Math.fround(Number(pct[1]) / 100));
  return parseBytes(threshold);
}

function reserved(cfg: NodeConfig, resource: string, cap: number, isCPU: boolean): number {
  const parse = (q: string) => (isCPU ? parseMilliCPU(q) : parseBytes(q));
  let total = 0;
  if (cfg.kubeReserved[resource] !== undefined) total += parse(cfg.kubeReserved[resource]);
  if (cfg.systemReserved[resource] !== undefined) total += parse(cfg.systemReserved[resource]);
  for (const [signal, threshold] of Object.entries(cfg.evictionHard)) {
    if (EVICTION_SIGNAL_RESOURCE[signal] === resource) total += evictionThresholdBytes(threshold, cap);
  }
  return total;
}

export function nodeAllocatable(cfg: NodeConfig, capacity: ResourceList = nodeCapacity(cfg)): ResourceList {
  const out: ResourceList = {};
  for (const [name, value] of Object.entries(capacity)) {
    if (name === 'pods' || name.startsWith('hugepages-')) { out[name] = value; continue; }
    if (name === 'cpu') {
      const cap = parseMilliCPU(value);
      out[name] = formatMilliCPU(Math.max(0, cap - reserved(cfg, name, cap, true)));
      continue;
    }
    const cap = parseBytes(value);
    let left = cap - reserved(cfg, name, cap, false);
    if (name === 'memory') {
      for (const [k, v] of Object.entries(capacity)) if (k.startsWith('hugepages-')) left -= parseBytes(v);
    }
    out[name] = formatBytes(Math.max(0, left));
  }
  return out;
}
