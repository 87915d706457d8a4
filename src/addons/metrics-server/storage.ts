/**
 * metrics-server's storage (v0.7 pkg/storage node.go, pod.go, types.go):
 * the last two points of every node and container, usage as the CPU time
 * between them over the window, the working set of the last one. A
 * container younger than the metric resolution but at least 10 s old is
 * measured from its start (a point at its start time with zero CPU), so a
 * new pod shows up after one scrape; a restarted container starts over.
 */
import type { MetricsBatch, MetricsPoint } from './decode.js';

/** freshContainerMinMetricsResolution */
const FRESH_CONTAINER_MIN_MS = 10_000;

export interface Usage { nanoCores: number; memoryBytes: number; timestampMs: number; windowMs: number }

/** resourceUsage: undefined when the start time or CPU went backwards (skipped, as metrics-server logs and skips). */
export function resourceUsage(last: MetricsPoint, prev: MetricsPoint): Usage | undefined {
  if (last.startTimeMs < prev.startTimeMs) return undefined;
  if (last.cumulativeCPUUsed < prev.cumulativeCPUUsed) return undefined;
  const windowMs = last.timestampMs - prev.timestampMs;
  return {
    nanoCores: Math.trunc((last.cumulativeCPUUsed - prev.cumulativeCPUUsed) / (windowMs / 1000)),
    memoryBytes: last.memoryUsage, timestampMs: last.timestampMs, windowMs,
  };
}

export interface ContainerUsage { name: string; usage: Usage }

export class MetricsStorage {
  private lastNodes = new Map<string, MetricsPoint>();
  private prevNodes = new Map<string, MetricsPoint>();
  private lastPods = new Map<string, Map<string, MetricsPoint>>();
  private prevPods = new Map<string, Map<string, MetricsPoint>>();

  constructor(private readonly metricResolutionMs: number) {}

  store(batch: MetricsBatch): void {
    this.storeNodes(batch);
    this.storePods(batch);
  }

  /** A node's usage, once two points are stored. */
  nodeUsage(name: string): Usage | undefined {
    const last = this.lastNodes.get(name); const prev = this.prevNodes.get(name);
    return last && prev ? resourceUsage(last, prev) : undefined;
  }

  /**
   * A pod's containers' usage and the earliest of their time infos; undefined until every
   * container has two points.
   */
  podUsage(namespace: string, name: string): { containers: ContainerUsage[]; timestampMs: number; windowMs: number } | undefined {
    const key = `${namespace}/${name}`;
    const last = this.lastPods.get(key); const prev = this.prevPods.get(key);
    if (!last || !prev) return undefined;
    const containers: ContainerUsage[] = [];
    let earliest: Usage | undefined;
    for (const [c, point] of last) {
      const before = prev.get(c);
      if (!before) return undefined;
      const usage = resourceUsage(point, before);
      if (!usage) continue;
      containers.push({ name: c, usage });
      if (!earliest || earliest.timestampMs > usage.timestampMs) earliest = usage;
    }
    return { containers, timestampMs: earliest?.timestampMs ?? 0, windowMs: earliest?.windowMs ?? 0 };
  }

  private storeNodes(batch: MetricsBatch): void {
    const last = new Map<string, MetricsPoint>(); const prev = new Map<string, MetricsPoint>();
    for (const [name, point] of batch.nodes) {
      last.set(name, point);
      const stored = this.lastNodes.get(name);
      if (!stored) continue;
      if (point.timestampMs > stored.timestampMs) prev.set(name, stored);
      else {
        const before = this.prevNodes.get(name);
        if (before && before.timestampMs < point.timestampMs) prev.set(name, before);
      }
    }
    this.lastNodes = last; this.prevNodes = prev;
  }

  private storePods(batch: MetricsBatch): void {
    const last = new Map<string, Map<string, MetricsPoint>>(); const prev = new Map<string, Map<string, MetricsPoint>>();
    for (const [key, containers] of batch.pods) {
      const newPrev = new Map<string, MetricsPoint>();
      for (const [c, point] of containers) {
        const age = point.timestampMs - point.startTimeMs;
        if (point.startTimeMs < point.timestampMs && age < this.metricResolutionMs && age >= FRESH_CONTAINER_MIN_MS) {
          newPrev.set(c, { ...point, timestampMs: point.startTimeMs, cumulativeCPUUsed: 0 });
          continue;
        }
        const stored = this.lastPods.get(key)?.get(c);
        // A point of the same instance (started before the stored one was taken).
        if (!stored || !(point.startTimeMs < stored.timestampMs)) continue;
        if (point.timestampMs > stored.timestampMs) newPrev.set(c, stored);
        else {
          const before = this.prevPods.get(key)?.get(c);
          if (before && before.timestampMs < point.timestampMs) newPrev.set(c, before);
        }
      }
      if (newPrev.size) prev.set(key, newPrev);
      // The batch is this scrape's own: its points are kept as they are.
      last.set(key, containers);
    }
    this.lastPods = last; this.prevPods = prev;
  }
}
