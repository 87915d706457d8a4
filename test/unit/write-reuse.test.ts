/**
 * What a write reuses instead of computing again: the stored text as the
 * answer's body, and a manager's FieldsV1 that an update left unchanged.
 * Each must give exactly what computing it again gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { fromFieldsV1, isSubset, setFromPaths, toFieldsV1 } from '../../src/fieldmanager/fieldset.js';
import { decodeManagedFields, encodeManagedFields } from '../../src/fieldmanager/managed.js';

const ctx = (fieldManager: string, now = new Date('2024-05-01T10:00:00Z')): WriteContext =>
  ({ namespace: 'ns', now, dryRun: false, fieldManager, warn: () => {} });

async function fixture() {
  const store = new Store(new SqliteStorage(':memory:'), allResources());
  const def = (resource: string, group = '') => store.defs.find((d) => d.resource === resource && d.group === group)!;
  await store.create(def('namespaces'), '', { metadata: { name: 'ns' } }, { ...ctx('test'), namespace: '' });
  await store.create(def('serviceaccounts'), 'ns', { metadata: { name: 'default' } }, ctx('test'));
  return { store, deployments: def('deployments', 'apps') };
}

const deployment = (image: string) => ({
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } } },
}) as unknown as KObject;

test('isSubset compares members, not the nodes leading to them', () => {
  const a = setFromPaths([['f:spec', 'f:replicas'], ['f:spec', 'f:template', 'f:spec']]);
  assert.equal(isSubset(setFromPaths([['f:spec', 'f:replicas']]), a), true);
  assert.equal(isSubset(setFromPaths([]), a), true);
  assert.equal(isSubset(setFromPaths([['f:spec']]), a), false); // f:spec only leads to members of a
  assert.equal(isSubset(setFromPaths([['f:spec', 'f:template', 'f:spec', 'f:x']]), a), false);
  assert.equal(isSubset(a, setFromPaths([['f:spec', 'f:replicas']])), false);
  assert.equal(isSubset(a, a), true);
});

test('create and update answer with the text stored, resourceVersion included', async () => {
  const { store, deployments } = await fixture();
  const created = await store.create(deployments, 'ns', deployment('nginx:1'), ctx('kubectl'));
  assert.deepEqual(JSON.parse(store.writtenJSON(created)!), JSON.parse(JSON.stringify(created)));
  const updated = await store.update(deployments, 'ns', 'web', (cur) => {
    (cur.spec as { replicas: number }).replicas = 3;
    return cur;
  }, ctx('kubectl', new Date('2024-05-01T10:01:00Z')));
  const served = JSON.parse(store.writtenJSON(updated)!);
  assert.equal(served.metadata.resourceVersion, updated.metadata.resourceVersion);
  assert.deepEqual(served, JSON.parse(JSON.stringify(updated)));
  assert.deepEqual(served, JSON.parse(JSON.stringify(await store.read(deployments, 'ns', 'web'))));
  // Nothing for an object the store did not just write.
  assert.equal(store.writtenJSON(await store.read(deployments, 'ns', 'web')), undefined);
});

test('an update that leaves a manager\'s fields as they were writes the FieldsV1 it read', async () => {
  const { store, deployments } = await fixture();
  await store.create(deployments, 'ns', deployment('nginx:1'), ctx('kubectl'));
  const before = await store.read(deployments, 'ns', 'web');
  const next = await store.update(deployments, 'ns', 'web', (cur) => {
    ((cur.spec as any).template.spec.containers[0] as { image: string }).image = 'nginx:2';
    return cur;
  }, ctx('kubectl', new Date('2024-05-01T10:05:00Z')));
  const [entry] = next.metadata.managedFields!;
  assert.ok(entry);
  assert.equal(entry.time, '2024-05-01T10:05:00Z');
  assert.deepEqual(entry.fieldsV1, before.metadata.managedFields?.[0]?.fieldsV1);
  // The same value serializing the set again gives.
  assert.deepEqual(entry.fieldsV1, toFieldsV1(fromFieldsV1(entry.fieldsV1)));
  // A second manager's update leaves the first one's set alone and adds its own.
  const third = await store.update(deployments, 'ns', 'web', (cur) => {
    (cur.spec as { paused?: boolean }).paused = true;
    return cur;
  }, ctx('other', new Date('2024-05-01T10:06:00Z')));
  assert.deepEqual(third.metadata.managedFields!.map((e) => [e.manager, e.fieldsV1]), [
    ['kubectl', before.metadata.managedFields?.[0]?.fieldsV1],
    ['other', { 'f:spec': { 'f:paused': {} } }],
  ]);
  // Re-encoding what was read gives the same JSON.
  const reread = decodeManagedFields(JSON.parse(JSON.stringify(third.metadata.managedFields)));
  assert.equal(JSON.stringify(encodeManagedFields(reread)), JSON.stringify(third.metadata.managedFields));
});

test('watchers get the object a read-only caller was returned, and a copy of any other caller\'s', async () => {
  const { store, deployments } = await fixture();
  const seen: [string, KObject][] = [];
  const h = await store.watch(deployments, 'ns', store.storage.currentRevision(), {}, (type, obj) => seen.push([type, obj]));
  const shared = await store.create(deployments, 'ns', deployment('nginx:1'), store.readOnlyResult(ctx('kubectl')));
  const copied = await store.update(deployments, 'ns', 'web', (cur) => {
    (cur.spec as { replicas: number }).replicas = 2;
    return cur;
  }, ctx('controller'));
  h.cancel();
  assert.deepEqual(seen.map(([t, o]) => [t, o.metadata.resourceVersion]),
    [['ADDED', shared.metadata.resourceVersion], ['MODIFIED', copied.metadata.resourceVersion]]);
  assert.equal(seen[0]?.[1], shared);
  assert.notEqual(seen[1]?.[1], copied);
  assert.deepEqual(seen[1]?.[1], copied);
  // What decoding the stored text would have given.
  assert.deepEqual(JSON.parse(JSON.stringify(seen[0]?.[1])), JSON.parse(store.writtenJSON(shared)!));
});
