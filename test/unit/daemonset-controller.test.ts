/**
 * The DaemonSet controller on the default cluster's nodes (a real Store and
 * node farm): placement by nodeSelector and taints, node-name affinity,
 * daemon tolerations, status counters, failed-pod replacement, rolling
 * update with maxUnavailable and maxSurge; node predicates alone.
 */
import { loopback } from '../helpers/loopback.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { NodeFarm } from '../../src/node/farm.js';
import { DEFAULT_POOLS, expandPools } from '../../src/node/pool.js';
import { TimerWheel } from '../../src/node/timer-wheel.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { DaemonSetController } from '../../src/controllers/daemonset/daemonset-controller.js';
import { ControllerExpectations } from '../../src/controllers/controller-utils.js';
import { NodeLifecycleController } from '../../src/controllers/node-lifecycle/controller.js';
import { nodeShouldRunDaemonPod, targetNodeName } from '../../src/controllers/daemonset/node-predicates.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import { kubeletClient } from '../helpers/kubelet-client.js';
import { eventually } from './service-fixture.js';
import { storedEventsWhen } from './stored-events.js';

const NS = 'default';
const WINDOWS = ['win2019-1', 'win2019-2', 'win2022-1'];
const SCHEDULABLE = ['linux-1', 'linux-2', ...WINDOWS].sort();

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'ds-test-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  await store.create(store.find('', 'v1', 'serviceaccounts')!, NS, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, ctx);
  const farm = new NodeFarm(kubeletClient(store), expandPools(DEFAULT_POOLS), () => {}, new TimerWheel(1000));
  await farm.start();
  // As in a running cluster: the node lifecycle controller lifts the not-ready:NoSchedule taint that
  // TaintNodesByCondition admission put on each new node once it reports Ready (daemon pods do not
  // tolerate that taint).
  const lifecycle = new NodeLifecycleController(newControllerContext({ client: loopback(store) }));
  await lifecycle.start();
  await eventually(async () => {
    const tainted = (await store.listAll('', 'nodes', '')).filter((n: any) => (n.spec.taints ?? []).some((x: any) => x.key === 'node.kubernetes.io/not-ready'));
    if (tainted.length) throw new Error(`nodes still tainted not-ready: ${tainted.map((n) => n.metadata.name).join(', ')}`);
    return true;
  }, 'the not-ready taints lifted');
  const ctrl = new DaemonSetController(newControllerContext({ client: loopback(store) }));
  const dsDef = store.find('apps', 'v1', 'daemonsets')!;
  const pods = store.find('', 'v1', 'pods')!;
  return {
    store, ctrl,
    async create(name: string, spec: any) {
      await store.create(dsDef, NS, {
        apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name },
        spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'agent:1' }] } }, ...spec },
      }, ctx);
    },
    async patch(name: string, f: (spec: any) => void) {
      await store.update(dsDef, NS, name, (cur: any) => { f(cur.spec); return cur; }, ctx);
    },
    ds: async (name: string) => (await store.get('apps', 'daemonsets', NS, name)) as any,
    async podsOf(name: string): Promise<any[]> {
      return (await store.list(pods, NS)).items.filter((p) => p.metadata.labels?.app === name) as any[];
    },
    /** The scheduler and kubelet: bind to the affinity's node, then report Running and Ready (or Failed). */
    async run(pod: any, phase: 'Running' | 'Failed' = 'Running') {
      const at = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
      await store.update(pods, NS, pod.metadata.name, (cur: any) => ({
        ...cur, status: { ...cur.status, phase, conditions: [{ type: 'Ready', status: phase === 'Running' ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: at }] },
      }), ctx, 'status');
    },
    /** The object's events once `done` holds of them. */
    events: (name: string, done: (events: string[]) => boolean) => storedEventsWhen(store, NS, name, done),
    async close() { lifecycle.stop(); await farm.stop(); await storage.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

test('node predicates: selector, affinity, taints and the daemon tolerations', () => {
  const node = (name: string, labels: Record<string, string>, taints: any[] = []) => ({ metadata: { name, labels }, spec: { taints } });
  const ds = (spec: any) => ({ metadata: { name: 'd' }, spec: { template: { spec: { containers: [], ...spec } } } });
  const win = node('w', { 'kubernetes.io/os': 'windows' });
  assert.deepEqual(nodeShouldRunDaemonPod(win, ds({ nodeSelector: { 'kubernetes.io/os': 'linux' } })), { shouldRun: false, shouldContinueRunning: false });
  assert.deepEqual(nodeShouldRunDaemonPod(win, ds({})), { shouldRun: true, shouldContinueRunning: true });
  const cp = node('cp', {}, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
  // An untolerated NoSchedule taint: no new pod, but an existing one may stay.
  assert.deepEqual(nodeShouldRunDaemonPod(cp, ds({})), { shouldRun: false, shouldContinueRunning: true });
  assert.deepEqual(nodeShouldRunDaemonPod(cp, ds({ tolerations: [{ operator: 'Exists' }] })), { shouldRun: true, shouldContinueRunning: true });
  // Daemon pods tolerate not-ready/unreachable NoExecute and the pressure/unschedulable NoSchedule taints.
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    assert.equal(nodeShouldRunDaemonPod(node('n', {}, [{ key, effect: 'NoExecute' }]), ds({})).shouldRun, true);
  }
  for (const key of ['node.kubernetes.io/disk-pressure', 'node.kubernetes.io/memory-pressure', 'node.kubernetes.io/pid-pressure', 'node.kubernetes.io/unschedulable']) {
    assert.equal(nodeShouldRunDaemonPod(node('n', {}, [{ key, effect: 'NoSchedule' }]), ds({})).shouldRun, true);
  }
  const netDown = node('n', {}, [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }]);
  assert.equal(nodeShouldRunDaemonPod(netDown, ds({})).shouldRun, false);
  assert.equal(nodeShouldRunDaemonPod(netDown, ds({ hostNetwork: true })).shouldRun, true);
  const other = node('n', {}, [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }]);
  assert.deepEqual(nodeShouldRunDaemonPod(other, ds({})), { shouldRun: false, shouldContinueRunning: false });
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
    { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] },
    { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['w'] }] },
  ] } } };
  assert.equal(nodeShouldRunDaemonPod(win, ds({ affinity })).shouldRun, true, 'terms are ORed');
  assert.equal(nodeShouldRunDaemonPod(node('x', { 'kubernetes.io/os': 'windows' }), ds({ affinity })).shouldRun, false);
});

