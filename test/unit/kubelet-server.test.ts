import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { buildSummary } from '../../src/node/kubelet-server/stats-summary.js';
import { resourceMetricsText } from '../../src/node/kubelet-server/resource-metrics.js';
import { goFloat, writePrometheusText } from '../../src/exposition/prometheus-text.js';
import { serveKubelet, type KubeletView } from '../../src/node/kubelet-server/kubelet-mux.js';

const nodes = expandPools(DEFAULT_POOLS);
const node = (name: string) => nodes.find((n) => n.name === name)!;
const NOW = new Date('2026-01-02T03:04:05.678Z');
const BOOT = new Date('2026-01-02T00:00:00Z');

function pod(name: string, extra: { phase?: string; running?: string[]; waiting?: string[]; memoryLimit?: string; volumes?: unknown[] } = {}): KObject {
  const containers = [...(extra.running ?? []), ...(extra.waiting ?? [])];
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      nodeName: 'linux-1',
      containers: containers.map((c) => ({ name: c, image: 'nginx', ...(extra.memoryLimit ? { resources: { limits: { memory: extra.memoryLimit } } } : {}) })),
      ...(extra.volumes ? { volumes: extra.volumes } : {}),
    },
    status: {
      phase: extra.phase ?? 'Running', startTime: '2026-01-02T01:00:00Z',
      containerStatuses: [
        ...(extra.running ?? []).map((c) => ({ name: c, state: { running: { startedAt: '2026-01-02T01:00:01Z' } }, containerID: `containerd://${c}id` })),
        ...(extra.waiting ?? []).map((c) => ({ name: c, state: { waiting: { reason: 'ContainerCreating' } } })),
      ],
    },
  } as KObject;
}

test('summary: node capacities from the pool, the node\'s own idle use, sample times now', () => {
  const s = buildSummary({ cfg: node('linux-1'), bootTime: BOOT, kubeletStartTime: BOOT, now: NOW, pods: [], imageBytes: 1000 });
  assert.equal(s.node.nodeName, 'linux-1');
  assert.equal(s.node.startTime, '2026-01-02T00:00:00Z');
  // A Debian node idles at 45m and 420Mi; its CPU time is that rate over the 11045 s from boot to the sample time.
  assert.deepEqual(s.node.cpu, { time: '2026-01-02T03:04:05Z', usageNanoCores: 45_000_000, usageCoreNanoSeconds: 497_025_000_000 });
  const ws = 420 * 1024 ** 2;
  assert.deepEqual(s.node.memory, { time: '2026-01-02T03:04:05Z', availableBytes: 16 * 1024 ** 3 - ws, usageBytes: ws, workingSetBytes: ws, rssBytes: ws, pageFaults: 0, majorPageFaults: 0 });
  const cap = 100 * 1024 ** 3;
  assert.deepEqual(s.node.fs!, { time: '2026-01-02T03:04:05Z', availableBytes: cap - 1000, capacityBytes: cap, usedBytes: 1000, inodesFree: cap / 16384, inodes: cap / 16384, inodesUsed: 0 });
  assert.deepEqual(s.node.runtime!.imageFs, s.node.fs);
  assert.deepEqual(s.node.network!.interfaces, [{ name: 'eth0', rxBytes: 0, rxErrors: 0, txBytes: 0, txErrors: 0 }]);
  assert.deepEqual(s.pods, []);
});

test('summary: Windows nodes report the pods and global commit memory system containers, no inodes', () => {
  const s = buildSummary({ cfg: node('win2019-1'), bootTime: BOOT, kubeletStartTime: BOOT, now: NOW, pods: [], imageBytes: 0 });
  assert.deepEqual(s.node.systemContainers.map((c) => c.name), ['pods', 'windows-global-commit-memory']);
  assert.equal(s.node.fs!.inodes, undefined);
  assert.equal(s.node.rlimit, undefined);
  assert.equal(s.node.network!.name, 'vEthernet (Ethernet)');
});

