/**
 * The kubelet's periodic pod resync (every 60 s per pod worker): what it
 * costs per pod to bring the pods' configMap, secret, downwardAPI and
 * projected volumes up to date. Pods carry the volumes a typical workload
 * has (a configMap, a secret, a downward API volume and the kube-api-access
 * projected volume with its service account token), on a stepped clock, so a
 * step of 60 s runs exactly one resync of every pod, timed as wall time of
 * that step (the eviction managers' loop, the only other periodic work, is
 * moved out of the measured window). Printed: the steady state (no source changed) and a resync
 * after every pod's configMap changed.
 * Run: npm run build && node dist/bench/volume-resync.js
 * Env: BENCH_PODS=2000, BENCH_RESYNCS=5.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../src/storage/sqlite.js';
import { Store } from '../src/registry/store.js';
import { allResources } from '../src/registry/resources.js';
import { bootstrapCluster } from '../src/cluster/bootstrap.js';
import { inProcessWriteContext } from '../src/apimachinery/write-context.js';
import { EventRecorder } from '../src/events/recorder.js';
import { NodeFarm } from '../src/node/farm.js';
import { ContainerLogs } from '../src/node/logs/container-logs.js';
import { Kubelet } from '../src/node/kubelet/kubelet.js';
import type { Clock, Timer } from '../src/node/kubelet/clock.js';
import { expandPools } from '../src/node/pool.js';
import { TimerWheel } from '../src/node/timer-wheel.js';
import { APISERVER_LOOPBACK } from '../src/client/identities.js';
import { LoopbackClient } from '../src/client/loopback.js';
import { PodTokenIssuer } from '../src/registry/auth/pod-tokens.js';
import { ServiceAccountTokens, TOKEN_ISSUER } from '../src/pki/service-account-tokens.js';
import type { KObject } from '../src/apimachinery/object.js';

const PODS = Number(process.env.BENCH_PODS ?? 2000);
const RESYNCS = Number(process.env.BENCH_RESYNCS ?? 5);
const PODS_PER_NODE = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A clock the bench steps, its timers in a binary heap: the tests' FakeClock
 * scans every pending timer for each one it fires, which at thousands of pods
 * would cost more than the resyncs being measured.
 */
