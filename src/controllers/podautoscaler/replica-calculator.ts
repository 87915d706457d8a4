/**
 * The HPA's replica calculation for resource metrics, as upstream's
 * ReplicaCalculator (pkg/controller/podautoscaler/replica_calculator.go,
 * v1.32): pure, the time passed in. Pods are grouped into ready, unready
 * (CPU samples of pods still starting are not trusted), missing (no
 * metrics yet) and ignored (deleted or failed); a change within the
 * tolerance is no change; on a scale-up, missing and unready pods count as
 * using nothing, on a scale-down missing pods count as using their request,
 * and a recalculation that would reverse the direction keeps the count.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseQuantity } from '../../apimachinery/quantity.js';
import { milliValue } from '../../meta/resource-lists.js';

/** One pod's usage of a resource, in thousandths (MilliValue), with the sample's time and window. */
export interface PodMetric { timestampMs: number; windowMs: number; value: number }
export type PodMetrics = Map<string, PodMetric>;

export interface CalculatorSettings {
  /** --horizontal-pod-autoscaler-tolerance. */
  tolerance: number;
  /** --horizontal-pod-autoscaler-cpu-initialization-period. */
  cpuInitializationPeriodMs: number;
  /** --horizontal-pod-autoscaler-initial-readiness-delay. */
  delayOfInitialReadinessStatusMs: number;
}

export const DEFAULT_CALCULATOR: CalculatorSettings = { tolerance: 0.1, cpuInitializationPeriodMs: 5 * 60_000, delayOfInitialReadinessStatusMs: 30_000 };

export interface Proposal { replicas: number; utilization: number; rawAverage: number; timestampMs: number }

const ms = (t: string | undefined): number | undefined => (t === undefined ? undefined : Date.parse(t));

interface Groups { readyPodCount: number; unready: Set<string>; missing: Set<string>; ignored: Set<string> }

function groupPods(pods: readonly Pod[], metrics: PodMetrics, resource: string, s: CalculatorSettings, nowMs: number): Groups {
  const g: Groups = { readyPodCount: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === 'Failed') { g.ignored.add(name); continue; }
    if (pod.status?.phase === 'Pending') { g.unready.add(name); continue; }
    const metric = metrics.get(name);
    if (!metric) { g.missing.add(name); continue; }
    if (resource === 'cpu') {
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
      const start = ms(pod.status?.startTime);
      let unready: boolean;
      if (!ready || start === undefined) unready = true;
      else {
        const transition = ms(ready.lastTransitionTime) ?? 0;
        unready = start + s.cpuInitializationPeriodMs > nowMs
          // Within the initialization period: unready, or no whole metric window since the last transition.
          ? ready.status === 'False' || metric.timestampMs < transition + metric.windowMs
          // After it: unready and never ready since it started.
          : ready.status === 'False' && start + s.delayOfInitialReadinessStatusMs > transition;
      }
      if (unready) { g.unready.add(name); continue; }
    }
    g.readyPodCount++;
  }
  return g;
}

