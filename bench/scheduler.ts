/**
 * Scheduler figures, kube-scheduler scheduler_perf style: 5,000 hand-made
 * nodes (half Windows Server 2022, half Linux), 1,000 pods placed first, then
 * 10,000 measured pods created through the Store; prints pods/s from the
 * first creation to the last binding seen on the watch, and the p50/p99
 * creation→bound latency.
 *   SchedulingBasic: scheduler_perf's pod-default.yaml (100m / 500Mi, no selector).
 *   Mixed: Windows pods (OS selector + toleration of the Windows pool's taint)
 *          and Linux pods (OS selector), each spread over zones (maxSkew 1).
 * The server is `winkube up --api-only` in-process plus the scheduler, as
 * scheduler_perf runs kube-apiserver and kube-scheduler without controllers.
 * A third figure runs the scheduling algorithm alone in memory (CPU time), which
 * stays meaningful when other processes load the machine; it adds DaemonSet pods
 * (each pinned to its node by `metadata.name`, as the DaemonSet controller does).
 * Run: npm run bench:scheduler [algorithm|basic|mixed]  (BENCH_NODES / BENCH_PODS to change sizes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../src/cluster/start.js';
import { inProcessWriteContext } from '../src/apimachinery/write-context.js';
import { machineIdentity } from '../src/node/identity.js';
import { buildNode } from '../src/node/node-object.js';
import { DEFAULT_NETWORK } from '../src/node/network.js';
import { expandPools } from '../src/node/pool.js';
import type { KObject } from '../src/apimachinery/object.js';
import { EventRecorder } from '../src/events/recorder.js';
import { metrics, resetMetrics, SCHEDULER, Scheduler } from '../src/scheduler/scheduler.js';
import { LoopbackClient } from '../src/client/loopback.js';
import { KUBE_SCHEDULER } from '../src/client/identities.js';
import { SchedulerCache } from '../src/scheduler/cache.js';
import { PodInfo } from '../src/scheduler/pod-info.js';
import { buildProfile } from '../src/scheduler/profile.js';

const NODES = Number(process.env.BENCH_NODES ?? 5000);
const INIT_PODS = Number(process.env.BENCH_INIT_PODS ?? 1000);
const PODS = Number(process.env.BENCH_PODS ?? 10_000);
const CONCURRENCY = 64;

/** The p-th percentile of sorted samples; p = 100 is the largest. */
function pct(sorted: number[], p: number): number {
  const v = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  if (v === undefined) throw new Error('no samples to take a percentile of');
  return v;
}

function basicPod(i: number, prefix: string): any {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: `${prefix}-${i}` },
    spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 80 }],
      resources: { limits: { cpu: '100m', memory: '500Mi' }, requests: { cpu: '100m', memory: '500Mi' } } }] },
  };
}

function mixedPod(i: number, prefix: string): any {
  const p = basicPod(i, prefix);
  const windows = i % 2 === 0;
  const app = windows ? 'web-win' : 'web-linux';
  p.metadata.labels = { app };
  p.spec.nodeSelector = { 'kubernetes.io/os': windows ? 'windows' : 'linux' };
  if (windows) {
    p.spec.containers[0].image = 'mcr.microsoft.com/oss/kubernetes/pause:3.10';
    p.spec.tolerations = [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }];
  }
  p.spec.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } }];
  return p;
}

