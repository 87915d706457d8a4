/**
 * metrics-server's reading of a kubelet's `/metrics/resource` (v0.7
 * pkg/scraper/client/resource/decode.go decodeBatch): node and container
 * CPU time and working set with their sample timestamps (the scrape's time
 * when a sample has none), container start times; a node point with no CPU
 * time or no memory is dropped, and so is a pod any of whose containers has
 * either at zero.
 */

export interface MetricsPoint {
  /** ms since the epoch: cumulative CPU is zero at this instant. */
  startTimeMs: number;
  timestampMs: number;
  /** Core-nanoseconds since startTime. */
  cumulativeCPUUsed: number;
  /** Working set, bytes. */
  memoryUsage: number;
}

export interface MetricsBatch {
  nodes: Map<string, MetricsPoint>;
  /** By `namespace/name`, then container name. */
  pods: Map<string, Map<string, MetricsPoint>>;
}

const emptyPoint = (): MetricsPoint => ({ startTimeMs: 0, timestampMs: 0, cumulativeCPUUsed: 0, memoryUsage: 0 });

interface Sample { name: string; labels: Record<string, string>; value: number; timestampMs?: number }

/** One exposition-format sample line (`name{a="b",...} value [timestamp]`). */
function parseSample(line: string): Sample | undefined {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(line);
  if (!m) return undefined;
  const labels: Record<string, string> = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (let l = re.exec(m[3] ?? ''); l; l = re.exec(m[3] ?? '')) {
    labels[l[1]!] = l[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  const value = Number(m[4]);
  if (Number.isNaN(value)) return undefined;
  return { name: m[1]!, labels, value, ...(m[5] !== undefined ? { timestampMs: Number(m[5]) } : {}) };
}

export function decodeBatch(text: string, scrapeTimeMs: number, nodeName: string): MetricsBatch {
  const node = emptyPoint();
  const pods = new Map<string, Map<string, MetricsPoint>>();
  const container = (s: Sample): MetricsPoint => {
    const key = `${s.labels.namespace ?? ''}/${s.labels.pod ?? ''}`;
    let p = pods.get(key);
    if (!p) pods.set(key, p = new Map());
    const name = s.labels.container ?? '';
    let c = p.get(name);
    if (!c) p.set(name, c = emptyPoint());
    return c;
  };
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const s = parseSample(line);
    if (!s) continue;
    const ts = s.timestampMs ?? scrapeTimeMs;
    switch (s.name) {
      case 'node_cpu_usage_seconds_total': node.cumulativeCPUUsed = Math.trunc(s.value * 1e9); node.timestampMs = ts; break;
      case 'node_memory_working_set_bytes': node.memoryUsage = Math.trunc(s.value); node.timestampMs = ts; break;
      case 'container_cpu_usage_seconds_total': { const c = container(s); c.cumulativeCPUUsed = Math.trunc(s.value * 1e9); c.timestampMs = ts; break; }
      case 'container_memory_working_set_bytes': { const c = container(s); c.memoryUsage = Math.trunc(s.value); c.timestampMs = ts; break; }
      case 'container_start_time_seconds': container(s).startTimeMs = Math.trunc(s.value * 1000); break;
      default: break;
    }
  }
  const batch: MetricsBatch = { nodes: new Map(), pods: new Map() };
  if (node.timestampMs !== 0 && node.cumulativeCPUUsed !== 0 && node.memoryUsage !== 0) batch.nodes.set(nodeName, node);
  for (const [key, containers] of pods) {
    // checkContainerMetrics: one incomplete container drops the pod.
    if ([...containers.values()].some((c) => c.cumulativeCPUUsed === 0 || c.memoryUsage === 0)) continue;
    batch.pods.set(key, containers);
  }
  return batch;
}

/** Several nodes' batches as one (the scraper's merge; a pod seen twice keeps the first). */
export function mergeBatches(batches: readonly MetricsBatch[]): MetricsBatch {
  const out: MetricsBatch = { nodes: new Map(), pods: new Map() };
  for (const b of batches) {
    for (const [k, v] of b.nodes) if (!out.nodes.has(k)) out.nodes.set(k, v);
    for (const [k, v] of b.pods) if (!out.pods.has(k)) out.pods.set(k, v);
  }
  return out;
}
