import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { StatusError } from '../../src/api/status.js';
import type { ResourceDef, WriteContext } from '../../src/registry/types.js';

const namespaces: ResourceDef = { group: '', version: 'v1', resource: 'namespaces', singular: 'namespace', kind: 'Namespace', namespaced: false, storagePrefix: '/core/namespaces' };
const widgets: ResourceDef = { group: 'example.com', version: 'v1', resource: 'widgets', singular: 'widget', kind: 'Widget', namespaced: true, storagePrefix: '/example.com/widgets', hasGeneration: true, hasStatusSubresource: true };
const ctx = (): WriteContext => ({ namespace: 'ns', now: new Date(), dryRun: false, fieldManager: 'test', warn: () => {} });

async function fixture() {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, [namespaces, widgets]);
  await store.create(namespaces, '', { metadata: { name: 'ns' } }, { ...ctx(), namespace: '' });
  return { storage, store };
}

test('a watch or a list at a compacted revision is a 410 Expired', async () => {
  const { storage, store } = await fixture();
  await store.create(widgets, 'ns', { metadata: { name: 'a' }, spec: { n: 1 } }, ctx());
  await store.update(widgets, 'ns', 'a', (o) => ({ ...o, spec: { n: 2 } }), ctx());
  await storage.compact(storage.currentRevision());
  await assert.rejects(store.watch(widgets, 'ns', 1, {}, () => {}), (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.code, 410);
    assert.equal(e.status.reason, 'Expired');
    assert.equal(e.status.message, 'too old resource version: 1 (3)');
    return true;
  });
  await assert.rejects(store.list(widgets, 'ns', { exactRevision: 2 }), (e: unknown) => e instanceof StatusError && e.status.code === 410);
  await storage.close();
});

test('generation counts spec changes only; dry runs store nothing', async () => {
  const { storage, store } = await fixture();
  const a = await store.create(widgets, 'ns', { metadata: { name: 'a', labels: { x: '1' } }, spec: { n: 1 } }, ctx());
  assert.equal(a.metadata.generation, 1);
  const relabeled = await store.update(widgets, 'ns', 'a', (o) => ({ ...o, metadata: { ...o.metadata, labels: { x: '2' } } }), ctx());
  assert.equal(relabeled.metadata.generation, 1);
  const respec = await store.update(widgets, 'ns', 'a', (o) => ({ ...o, spec: { n: 5 } }), ctx());
  assert.equal(respec.metadata.generation, 2);
  const unchanged = await store.update(widgets, 'ns', 'a', (o) => o, ctx());
  assert.equal(unchanged.metadata.resourceVersion, respec.metadata.resourceVersion);
  const rev = storage.currentRevision();
  await store.create(widgets, 'ns', { metadata: { name: 'dry' } }, { ...ctx(), dryRun: true });
  await store.delete(widgets, 'ns', 'a', {}, { ...ctx(), dryRun: true });
  assert.equal(storage.currentRevision(), rev);
  await assert.rejects(store.read(widgets, 'ns', 'dry'), (e: unknown) => e instanceof StatusError && e.status.code === 404);
  await storage.close();
});

test('names are checked against the URL and namespaces must exist', async () => {
  const { storage, store } = await fixture();
  await assert.rejects(store.create(widgets, 'missing', { metadata: { name: 'a' } }, ctx()), (e: unknown) =>
    e instanceof StatusError && e.status.message === 'namespaces "missing" not found');
  await assert.rejects(store.create(widgets, 'ns', { metadata: { name: 'a', namespace: 'other' } }, ctx()), (e: unknown) =>
    e instanceof StatusError && e.status.message === 'the namespace of the provided object does not match the namespace sent on the request');
  await assert.rejects(store.create(widgets, 'ns', { metadata: {} }, ctx()), (e: unknown) =>
    e instanceof StatusError && e.status.message === 'Widget.example.com "" is invalid: metadata.name: Required value: name or generateName is required');
  await storage.close();
});

test('warnings are given only for writes that pass validation', async () => {
  const storage = new SqliteStorage(':memory:');
  const warned: string[] = [];
  const strict: ResourceDef = { ...widgets, resource: 'strict', storagePrefix: '/example.com/strict',
    validate: (o) => (o.spec?.n < 0 ? [{ type: 'FieldValueInvalid', field: 'spec.n', value: o.spec.n, detail: 'must be >= 0' }] : []),
    warnCreate: (o, c) => c.warn(`created ${o.metadata.name}`) };
  const store = new Store(storage, [namespaces, strict]);
  await store.create(namespaces, '', { metadata: { name: 'ns' } }, { ...ctx(), namespace: '' });
  const c = { ...ctx(), warn: (m: string) => warned.push(m) };
  await assert.rejects(store.create(strict, 'ns', { metadata: { name: 'bad' }, spec: { n: -1 } }, c));
  await store.create(strict, 'ns', { metadata: { name: 'good' }, spec: { n: 1 } }, c);
  assert.deepEqual(warned, ['created good']);
  await storage.close();
});