test('nodeSelector kubernetes.io/os=windows: exactly one pod per Windows node, bound by node affinity; status counters', async () => {
  const t = await setup();
  await t.create('winagent', { template: { metadata: { labels: { app: 'winagent' } }, spec: { nodeSelector: { 'kubernetes.io/os': 'windows' }, containers: [{ name: 'c', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022' }] } } });
  await t.ctrl.sync(`${NS}/winagent`);
  const pods = await t.podsOf('winagent');
  assert.deepEqual(pods.map(targetNodeName).sort(), WINDOWS);
  const pod = pods[0];
  assert.equal(pod.spec.nodeName, undefined, 'the scheduler binds it, not the controller');
  assert.deepEqual(pod.spec.affinity, { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [targetNodeName(pod)] }] }] } } });
  assert.deepEqual(pod.spec.tolerations.map((x: any) => `${x.key}:${x.effect}`), [
    'node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/disk-pressure:NoSchedule',
    'node.kubernetes.io/memory-pressure:NoSchedule', 'node.kubernetes.io/pid-pressure:NoSchedule', 'node.kubernetes.io/unschedulable:NoSchedule']);
  assert.equal(pod.metadata.labels['pod-template-generation'], '1');
  const ds = await t.ds('winagent');
  const revs = await t.store.listAll('apps', 'controllerrevisions', NS);
  assert.equal(revs.length, 1);
  assert.equal(pod.metadata.labels['controller-revision-hash'], revs[0]?.metadata.labels?.['controller-revision-hash']);
  assert.equal(revs[0]?.metadata.name, `winagent-${pod.metadata.labels['controller-revision-hash']}`);
  assert.deepEqual(ds.status, { currentNumberScheduled: 3, numberMisscheduled: 0, desiredNumberScheduled: 3, numberReady: 0, updatedNumberScheduled: 3, numberUnavailable: 3, observedGeneration: 1 });
  for (const p of pods) await t.run(p);
  await t.ctrl.sync(`${NS}/winagent`);
  const s = (await t.ds('winagent')).status;
  assert.deepEqual([s.numberReady, s.numberAvailable, s.numberUnavailable], [3, 3, undefined]);
  const created = (events: string[]) => events.filter((e) => /^Normal SuccessfulCreate Created pod: winagent-[a-z0-9]{5}$/.test(e)).length;
  assert.equal(created(await t.events('winagent', (e) => created(e) >= 3)), 3);
  await t.close();
});

