/**
 * The StatefulSet controller against a real Store: ordinals and identity,
 * OrderedReady creation and scale-down order, Parallel, claims and their
 * retention policy, revisions and partitioned rolling updates. The test
 * plays the kubelet by marking pods Running and Ready.
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
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { StatefulSetController } from '../../src/controllers/statefulset/statefulset-controller.js';
import { hashRevision, safeEncode } from '../../src/controllers/controller-revision.js';
import { goMarshal } from '../../src/apimachinery/go-json.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { storedEventsWhen } from './stored-events.js';

const NS = 'db';

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'sts-test-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  const store = new Store(storage, allResources());
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, inProcessWriteContext('test'));
  await store.create(store.find('', 'v1', 'serviceaccounts')!, NS, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, ctx);
  const controllers = newControllerContext({ client: loopback(store) });
  const ctrl = new StatefulSetController(controllers);
  const sets = store.find('apps', 'v1', 'statefulsets')!;
  const pods = store.find('', 'v1', 'pods')!;
  return {
    store, ctrl,
    async create(name: string, spec: any) {
      await store.create(sets, NS, {
        apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name },
        spec: {
          serviceName: name, selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } }, ...spec,
        },
      }, ctx);
    },
    async patch(name: string, f: (spec: any) => void) {
      await store.update(sets, NS, name, (cur: any) => { f(cur.spec); return cur; }, ctx);
    },
    set: async (name: string) => (await store.get('apps', 'statefulsets', NS, name)) as any,
    podNames: async () => (await store.list(pods, NS)).items.map((p) => p.metadata.name!).sort(),
    pod: async (name: string) => (await store.get('', 'pods', NS, name)) as any,
    claim: async (name: string) => (await store.get('', 'persistentvolumeclaims', NS, name)) as any,
    /** What the kubelet reports for a started, ready pod. */
    async runReady(name: string) {
      const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      await this.seen(await store.update(pods, NS, name, (cur: any) => ({
        ...cur, status: { ...cur.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: at }] },
      }), ctx, 'status'));
    },
    /** The controller reads pods from its informer: a pod written here is synced once the informer has it. */
    async seen(o: KObject) {
      const informer = controllers.informers.forResource(pods);
      await informer.start();
      await informer.waitFor(Number(o.metadata.resourceVersion));
    },
    /** The object's events once `done` holds of them. */
    events: (name: string, done: (events: string[]) => boolean) => storedEventsWhen(store, NS, name, done),
    async close() { await storage.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

test('revision hashing: FNV-1 of the sorted JSON patch, safe-encoded', () => {
  assert.equal(goMarshal({ b: 1, a: ['<x>', { d: null, c: true }] }), '{"a":["\\u003cx\\u003e",{"c":true,"d":null}],"b":1}');
  assert.equal(safeEncode('0123456789'), safeEncode('0123456789'));
  assert.match(hashRevision({ spec: {} }), /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.notEqual(hashRevision({ spec: {} }, 0), hashRevision({ spec: {} }, 1));
});

test('OrderedReady: web-0..2 one at a time with identity, claims and events; scale-down from the highest ordinal', async () => {
  const t = await setup();
  await t.create('web', {
    replicas: 3,
    volumeClaimTemplates: [{ metadata: { name: 'www', labels: { tier: 'data' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  });
  await t.ctrl.sync(`${NS}/web`);
  assert.deepEqual(await t.podNames(), ['web-0']);
  // web-0 is not Running and Ready yet: web-1 waits.
  await t.ctrl.sync(`${NS}/web`);
  assert.deepEqual(await t.podNames(), ['web-0']);
  const web0 = await t.pod('web-0');
  const set = await t.set('web');
  const rev = set.status.updateRevision;
  assert.match(rev, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.deepEqual(web0.metadata.labels, { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-0', 'apps.kubernetes.io/pod-index': '0', 'controller-revision-hash': rev });
  assert.equal(web0.spec.hostname, 'web-0');
  assert.equal(web0.spec.subdomain, 'web');
  assert.deepEqual(web0.spec.volumes[0], { name: 'www', persistentVolumeClaim: { claimName: 'www-web-0' } });
  assert.equal(web0.metadata.ownerReferences[0].kind, 'StatefulSet');
  const claim = await t.claim('www-web-0');
  assert.deepEqual(claim.metadata.labels, { tier: 'data', app: 'web' });
  assert.equal(claim.metadata.ownerReferences, undefined, 'Retain/Retain leaves claims unowned');
  assert.deepEqual(claim.spec.resources, { requests: { storage: '1Gi' } });
  for (const n of ['web-0', 'web-1']) {
    await t.runReady(n);
    await t.ctrl.sync(`${NS}/web`);
  }
  await t.runReady('web-2');
  await t.ctrl.sync(`${NS}/web`);
  assert.deepEqual(await t.podNames(), ['web-0', 'web-1', 'web-2']);
  // A pod whose identity label was changed gets it back.
  await t.seen(await t.store.update(t.store.find('', 'v1', 'pods')!, NS, 'web-1', (cur: any) => { cur.metadata.labels['statefulset.kubernetes.io/pod-name'] = 'x'; return cur; }, { ...inProcessWriteContext('test'), namespace: NS }));
  await t.ctrl.sync(`${NS}/web`);
  assert.equal((await t.pod('web-1')).metadata.labels['statefulset.kubernetes.io/pod-name'], 'web-1');
  await t.events('web', (e) => e.includes('Normal SuccessfulUpdate update Pod web-1 in StatefulSet web successful'));
  let s = (await t.set('web')).status;
  assert.deepEqual([s.replicas, s.readyReplicas, s.availableReplicas, s.currentReplicas, s.updatedReplicas], [3, 3, 3, 3, 3]);
  assert.equal(s.currentRevision, rev);
  assert.equal(s.collisionCount, 0);
  assert.equal(s.observedGeneration, 1);
  const revs = await t.store.listAll('apps', 'controllerrevisions', NS);
  assert.deepEqual(revs.map((r: any) => [r.metadata.name, r.revision, r.metadata.labels['controller.kubernetes.io/hash']]), [[rev, 1, rev.slice(4)]]);
  assert.equal((revs[0] as any).data.spec.template.$patch, 'replace');

  await t.patch('web', (spec) => { spec.replicas = 1; });
  await t.ctrl.sync(`${NS}/web`);
  assert.deepEqual(await t.podNames(), ['web-0', 'web-1']);
  await t.ctrl.sync(`${NS}/web`);
  assert.deepEqual(await t.podNames(), ['web-0']);
  assert.ok(await t.claim('www-web-2'), 'claims are retained on scale-down by default');
  // Status counts the pods a sync started with: the next sync sees one.
  await t.ctrl.sync(`${NS}/web`);
  s = (await t.set('web')).status;
  assert.equal(s.replicas, 1);
  const events = await t.events('web', (e) => e.includes('Normal SuccessfulDelete delete Pod web-2 in StatefulSet web successful') &&
    e.includes('Normal SuccessfulDelete delete Pod web-1 in StatefulSet web successful'));
  assert.deepEqual(events.slice(0, 2), ['Normal SuccessfulCreate create Claim www-web-0 Pod web-0 in StatefulSet web success', 'Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful']);
  assert.deepEqual(events.slice(-2), ['Normal SuccessfulDelete delete Pod web-2 in StatefulSet web successful', 'Normal SuccessfulDelete delete Pod web-1 in StatefulSet web successful']);
  await t.close();
});

test('Parallel creates every pod at once; whenScaled Delete hands scaled-down claims to their pod', async () => {
  const t = await setup();
  await t.create('par', {
    replicas: 3, podManagementPolicy: 'Parallel',
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  });
  await t.ctrl.sync(`${NS}/par`);
  assert.deepEqual(await t.podNames(), ['par-0', 'par-1', 'par-2']);
  const set = await t.set('par');
  const owners = (await t.claim('data-par-2')).metadata.ownerReferences;
  assert.deepEqual(owners, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'par', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  const pod2 = await t.pod('par-2');
  await t.patch('par', (spec) => { spec.replicas = 2; });
  await t.ctrl.sync(`${NS}/par`);
  assert.deepEqual(await t.podNames(), ['par-0', 'par-1']);
  assert.deepEqual((await t.claim('data-par-2')).metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'par-2', uid: pod2.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  await t.close();
});

test('RollingUpdate with a partition updates from the highest ordinal down to it; OnDelete updates nothing', async () => {
  const t = await setup();
  await t.create('ru', { replicas: 3, podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } });
  await t.ctrl.sync(`${NS}/ru`);
  for (const n of ['ru-0', 'ru-1', 'ru-2']) await t.runReady(n);
  await t.ctrl.sync(`${NS}/ru`);
  const oldRev = (await t.set('ru')).status.currentRevision;
  await t.patch('ru', (spec) => { spec.template.spec.containers[0].image = 'nginx:1.26'; });
  await t.ctrl.sync(`${NS}/ru`);
  // ru-2 (highest) is deleted for the update; unscheduled pods go at once.
  assert.deepEqual(await t.podNames(), ['ru-0', 'ru-1']);
  await t.ctrl.sync(`${NS}/ru`);
  const ru2 = await t.pod('ru-2');
  const s = (await t.set('ru')).status;
  assert.notEqual(s.updateRevision, oldRev);
  assert.equal(s.currentRevision, oldRev);
  assert.equal(ru2.metadata.labels['controller-revision-hash'], s.updateRevision);
  assert.equal(ru2.spec.containers[0].image, 'nginx:1.26');
  await t.runReady('ru-2');
  await t.ctrl.sync(`${NS}/ru`);
  // Partition 1 holds back ordinal 0 only: ru-1 is updated next, once ru-2 is healthy.
  assert.deepEqual(await t.podNames(), ['ru-0', 'ru-2']);
  await t.ctrl.sync(`${NS}/ru`);
  await t.runReady('ru-1');
  await t.ctrl.sync(`${NS}/ru`);
  assert.equal((await t.pod('ru-0')).spec.containers[0].image, 'nginx:1.25');
  assert.equal((await t.pod('ru-1')).spec.containers[0].image, 'nginx:1.26');
  const revs = await t.store.listAll('apps', 'controllerrevisions', NS);
  assert.deepEqual(revs.map((r: any) => r.revision).sort(), [1, 2]);

  await t.create('od', { replicas: 1, updateStrategy: { type: 'OnDelete' } });
  await t.ctrl.sync(`${NS}/od`);
  await t.runReady('od-0');
  await t.patch('od', (spec) => { spec.template.spec.containers[0].image = 'nginx:1.26'; });
  await t.ctrl.sync(`${NS}/od`);
  assert.equal((await t.pod('od-0')).spec.containers[0].image, 'nginx:1.25');
  await t.close();
});

test('a set recreated after an orphaning delete adopts its pods and revisions', async () => {
  const t = await setup();
  await t.create('keep', { replicas: 2, podManagementPolicy: 'Parallel' });
  await t.ctrl.sync(`${NS}/keep`);
  const before = (await t.set('keep')).status.updateRevision;
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  await t.store.delete(t.store.find('apps', 'v1', 'statefulsets')!, NS, 'keep', { propagationPolicy: 'Orphan' }, ctx);
  // What the garbage collector does for an orphaning delete.
  for (const res of ['pods', 'controllerrevisions']) {
    const def = t.store.defs.find((d) => d.resource === res)!;
    for (const o of (await t.store.list(def, NS)).items) {
      await t.store.update(def, NS, o.metadata.name!, (cur) => { delete cur.metadata.ownerReferences; return cur; }, ctx);
    }
  }
  const gone = await t.set('keep');
  if (gone) await t.store.update(t.store.find('apps', 'v1', 'statefulsets')!, NS, 'keep', (cur) => { cur.metadata.finalizers = []; return cur; }, ctx);
  await t.create('keep', { replicas: 2, podManagementPolicy: 'Parallel' });
  const fresh = await t.set('keep');
  await t.ctrl.sync(`${NS}/keep`);
  assert.deepEqual(await t.podNames(), ['keep-0', 'keep-1']);
  for (const n of ['keep-0', 'keep-1']) assert.equal((await t.pod(n)).metadata.ownerReferences[0].uid, fresh.metadata.uid);
  const revs = await t.store.listAll('apps', 'controllerrevisions', NS);
  assert.equal(revs.length, 1);
  assert.equal(revs[0]?.metadata.ownerReferences?.[0]?.uid, fresh.metadata.uid);
  assert.equal((await t.set('keep')).status.updateRevision, before);
  await t.close();
});
