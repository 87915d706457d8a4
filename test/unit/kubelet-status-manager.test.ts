import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { FakeClock } from '../../src/node/kubelet/clock.js';
import { podConditions } from '../../src/node/kubelet/status.js';
import { StatusManager, type PodStatusSource } from '../../src/node/kubelet/status-manager.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import { nodeUser } from '../../src/client/identities.js';
import { pods } from '../../src/client/resources.js';

type Obj = Record<string, unknown>;

/**
 * The status manager as the single writer of pod status: coalesced writes,
 * no write without a change, the latest status kept, condition times from
 * the injected clock.
 */
async function setup() {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const ctx = { ...inProcessWriteContext('test'), namespace: 'default' };
  await store.create(store.find('', 'v1', 'serviceaccounts')!, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as unknown as KObject, ctx);
  const podDef = store.find('', 'v1', 'pods')!;
  const pod = await store.create(podDef, 'default', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: { nodeName: 'linux-1', automountServiceAccountToken: false, containers: [{ name: 'app', image: 'nginx' }] },
  } as unknown as KObject, ctx);
  const clock = new FakeClock(Date.parse('2025-03-01T10:00:00Z'));
  const logs: string[] = [];
  const manager = new StatusManager(new LoopbackClient(store, nodeUser('linux-1'), 'kubelet').resource(pods), clock, (m) => logs.push(m));
  const stored = async () => (await store.get('', 'pods', 'default', 'web'))!;
  return { storage, store, pod, clock, manager, logs, stored };
}

/** A pod worker reduced to what the manager reads: a ready flag behind the Ready conditions. */
function source(pod: KObject, uid = pod.metadata.uid!) {
  const s = { ready: false, active: true, generated: 0 };
  const src: PodStatusSource = {
    uid, pod, active: () => s.active,
    generate: (old: Obj, now: string) => {
      s.generated++;
      const statuses = [{ name: 'app', ready: s.ready, state: { running: { startedAt: '2025-03-01T10:00:00Z' } } }];
      return { conditions: podConditions(pod.spec as Obj, (old.conditions ?? []) as Obj[], true, [], statuses, 'Running', now), phase: 'Running' };
    },
  };
  return { s, src };
}

const settle = () => new Promise((r) => setTimeout(r, 30));
/** Waits for a write to land (the store is asynchronous), up to 20 s: a loaded machine gets there later. */
async function until(what: string, pred: () => Promise<boolean> | boolean): Promise<void> {
  for (const deadline = Date.now() + 20_000; !(await pred());) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
const phase = (p: KObject) => (p.status as Obj | undefined)?.phase;
const conditionTimes = (p: KObject) => Object.fromEntries(((p.status as Obj).conditions as Obj[]).map((c) => [c.type, `${String(c.status)} ${String(c.lastTransitionTime)}`]));

test('StatusManager: changes in one turn are one write; an unchanged status is not written again', async () => {
  const { storage, pod, manager, stored } = await setup();
  const { s, src } = source(pod);
  manager.register(src);
  manager.setPodStatus(pod.metadata.uid!);
  manager.setPodStatus(pod.metadata.uid!);
  manager.setPodStatus(pod.metadata.uid!);
  await until('the first write', async () => phase(await stored()) === 'Running');
  await settle();
  assert.equal(s.generated, 1);
  const first = await stored();
  assert.equal((first.status as Obj).phase, 'Running');
  assert.deepEqual(manager.latest(pod.metadata.uid!), first.status);
  manager.setPodStatus(pod.metadata.uid!);
  await until('the second status', () => s.generated === 2);
  await settle();
  assert.equal((await stored()).metadata.resourceVersion, first.metadata.resourceVersion, 'nothing changed: no write');
  await storage.close();
});

test('StatusManager: condition times come from the clock and change only with the condition', async () => {
  const { storage, pod, clock, manager, stored } = await setup();
  const { s, src } = source(pod);
  manager.register(src);
  manager.setPodStatus(pod.metadata.uid!);
  await until('the first write', async () => phase(await stored()) === 'Running');
  assert.deepEqual(conditionTimes(await stored()), {
    PodReadyToStartContainers: 'True 2025-03-01T10:00:00Z', Initialized: 'True 2025-03-01T10:00:00Z', Ready: 'False 2025-03-01T10:00:00Z',
    ContainersReady: 'False 2025-03-01T10:00:00Z', PodScheduled: 'True 2025-03-01T10:00:00Z',
  });
  clock.step(7_000);
  s.ready = true;
  manager.setPodStatus(pod.metadata.uid!);
  await until('the Ready flip', async () => conditionTimes(await stored()).Ready.startsWith('True'));
  assert.deepEqual(conditionTimes(await stored()), {
    PodReadyToStartContainers: 'True 2025-03-01T10:00:00Z', Initialized: 'True 2025-03-01T10:00:00Z', Ready: 'True 2025-03-01T10:00:07Z',
    ContainersReady: 'True 2025-03-01T10:00:07Z', PodScheduled: 'True 2025-03-01T10:00:00Z',
  });
  await storage.close();
});

test('StatusManager: nothing is written for a stopped worker, nor over a pod re-created under the same name', async () => {
  const { storage, pod, manager, logs, stored } = await setup();
  const stopped = source(pod);
  stopped.s.active = false;
  manager.register(stopped.src);
  manager.setPodStatus(pod.metadata.uid!);
  await settle();
  assert.equal(stopped.s.generated, 0);
  const other = source(pod, 'another-uid');
  manager.register(other.src);
  await manager.writeFinal('another-uid');
  assert.equal((await stored()).status && ((await stored()).status as Obj).phase, 'Pending');
  assert.equal(manager.latest('another-uid'), undefined);
  assert.deepEqual(logs, []);
  await storage.close();
});

test('StatusManager: the final status is written at once, before the kubelet deletes the pod', async () => {
  const { storage, pod, manager, stored } = await setup();
  const { s, src } = source(pod);
  manager.register(src);
  manager.setPodStatus(pod.metadata.uid!);
  await until('the first write', async () => phase(await stored()) === 'Running');
  s.ready = true;
  await manager.writeFinal(pod.metadata.uid!);
  assert.equal(s.generated, 2);
  assert.equal(conditionTimes(await stored()).Ready, 'True 2025-03-01T10:00:00Z');
  assert.deepEqual(manager.latest(pod.metadata.uid!), (await stored()).status);
  await storage.close();
});
