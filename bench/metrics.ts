/**
 * The cost of metrics at scale: every metric resolution (15 s) metrics-server
 * scrapes every node's kubelet `/metrics/resource`, each kubelet computing its
 * pods' usage and writing the Prometheus text, metrics-server parsing and
 * storing it. This runs that pipeline (the same functions `winkube up
 * --metrics-server` runs, without the HTTP hops in between) for a cluster of
 * BENCH_METRICS_NODES nodes (4/5 Linux, 1/5 Windows 2019 and 2022) with
 * BENCH_METRICS_PODS_PER_NODE running pods each (every fifth with a sidecar),
 * on a simulated clock 15 s apart, and prints the process CPU time per round
 * and as a share of one core at that resolution, then what one `kubectl top
 * pods -A` and `kubectl top nodes` cost to answer.
 * The scrape is metrics-server's own (scrapeNodes), so its concurrency is what `winkube up` runs.
 * Run: npm run build && npm run bench:metrics
 * Env: BENCH_METRICS_NODES=5000, BENCH_METRICS_PODS_PER_NODE=10, BENCH_METRICS_ROUNDS=8.
 */
import type { KObject } from '../src/apimachinery/object.js';
import { serveMetricsAPI } from '../src/addons/metrics-server/api.js';
import { DEFAULT_METRIC_RESOLUTION_MS, scrapeNodes } from '../src/addons/metrics-server/server.js';
import { MetricsStorage } from '../src/addons/metrics-server/storage.js';
import { resourceMetrics, serveKubelet, type KubeletView } from '../src/node/kubelet-server/kubelet-mux.js';
import { NodeCPUCounter } from '../src/node/kubelet-server/node-cpu-counter.js';
import { expandPools, type NodeConfig } from '../src/node/pool.js';
import { NODE_IDLE } from '../src/node/usage/idle-usage.js';

const NODES = Number(process.env.BENCH_METRICS_NODES ?? 5000);
const PODS_PER_NODE = Number(process.env.BENCH_METRICS_PODS_PER_NODE ?? 10);
const ROUNDS = Number(process.env.BENCH_METRICS_ROUNDS ?? 8);
const RESOLUTION_MS = DEFAULT_METRIC_RESOLUTION_MS;

const windowsNodes = Math.round(NODES / 5);
// A /24 per node: 5,000 nodes need a pod subnet wider than flannel's default /16.
const network = { plugin: 'flannel', mode: 'overlay', podSubnet: '10.128.0.0/9' } as const;
const configs = expandPools([
  { name: 'linux', count: NODES - windowsNodes, os: 'linux', cpu: '8', memory: '32Gi', network },
  { name: 'win2019', count: Math.ceil(windowsNodes / 2), os: 'windows', windowsVersion: 'ltsc2019', cpu: '8', memory: '32Gi', network },
  { name: 'win2022', count: Math.floor(windowsNodes / 2), os: 'windows', windowsVersion: 'ltsc2022', cpu: '8', memory: '32Gi', network },
]);

const BOOT = new Date('2026-01-01T00:00:00Z');
const STARTED = '2026-01-01T00:01:00Z';

function podsOf(cfg: NodeConfig): KObject[] {
  const image = cfg.os === 'windows' ? 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' : 'nginx:1.27';
  return Array.from({ length: PODS_PER_NODE }, (_, i) => {
    const names = i % 5 === 0 ? ['app', 'sidecar'] : ['app'];
    return {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: `${cfg.name}-pod-${i}`, namespace: `ns-${i % 20}`, uid: `${cfg.name}-${i}` },
      spec: {
        nodeName: cfg.name,
        containers: names.map((name) => ({ name, image, resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } } })),
      },
      status: {
        phase: 'Running', startTime: STARTED,
        containerStatuses: names.map((name) => ({ name, image, restartCount: 0, state: { running: { startedAt: STARTED } }, containerID: `containerd://${cfg.name}-${i}-${name}` })),
      },
    } as KObject;
  });
}

