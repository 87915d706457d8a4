import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { decodeBatch, decodeFamilies, mergeBatches, type MetricsBatch } from '../../src/addons/metrics-server/decode.js';
import { resourceMetricFamilies, resourceMetricsText } from '../../src/node/kubelet-server/resource-metrics.js';
import { buildSummary } from '../../src/node/kubelet-server/stats-summary.js';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import { MetricsStorage } from '../../src/addons/metrics-server/storage.js';
import { serveMetricsAPI, type MetricsSource } from '../../src/addons/metrics-server/api.js';
import { usageList } from '../../src/addons/metrics-server/objects.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const s = (ms: number) => T0 + ms;

/** A kubelet's /metrics/resource text: a node and one pod's containers. */
function kubeletText(at: number, nodeCPUSeconds: number, containers: Array<{ pod: string; name: string; cpuSeconds: number; ws: number; start: number }>): string {
  const lines = [
    '# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds',
    '# TYPE node_cpu_usage_seconds_total counter',
    `node_cpu_usage_seconds_total ${nodeCPUSeconds} ${at}`,
    `node_memory_working_set_bytes 4.4e+08 ${at}`,
  ];
  for (const c of containers) {
    const l = `container="${c.name}",namespace="default",pod="${c.pod}"`;
    lines.push(`container_cpu_usage_seconds_total{${l}} ${c.cpuSeconds} ${at}`, `container_memory_working_set_bytes{${l}} ${c.ws} ${at}`,
      `container_start_time_seconds{${l}} ${c.start / 1000}`);
  }
  lines.push('resource_scrape_error 0', '');
  return lines.join('\n');
}

test('decode: node and container points with the samples\' timestamps; incomplete ones dropped as metrics-server drops them', () => {
  const b = decodeBatch(kubeletText(s(15_000), 12.5, [
    { pod: 'web', name: 'app', cpuSeconds: 1.5, ws: 3145728, start: s(0) },
    { pod: 'idle', name: 'app', cpuSeconds: 0, ws: 1024, start: s(0) },
  ]), s(15_500), 'linux-1');
  assert.deepEqual(b.nodes.get('linux-1'), { startTimeMs: 0, timestampMs: s(15_000), cumulativeCPUUsed: 12.5e9, memoryUsage: 4.4e8 });
  assert.deepEqual(b.pods.get('default/web')?.get('app'), { startTimeMs: s(0), timestampMs: s(15_000), cumulativeCPUUsed: 1.5e9, memoryUsage: 3145728 });
  // No CPU time yet: the pod is left out.
  assert.equal(b.pods.has('default/idle'), false);
  // A node without CPU time is left out.
  assert.equal(decodeBatch('node_memory_working_set_bytes 5\n', s(0), 'n').nodes.size, 0);
});

function batch(at: number, nodeCPU: number, cpuSeconds: number, start = s(0)): MetricsBatch {
  return mergeBatches([decodeBatch(kubeletText(at, nodeCPU, [{ pod: 'web', name: 'app', cpuSeconds, ws: 3145728, start }]), at, 'linux-1')]);
}

test('decode: a line\'s labels in any order, escaped values, no timestamp; what is not a sample is skipped', () => {
  const text = [
    'container_cpu_usage_seconds_total{pod="a\\"b",namespace="n\\\\s",container="c\\nd"} 2 1000',
    'container_memory_working_set_bytes{container="c\\nd",namespace="n\\\\s",pod="a\\"b",} 7',
    'container_memory_working_set_bytes{container="x" 7',
    'node_cpu_usage_seconds_total 1 2 3',
    'not a sample',
  ].join('\n');
  const b = decodeBatch(text, 5000, 'n');
  assert.deepEqual([...b.pods.keys()], ['n\\s/a"b']);
  assert.deepEqual(b.pods.get('n\\s/a"b')?.get('c\nd'), { startTimeMs: 0, timestampMs: 5000, cumulativeCPUUsed: 2e9, memoryUsage: 7 });
  assert.equal(b.nodes.size, 0);
});

