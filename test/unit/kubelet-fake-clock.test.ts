import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { controllerContext } from '../../src/controllers/context.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { NodeFarm } from '../../src/node/farm.js';
import { ContainerLogs } from '../../src/node/logs/container-logs.js';
import { Kubelet } from '../../src/node/kubelet/kubelet.js';
import { FakeClock } from '../../src/node/kubelet/clock.js';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import { TimerWheel } from '../../src/node/timer-wheel.js';
import type { KObject } from '../../src/registry/types.js';

type Obj = Record<string, unknown>;
interface ContainerStatus { ready: boolean; restartCount: number; state: Record<string, { reason?: string }>; lastState: { terminated?: { exitCode: number } } }
interface PodStatus { containerStatuses?: ContainerStatus[]; conditions?: { type: string; status: string }[] }

/**
 * The kubelet on a clock only the test moves: restarts, back-off waits and
 * probe periods happen when the clock is stepped, not after real seconds
 * (the real waits below only let the in-process writes land).
 */
async function cluster() {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const configs = expandPools(DEFAULT_POOLS);
  const farm = new NodeFarm(store, configs, () => {}, new TimerWheel(1000));
  await farm.start();
  const clock = new FakeClock(Date.parse('2025-06-01T12:00:00Z'));
  const kubelet = new Kubelet(store, configs, { logs: new ContainerLogs(), events: new EventRecorder(store, () => {}), pullMs: 0, clock });
  await kubelet.start();
  const ctx = { ...controllerContext('test'), namespace: 'default' };
  await store.create(store.find('', 'v1', 'serviceaccounts')!, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as unknown as KObject, ctx);
  const create = (pod: Obj) => store.create(store.find('', 'v1', 'pods')!, 'default', pod as KObject, ctx);
  const status = async (name: string) => ((await store.get('', 'pods', 'default', name))!.status ?? {}) as PodStatus;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** Lets the in-process work a clock step started land: until no pod changes for 3 polls in a row. */
  const settle = async () => {
    await sleep(100);
    let last = '';
    for (let quiet = 0; quiet < 3;) {
      const rvs = (await store.listAll('', 'pods', 'default')).map((p) => p.metadata.resourceVersion).join();
      quiet = rvs === last ? quiet + 1 : 0;
      last = rvs;
      await sleep(30);
    }
  };
  const stop = async () => { await kubelet.stop(); await farm.stop(); await storage.close(); };
  return { clock, create, status, settle, stop };
}

const pod = (name: string, container: Obj, script: Obj, extra: Obj = {}) => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'default', annotations: { 'winkube.io/script': JSON.stringify({ app: script }) } },
  spec: { nodeName: 'linux-1', automountServiceAccountToken: false, tolerations: [{ operator: 'Exists' }], containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'sleep 3600'], ...container }], ...extra },
});

const summary = (s: PodStatus) => {
  const c = s.containerStatuses?.[0];
  if (!c) return 'no status';
  const state = Object.keys(c.state)[0];
  return `${state}${c.state.waiting ? ` ${c.state.waiting.reason}` : ''} restarts=${c.restartCount}`;
};

test('a crashing container on the fake clock: restarted at once, then after 10s, 20s, 40s of CrashLoopBackOff', async () => {
  const k = await cluster();
  await k.create(pod('crash', {}, { exitCode: 1, runSeconds: 1 }));
  const timeline: string[] = [];
  // One step of the clock, then let the writes land.
  const at = async (ms: number) => { k.clock.step(ms); await k.settle(); timeline.push(summary(await k.status('crash'))); };
  await k.settle();
  timeline.push(summary(await k.status('crash')));
  await at(1_000); // exits after 1s: restarted at once
  await at(1_000); // exits again: back-off 10s
  await at(9_000);
  await at(1_000); // 10s after the exit: restarted
  await at(1_000); // exits: back-off 20s
  await at(19_000);
  await at(1_000);
  assert.deepEqual(timeline, [
    'running restarts=0',
    'running restarts=1',
    'waiting CrashLoopBackOff restarts=1',
    'waiting CrashLoopBackOff restarts=1',
    'running restarts=2',
    'waiting CrashLoopBackOff restarts=2',
    'waiting CrashLoopBackOff restarts=2',
    'running restarts=3',
  ]);
  assert.equal((await k.status('crash')).containerStatuses?.[0].lastState.terminated?.exitCode, 1);
  await k.stop();
});

test('readiness on the fake clock: not ready until the probe passes, unready after failureThreshold failures', async () => {
  const k = await cluster();
  await k.create(pod('ready', { readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 5, periodSeconds: 10, failureThreshold: 2 } },
    { readiness: { failAfterSeconds: 20 } }));
  const ready = async () => { const s = await k.status('ready'); return `${s.containerStatuses?.[0].ready} ${s.conditions?.find((c) => c.type === 'Ready')?.status}`; };
  const seen: string[] = [];
  await k.settle();
  seen.push(await ready());
  for (const ms of [4_999, 1, 10_000, 10_000, 10_000]) { k.clock.step(ms); await k.settle(); seen.push(await ready()); }
  // t=0 running; t=5 first probe passes; t=15 passes; t=25 fails once; t=35 fails twice: unready.
  assert.deepEqual(seen, ['false False', 'false False', 'true True', 'true True', 'true True', 'false False']);
  await k.stop();
});

test('liveness on the fake clock: three failures, Killing, the container restarts', async () => {
  const k = await cluster();
  await k.create(pod('live', { livenessProbe: { exec: { command: ['true'] }, periodSeconds: 10 } }, { liveness: 'fail', sigterm: 'exit' }));
  await k.settle();
  const restarts = async () => (await k.status('live')).containerStatuses?.[0].restartCount;
  for (const ms of [0, 10_000]) { k.clock.step(ms); await k.settle(); }
  assert.equal(await restarts(), 0, 'two failures: still running');
  k.clock.step(10_000);
  await k.settle();
  const s = (await k.status('live')).containerStatuses?.[0];
  assert.equal(s?.restartCount, 1);
  assert.deepEqual(Object.keys(s?.state ?? {}), ['running']);
  assert.equal(s?.lastState.terminated?.exitCode, 0);
  await k.stop();
});