/** Half Linux, half Windows Server 2022 nodes (4 CPU, 32Gi); a /9 pod subnet holds a /24 for each of 5,000. */
function benchPools(mixed: boolean) {
  const network = { ...DEFAULT_NETWORK, podSubnet: '10.128.0.0/9' };
  return expandPools([
    { name: 'linux', count: NODES / 2, os: 'linux', cpu: '4', memory: '32Gi', network },
    { name: 'win', count: NODES / 2, os: 'windows', windowsVersion: 'ltsc2022', cpu: '4', memory: '32Gi', network,
      ...(mixed ? { taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' as const }] } : {}) },
  ]);
}

async function run(name: string, mixed: boolean): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'winkube-bench-sched-'));
  // As scheduler_perf: an API server and the scheduler, no controllers (their reactions to 5,000 nodes are bench/controllers').
  const cluster = await startCluster({ port: 0, dataDir, bindAddress: '127.0.0.1', nodePools: [], log: () => {}, apiOnly: true });
  const store = cluster.store;
  const client = new LoopbackClient(store, KUBE_SCHEDULER, SCHEDULER);
  const scheduler = new Scheduler(client, new EventRecorder(client));
  await scheduler.start();
  const nodesDef = store.find('', 'v1', 'nodes')!;
  const podsDef = store.find('', 'v1', 'pods')!;
  const ctx = inProcessWriteContext('bench');
  const configs = benchPools(mixed);
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const setup = performance.now();
  for (let i = 0; i < configs.length; i += CONCURRENCY) {
    await Promise.all(configs.slice(i, i + CONCURRENCY).map((cfg, j) => {
      const node = buildNode(cfg, i + j, machineIdentity(cfg.name, cfg.os), now);
      node.metadata.labels['topology.kubernetes.io/zone'] = `zone-${(i + j) % 10}`;
      return store.create(nodesDef, '', node as KObject, ctx).then(() =>
        // The TaintNodesByCondition admission adds not-ready on create; the node lifecycle controller lifts it once Ready.
        store.update(nodesDef, '', cfg.name, (n: any) => {
          n.spec.taints = (n.spec.taints ?? []).filter((t: any) => t.key !== 'node.kubernetes.io/not-ready');
          if (!n.spec.taints.length) delete n.spec.taints;
          return n;
        }, ctx));
    }));
  }
  const created = new Map<string, number>();
  const latencies: number[] = [];
  let bound = 0;
  let lastBound = 0;
  let resolveAll!: () => void;
  let target = INIT_PODS;
  let done = new Promise<void>((r) => { resolveAll = r; });
  const seen = new Set<string>();
  const watch = await store.watch(podsDef, '', store.storage.currentRevision(), {}, (type, obj: any) => {
    if (type === 'DELETED' || !obj.spec?.nodeName || seen.has(obj.metadata.name)) return;
    seen.add(obj.metadata.name);
    const t = performance.now();
    const c = created.get(obj.metadata.name);
    if (c !== undefined) latencies.push(t - c);
    bound++;
    lastBound = t;
    if (bound >= target) resolveAll();
  });
  const podCtx = { ...inProcessWriteContext('bench'), namespace: 'default' };
  const createAll = async (n: number, prefix: string, shape: (i: number, p: string) => any, measure: boolean) => {
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const pod = shape(i, prefix);
        const t = performance.now();
        if (measure) created.set(pod.metadata.name, t);
        await store.create(podsDef, 'default', pod as KObject, { ...podCtx, now: new Date() });
      }
    }));
  };
  console.error(`  (${NODES} nodes created in ${((performance.now() - setup) / 1000).toFixed(1)} s)`);
  // Init pods (not measured), as scheduler_perf's initPods.
  const init = performance.now();
  await createAll(INIT_PODS, 'init', mixed ? mixedPod : basicPod, false);
  await done;
  console.error(`  (${INIT_PODS} init pods placed in ${((performance.now() - init) / 1000).toFixed(1)} s)`);
  bound = 0; latencies.length = 0; target = PODS;
  done = new Promise<void>((r) => { resolveAll = r; });
  resetMetrics();
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await createAll(PODS, 'pod', mixed ? mixedPod : basicPod, true);
  const createdAt = performance.now();
  await done;
  const seconds = (lastBound - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  const algo = [...metrics.algorithmDurations].sort((a, b) => a - b);
  console.log(`${name}: ${NODES} nodes, ${PODS} pods`);
  console.log(`  end to end: ${(PODS / seconds).toFixed(0)} pods/s creation→bound (${seconds.toFixed(2)} s; the creations alone took ` +
    `${((createdAt - start) / 1000).toFixed(2)} s), creation→bound latency p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms`);
  console.log(`  scheduling algorithm: ${(metrics.scheduled / (metrics.algorithmMs / 1000)).toFixed(0)} pods/s of scheduling-cycle time, ` +
    `per pod p50 ${pct(algo, 50).toFixed(3)} ms, p99 ${pct(algo, 99).toFixed(3)} ms, ${(metrics.evaluatedNodes / metrics.scheduled).toFixed(0)} nodes filtered per pod`);
  console.log(`  process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s over ${seconds.toFixed(2)} s wall (load average ${(await import('node:os')).loadavg()[0]?.toFixed(1) ?? '?'})`);
  watch.cancel();
  await scheduler.stop();
  await cluster.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * The scheduling algorithm alone, in memory (no store, no events): the same
 * Framework over a SchedulerCache of the same nodes, pods assumed as they are
 * placed. CPU time, so other load on the machine does not count.
 */
/** A DaemonSet's pod for node i: pinned by the controller's `metadata.name In [node]` affinity. */
function daemonPod(i: number, prefix: string): any {
  const p = basicPod(i, prefix);
  const node = i % 2 === 0 ? `linux-${(i >> 1) % (NODES / 2) + 1}` : `win-${(i >> 1) % (NODES / 2) + 1}`;
  p.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
    { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] } } };
  return p;
}

