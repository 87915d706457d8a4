/**
 * metrics-server's reading of a kubelet's `/metrics/resource` (v0.7
 * pkg/scraper/client/resource/decode.go decodeBatch): node and container
 * CPU time and working set with their sample timestamps (the scrape's time
 * when a sample has none), container start times; a node point with no CPU
 * time or no memory is dropped, and so is a pod any of whose containers has
 * either at zero.
 */
import type { MetricFamily } from '../../exposition/prometheus-text.js';

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

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A quoted label value from `at` (just after the opening quote): its text and the index after the closing quote. */
function quoted(line: string, at: number): [string, number] | undefined {
  const end = line.indexOf('"', at);
  if (end < 0) return undefined;
  // Values without escapes (every kubelet label in practice) are one slice.
  if (line.lastIndexOf('\\', end) < at) return [line.slice(at, end), end + 1];
  let out = '';
  for (let i = at; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') return [out, i + 1];
    if (c === '\\' && i + 1 < line.length) { const n = line[++i]!; out += n === 'n' ? '\n' : n; } else out += c;
  }
  return undefined;
}

/** One exposition-format sample line (`name{a="b",...} value [timestamp]`). */
function parseSample(line: string): Sample | undefined {
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  const nameEnd = brace >= 0 && (space < 0 || brace < space) ? brace : space;
  if (nameEnd <= 0) return undefined;
  const name = line.slice(0, nameEnd);
  if (!NAME.test(name)) return undefined;
  const labels: Record<string, string> = {};
  let i = nameEnd;
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const eq = line.indexOf('="', i);
      if (eq < 0) return undefined;
      const label = line.slice(i, eq);
      if (!LABEL_NAME.test(label)) return undefined;
      const v = quoted(line, eq + 2);
      if (!v) return undefined;
      labels[label] = v[0];
      i = v[1];
      if (line[i] === ',') i++;
      else if (line[i] !== '}') return undefined;
    }
    i++;
  }
  const rest = line.slice(i).trim().split(/\s+/);
  if (rest.length < 1 || rest.length > 2 || rest[0] === '') return undefined;
  const value = Number(rest[0]);
  if (Number.isNaN(value)) return undefined;
  if (rest.length === 2 && !/^-?\d+$/.test(rest[1]!)) return undefined;
  return { name, labels, value, ...(rest.length === 2 ? { timestampMs: Number(rest[1]) } : {}) };
}

/** The labels a container's samples are keyed by ('' when absent). */
interface ContainerLabels { namespace: string; pod: string; container: string }

const containerLabels = (labels: Readonly<Record<string, string>>): ContainerLabels =>
  ({ namespace: labels.namespace ?? '', pod: labels.pod ?? '', container: labels.container ?? '' });

/** The samples of one scrape, folded into a batch as decodeBatch does. */
class BatchDecoder {
  private readonly node = emptyPoint();
  private readonly pods = new Map<string, Map<string, MetricsPoint>>();

  constructor(private readonly scrapeTimeMs: number) {}

  /** A sample; `labels` gives a label's value (the container ones: namespace, pod, container). */
  add(name: string, labels: ContainerLabels, value: number, timestampMs: number | undefined): void {
    const ts = timestampMs ?? this.scrapeTimeMs;
    switch (name) {
      case 'node_cpu_usage_seconds_total': this.node.cumulativeCPUUsed = Math.trunc(value * 1e9); this.node.timestampMs = ts; break;
      case 'node_memory_working_set_bytes': this.node.memoryUsage = Math.trunc(value); this.node.timestampMs = ts; break;
      case 'container_cpu_usage_seconds_total': { const c = this.container(labels); c.cumulativeCPUUsed = Math.trunc(value * 1e9); c.timestampMs = ts; break; }
      case 'container_memory_working_set_bytes': { const c = this.container(labels); c.memoryUsage = Math.trunc(value); c.timestampMs = ts; break; }
      case 'container_start_time_seconds': this.container(labels).startTimeMs = Math.trunc(value * 1000); break;
      default: break;
    }
  }

  private container(labels: ContainerLabels): MetricsPoint {
    const key = `${labels.namespace}/${labels.pod}`;
    let p = this.pods.get(key);
    if (!p) this.pods.set(key, p = new Map());
    const name = labels.container;
    let c = p.get(name);
    if (!c) p.set(name, c = emptyPoint());
    return c;
  }

  batch(nodeName: string): MetricsBatch {
    const batch: MetricsBatch = { nodes: new Map(), pods: new Map() };
    const { node } = this;
    if (node.timestampMs !== 0 && node.cumulativeCPUUsed !== 0 && node.memoryUsage !== 0) batch.nodes.set(nodeName, node);
    for (const [key, containers] of this.pods) {
      // checkContainerMetrics: one incomplete container drops the pod.
      if ([...containers.values()].some((c) => c.cumulativeCPUUsed === 0 || c.memoryUsage === 0)) continue;
      batch.pods.set(key, containers);
    }
    return batch;
  }
}

/** A kubelet's `/metrics/resource` text. */
export function decodeBatch(text: string, scrapeTimeMs: number, nodeName: string): MetricsBatch {
  const d = new BatchDecoder(scrapeTimeMs);
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const s = parseSample(line);
    if (s) d.add(s.name, containerLabels(s.labels), s.value, s.timestampMs);
  }
  return d.batch(nodeName);
}

/** The same endpoint's samples read in process, without their text: the batch decodeBatch makes of their exposition. */
export function decodeFamilies(families: readonly MetricFamily[], scrapeTimeMs: number, nodeName: string): MetricsBatch {
  const d = new BatchDecoder(scrapeTimeMs);
  for (const f of families) {
    for (const s of f.samples) {
      const labels: ContainerLabels = { namespace: '', pod: '', container: '' };
      for (const [k, v] of s.labels) if (k === 'namespace' || k === 'pod' || k === 'container') labels[k] = v;
      d.add(f.name, labels, s.value, s.timestampMs);
    }
  }
  return d.batch(nodeName);
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
