/**
 * How the kubelet turns a container's CPU/memory resources into what it
 * hands the runtime, per OS. Pure integer arithmetic with Go's truncating
 * int64 division (done in BigInt, so results are exact).
 *
 * Windows (notes /work/shared/research/windows-semantics.md §4.1, from
 * k/k pkg/kubelet/kuberuntime/kuberuntime_container_windows.go
 * calculateWindowsResources, release-1.29 and v1.33-era):
 *   CpuMaximum = 10 * limits.cpu.MilliValue() / ProcessorCount()   (Go integer, truncating)
 *   then clamped to [1, 10000]; set only when the limit is non-zero.
 *   Requests are never passed. CpuShares/CpuCount are never set.
 *   MemoryLimitInBytes = limits.memory.Value() when non-zero.
 * Reverse (§4.2): cpu limit (milli) = CpuMaximum * ProcessorCount / 10.
 *
 * Linux (k/k pkg/kubelet/cm/helpers_linux.go; the current constants
 * MaxShares = 262144, MilliCPUToQuota(milliCPU, period) and the
 * MinQuotaPeriod clamp were checked against copies of the current file, the
 * stored k/k copy of that file being an older revision without MaxShares):
 *   MilliCPUToShares(m) = 2 if m == 0, else clamp(m * 1024 / 1000, 2, 262144)
 *   MilliCPUToQuota(m, period) = 0 if m == 0, else max(m * period / 1000, 1000)
 * and kuberuntime_container_linux.go calculateLinuxResources: shares from the
 * request, or from the limit when no request is given; with CFS quota
 * enforcement (the default) CpuPeriod = 100000 and CpuQuota =
 * MilliCPUToQuota(limit) (0 = no limit; the runtime then leaves the cgroup
 * unlimited, which k/k's resize e2e reads back as -1 / "max"). The
 * shares-from-limit rule and MilliCPUToQuota(limit, QuotaPeriod) match k/k's
 * e2e cgroup expectations (test/e2e pod-resize helpers); the CpuPeriod /
 * disableCPUQuota handling is from our reading of v1.32, not re-verified.
 * v1.32 passes the request as a pointer (nil when the key is absent), so an
 * explicit request of 0 gives 2 shares even with a limit; older kubelets
 * tested `cpuRequest.IsZero()` instead.
 */
import { parseQuantity, type Quantity } from '../apimachinery/quantity.js';
import { milliValue, value } from '../meta/resource-lists.js';

// ---------------------------------------------------------------------------
// Inputs

/** A CPU amount: milli-CPU as a number/bigint, or a Kubernetes quantity string ("500m", "2"). */
export type CPUAmount = number | bigint | string | Quantity;
/** A memory amount: bytes as a number/bigint, or a quantity string ("512Mi"). */
export type MemoryAmount = number | bigint | string | Quantity;

const isQuantity = (v: unknown): v is Quantity => typeof v === 'object' && v !== null && 'unscaled' in v;

/** Quantity.MilliValue() of a CPU amount (numbers are already milli-CPU). */
export function toMilliCPU(v: CPUAmount): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  return milliValue(isQuantity(v) ? v : parseQuantity(v));
}

/** Quantity.Value() of a memory amount (numbers are already bytes). */
export function toBytes(v: MemoryAmount): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  return value(isQuantity(v) ? v : parseQuantity(v));
}

const clamp = (v: bigint, lo: bigint, hi: bigint) => (v < lo ? lo : v > hi ? hi : v);

// ---------------------------------------------------------------------------
// Windows

export const WINDOWS_CPU_MAXIMUM_MIN = 1;
export const WINDOWS_CPU_MAXIMUM_MAX = 10000;

/**
 * HCS CpuMaximum for a CPU limit on a host with `logicalCPUs` logical
 * processors: clamp(10 * limitMilli / logicalCPUs (truncating), 1, 10000);
 * undefined when the limit is zero/absent (nothing is set).
 * 500m/4 → 1250, 1/2 → 5000, 2/2 → 10000, 8/4 → 10000, 1m/16 → 1.
 */
export function windowsCpuMaximum(limit: CPUAmount | undefined, logicalCPUs: number): number | undefined {
  if (limit === undefined) return undefined;
  const m = toMilliCPU(limit);
  if (m === 0n) return undefined;
  if (!Number.isInteger(logicalCPUs) || logicalCPUs <= 0) throw new RangeError(`logicalCPUs must be a positive integer, got ${logicalCPUs}`);
  const raw = (10n * m) / BigInt(logicalCPUs);
  return Number(clamp(raw, BigInt(WINDOWS_CPU_MAXIMUM_MIN), BigInt(WINDOWS_CPU_MAXIMUM_MAX)));
}

/** The reverse mapping (§4.2): milli-CPU = CpuMaximum * ProcessorCount / 10 (truncating). */
export function windowsCpuMaximumToMilliCPU(cpuMaximum: number, logicalCPUs: number): number {
  return Number((BigInt(cpuMaximum) * BigInt(logicalCPUs)) / 10n);
}

export interface ContainerResourcesInput {
  requests?: { cpu?: CPUAmount; memory?: MemoryAmount };
  limits?: { cpu?: CPUAmount; memory?: MemoryAmount };
}

