/**
 * The garbage collector's graph against a real Store: updates that keep an
 * object's ownerReferences keep its edges, updates that change them move
 * the edges, and an owner's deletion deletes exactly its current dependents.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { controllerContext } from '../../src/controllers/context.js';
import { GarbageCollector } from '../../src/controllers/garbage-collector.js';
import { ControllerScope } from '../../src/controllers/informer.js';
import type { KObject } from '../../src/registry/types.js';

const NS = 'gc';

test('garbage collector: edges survive updates that keep ownerReferences and follow those that change them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-test-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  const store = new Store(storage, allResources());
  const ctx = { ...controllerContext('test'), namespace: NS };
  const cms = store.find('', 'v1', 'configmaps')!;
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, controllerContext('test'));
  const create = (name: string, owners: KObject[] = []) => store.create(cms, NS, {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name, ...(owners.length ? { ownerReferences: owners.map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name, uid: o.metadata.uid })) } : {}) },
  } as KObject, ctx);
  const exists = async (name: string) => (await store.get('', 'configmaps', NS, name)) !== undefined;
  const scope = new ControllerScope();
  try {
    const a = await create('owner-a');
    const b = await create('owner-b');
    await create('kept', [a]);
    await create('moved', [a]);
    await create('released', [a]);
    await create('other', [b]);
    await scope.collect(() => new GarbageCollector(store, () => {}).start());
    // Updates seen through the watch: labels only (edges kept), a new owner, no owner.
    for (let i = 0; i < 3; i++) {
      await store.update(cms, NS, 'kept', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { n: String(i) } } }), ctx);
    }
    await store.update(cms, NS, 'moved', (cur) => ({ ...cur, metadata: { ...cur.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner-b', uid: b.metadata.uid! }] } }), ctx);
    await store.update(cms, NS, 'released', (cur) => { delete cur.metadata.ownerReferences; return cur; }, ctx);
    await store.delete(cms, NS, 'owner-a', { propagationPolicy: 'Background' }, ctx);
    while (await exists('kept')) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual({ moved: await exists('moved'), released: await exists('released'), other: await exists('other') },
      { moved: true, released: true, other: true });
    await store.delete(cms, NS, 'owner-b', { propagationPolicy: 'Background' }, ctx);
    while (await exists('moved') || await exists('other')) await new Promise((r) => setTimeout(r, 10));
    assert.equal(await exists('released'), true);
  } finally {
    scope.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