class SteppedClock implements Clock {
  private heap: { at: number; seq: number; fn: () => void; period?: number; stopped: boolean }[] = [];
  private seq = 0;
  constructor(private time: number) {}
  now(): number { return this.time; }
  afterFunc(ms: number, fn: () => void): Timer { return this.add(ms, fn); }
  tick(ms: number, fn: () => void): Timer { return this.add(ms, fn, Math.max(1, ms)); }
  step(ms: number): void {
    const to = this.time + ms;
    for (let top = this.heap[0]; top && top.at <= to; top = this.heap[0]) {
      this.pop();
      if (top.stopped) continue;
      this.time = Math.max(this.time, top.at);
      if (top.period !== undefined) { top.at += top.period; top.seq = this.seq++; this.push(top); }
      top.fn();
    }
    this.time = to;
  }
  private add(ms: number, fn: () => void, period?: number): Timer {
    const t = { at: this.time + Math.max(0, ms), seq: this.seq++, fn, period, stopped: false };
    this.push(t);
    return { stop: () => { t.stopped = true; } };
  }
  private less(i: number, j: number): boolean {
    const a = this.heap[i]!; const b = this.heap[j]!;
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
  private swap(i: number, j: number): void { const t = this.heap[i]!; this.heap[i] = this.heap[j]!; this.heap[j] = t; }
  private push(t: SteppedClock['heap'][number]): void {
    this.heap.push(t);
    for (let i = this.heap.length - 1; i > 0 && this.less(i, (i - 1) >> 1); i = (i - 1) >> 1) this.swap(i, (i - 1) >> 1);
  }
  private pop(): void {
    const last = this.heap.pop()!;
    if (!this.heap.length) return;
    this.heap[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1; const r = l + 1; let m = i;
      if (l < this.heap.length && this.less(l, m)) m = l;
      if (r < this.heap.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m); i = m;
    }
  }
}

async function main(): Promise<void> {
  const pki = mkdtempSync(join(tmpdir(), 'wk-resync-'));
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const configs = expandPools([{ name: 'linux', count: Math.ceil(PODS / PODS_PER_NODE), os: 'linux', cpu: '64', memory: '256Gi' }]);
  const client = () => new LoopbackClient(store, APISERVER_LOOPBACK, 'kubelet');
  const farm = new NodeFarm(client(), configs, () => {}, new TimerWheel(1000));
  await farm.start();
  const clock = new SteppedClock(Date.parse('2025-06-01T12:00:00Z'));
  const tokens = await PodTokenIssuer.start(store, new ServiceAccountTokens(pki));
  const kubelet = new Kubelet(client(), configs, {
    logs: new ContainerLogs(), events: new EventRecorder(new LoopbackClient(store, APISERVER_LOOPBACK, 'bench'), () => {}), pullMs: 0, clock,
    // The eviction managers' 10 s loop would run inside every measured step: pushed past the bench's end, the steps time the resyncs.
    eviction: { monitoringPeriodMs: 1_000 * 3600 * 1000 },
    token: (pod, audience, expirationSeconds) => tokens.issue(pod, audience ? [audience] : [TOKEN_ISSUER], expirationSeconds, new Date(clock.now())),
  });
  await kubelet.start();
  const ctx = { ...inProcessWriteContext('bench'), namespace: 'default' };
  const create = (resource: string, obj: object) => store.create(store.find('', 'v1', resource)!, 'default', obj as KObject, ctx);
  await create('serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
  // What the root-ca-cert-publisher controller writes in every namespace (no controllers run here).
  await create('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt' }, data: { 'ca.crt': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' } });
  const CONFIGS = 20;
  for (let i = 0; i < CONFIGS; i++) {
    await create('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `app-config-${i}` }, data: { 'app.properties': 'a=1\nb=2\n', 'log.level': 'info' } });
    await create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `app-secret-${i}` }, data: { password: Buffer.from('hunter2').toString('base64') } });
  }
  for (let i = 0; i < PODS; i++) {
    await create('pods', {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: `app-${i}`, labels: { app: 'bench', tier: 'web' }, annotations: { owner: 'bench' } },
      spec: {
        nodeName: configs[Math.floor(i / PODS_PER_NODE)]!.name, tolerations: [{ operator: 'Exists' }], automountServiceAccountToken: false,
        containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'sleep 36000'], resources: { limits: { cpu: '500m', memory: '128Mi' } },
          volumeMounts: ['config', 'secret', 'podinfo', 'kube-api-access'].map((v) => ({ name: v, mountPath: `/etc/${v}`, readOnly: true })) }],
        volumes: [
          { name: 'config', configMap: { name: `app-config-${i % CONFIGS}` } },
          { name: 'secret', secret: { secretName: `app-secret-${i % CONFIGS}` } },
          { name: 'podinfo', downwardAPI: { items: [
            { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
            { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
            { path: 'cpu_limit', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } },
          ] } },
          { name: 'kube-api-access', projected: { defaultMode: 420, sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ] } },
        ],
      },
    });
  }
  // Every pod running before the clock moves (the writes of the first syncs land in real time).
  // Status writes are batched on the kubelet's clock: move it in small steps until every pod reports Running.
  for (let waited = 0; ; waited++) {
    const pods = await store.listAll('', 'pods', 'default');
    const running = pods.filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running').length;
    if (running === PODS) break;
    if (waited > 600) throw new Error(`only ${running} of ${PODS} pods running`);
    clock.step(100);
    await sleep(100);
  }
  await sleep(500);
  const resync = async (): Promise<number> => {
    const t0 = process.hrtime.bigint();
    clock.step(60_000);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    await sleep(50);
    return ms;
  };
  await resync(); // warm-up
  const steady: number[] = [];
  for (let i = 0; i < RESYNCS; i++) steady.push(await resync());
  for (let i = 0; i < CONFIGS; i++) {
    await store.update(store.find('', 'v1', 'configmaps')!, 'default', `app-config-${i}`, (cur) => ({ ...cur, data: { 'app.properties': 'a=2\n', 'log.level': 'debug' } }) as KObject, ctx);
  }
  await sleep(500);
  const changed = await resync();
  const perPod = (ms: number) => (ms * 1000 / PODS).toFixed(1);
  const median = [...steady].sort((a, b) => a - b)[Math.floor(steady.length / 2)]!;
  console.log(`pods: ${PODS} (each: configMap, secret, downwardAPI and kube-api-access projected volumes)`);
  console.log(`resync, no source changed: ${median.toFixed(1)} ms for all pods (median of ${RESYNCS}), ${perPod(median)} µs per pod`);
  console.log(`resync after every pod's configMap changed: ${changed.toFixed(1)} ms, ${perPod(changed)} µs per pod`);
  console.log(`at 50,000 pods (one resync per pod per 60 s): ${(50_000 / 60 * median / PODS).toFixed(1)} ms of resync work per second`);
  await kubelet.stop();
  await farm.stop();
  await storage.close();
  rmSync(pki, { recursive: true, force: true });
}

await main();