test('decode: a kubelet\'s samples read in process make the batch their text makes, Linux and Windows nodes', () => {
  const nodes = expandPools(DEFAULT_POOLS);
  const started = '2026-01-01T00:00:10Z';
  const pod = (name: string, node: string, containers: string[]): KObject => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { nodeName: node, containers: containers.map((c) => ({ name: c, image: 'nginx', resources: { limits: { memory: '64Mi', cpu: '250m' } } })) },
    status: { phase: 'Running', startTime: started, containerStatuses: containers.map((c) => ({ name: c, state: { running: { startedAt: started } } })) },
  } as KObject);
  for (const cfg of [nodes.find((n) => n.os === 'linux' && n.pool === 'linux')!, nodes.find((n) => n.os === 'windows')!]) {
    const summary = buildSummary({
      cfg, bootTime: new Date(T0), kubeletStartTime: new Date(T0), now: new Date(s(61_234)), imageBytes: 0, cpuAndMemoryOnly: true,
      pods: [pod('web', cfg.name, ['app', 'sidecar']), pod('one', cfg.name, ['app'])],
    });
    const fromText = decodeBatch(resourceMetricsText(summary), s(62_000), cfg.name);
    assert.equal(fromText.pods.size, 2);
    assert.deepEqual(decodeFamilies(resourceMetricFamilies(summary), s(62_000), cfg.name), fromText);
  }
});

test('storage: usage is the CPU time between the last two points over their window', () => {
  const st = new MetricsStorage(15_000);
  st.store(batch(s(60_000), 100, 10));
  assert.equal(st.nodeUsage('linux-1'), undefined);
  assert.equal(st.podUsage('default', 'web'), undefined);
  st.store(batch(s(75_000), 101.5, 13));
  assert.deepEqual(st.nodeUsage('linux-1'), { nanoCores: 100_000_000, memoryBytes: 4.4e8, timestampMs: s(75_000), windowMs: 15_000 });
  assert.deepEqual(st.podUsage('default', 'web'), { containers: [{ name: 'app', usage: { nanoCores: 200_000_000, memoryBytes: 3145728, timestampMs: s(75_000), windowMs: 15_000 } }], timestampMs: s(75_000), windowMs: 15_000 });
});

test('storage: a container between 10 s and the resolution old is measured from its start; a restarted one starts over', () => {
  const st = new MetricsStorage(15_000);
  st.store(batch(s(12_000), 50, 0.6));
  assert.deepEqual(st.podUsage('default', 'web')?.containers[0]?.usage, { nanoCores: 50_000_000, memoryBytes: 3145728, timestampMs: s(12_000), windowMs: 12_000 });
  // Restarted at 20 s: its new point is not compared with the old instance's.
  st.store(batch(s(27_000), 60, 0.1, s(20_000)));
  assert.equal(st.podUsage('default', 'web'), undefined);
});

function source(st: MetricsStorage): MetricsSource {
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'linux-1', labels: { 'kubernetes.io/os': 'linux' } } } as KObject;
  const pods = [
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'new', namespace: 'default' } },
  ] as KObject[];
  return { nodes: () => [node], pods: (ns) => pods.filter((p) => !ns || p.metadata.namespace === ns), storage: st };
}

