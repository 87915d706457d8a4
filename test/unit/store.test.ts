import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';

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
  await assert.rejects(store.list(widgets, 'ns', { resourceVersion: '2', resourceVersionMatch: 'Exact' }), (e: unknown) =>
    e instanceof StatusError && e.status.code === 410 && e.status.message === 'The resourceVersion for the provided list is too old.');
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
  const strict: ResourceDef<{ spec?: { n: number } }> = { ...widgets, resource: 'strict', storagePrefix: '/example.com/strict',
    validate: (o) => ((o.spec?.n ?? 0) < 0 ? [{ type: 'FieldValueInvalid', field: 'spec.n', value: o.spec?.n, detail: 'must be >= 0' }] : []),
    warnCreate: (o, c) => c.warn(`created ${o.metadata.name}`) };
  const store = new Store(storage, [namespaces, strict]);
  await store.create(namespaces, '', { metadata: { name: 'ns' } }, { ...ctx(), namespace: '' });
  const c = { ...ctx(), warn: (m: string) => warned.push(m) };
  await assert.rejects(store.create(strict, 'ns', { metadata: { name: 'bad' }, spec: { n: -1 } }, c));
  await store.create(strict, 'ns', { metadata: { name: 'good' }, spec: { n: 1 } }, c);
  assert.deepEqual(warned, ['created good']);
  await storage.close();
});

/** A name generator that hands out `names` in turn (then fresh ones), counting its calls. */
function scripted(names: string[]) {
  const gen = { calls: 0, next: (base: string) => base + (names[gen.calls++] ?? `fresh${gen.calls}`) };
  return gen;
}

test('RetryGenerateName: a generated name that is taken is generated again, up to 8 attempts in all', async () => {
  const { storage, store } = await fixture();
  await store.create(widgets, 'ns', { metadata: { name: 'w-taken' } }, ctx());
  const gen = scripted(['taken', 'taken', 'taken', 'free1']);
  store.nameGenerator = gen.next;
  const created = await store.create(widgets, 'ns', { metadata: { generateName: 'w-' }, spec: { n: 1 } }, ctx());
  assert.equal(created.metadata.name, 'w-free1');
  assert.equal(created.metadata.generateName, 'w-');
  assert.equal(gen.calls, 4);

  const rev = storage.currentRevision();
  const always = scripted(Array(20).fill('taken'));
  store.nameGenerator = always.next;
  await assert.rejects(store.create(widgets, 'ns', { metadata: { generateName: 'w-' } }, ctx()), (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.deepEqual(e.status, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'widgets.example.com "w-taken" already exists, the server was not able to generate a unique name for the object',
      reason: 'AlreadyExists',
      details: { name: 'w-taken', group: 'example.com', kind: 'widgets', retryAfterSeconds: 1 },
      code: 409,
    });
    return true;
  });
  assert.equal(always.calls, 8);
  assert.equal(storage.currentRevision(), rev);
  await storage.close();
});

test('RetryGenerateName: a name given explicitly is never retried', async () => {
  const { storage, store } = await fixture();
  await store.create(widgets, 'ns', { metadata: { name: 'w-taken' } }, ctx());
  const gen = scripted([]);
  store.nameGenerator = gen.next;
  await assert.rejects(store.create(widgets, 'ns', { metadata: { name: 'w-taken' } }, ctx()), (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.message, 'widgets.example.com "w-taken" already exists');
    assert.deepEqual(e.status.details, { name: 'w-taken', group: 'example.com', kind: 'widgets' });
    return true;
  });
  // CheckGeneratedNameError looks only at generateName: with both set the name wins, there is no retry,
  // yet the message is the generated-name one.
  await assert.rejects(store.create(widgets, 'ns', { metadata: { name: 'w-taken', generateName: 'w-' } }, ctx()), (e: unknown) =>
    e instanceof StatusError && e.status.reason === 'AlreadyExists' &&
    e.status.message === 'widgets.example.com "w-taken" already exists, the server was not able to generate a unique name for the object');
  assert.equal(gen.calls, 0);
  await storage.close();
});

test('a create that collides with an object being deleted says so', async () => {
  const { storage, store } = await fixture();
  await store.create(widgets, 'ns', { metadata: { name: 'a', finalizers: ['example.com/hold'] } }, ctx());
  await store.delete(widgets, 'ns', 'a', {}, ctx());
  await assert.rejects(store.create(widgets, 'ns', { metadata: { name: 'a' } }, ctx()), (e: unknown) =>
    e instanceof StatusError && e.status.reason === 'AlreadyExists' &&
    e.status.message === 'object is being deleted: widgets.example.com "a" already exists');
  await storage.close();
});
