/**
 * A container's CPU and memory use at an instant, from what it demands and
 * how its OS caps it (pure; the time is passed in):
 *
 * - CPU. Linux: the CFS quota the kubelet sets (CpuQuota per 100 ms
 *   CpuPeriod, at least 1 ms) throttles the container at its limit, so a
 *   5m limit still gets 10m. Windows: the job object's CpuMaximum, in
 *   10,000ths of all the host's processors, caps it at CpuMaximum ×
 *   logical CPUs / 10000 cores (with the same truncation the kubelet's
 *   arithmetic has). Without a limit, at most every processor of the node.
 * - Memory. Linux: above limits.memory the kernel OOM-kills the container
 *   (the pod worker does that at oomKillAfterMs), so the working set never
 *   shows above the limit. Windows: the job object never kills; what is
 *   above the limit is paged out and the working set stays at the limit.
 *   Without a limit, at most the node's memory.
 *
 * The idle baseline (idle-usage.ts) is never OOM-killed, only capped: only
 * a scripted demand above the limit kills.
 */
import { milliCPUToQuota, QUOTA_PERIOD, toBytes, toMilliCPU, windowsCpuMaximum, type CPUAmount, type MemoryAmount } from '../../os/cpu-limits.js';
import { demandKnots, firstAbove, valueAt, type Demand } from './demand.js';
import type { IdleUsage } from './idle-usage.js';
import { cpuWithServedWork, type ServedWork } from './served-work.js';

export type UsageOS = 'linux' | 'windows';
const NANO = 1e9;

export interface ContainerLimits { cpu?: CPUAmount; memory?: MemoryAmount }

export interface ContainerUsageInput {
  os: UsageOS;
  logicalCPUs: number;
  nodeMemoryBytes: number;
  idle: IdleUsage;
  /** Scripted demand (winkube.io/script `cpu`, `memory`). */
  cpu?: Demand;
  memory?: Demand;
  limits?: ContainerLimits;
  startedAtMs: number;
  /** CPU its requests cost the container's server (served-work.ts). */
  served?: ServedWork;
}

export interface ContainerUsage {
  nanoCores: number;
  /** CPU time since the container started, in core-nanoseconds. */
  usageCoreNanoSeconds: number;
  workingSetBytes: number;
  /** The most CPU the OS lets the container have, in nanocores. */
  cpuCapNanoCores: number;
  /** The demand is above the CPU cap (Linux: CFS throttling; Windows: CpuMaximum). */
  cpuThrottled: boolean;
  /** Windows: the demand is above limits.memory, the rest is paged. */
  memoryPaged: boolean;
}

function present<T>(v: T | undefined | null | ''): v is T { return v !== undefined && v !== null && v !== ''; }

/** The CPU cap in nanocores of a container with `limit` on a node of `logicalCPUs`. */
export function cpuCapNanoCores(os: UsageOS, limit: CPUAmount | undefined, logicalCPUs: number): number {
  const node = logicalCPUs * NANO;
  if (!present(limit) || toMilliCPU(limit) === 0n) return node;
  if (os === 'windows') {
    const max = windowsCpuMaximum(limit, logicalCPUs) ?? 10000;
    return Math.min(node, (max * logicalCPUs * NANO) / 10000);
  }
  return Math.min(node, (milliCPUToQuota(limit) * NANO) / QUOTA_PERIOD);
}

function memoryLimitBytes(limit: MemoryAmount | undefined): number | undefined {
  if (!present(limit)) return undefined;
  let b: number;
  // The API server validated it; what still is no quantity sets no limit.
  try { b = Number(toBytes(limit)); } catch { return undefined; }
  return b > 0 ? b : undefined;
}

/** Usage at `nowMs` (before the container started: none). */
export function containerUsage(input: ContainerUsageInput, nowMs: number): ContainerUsage {
  const t = Math.max(0, (nowMs - input.startedAtMs) / 1000);
  const cap = cpuCapNanoCores(input.os, input.limits?.cpu, input.logicalCPUs);
  const { knots: cpuKnots, cpuTimeNs } = cpuWithServedWork(demandKnots(input.cpu, input.idle.nanoCores), input.served, input.startedAtMs, cap, t);
  const cpuDemand = valueAt(cpuKnots, t);
  const memDemand = valueAt(demandKnots(input.memory, input.idle.workingSetBytes), t);
  const memLimit = memoryLimitBytes(input.limits?.memory);
  const memCap = Math.min(memLimit ?? Infinity, input.nodeMemoryBytes);
  return {
    nanoCores: Math.min(cpuDemand, cap),
    usageCoreNanoSeconds: cpuTimeNs,
    workingSetBytes: Math.min(memDemand, memCap),
    cpuCapNanoCores: cap,
    cpuThrottled: cpuDemand > cap,
    memoryPaged: input.os === 'windows' && memLimit !== undefined && memDemand > memLimit,
  };
}

/**
 * When the kernel OOM-kills a Linux container whose scripted memory rises
 * above limits.memory (ms after its start); undefined on Windows, without
 * a limit, or when the demand stays within it.
 */
export function oomKillAfterMs(os: UsageOS, memory: Demand | undefined, limit: MemoryAmount | undefined): number | undefined {
  if (os !== 'linux' || !memory) return undefined;
  const limitBytes = memoryLimitBytes(limit);
  if (limitBytes === undefined) return undefined;
  // The idle baseline does not kill: only the scripted part of the demand counts.
  const at = firstAbove(demandKnots(memory, 0), limitBytes);
  return at === undefined ? undefined : Math.round(at * 1000);
}