/** The CRI WindowsContainerResources fields the kubelet sets (absent = not set). */
export interface WindowsContainerResources {
  CpuMaximum?: number;
  MemoryLimitInBytes?: number;
}

/** calculateWindowsResources: limits only; requests are ignored entirely. */
export function windowsContainerResources(res: ContainerResourcesInput, logicalCPUs: number): WindowsContainerResources {
  const out: WindowsContainerResources = {};
  const cpuMax = windowsCpuMaximum(res.limits?.cpu, logicalCPUs);
  if (cpuMax !== undefined) out.CpuMaximum = cpuMax;
  if (res.limits?.memory !== undefined) {
    const mem = toBytes(res.limits.memory);
    if (mem !== 0n) out.MemoryLimitInBytes = Number(mem);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Linux

export const MIN_SHARES = 2;
export const MAX_SHARES = 262144;
export const SHARES_PER_CPU = 1024;
export const MILLI_CPU_TO_CPU = 1000;
/** 100000 µs = 100 ms. */
export const QUOTA_PERIOD = 100000;
/** 1000 µs = 1 ms. */
export const MIN_QUOTA_PERIOD = 1000;

/** cm.MilliCPUToShares: 0 → 2 (kernel minimum), else m*1024/1000 clamped to [2, 262144]. */
export function milliCPUToShares(milliCPU: CPUAmount): number {
  const m = toMilliCPU(milliCPU);
  if (m === 0n) return MIN_SHARES;
  return Number(clamp((m * BigInt(SHARES_PER_CPU)) / BigInt(MILLI_CPU_TO_CPU), BigInt(MIN_SHARES), BigInt(MAX_SHARES)));
}

/** cm.MilliCPUToQuota: 0 → 0 (no quota), else m*period/1000 with a 1000 µs minimum. */
export function milliCPUToQuota(milliCPU: CPUAmount, period: number = QUOTA_PERIOD): number {
  const m = toMilliCPU(milliCPU);
  if (m === 0n) return 0;
  const q = (m * BigInt(period)) / BigInt(MILLI_CPU_TO_CPU);
  return Number(q < BigInt(MIN_QUOTA_PERIOD) ? BigInt(MIN_QUOTA_PERIOD) : q);
}

/** kuberuntime sharesToMilliCPU: ceil(shares*1000/1024) when shares >= 2, else 0. */
export function sharesToMilliCPU(shares: number): number {
  if (shares < MIN_SHARES) return 0;
  return Math.ceil((shares * MILLI_CPU_TO_CPU) / SHARES_PER_CPU);
}

/** kuberuntime quotaToMilliCPU: -1 (unlimited) → 0, else quota*1000/period (truncating). */
export function quotaToMilliCPU(quota: number, period: number): number {
  if (quota === -1) return 0;
  return Number((BigInt(quota) * BigInt(MILLI_CPU_TO_CPU)) / BigInt(period));
}

/**
 * cgroup v2 cpu.weight for cpu.shares, as the runtime converts it
 * (1 + ((shares - 2) * 9999) / 262142, KEP-2254; k/k's resize e2e expects
 * exactly this). 0 → 0 (unset) is runc's special case.
 */
export function sharesToCgroupV2Weight(shares: number): number {
  if (shares === 0) return 0;
  return 1 + Math.trunc(((shares - 2) * 9999) / 262142);
}

/** The CRI LinuxContainerResources CPU/memory fields the kubelet sets. */
export interface LinuxContainerResources {
  CpuShares: number;
  /** Present when CFS quota enforcement is on (the default). */
  CpuPeriod?: number;
  /** 0 = no limit; -1 when quota is disabled for the container (exclusive CPUs). */
  CpuQuota?: number;
  MemoryLimitInBytes?: number;
}

export interface LinuxResourceOptions {
  /** kubelet --cpu-cfs-quota (default true). */
  cpuCFSQuota?: boolean;
  /** CPUCFSQuotaPeriod gate + --cpu-cfs-quota-period, in µs; default 100000. */
  cpuCFSQuotaPeriod?: number;
  /** CPU manager static policy with exclusive CPUs and the quota disabled. */
  disableCPUQuota?: boolean;
}

/** calculateLinuxResources (CPU and memory part). */
export function linuxContainerResources(res: ContainerResourcesInput, opts: LinuxResourceOptions = {}): LinuxContainerResources {
  const req = res.requests?.cpu;
  const lim = res.limits?.cpu;
  const out: LinuxContainerResources = {
    CpuShares: req === undefined && lim !== undefined ? milliCPUToShares(lim) : milliCPUToShares(req ?? 0),
  };
  if (res.limits?.memory !== undefined) {
    const mem = toBytes(res.limits.memory);
    if (mem !== 0n) out.MemoryLimitInBytes = Number(mem);
  }
  if (opts.cpuCFSQuota ?? true) {
    const period = opts.cpuCFSQuotaPeriod ?? QUOTA_PERIOD;
    out.CpuQuota = opts.disableCPUQuota ? -1 : milliCPUToQuota(lim ?? 0, period);
    out.CpuPeriod = period;
  }
  return out;
}