test('summary: a Windows pod network is its HNS endpoint, bytes only', () => {
  const s = buildSummary({ cfg: node('win2022-1'), bootTime: BOOT, kubeletStartTime: BOOT, now: NOW, imageBytes: 0, pods: [pod('web', { running: ['app'] })] });
  const [podStats] = s.pods;
  assert.ok(podStats);
  const net = podStats.network!;
  assert.match(net.name, /^[0-9a-f]{64}_flannel\.4096$/);
  assert.deepEqual(net.interfaces, [{ name: net.name, rxBytes: 0, txBytes: 0 }]);
  assert.equal(podStats.containers[0]?.rootfs!.inodes, undefined);
});

test('summary: live pods with their running containers, memory limit as available bytes, measured volumes', () => {
  const s = buildSummary({
    cfg: node('linux-1'), bootTime: BOOT, kubeletStartTime: BOOT, now: NOW, imageBytes: 0,
    pods: [
      pod('web', { running: ['b', 'a'], waiting: ['c'], memoryLimit: '128Mi', volumes: [{ name: 'cache', emptyDir: {} }, { name: 'host', hostPath: { path: '/' } }] }),
      pod('done', { phase: 'Succeeded', running: [] }),
    ],
  });
  assert.equal(s.pods.length, 1);
  const [p] = s.pods;
  assert.ok(p);
  assert.deepEqual(p.podRef, { name: 'web', namespace: 'default', uid: 'uid-web' });
  assert.deepEqual(p.containers.map((c) => c.name), ['a', 'b']);
  assert.equal(p.containers[0]?.startTime, '2026-01-02T01:00:01Z');
  // nginx idles at 3Mi: the rest of its limit is available.
  assert.equal(p.containers[0]?.memory!.availableBytes, 125 * 1024 ** 2);
  assert.equal(p.containers[0]?.memory!.workingSetBytes, 3 * 1024 ** 2);
  assert.equal(p.memory.workingSetBytes, 6 * 1024 ** 2);
  assert.equal(p.memory.availableBytes, undefined);
  assert.deepEqual(p.volume!.map((v) => v.name), ['cache']);
  assert.deepEqual(p.process_stats, { process_count: 0 });
});

test('goFloat formats as strconv.FormatFloat(v, \'g\', -1, 64)', () => {
  assert.equal(goFloat(0), '0');
  assert.equal(goFloat(123456), '123456');
  assert.equal(goFloat(1234567), '1.234567e+06');
  assert.equal(goFloat(1e6), '1e+06');
  assert.equal(goFloat(1767315601), '1.767315601e+09');
  assert.equal(goFloat(0.0001), '0.0001');
  assert.equal(goFloat(0.00001), '1e-05');
  assert.equal(goFloat(1.5), '1.5');
});

test('prometheus text: families by name, labels by name, samples by label values, empty families left out', () => {
  const text = writePrometheusText([
    { name: 'b_total', help: 'B.', type: 'counter', samples: [{ labels: [['pod', 'y'], ['namespace', 'n']], value: 2 }, { labels: [['pod', 'x'], ['namespace', 'n']], value: 1, timestampMs: 5 }] },
    { name: 'a', help: 'A "q"\\', type: 'gauge', samples: [{ labels: [['l', 'v"\n']], value: 0 }] },
    { name: 'c', help: 'C.', type: 'gauge', samples: [] },
  ]);
  assert.equal(text, '# HELP a A "q"\\\\\n# TYPE a gauge\na{l="v\\"\\n"} 0\n'
    + '# HELP b_total B.\n# TYPE b_total counter\nb_total{namespace="n",pod="x"} 1 5\nb_total{namespace="n",pod="y"} 2\n');
});

