/**
 * The kubelet's `/metrics/resource` endpoint (pkg/kubelet/metrics/collectors
 * resource_metrics.go, NewResourceMetricsCollector), written from a Summary:
 * node, container and pod CPU time and working sets with the stats' sample
 * times, container start times, and resource_scrape_error. `scrape_error`,
 * deprecated in 1.29.0, is hidden in v1.32; the swap series need swap stats,
 * which a node without swap does not have.
 */
import type { Summary } from './stats-summary.js';
import { writePrometheusText, type MetricFamily } from '../../exposition/prometheus-text.js';

const NANOS_PER_SECOND = 1e9;


/** component-base prefixes HELP with the metric's stability level. */
function family(name: string, help: string, type: 'counter' | 'gauge'): MetricFamily {
  return { name, help: `[STABLE] ${help}`, type, samples: [] };
}

/** The endpoint's samples (what an in-process scraper reads without the text round trip). */
export function resourceMetricFamilies(summary: Summary): MetricFamily[] {
  // Every stat of one summary has the same sample time: parsed once.
  let lastTime = ''; let lastMs = 0;
  const ms = (time: string): number => (time === lastTime ? lastMs : (lastMs = Date.parse(lastTime = time)));
  const nodeCPU = family('node_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the node in core-seconds', 'counter');
  const nodeMemory = family('node_memory_working_set_bytes', 'Current working set of the node in bytes', 'gauge');
  const containerStart = family('container_start_time_seconds', 'Start time of the container since unix epoch in seconds', 'gauge');
  const containerCPU = family('container_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the container in core-seconds', 'counter');
  const containerMemory = family('container_memory_working_set_bytes', 'Current working set of the container in bytes', 'gauge');
  const podCPU = family('pod_cpu_usage_seconds_total', 'Cumulative cpu time consumed by the pod in core-seconds', 'counter');
  const podMemory = family('pod_memory_working_set_bytes', 'Current working set of the pod in bytes', 'gauge');
  const scrapeError = family('resource_scrape_error', '1 if there was an error while getting container metrics, 0 otherwise', 'gauge');

  const { node } = summary;
  nodeCPU.samples.push({ labels: [], value: node.cpu.usageCoreNanoSeconds / NANOS_PER_SECOND, timestampMs: ms(node.cpu.time) });
  nodeMemory.samples.push({ labels: [], value: node.memory.workingSetBytes, timestampMs: ms(node.memory.time) });
  for (const pod of summary.pods) {
    const { name, namespace } = pod.podRef;
    for (const c of pod.containers) {
      const labels: Array<[string, string]> = [['container', c.name], ['pod', name], ['namespace', namespace]];
      const start = Date.parse(c.startTime);
      if (start > 0) containerStart.samples.push({ labels, value: start / 1000 });
      if (c.cpu) containerCPU.samples.push({ labels, value: c.cpu.usageCoreNanoSeconds / NANOS_PER_SECOND, timestampMs: ms(c.cpu.time) });
      if (c.memory) containerMemory.samples.push({ labels, value: c.memory.workingSetBytes, timestampMs: ms(c.memory.time) });
    }
    const labels: Array<[string, string]> = [['pod', name], ['namespace', namespace]];
    podCPU.samples.push({ labels, value: pod.cpu.usageCoreNanoSeconds / NANOS_PER_SECOND, timestampMs: ms(pod.cpu.time) });
    podMemory.samples.push({ labels, value: pod.memory.workingSetBytes, timestampMs: ms(pod.memory.time) });
  }
  scrapeError.samples.push({ labels: [], value: 0 });
  return [nodeCPU, nodeMemory, containerStart, containerCPU, containerMemory, podCPU, podMemory, scrapeError];
}

export function resourceMetricsText(summary: Summary): string {
  return writePrometheusText(resourceMetricFamilies(summary));
}