/** calculatePodRequests: each pod's request of the resource (one container's, or all of them). */
function podRequests(pods: readonly Pod[], container: string | undefined, resource: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    for (const c of pod.spec?.containers ?? []) {
      if (container !== undefined && c.name !== container) continue;
      const q = c.resources?.requests?.[resource];
      if (q === undefined) throw new Error(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata?.name ?? ''}`);
      sum += Number(milliValue(parseQuantity(q)));
    }
    out.set(pod.metadata?.name ?? '', sum);
  }
  return out;
}

/** metricsclient.GetResourceUtilizationRatio. */
function utilizationRatio(metrics: PodMetrics, requests: Map<string, number>, target: number): Measured {
  let metricsTotal = 0; let requestsTotal = 0; let n = 0;
  for (const [name, m] of metrics) {
    const r = requests.get(name);
    if (r === undefined) continue;
    metricsTotal += m.value; requestsTotal += r; n++;
  }
  // A request total of 0 means no pod with metrics is known.
  if (requestsTotal === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / target, utilization, rawAverage: Math.trunc(metricsTotal / n) };
}

/** metricsclient.GetMetricUsageRatio: the average over the pods against the target average. */
function usageRatio(metrics: PodMetrics, target: number): Measured {
  let total = 0;
  for (const m of metrics.values()) total += m.value;
  const utilization = Math.trunc(total / metrics.size);
  return { ratio: utilization / target, utilization, rawAverage: utilization };
}

interface Measured { ratio: number; utilization: number; rawAverage: number }
interface Sample { metrics: PodMetrics; timestampMs: number }

/**
 * The calculation both target kinds share: group the pods, measure the
 * ready ones; with missing or (on a scale-up) unready pods, fill them in
 * (missing ones at `fallback` on a scale-down, at nothing on a scale-up;
 * unready ones at nothing) and measure again.
 */
function proposal(currentReplicas: number, resource: string, pods: readonly Pod[], sample: Sample, s: CalculatorSettings, nowMs: number,
  measure: (metrics: PodMetrics) => Measured, fallback: (pod: string) => number): Proposal {
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const metrics = new Map(sample.metrics);
  const g = groupPods(pods, metrics, resource, s, nowMs);
  for (const name of [...g.ignored, ...g.unready]) metrics.delete(name);
  if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  const first = measure(metrics);
  const keep = { replicas: currentReplicas, utilization: first.utilization, rawAverage: first.rawAverage, timestampMs: sample.timestampMs };
  const scaleUpWithUnready = g.unready.size > 0 && first.ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (Math.abs(1 - first.ratio) <= s.tolerance) return keep;
    return { ...keep, replicas: Math.ceil(first.ratio * g.readyPodCount) };
  }
  if (first.ratio !== 1) for (const name of g.missing) metrics.set(name, { timestampMs: 0, windowMs: 0, value: first.ratio < 1 ? fallback(name) : 0 });
  if (scaleUpWithUnready) for (const name of g.unready) metrics.set(name, { timestampMs: 0, windowMs: 0, value: 0 });
  return rebalanced(first.ratio, measure(metrics).ratio, metrics.size, keep, s);
}

/** GetResourceReplicas: the count for a target utilization (percent of request). */
export function resourceReplicas(currentReplicas: number, targetUtilization: number, resource: string, pods: readonly Pod[], sample: Sample,
  container: string | undefined, s: CalculatorSettings, nowMs: number): Proposal {
  const requests = podRequests(pods, container, resource);
  // On a scale-down a missing pod uses its request, or the target when that is above 100 %.
  const fallback = Math.max(100, targetUtilization);
  return proposal(currentReplicas, resource, pods, sample, s, nowMs, (m) => utilizationRatio(m, requests, targetUtilization),
    (name) => Math.trunc((requests.get(name) ?? 0) * fallback / 100));
}

/** GetRawResourceReplicas: the count for a target average value (thousandths) per pod. */
export function rawResourceReplicas(currentReplicas: number, targetAverage: number, resource: string, pods: readonly Pod[], sample: Sample,
  s: CalculatorSettings, nowMs: number): Proposal {
  return proposal(currentReplicas, resource, pods, sample, s, nowMs, (m) => usageRatio(m, targetAverage), () => targetAverage);
}

/** The second pass: no change when it is within the tolerance or would reverse the direction of the first. */
function rebalanced(ratio: number, newRatio: number, counted: number, keep: Proposal, s: CalculatorSettings): Proposal {
  const current = keep.replicas;
  if (Math.abs(1 - newRatio) <= s.tolerance || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1)) return keep;
  const replicas = Math.ceil(newRatio * counted);
  if ((newRatio < 1 && replicas > current) || (newRatio > 1 && replicas < current)) return keep;
  return { ...keep, replicas };
}