const views: KubeletView[] = configs.map((cfg, index) => {
  const pods = podsOf(cfg);
  const cpu = new NodeCPUCounter(BOOT.getTime(), NODE_IDLE[cfg.os].nanoCores);
  return {
    cfg, index, bootTime: BOOT, kubeletStartTime: BOOT, dns: { ip: '10.96.0.10', domain: 'cluster.local' },
    pods: () => Promise.resolve(pods),
    imageBytes: () => 0,
    nodeCPUTime: (nowMs, nanoCores) => cpu.read(nowMs, nanoCores),
  };
});
const viewByName = new Map(views.map((v) => [v.cfg.name, v]));
const nodeObjects = configs.map((cfg) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: cfg.name } }) as KObject);
const allPods = (await Promise.all(views.map((v) => v.pods()))).flat();

const storage = new MetricsStorage(RESOLUTION_MS);
let scrapedBytes = 0;

/**
 * One metric resolution: every kubelet's /metrics/resource, decoded and stored as one batch. `inProcess`
 * reads the samples as `winkube up` does; otherwise their text, as a kubelet over HTTP would send it.
 */
async function round(now: Date, inProcess: boolean): Promise<void> {
  const batch = await scrapeNodes(configs.map((c) => c.name), async (name) => {
    const view = viewByName.get(name)!;
    if (inProcess) return resourceMetrics(view, now);
    const r = await serveKubelet(view, '/metrics/resource', new URLSearchParams(), now, 'GET');
    scrapedBytes += r.body.length;
    return r.body;
  }, now.getTime(), (m) => { throw new Error(m); });
  storage.store(batch);
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
let t = Date.parse('2026-01-01T01:00:00Z');

/** CPU ms of each of ROUNDS rounds, sorted, after two (usage needs two points; the first pay the compiler's warm-up). */
async function measure(inProcess: boolean): Promise<number[]> {
  for (let i = 0; i < 2; i++) { await round(new Date(t), inProcess); t += RESOLUTION_MS; }
  const out: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const before = process.cpuUsage();
    await round(new Date(t), inProcess);
    out.push(cpuMs(process.cpuUsage(before)));
    t += RESOLUTION_MS;
  }
  return out.sort((a, b) => a - b);
}
const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
const overText = await measure(false);
const textBytes = scrapedBytes / (ROUNDS + 2);
const inProcess = await measure(true);

const source = { nodes: () => nodeObjects, pods: () => allPods, storage };
const answer = (path: string) => {
  const before = process.cpuUsage();
  const r = serveMetricsAPI('GET', path, new URLSearchParams(), source, new Date(t), 'application/json');
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body.slice(0, 200)}`);
  return { ms: cpuMs(process.cpuUsage(before)), items: (JSON.parse(r.body) as { items: unknown[] }).items.length };
};
const topPods = answer('/apis/metrics.k8s.io/v1beta1/pods');
const topNodes = answer('/apis/metrics.k8s.io/v1beta1/nodes');
global.gc?.();

const containers = allPods.reduce((n, p) => n + ((p.spec as { containers: unknown[] }).containers.length), 0);
console.log(`metrics pipeline: ${configs.length} nodes (${windowsNodes} Windows), ${allPods.length} pods, ${containers} containers, resolution ${RESOLUTION_MS / 1000} s`);
const line = (what: string, xs: number[]) => console.log(`  ${what}: median ${median(xs).toFixed(0)} ms CPU per resolution ` +
  `(min ${xs[0]!.toFixed(0)}, max ${xs[xs.length - 1]!.toFixed(0)}, ${ROUNDS} rounds) = ${(median(xs) / RESOLUTION_MS * 100).toFixed(2)} % of one core`);
line('in process, as winkube up scrapes (samples, no text)', inProcess);
line(`over text, as a kubelet over HTTP (${(textBytes / 1024 / 1024).toFixed(1)} MiB a round)`, overText);
console.log('  target: under 5 % of one core at the 15 s resolution');
console.log(`  kubectl top pods -A (${topPods.items} PodMetrics): ${topPods.ms.toFixed(0)} ms CPU; kubectl top nodes (${topNodes.items} NodeMetrics): ${topNodes.ms.toFixed(0)} ms CPU`);
console.log(`  heap used after: ${(process.memoryUsage().heapUsed / 1024 / 1024).toFixed(0)} MiB`);