test('metrics.k8s.io: NodeMetrics and PodMetrics as metrics-server v0.7 writes them', () => {
  const st = new MetricsStorage(15_000);
  st.store(batch(s(60_000), 100, 10));
  st.store(batch(s(75_000), 101.5, 13));
  const now = new Date(s(80_000));
  const get = (path: string, query = '') => serveMetricsAPI('GET', path, new URLSearchParams(query), source(st), now);
  const node = get('/apis/metrics.k8s.io/v1beta1/nodes/linux-1');
  assert.equal(node.status, 200);
  assert.equal(node.body, '{"kind":"NodeMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":"linux-1","creationTimestamp":"2026-01-01T00:01:20Z","labels":{"kubernetes.io/os":"linux"}},"timestamp":"2026-01-01T00:01:15Z","window":"15s","usage":{"cpu":"100m","memory":"440000000"}}');
  const pods = JSON.parse(get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods').body);
  // The pod without two points yet is left out of the list.
  assert.deepEqual(pods, { kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items: [
    { kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { name: 'web', namespace: 'default', creationTimestamp: '2026-01-01T00:01:20Z', labels: { app: 'web' } },
      timestamp: '2026-01-01T00:01:15Z', window: '15s', containers: [{ name: 'app', usage: { cpu: '200m', memory: '3Mi' } }] },
  ] });
  assert.equal(JSON.parse(get('/apis/metrics.k8s.io/v1beta1/pods', 'labelSelector=app%3Dother').body).items.length, 0);
  const missing = get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/new');
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.body).message, 'podmetrics.metrics.k8s.io "default/new" not found');
  assert.equal(JSON.parse(get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope').body).message, 'pods "nope" not found');
  assert.equal(JSON.parse(get('/apis/metrics.k8s.io/v1beta1/nodes/nope').body).message, 'node "nope" not found');
  assert.equal(serveMetricsAPI('DELETE', '/apis/metrics.k8s.io/v1beta1/nodes/linux-1', new URLSearchParams(), source(st), now).status, 405);
  assert.deepEqual(JSON.parse(get('/apis/metrics.k8s.io/v1beta1').body).resources.map((r: { name: string; kind: string; namespaced: boolean }) => [r.name, r.kind, r.namespaced]),
    [['nodes', 'NodeMetrics', false], ['pods', 'PodMetrics', true]]);
});

test('Tables: as kubectl get asks for them (Accept as=Table), the columns and cells of metrics-server\'s ConvertToTable', () => {
  const st = new MetricsStorage(15_000);
  st.store(batch(s(60_000), 100, 10));
  st.store(batch(s(75_000), 101.5, 13));
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  const get = (path: string, query = '') => JSON.parse(serveMetricsAPI('GET', path, new URLSearchParams(query), source(st), new Date(s(80_000)), accept).body);
  const nodes = get('/apis/metrics.k8s.io/v1beta1/nodes');
  assert.deepEqual([nodes.kind, nodes.apiVersion], ['Table', 'meta.k8s.io/v1']);
  assert.deepEqual(nodes.columnDefinitions.map((c: { name: string; format: string }) => [c.name, c.format]), [['Name', 'name'], ['cpu', 'quantity'], ['memory', 'quantity'], ['Window', 'duration']]);
  assert.deepEqual(nodes.rows.map((r: { cells: unknown[] }) => r.cells), [['linux-1', '100m', '440000000', '15s']]);
  assert.deepEqual(nodes.rows[0].object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'linux-1', creationTimestamp: '2026-01-01T00:01:20Z', labels: { 'kubernetes.io/os': 'linux' } } });
  assert.equal(get('/apis/metrics.k8s.io/v1beta1/nodes', 'includeObject=None').rows[0].object, null);
  assert.deepEqual(get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web').rows.map((r: { cells: unknown[] }) => r.cells), [['web', '200m', '3Mi', '15s']]);
  // Without the Table media type: the objects.
  assert.equal(JSON.parse(serveMetricsAPI('GET', '/apis/metrics.k8s.io/v1beta1/nodes', new URLSearchParams(), source(st), new Date(s(80_000)), 'application/json').body).kind, 'NodeMetricsList');
});

test('usage quantities: CPU in nanocores and memory in bytes, in canonical form', () => {
  assert.deepEqual(usageList({ nanoCores: 192519503, memoryBytes: 1743408 * 1024 }), { cpu: '192519503n', memory: '1743408Ki' });
  assert.deepEqual(usageList({ nanoCores: 250_000_000, memoryBytes: 1000 }), { cpu: '250m', memory: '1k' });
  assert.deepEqual(usageList({ nanoCores: 1500, memoryBytes: 1001 }), { cpu: '1500n', memory: '1001' });
});
