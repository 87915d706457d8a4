/** The core ResourceDefs driven through the real Store over in-memory SQLite. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { coreResources } from '../../src/registry/core/index.js';
import { serviceAccountLookup } from '../../src/registry/core/pod-admission.js';

serviceAccountLookup.defaultAttempts = 1;
const def = (r: string): ResourceDef => coreResources.find((d) => d.resource === r)!;
const ctx = (namespace: string): WriteContext => ({ namespace, now: new Date(), dryRun: false, fieldManager: 'test', warn: () => {} });

async function fixture() {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, coreResources);
  await store.create(def('namespaces'), '', { metadata: { name: 'ns' } }, ctx(''));
  await store.create(def('serviceaccounts'), 'ns', { metadata: { name: 'default' } }, ctx('ns'));
  return { storage, store };
}

test('pods: created with admission defaults, graceful delete once scheduled', async () => {
  const { storage, store } = await fixture();
  const pod: any = await store.create(def('pods'), 'ns',
    { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ctx('ns'));
  assert.equal(pod.spec.serviceAccountName, 'default');
  assert.match(pod.spec.volumes[0].name, /^kube-api-access-[a-z0-9]{5}$/);
  assert.equal(pod.status.qosClass, 'BestEffort');
  assert.equal(pod.metadata.generation, undefined);
  // Bind it (as the scheduler would, through pods/binding), then delete: 30 s of grace.
  await store.update(def('pods'), 'ns', 'p', (o: any) => ({ ...o, spec: { ...o.spec, nodeName: 'n1' } }), ctx('ns'), 'binding');
  const del = await store.delete(def('pods'), 'ns', 'p', {}, ctx('ns'));
  assert.equal(del.deleted, false);
  assert.equal(del.obj.metadata.deletionGracePeriodSeconds, 30);
  const now = await store.delete(def('pods'), 'ns', 'p', { gracePeriodSeconds: 0 }, ctx('ns'));
  assert.equal(now.deleted, true);
  await storage.close();
});

test('services: allocation sees the services already stored', async () => {
  const { storage, store } = await fixture();
  const svc = (name: string, nodePort?: number) => ({ metadata: { name }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort }] } });
  const a: any = await store.create(def('services'), 'ns', svc('a', 31080), ctx('ns'));
  assert.equal(a.spec.ports[0].nodePort, 31080);
  await assert.rejects(store.create(def('services'), 'ns', svc('b', 31080), ctx('ns')), (e: unknown) =>
    e instanceof StatusError && e.status.message === 'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 31080: provided port is already allocated');
  const c: any = await store.create(def('services'), 'ns', { metadata: { name: 'c' }, spec: { clusterIP: a.spec.clusterIP, ports: [{ port: 80 }] } }, ctx('ns'))
    .catch((e: StatusError) => e.status);
  assert.match(c.message, /provided IP is already allocated/);
  // A PUT of the original manifest keeps what was allocated.
  const put: any = await store.update(def('services'), 'ns', 'a', () => svc('a') as any, ctx('ns'));
  assert.equal(put.spec.clusterIP, a.spec.clusterIP);
  assert.equal(put.spec.ports[0].nodePort, 31080);
  await storage.close();
});

test('namespaces: label, finalizer, Terminating on delete, gone once finalized', async () => {
  const { storage, store } = await fixture();
  const ns: any = await store.create(def('namespaces'), '', { metadata: { name: 'team' } }, ctx(''));
  assert.equal(ns.metadata.labels['kubernetes.io/metadata.name'], 'team');
  const first = await store.delete(def('namespaces'), '', 'team', {}, ctx(''));
  assert.equal(first.deleted, false);
  assert.equal((first.obj as any).status.phase, 'Terminating');
  await assert.rejects(store.delete(def('namespaces'), '', 'team', {}, ctx('')),
    (e: unknown) => e instanceof StatusError && e.status.code === 409);
  await store.create(def('namespaces'), '', { metadata: { name: 'default' } }, ctx(''));
  await assert.rejects(store.delete(def('namespaces'), '', 'default', {}, ctx('')),
    (e: unknown) => e instanceof StatusError && e.status.code === 403);
  await storage.close();
});

test('replication controllers count generations; secrets keep no stringData', async () => {
  const { storage, store } = await fixture();
  const rc: any = await store.create(def('replicationcontrollers'), 'ns', { metadata: { name: 'rc' }, spec: {
    template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } }, ctx('ns'));
  assert.equal(rc.metadata.generation, 1);
  const scaled: any = await store.update(def('replicationcontrollers'), 'ns', 'rc',
    (o: any) => ({ ...o, spec: { ...o.spec, replicas: 3 } }), ctx('ns'));
  assert.equal(scaled.metadata.generation, 2);
  const s: any = await store.create(def('secrets'), 'ns', { metadata: { name: 's' }, stringData: { a: 'b' } }, ctx('ns'));
  assert.deepEqual(s.data, { a: 'Yg==' });
  assert.equal(s.stringData, undefined);
  await storage.close();
});

test('update: a write that lost a race is retried on the object as it is now; a stale resourceVersion from the client is a conflict', async () => {
  const { storage, store } = await fixture();
  await store.create(def('configmaps'), 'ns', { metadata: { name: 'cm' }, data: { a: '1' } }, ctx('ns'));
  let attempts = 0;
  const out: any = await store.update(def('configmaps'), 'ns', 'cm', async (cur: any) => {
    attempts++;
    // Another writer gets in between this attempt's read and its write (only once).
    if (attempts === 1) await store.update(def('configmaps'), 'ns', 'cm', (o: any) => ({ ...o, data: { ...o.data, b: '2' } }), ctx('ns'));
    return { ...cur, data: { ...cur.data, c: '3' } };
  }, ctx('ns'));
  assert.equal(attempts, 2);
  assert.deepEqual(out.data, { a: '1', b: '2', c: '3' });
  await assert.rejects(
    store.update(def('configmaps'), 'ns', 'cm', (cur: any) => ({ ...cur, metadata: { ...cur.metadata, resourceVersion: '1' } }), ctx('ns')),
    (e: unknown) => e instanceof StatusError && e.status.code === 409 &&
      e.status.message === 'Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again');
  await storage.close();
});