function algorithmOnly(name: string, mixed: boolean, shapeOf?: (i: number, prefix: string) => any): void {
  const cache = new SchedulerCache(() => undefined, { pvc: () => undefined, pv: () => undefined, storageClass: () => undefined, defaultSelector: () => undefined });
  const configs = benchPools(mixed);
  configs.forEach((cfg, i) => {
    const node = buildNode(cfg, i % 200, machineIdentity(cfg.name, cfg.os), '2026-01-01T00:00:00Z');
    node.metadata.labels['topology.kubernetes.io/zone'] = `zone-${i % 10}`;
    cache.setNode(node);
  });
  const { framework } = buildProfile();
  const shape = shapeOf ?? (mixed ? mixedPod : basicPod);
  const place = (n: number, prefix: string) => {
    const durations: number[] = [];
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const pod = shape(i, prefix);
      pod.metadata.namespace = 'default'; pod.metadata.uid = `${prefix}-${i}`; pod.spec.priority = 0;
      const t = performance.now();
      const p = new PodInfo(pod);
      const r = framework.schedule(p, cache);
      cache.assume(p.withPod({ ...p.pod, spec: { ...p.pod.spec, nodeName: r.node } }), r.node);
      durations.push(performance.now() - t);
    }
    const c = process.cpuUsage(c0);
    return { cpuSeconds: (c.user + c.system) / 1e6, durations: durations.sort((a, b) => a - b) };
  };
  place(INIT_PODS, 'init');
  const r = place(PODS, 'pod');
  console.log(`${name}, algorithm only (in memory): ${(PODS / r.cpuSeconds).toFixed(0)} pods/s of CPU time, ` +
    `per pod p50 ${pct(r.durations, 50).toFixed(3)} ms, p99 ${pct(r.durations, 99).toFixed(3)} ms`);
}

async function main(): Promise<void> {
  const which = process.argv[2];
  if (!which || which === 'algorithm') {
    algorithmOnly('SchedulingBasic', false);
    algorithmOnly('Mixed (OS selectors, tolerations, zone spread)', true);
    algorithmOnly('DaemonSet pods (pinned by metadata.name)', false, daemonPod);
  }
  if (!which || which === 'basic') await run('SchedulingBasic', false);
  if (!which || which === 'mixed') await run('Mixed (OS selectors, tolerations, zone spread)', true);
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
