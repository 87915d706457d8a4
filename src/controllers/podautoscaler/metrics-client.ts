/**
 * The HPA's resource metrics client (pkg/controller/podautoscaler/metrics,
 * resourceMetricsClient): PodMetrics of the pods a selector picks, from
 * metrics.k8s.io through the API server's aggregator, each pod's usage the
 * sum of its containers' (or one container's), in thousandths. A pod
 * whose usage of the resource is missing is left out, as upstream leaves
 * it; a pod without the named container is an error.
 */
import { parseQuantity } from '../../apimachinery/quantity.js';
import { podmetrics } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import { milliValue } from '../../meta/resource-lists.js';
import { parseDuration } from '../../apimachinery/duration.js';
import type { PodMetrics } from './replica-calculator.js';

export interface ResourceMetricsSample { metrics: PodMetrics; timestampMs: number }

export interface ResourceMetricsClient {
  resourceMetric(resource: string, namespace: string, selector: string, container?: string): Promise<ResourceMetricsSample>;
}

interface ContainerMetrics { name: string; usage?: Record<string, string> }
interface PodMetricsObject { metadata: { name?: string; namespace?: string }; timestamp?: string; window?: string; containers?: ContainerMetrics[] }

/** Reads metrics.k8s.io with `client` (one that reaches aggregated APIs: over HTTPS). */
export function apiResourceMetrics(client: Client): ResourceMetricsClient {
  return {
    async resourceMetric(resource, namespace, selector, container) {
      let items: PodMetricsObject[];
      try {
        items = (await client.resource(podmetrics).list(namespace, { labelSelector: selector })).items as unknown as PodMetricsObject[];
      } catch (e) {
        throw new Error(`unable to fetch metrics from resource metrics API: ${(e as Error).message}`, { cause: e });
      }
      if (items.length === 0) throw new Error('no metrics returned from resource metrics API');
      const metrics: PodMetrics = new Map();
      for (const m of items) {
        const containers = (m.containers ?? [])
          .filter((c) => container === undefined || c.name === container).slice(0, container === undefined ? undefined : 1);
        if (container !== undefined && containers.length === 0) {
          throw new Error(`failed to get container metrics: container ${container} not present in metrics for pod ${m.metadata.namespace ?? ''}/${m.metadata.name ?? ''}`);
        }
        let sum = 0;
        // getPodMetrics: a pod without containers has no usage to report.
        let missing = containers.length === 0;
        for (const c of containers) {
          const q = c.usage?.[resource];
          if (q === undefined) { missing = true; break; }
          sum += Number(milliValue(parseQuantity(q)));
        }
        if (!missing) metrics.set(m.metadata.name ?? '', { timestampMs: Date.parse(m.timestamp ?? ''), windowMs: parseDuration(m.window ?? '0s') ?? 0, value: sum });
      }
      return { metrics, timestampMs: Date.parse(items[0]!.timestamp ?? '') };
    },
  };
}