test('no selector: every schedulable node but the tainted control plane; failed pods are replaced with a FailedDaemonPod event', async () => {
  const t = await setup();
  await t.create('all', {});
  await t.ctrl.sync(`${NS}/all`);
  let pods = await t.podsOf('all');
  assert.deepEqual(pods.map(targetNodeName).sort(), SCHEDULABLE);
  // The Linux image fails on a Windows node (the kubelet's doing); the controller deletes and recreates it.
  const onWin = pods.find((p) => targetNodeName(p) === 'win2019-1');
  await t.run(onWin, 'Failed');
  await t.ctrl.sync(`${NS}/all`);
  pods = await t.podsOf('all');
  assert.ok(!pods.some((p) => p.metadata.name === onWin.metadata.name));
  await t.ctrl.sync(`${NS}/all`);
  pods = await t.podsOf('all');
  assert.deepEqual(pods.map(targetNodeName).sort(), SCHEDULABLE);
  await t.events('all', (e) => e.includes(`Warning FailedDaemonPod Found failed daemon pod ${NS}/${onWin.metadata.name} on node win2019-1, will try to kill it`) &&
    e.includes(`Normal SuccessfulDelete Deleted pod: ${onWin.metadata.name}`));
  await t.close();
});

test('rolling update: maxUnavailable 2 replaces two old pods at a time; maxSurge adds a new pod before removing the old', async () => {
  const t = await setup();
  await t.create('ru', { template: { metadata: { labels: { app: 'ru' } }, spec: { nodeSelector: { 'kubernetes.io/os': 'windows' }, containers: [{ name: 'c', image: 'agent:1' }] } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } });
  await t.ctrl.sync(`${NS}/ru`);
  for (const p of await t.podsOf('ru')) await t.run(p);
  await t.patch('ru', (spec) => { spec.template.spec.containers[0].image = 'agent:2'; });
  await t.ctrl.sync(`${NS}/ru`);
  let pods = await t.podsOf('ru');
  assert.equal(pods.length, 1, 'two old pods deleted, one old left');
  await t.ctrl.sync(`${NS}/ru`);
  pods = await t.podsOf('ru');
  assert.deepEqual(pods.map((p) => p.spec.containers[0].image).sort(), ['agent:1', 'agent:2', 'agent:2']);
  // The new pods are not available yet: the last old pod waits.
  await t.ctrl.sync(`${NS}/ru`);
  assert.equal((await t.podsOf('ru')).length, 3);
  for (const p of await t.podsOf('ru')) await t.run(p);
  await t.ctrl.sync(`${NS}/ru`);
  await t.ctrl.sync(`${NS}/ru`);
  pods = await t.podsOf('ru');
  assert.deepEqual(pods.map((p) => p.spec.containers[0].image), ['agent:2', 'agent:2', 'agent:2']);

  await t.create('surge', { template: { metadata: { labels: { app: 'surge' } }, spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'agent:1' }] } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } });
  await t.ctrl.sync(`${NS}/surge`);
  const linuxNodes = (await t.podsOf('surge')).map(targetNodeName).sort();
  assert.deepEqual(linuxNodes, ['linux-1', 'linux-2'], 'the control plane is tainted');
  for (const p of await t.podsOf('surge')) await t.run(p);
  await t.patch('surge', (spec) => { spec.template.spec.containers[0].image = 'agent:2'; });
  await t.ctrl.sync(`${NS}/surge`);
  pods = await t.podsOf('surge');
  assert.equal(pods.length, 3, 'one surge pod next to the two old ones');
  const fresh = pods.find((p) => p.spec.containers[0].image === 'agent:2');
  await t.run(fresh);
  await t.ctrl.sync(`${NS}/surge`);
  pods = await t.podsOf('surge');
  assert.equal(pods.filter((p) => targetNodeName(p) === targetNodeName(fresh)).length, 1, 'the old pod beside an available new one goes');
  await t.close();
});

