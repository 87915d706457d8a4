import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { loopback } from '../helpers/loopback.js';
import { ReplicaSetController } from '../../src/controllers/replicaset.js';
import { DeploymentController } from '../../src/controllers/deployment/controller.js';
import { assignPod } from '../../src/registry/core/pod-binding.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

let dir: string;
let storage: SqliteStorage;
let store: Store;
let deployments: DeploymentController;
const logs: string[] = [];

const def = (group: string, resource: string): ResourceDef => store.defs.find((d) => d.group === group && d.resource === resource)!;
const ctx = (namespace: string): WriteContext => ({ namespace, now: new Date(), dryRun: false, fieldManager: 'test', warn: () => {} });

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'winkube-deploy-'));
  storage = new SqliteStorage(join(dir, 'state.db'));
  store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1' });
  await store.create(def('', 'serviceaccounts'), 'default', { metadata: { name: 'default' } }, ctx('default'));
  const events = new EventRecorder(loopback(store), (m) => logs.push(m));
  const log = (m: string) => logs.push(m);
  const controllers = newControllerContext({ client: loopback(store), events, log });
  await new ReplicaSetController(controllers, 'ReplicaSet').start();
  deployments = new DeploymentController(controllers);
  await deployments.start();
});

after(async () => {
  deployments.stop();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(what: string, f: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  let last: T | undefined | false;
  while (Date.now() < end) {
    last = await f();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}; logs: ${logs.join('\n')}`);
}

const deployment = (name: string, replicas: number, image: string, extra: Record<string, any> = {}) => ({
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
    ...extra,
  },
});

const listRS = async (ns: string, app: string) => (await store.list(def('apps', 'replicasets'), ns)).items
  .filter((rs) => rs.metadata.labels?.app === app);
const listPods = async (ns: string, app: string) => (await store.list(def('', 'pods'), ns)).items
  .filter((p) => p.metadata.labels?.app === app);
const getDeploy = (ns: string, name: string) => store.read(def('apps', 'deployments'), ns, name);
const eventsFor = async (ns: string, name: string) => (await store.list(def('', 'events'), ns)).items
  .filter((e: any) => e.involvedObject.name === name).map((e: any) => `${e.reason}: ${e.message}`);

/** A client's update of a Deployment that does not care what changed meanwhile. */
async function patch(ns: string, name: string, f: (d: any) => any): Promise<void> {
  await store.update(def('apps', 'deployments'), ns, name, (d: any) => {
    delete d.metadata.resourceVersion;
    return f(d);
  }, ctx(ns));
}

/** What the kubelet would do: bind, run and report a pod Ready. */
async function makeReady(pod: KObject, node = 'linux-1'): Promise<void> {
  const ns = pod.metadata.namespace!;
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await assignPod(store, def('', 'pods'), ns, pod.metadata.name!, node, ctx(ns));
  await store.update(def('', 'pods'), ns, pod.metadata.name!, (p: any) => {
    p.status = { ...p.status, phase: 'Running', conditions: [...p.status.conditions, { type: 'Ready', status: 'True', lastTransitionTime: now }] };
    return p;
  }, ctx(ns), 'status');
}

test('a Deployment gets ReplicaSet <name>-<hash> with the revision annotations and 3 pods it owns', async () => {
  const d = await store.create(def('apps', 'deployments'), 'default', deployment('web', 3, 'nginx:1.25') as KObject, ctx('default'));
  const [rs] = await until('the replica set', async () => { const l = await listRS('default', 'web'); return l.length ? l : undefined; });
  assert.ok(rs);
  const hash = rs.metadata.labels?.['pod-template-hash'] ?? '';
  assert.match(hash, /^[456789bcdf]{1,10}$/);
  assert.equal(rs.metadata.name, `web-${hash}`);
  assert.deepEqual((rs.spec as any).selector, { matchLabels: { app: 'web', 'pod-template-hash': hash } });
  assert.equal((rs.spec as any).template.metadata.labels['pod-template-hash'], hash);
  assert.deepEqual(rs.metadata.annotations, {
    'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4', 'deployment.kubernetes.io/revision': '1',
  });
  assert.equal(rs.metadata.ownerReferences?.[0]?.uid, d.metadata.uid);
  assert.equal(rs.metadata.ownerReferences?.[0]?.kind, 'Deployment');
  const pods = await until('3 pods', async () => { const p = await listPods('default', 'web'); return p.length === 3 ? p : undefined; });
  for (const p of pods) {
    assert.equal(p.metadata.ownerReferences?.[0]?.uid, rs.metadata.uid);
    assert.equal(p.metadata.ownerReferences?.[0]?.kind, 'ReplicaSet');
    assert.ok(p.metadata.name!.startsWith(`web-${hash}-`));
  }
  const dep = await until('status observed', async () => {
    const x = await getDeploy('default', 'web');
    return (x.status as any)?.replicas === 3 ? x : undefined;
  });
  assert.equal(dep.metadata.annotations!['deployment.kubernetes.io/revision'], '1');
  assert.equal(dep.metadata.generation, 1, 'the revision annotation written with status does not bump the generation');
  const st = dep.status as any;
  assert.equal(st.updatedReplicas, 3);
  assert.equal(st.unavailableReplicas, 3);
  assert.equal(st.availableReplicas, undefined);
  assert.deepEqual(st.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [
    ['Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'],
    ['Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "web-${hash}" is progressing.`],
  ]);
  assert.deepEqual(await until('events', async () => { const e = await eventsFor('default', 'web'); return e.length ? e : undefined; }),
    [`ScalingReplicaSet: Scaled up replica set web-${hash} from 0 to 3`]);
  const rsEvents = await until('rs events', async () => { const e = await eventsFor('default', rs.metadata.name!); return e.length === 3 ? e : undefined; });
  assert.deepEqual(rsEvents.map((e) => e.replace(/-[a-z0-9]{5}$/, '-x')), Array(3).fill(`SuccessfulCreate: Created pod: web-${hash}-x`));

  // Pods become ready: Available, and Progressing NewReplicaSetAvailable.
  for (const p of pods) await makeReady(p);
  const done = await until('available', async () => {
    const x = await getDeploy('default', 'web');
    return (x.status as any)?.availableReplicas === 3 && (x.status as any).conditions.some((c: any) => c.reason === 'NewReplicaSetAvailable') ? x : undefined;
  });
  const ds = done.status as any;
  assert.deepEqual({ ...ds, conditions: undefined }, {
    observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, conditions: undefined,
  });
  assert.deepEqual(ds.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [
    ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
    ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "web-${hash}" has successfully progressed.`],
  ]);
  const rsNow = await store.read(def('apps', 'replicasets'), 'default', rs.metadata.name!);
  assert.deepEqual(rsNow.status, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
});

test('a new image rolls out: new ReplicaSet revision 2, old one scaled down as new pods become available', async () => {
  const old = (await listRS('default', 'web'))[0];
  assert.ok(old);
  await patch('default', 'web', (d: any) => {
    d.spec.template.spec.containers[0].image = 'nginx:1.26';
    return d;
  });
  const newRS = await until('new rs', async () => (await listRS('default', 'web')).find((rs) => rs.metadata.uid !== old.metadata.uid));
  assert.equal(newRS.metadata.annotations!['deployment.kubernetes.io/revision'], '2');
  assert.notEqual(newRS.metadata.name, old.metadata.name);
  // maxSurge 25% of 3 rounds up to 1, maxUnavailable 25% rounds down to 0: one new pod first, nothing removed.
  assert.equal((newRS.spec as any).replicas, 1);
  const oldNow = await store.read(def('apps', 'replicasets'), 'default', old.metadata.name!);
  assert.equal((oldNow.spec as any).replicas, 3);
  // Make every new pod ready as it appears, until the rollout completes.
  await until('rollout complete', async () => {
    for (const p of await listPods('default', 'web')) {
      if (p.metadata.labels!['pod-template-hash'] === newRS.metadata.labels!['pod-template-hash'] && !(p.spec as any).nodeName) await makeReady(p);
    }
    const x = await getDeploy('default', 'web');
    const st = x.status as any;
    return st.updatedReplicas === 3 && st.replicas === 3 && st.availableReplicas === 3 && x.metadata.annotations!['deployment.kubernetes.io/revision'] === '2'
      && st.conditions.some((c: any) => c.reason === 'NewReplicaSetAvailable' && c.message.includes(newRS.metadata.name!));
  }, 10000);
  const oldFinal = await store.read(def('apps', 'replicasets'), 'default', old.metadata.name!);
  assert.equal((oldFinal.spec as any).replicas, 0);
  assert.equal(oldFinal.metadata.annotations!['deployment.kubernetes.io/revision'], '1');
  const events = await eventsFor('default', 'web');
  const h1 = old.metadata.name;
  const h2 = newRS.metadata.name;
  assert.deepEqual(events.filter((e) => e.startsWith('ScalingReplicaSet')), [
    `ScalingReplicaSet: Scaled up replica set ${h1} from 0 to 3`,
    `ScalingReplicaSet: Scaled up replica set ${h2} from 0 to 1`,
    `ScalingReplicaSet: Scaled down replica set ${h1} from 3 to 2`,
    `ScalingReplicaSet: Scaled up replica set ${h2} from 1 to 2`,
    `ScalingReplicaSet: Scaled down replica set ${h1} from 2 to 1`,
    `ScalingReplicaSet: Scaled up replica set ${h2} from 2 to 3`,
    `ScalingReplicaSet: Scaled down replica set ${h1} from 1 to 0`,
  ]);
});

test('rollback to the old template reuses the old ReplicaSet as revision 3 with revision-history', async () => {
  const before = await listRS('default', 'web');
  await patch('default', 'web', (d: any) => {
    d.spec.template.spec.containers[0].image = 'nginx:1.25';
    return d;
  });
  const first = before.find((rs) => rs.metadata.annotations!['deployment.kubernetes.io/revision'] === '1')!;
  const rs = await until('revision 3', async () => {
    const x = await store.read(def('apps', 'replicasets'), 'default', first.metadata.name!);
    return x.metadata.annotations!['deployment.kubernetes.io/revision'] === '3' ? x : undefined;
  });
  assert.equal(rs.metadata.annotations!['deployment.kubernetes.io/revision-history'], '1');
  assert.equal((await listRS('default', 'web')).length, 2, 'no third ReplicaSet');
  const d = await until('deployment revision 3', async () => {
    const x = await getDeploy('default', 'web');
    return x.metadata.annotations!['deployment.kubernetes.io/revision'] === '3' ? x : undefined;
  });
  assert.ok(d);
});

test('Recreate: old ReplicaSet to 0 and its pods gone before the new one scales up', async () => {
  await store.create(def('apps', 'deployments'), 'default', deployment('rec', 2, 'nginx:1.25', { strategy: { type: 'Recreate' } }) as KObject, ctx('default'));
  const pods = await until('2 pods', async () => { const p = await listPods('default', 'rec'); return p.length === 2 ? p : undefined; });
  for (const p of pods) await makeReady(p);
  await until('available', async () => ((await getDeploy('default', 'rec')).status as any)?.availableReplicas === 2);
  await patch('default', 'rec', (d: any) => {
    d.spec.template.spec.containers[0].image = 'nginx:1.26';
    return d;
  });
  // The old pods were bound to a node: deletion leaves them terminating with a grace period, and no new RS appears.
  await until('old scaled to 0', async () => {
    const l = await listRS('default', 'rec');
    return l.length === 1 && (l[0]?.spec as any).replicas === 0;
  });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await listRS('default', 'rec')).length, 1, 'no new ReplicaSet while old pods are running');
  // The kubelet finishes them off.
  for (const p of await listPods('default', 'rec')) {
    await store.delete(def('', 'pods'), 'default', p.metadata.name!, { gracePeriodSeconds: 0 }, ctx('default'));
  }
  const rs2 = await until('new rs', async () => (await listRS('default', 'rec')).find((rs) => (rs.spec as any).replicas === 2));
  assert.equal(rs2.metadata.annotations!['deployment.kubernetes.io/revision'], '2');
});

test('pause: template changes make no new ReplicaSet; resume rolls out; conditions say so', async () => {
  await store.create(def('apps', 'deployments'), 'default', deployment('pz', 1, 'nginx:1.25') as KObject, ctx('default'));
  await until('1 rs', async () => (await listRS('default', 'pz')).length === 1);
  await patch('default', 'pz', (d: any) => { d.spec.paused = true; d.spec.template.spec.containers[0].image = 'nginx:2'; return d; });
  const paused = await until('paused condition', async () => {
    const x = await getDeploy('default', 'pz');
    return (x.status as any).conditions?.find((c: any) => c.type === 'Progressing' && c.reason === 'DeploymentPaused') ? x : undefined;
  });
  const pc = (paused.status as any).conditions.find((c: any) => c.type === 'Progressing');
  assert.deepEqual([pc.status, pc.message], ['Unknown', 'Deployment is paused']);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await listRS('default', 'pz')).length, 1);
  await patch('default', 'pz', (d: any) => { d.spec.paused = false; return d; });
  await until('2 rs', async () => (await listRS('default', 'pz')).length === 2);
});

test('scaling a Deployment mid-rollout scales its ReplicaSets proportionally', async () => {
  await store.create(def('apps', 'deployments'), 'default', deployment('prop', 10, 'nginx:1.25', {
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } },
  }) as KObject, ctx('default'));
  const pods = await until('10 pods', async () => { const p = await listPods('default', 'prop'); return p.length === 10 ? p : undefined; });
  for (const p of pods) await makeReady(p);
  await until('available', async () => ((await getDeploy('default', 'prop')).status as any)?.availableReplicas === 10);
  await patch('default', 'prop', (d: any) => { d.spec.template.spec.containers[0].image = 'nginx:2'; return d; });
  // New RS gets 3 (surge) + old scaled down by 2 (unavailable): 8 old + 5 new... the new pods never become ready here.
  await until('rollout stuck at 8 + 5', async () => {
    const l = await listRS('default', 'prop');
    const sizes = l.map((rs) => (rs.spec as any).replicas).sort((a, b) => a - b);
    return l.length === 2 && sizes[0] === 5 && sizes[1] === 8;
  });
  await patch('default', 'prop', (d: any) => { d.spec.replicas = 20; return d; });
  // allowed 20+3=23, 13 now: 10 to add. old 8*23/13 = 14.15 -> 14 (+6), new 5*23/13 = 8.8 -> 9 (+4).
  await until('proportional', async () => {
    const l = await listRS('default', 'prop');
    const sizes = l.map((rs) => (rs.spec as any).replicas).sort((a, b) => a - b);
    return sizes[0] === 9 && sizes[1] === 14 && l.every((rs) => rs.metadata.annotations!['deployment.kubernetes.io/desired-replicas'] === '20'
      && rs.metadata.annotations!['deployment.kubernetes.io/max-replicas'] === '23');
  });
});

test('FailedCreate: a quota stops pod creation; event, ReplicaSet ReplicaFailure, carried to the Deployment', async () => {
  await store.create(def('', 'namespaces'), '', { metadata: { name: 'quota' } } as KObject, ctx(''));
  await store.create(def('', 'serviceaccounts'), 'quota', { metadata: { name: 'default' } } as KObject, ctx('quota'));
  await store.create(def('', 'resourcequotas'), 'quota', { metadata: { name: 'q' }, spec: { hard: { pods: '2' } } } as KObject, ctx('quota'));
  await store.create(def('apps', 'deployments'), 'quota', deployment('big', 3, 'nginx:1.25') as KObject, ctx('quota'));
  const rs = await until('a failure condition', async () => {
    const l = await listRS('quota', 'big');
    return l.find((x) => (x.status as any)?.conditions?.length);
  });
  assert.equal((await listPods('quota', 'big')).length, 2);
  const [c] = (rs.status as any).conditions;
  assert.equal(c.type, 'ReplicaFailure');
  assert.equal(c.status, 'True');
  assert.equal(c.reason, 'FailedCreate');
  assert.match(c.message, /^pods "big-[456789bcdf]+-\w*" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2$/);
  const evs = await until('FailedCreate event', async () => {
    const e = (await eventsFor('quota', rs.metadata.name!)).filter((x) => x.startsWith('FailedCreate'));
    return e.length ? e : undefined;
  });
  assert.equal(evs[0], `FailedCreate: Error creating: ${c.message}`);
  const d = await until('deployment ReplicaFailure', async () => {
    const x = await getDeploy('quota', 'big');
    return (x.status as any).conditions?.find((k: any) => k.type === 'ReplicaFailure') ? x : undefined;
  });
  const f = (d.status as any).conditions.find((k: any) => k.type === 'ReplicaFailure');
  assert.deepEqual([f.status, f.reason, f.message], ['True', 'FailedCreate', c.message]);
});

test('progressDeadlineSeconds: a rollout with no progress is marked ProgressDeadlineExceeded when the deadline passes', async () => {
  await store.create(def('apps', 'deployments'), 'default', deployment('slow', 1, 'nginx:1.25', { progressDeadlineSeconds: 1 }) as KObject, ctx('default'));
  const d = await until('timed out', async () => {
    const x = await getDeploy('default', 'slow');
    return (x.status as any)?.conditions?.find((c: any) => c.reason === 'ProgressDeadlineExceeded') ? x : undefined;
  }, 8000);
  const [rs] = await listRS('default', 'slow');
  assert.ok(rs);
  const p = (d.status as any).conditions.find((c: any) => c.type === 'Progressing');
  assert.deepEqual([p.status, p.message], ['False', `ReplicaSet "${rs.metadata.name}" has timed out progressing.`]);
});