test('resource metrics: the kubelet series from a summary', () => {
  const s = buildSummary({ cfg: node('linux-1'), bootTime: BOOT, kubeletStartTime: BOOT, now: NOW, imageBytes: 0, pods: [pod('web', { running: ['app'] })] });
  const t = Date.parse('2026-01-02T03:04:05Z');
  assert.equal(resourceMetricsText(s), [
    '# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds',
    '# TYPE container_cpu_usage_seconds_total counter',
    // nginx's idle 0.3m for the 7444 s from its start to the sample time.
    `container_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 2.2332 ${t}`,
    '# HELP container_memory_working_set_bytes [STABLE] Current working set of the container in bytes',
    '# TYPE container_memory_working_set_bytes gauge',
    `container_memory_working_set_bytes{container="app",namespace="default",pod="web"} 3.145728e+06 ${t}`,
    '# HELP container_start_time_seconds [STABLE] Start time of the container since unix epoch in seconds',
    '# TYPE container_start_time_seconds gauge',
    'container_start_time_seconds{container="app",namespace="default",pod="web"} 1.767315601e+09',
    '# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds',
    '# TYPE node_cpu_usage_seconds_total counter',
    // The node's 45m and nginx's 0.3m over the 11045 s since boot.
    `node_cpu_usage_seconds_total 500.3385 ${t}`,
    '# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes',
    '# TYPE node_memory_working_set_bytes gauge',
    `node_memory_working_set_bytes 4.43547648e+08 ${t}`,
    '# HELP pod_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the pod in core-seconds',
    '# TYPE pod_cpu_usage_seconds_total counter',
    `pod_cpu_usage_seconds_total{namespace="default",pod="web"} 2.2332 ${t}`,
    '# HELP pod_memory_working_set_bytes [STABLE] Current working set of the pod in bytes',
    '# TYPE pod_memory_working_set_bytes gauge',
    `pod_memory_working_set_bytes{namespace="default",pod="web"} 3.145728e+06 ${t}`,
    '# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise',
    '# TYPE resource_scrape_error gauge',
    'resource_scrape_error 0',
    '',
  ].join('\n'));
});

test('kubelet mux: routes, go-restful and ServeMux 404s, /logs/ listings', async () => {
  const view: KubeletView = {
    cfg: node('linux-1'), index: 1, bootTime: BOOT, kubeletStartTime: BOOT, dns: { ip: '10.96.0.10', domain: 'cluster.local' },
    pods: async () => [pod('web', { running: ['app'] })], imageBytes: () => 0,
  };
  const q = new URLSearchParams();
  assert.equal((await serveKubelet(view, '/healthz', q)).body, 'ok');
  assert.equal((await serveKubelet(view, '/healthz/syncloop', q)).body, 'ok');
  assert.deepEqual(await serveKubelet(view, '/nope', q), { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }, body: '404 page not found\n' });
  assert.equal((await serveKubelet(view, '/stats/other', q)).body, '404: Page Not Found');
  assert.deepEqual(await serveKubelet(view, '/stats/summary', q, NOW, 'POST'), { status: 405, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '405: Method Not Allowed' });
  assert.equal((await serveKubelet(view, '/healthz', q, NOW, 'POST')).body, 'ok');
  assert.equal((await serveKubelet(view, '/logs', q)).status, 404);
  assert.equal((await serveKubelet(view, '/logs/pods', q)).headers.Location, 'pods/');
  assert.match((await serveKubelet(view, '/logs/pods/', new URLSearchParams('query=kubelet'))).body, /<a href="default_web_uid-web\/">default_web_uid-web\/<\/a>\n/);
  assert.match((await serveKubelet(view, '/logs/containers/', q)).body, /<a href="web_default_app-appid.log">web_default_app-appid.log<\/a>\n/);
  const summary = (await serveKubelet(view, '/stats/summary', q, NOW)).body;
  assert.match(summary, /^{\n "node": {\n  "nodeName": "linux-1",\n  "systemContainers": \[\n   {\n    "name": "kubelet",/, 'go-restful pretty-prints with one space');
  const brief = JSON.parse((await serveKubelet(view, '/stats/summary', new URLSearchParams('only_cpu_and_memory=true'), NOW)).body);
  assert.deepEqual(Object.keys(brief.node), ['nodeName', 'systemContainers', 'startTime', 'cpu', 'memory']);
  assert.deepEqual(Object.keys(brief.pods[0]), ['podRef', 'startTime', 'containers', 'cpu', 'memory']);
  assert.deepEqual(Object.keys(brief.pods[0].containers[0]), ['name', 'startTime', 'cpu', 'memory']);
  const configz = JSON.parse((await serveKubelet(view, '/configz', q)).body);
  assert.equal(configz.kubeletconfig.podCIDR, '10.244.1.0/24');
});