test('BurstReplicas: a sync creates at most 250 pods; the next waits until they are observed, then creates the rest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ds-burst-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  await store.create(store.find('', 'v1', 'serviceaccounts')!, NS, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, ctx);
  const network = { plugin: 'flannel' as const, mode: 'overlay' as const, podSubnet: '10.128.0.0/9' };
  const farm = new NodeFarm(kubeletClient(store), expandPools([{ name: 'n', count: 300, os: 'linux', network }]), () => {}, new TimerWheel(1000));
  await farm.start();
  const ctrl = new DaemonSetController(newControllerContext({ client: loopback(store) }));
  // Tolerating everything: the new nodes' not-ready taint (no node lifecycle controller here) does not keep pods off.
  await store.create(store.find('apps', 'v1', 'daemonsets')!, NS, {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'burst' },
    spec: { selector: { matchLabels: { app: 'burst' } }, template: { metadata: { labels: { app: 'burst' } },
      spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'c', image: 'agent:1' }] } } },
  } as any, ctx);
  const pods = async () => (await store.listAll('', 'pods', NS)).filter((p) => p.metadata.labels?.app === 'burst');
  await ctrl.sync(`${NS}/burst`);
  assert.equal((await pods()).length, 250);
  let ds = (await store.get('apps', 'daemonsets', NS, 'burst')) as any;
  assert.deepEqual([ds.status.desiredNumberScheduled, ds.status.currentNumberScheduled, ds.status.observedGeneration], [300, 250, 1]);
  // Every creation was observed by the pod informer: the next sync creates the other 50, one per node.
  await ctrl.sync(`${NS}/burst`);
  const all = await pods();
  assert.equal(all.length, 300);
  assert.equal(new Set(all.map(targetNodeName)).size, 300);
  ds = (await store.get('apps', 'daemonsets', NS, 'burst')) as any;
  assert.equal(ds.status.currentNumberScheduled, 300);
  ctrl.stop();
  await farm.stop();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

test('expectations: unmet creations hold the next sync to a status update; met or expired, it acts again', async () => {
  let now = 0;
  const e = new ControllerExpectations(() => now);
  assert.equal(e.satisfied('ns/a'), true, 'none recorded');
  e.set('ns/a', 2, 1);
  assert.equal(e.satisfied('ns/a'), false);
  e.creationObserved('ns/a'); e.creationObserved('ns/a');
  assert.equal(e.satisfied('ns/a'), false, 'a deletion still unseen');
  e.deletionObserved('ns/a');
  assert.equal(e.satisfied('ns/a'), true);
  e.set('ns/a', 1, 0);
  now += 5 * 60_000;
  assert.equal(e.satisfied('ns/a'), false);
  now += 1;
  assert.equal(e.satisfied('ns/a'), true, 'expired after 5 minutes');
  e.set('ns/b', 1, 0);
  e.delete('ns/b');
  assert.equal(e.satisfied('ns/b'), true, 'forgotten with its daemon set');
});
