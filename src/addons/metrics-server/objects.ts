/**
 * metrics.k8s.io/v1beta1 objects as metrics-server v0.7 answers them
 * (pkg/storage node.go, pod.go GetMetrics): the object's labels, a
 * creationTimestamp of now, the sample's timestamp and window, CPU in
 * nanocores (DecimalSI, scale -9) and the working set in bytes (BinarySI),
 * written in their canonical quantity forms ("12345678n", "1236Ki").
 */
import { formatQuantity } from '../../apimachinery/quantity.js';
import { formatDuration } from '../../apimachinery/duration.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { ContainerUsage, Usage } from './storage.js';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';
const API_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;

type Json = Record<string, unknown>;

interface Meta { name?: string; namespace?: string; labels?: Record<string, string> }

export function usageList(u: { nanoCores: number; memoryBytes: number }): { cpu: string; memory: string } {
  return {
    cpu: formatQuantity({ neg: false, unscaled: BigInt(Math.max(0, Math.trunc(u.nanoCores))), scale: -9, format: 'DecimalSI' }),
    memory: formatQuantity({ neg: false, unscaled: BigInt(Math.max(0, Math.trunc(u.memoryBytes))), scale: 0, format: 'BinarySI' }),
  };
}

/** metav1.Duration: Go's time.Duration String(). */
const window = (ms: number) => formatDuration(BigInt(Math.round(ms)) * 1_000_000n);

function metadata(m: Meta, now: Date, namespaced: boolean): Json {
  const out: Json = { name: m.name };
  if (namespaced) out.namespace = m.namespace;
  out.creationTimestamp = rfc3339(now);
  if (m.labels && Object.keys(m.labels).length) out.labels = m.labels;
  return out;
}

export function nodeMetrics(node: Meta, usage: Usage, now: Date): Json {
  return {
    kind: 'NodeMetrics', apiVersion: API_VERSION,
    metadata: metadata(node, now, false),
    timestamp: rfc3339(new Date(usage.timestampMs)),
    window: window(usage.windowMs),
    usage: usageList(usage),
  };
}

export function podMetrics(pod: Meta, u: { containers: ContainerUsage[]; timestampMs: number; windowMs: number }, now: Date): Json {
  return {
    kind: 'PodMetrics', apiVersion: API_VERSION,
    metadata: metadata(pod, now, true),
    timestamp: rfc3339(new Date(u.timestampMs)),
    window: window(u.windowMs),
    containers: u.containers.map((c) => ({ name: c.name, usage: usageList(c.usage) })),
  };
}

export function metricsList(kind: 'NodeMetricsList' | 'PodMetricsList', items: Json[]): Json {
  return { kind, apiVersion: API_VERSION, metadata: {}, items };
}

/** GET /apis/metrics.k8s.io/v1beta1, as the generic API server lists the group version's resources. */
export function apiResourceList(): Json {
  return {
    kind: 'APIResourceList', apiVersion: 'v1', groupVersion: API_VERSION,
    resources: [
      { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
      { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
    ],
  };
}

export function apiGroup(): Json {
  const v = { groupVersion: API_VERSION, version: METRICS_VERSION };
  return { kind: 'APIGroup', apiVersion: 'v1', name: METRICS_GROUP, versions: [v], preferredVersion: v };
}
