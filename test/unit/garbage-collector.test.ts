/**
 * The garbage collector's graph against a real Store: updates that keep an
 * object's ownerReferences keep its edges, updates that change them move
 * the edges, and an owner's deletion deletes exactly its current dependents.
 * A write that answers 409 Conflict is retried, not taken for done.
 */
import { loopback } from '../helpers/loopback.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store, type DeleteRequest } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { GarbageCollector } from '../../src/controllers/garbage-collector.js';
import { newControllerContext, type ControllerContext } from '../../src/controllers/runtime/controller-context.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { errors } from '../../src/apimachinery/errors.js';

const NS = 'gc';

/** A garbage collector on a context of its own; stop() stops it and its informers. */
function gcRunner() {
  let ctx: ControllerContext | undefined;
  let gc: GarbageCollector | undefined;
  return {
    async start(store: Store) {
      ctx = newControllerContext({ client: loopback(store) });
      gc = new GarbageCollector(ctx);
      await gc.start();
    },
    stop() {
      gc?.stop();
      ctx?.informers.stop();
    },
  };
}

test('garbage collector: edges survive updates that keep ownerReferences and follow those that change them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-test-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  const store = new Store(storage, allResources());
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  const cms = store.find('', 'v1', 'configmaps')!;
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, inProcessWriteContext('test'));
  const create = (name: string, owners: KObject[] = []) => store.create(cms, NS, {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name, ...(owners.length ? { ownerReferences: owners.map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name, uid: o.metadata.uid })) } : {}) },
  } as KObject, ctx);
  const exists = async (name: string) => (await store.get('', 'configmaps', NS, name)) !== undefined;
  const scope = gcRunner();
  try {
    const a = await create('owner-a');
    const b = await create('owner-b');
    await create('kept', [a]);
    await create('moved', [a]);
    await create('released', [a]);
    await create('other', [b]);
    await scope.start(store);
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

test('garbage collector: events are ignored (DefaultIgnoredResources), so an event owned by a deleted object stays', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  const cms = store.find('', 'v1', 'configmaps')!;
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, inProcessWriteContext('test'));
  const owner = await store.create(cms, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } } as KObject, ctx);
  const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! }];
  await store.create(cms, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dependent', ownerReferences } } as KObject, ctx);
  await store.create(store.find('', 'v1', 'events')!, NS, {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'owned-event', ownerReferences },
    involvedObject: { kind: 'ConfigMap', namespace: NS, name: 'owner' }, reason: 'Test', message: 'm', type: 'Normal',
  } as KObject, ctx);
  const scope = gcRunner();
  try {
    await scope.start(store);
    await store.delete(cms, NS, 'owner', { propagationPolicy: 'Background' }, ctx);
    while (await store.get('', 'configmaps', NS, 'dependent')) await new Promise((r) => setTimeout(r, 10));
    assert.ok(await store.get('', 'events', NS, 'owned-event'));
  } finally {
    scope.stop();
    await storage.close();
  }
});

/**
 * A store whose next garbage-collector write of the given kind answers 409
 * Conflict (as a lost race or a stale UID precondition would), recording the
 * delete requests the collector sends.
 */
async function conflictingStore(method: 'update' | 'delete') {
  const dir = mkdtempSync(join(tmpdir(), 'gc-test-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  const store = new Store(storage, allResources());
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, inProcessWriteContext('test'));
  const deletes: DeleteRequest[] = [];
  let conflicts = 0;
  const inner = { update: store.update.bind(store), delete: store.delete.bind(store) };
  const conflictOnce = (c: WriteContext, name: string) => {
    if (c.fieldManager !== 'garbage-collector' || conflicts > 0) return;
    conflicts++;
    throw errors.conflict({ group: '', resource: 'configmaps' }, name, 'the object has been modified; please apply your changes to the latest version and try again');
  };
  store.update = async (def, namespace, name, mutate, c, sub) => {
    if (method === 'update') conflictOnce(c, name);
    return inner.update(def, namespace, name, mutate, c, sub);
  };
  store.delete = async (def, namespace, name, req, c) => {
    // The request's fields that are set (the client leaves the others undefined).
    if (c.fieldManager === 'garbage-collector') deletes.push(Object.fromEntries(Object.entries(req).filter(([, v]) => v !== undefined)));
    if (method === 'delete') conflictOnce(c, name);
    return inner.delete(def, namespace, name, req, c);
  };
  const cms = store.find('', 'v1', 'configmaps')!;
  const scope = gcRunner();
  return {
    store, cms, ctx, deletes, scope,
    conflicts: () => conflicts,
    get: (name: string) => store.get('', 'configmaps', NS, name),
    async until(what: string, ok: () => Promise<boolean>) {
      const deadline = Date.now() + 20_000;
      while (!(await ok())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      scope.stop();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('garbage collector: a conflict deleting a dependent whose owner is gone is retried, with the dependent\'s UID as precondition', async () => {
  const t = await conflictingStore('delete');
  try {
    const dep = await t.store.create(t.cms, NS, {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: 'orphaned', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: 'no-such-uid' }] },
    } as KObject, t.ctx);
    await t.scope.start(t.store);
    await t.until('the dependent to go', async () => (await t.get('orphaned')) === undefined);
    assert.equal(t.conflicts(), 1);
    assert.deepEqual(t.deletes, [
      { propagationPolicy: 'Background', preconditions: { uid: dep.metadata.uid } },
      { propagationPolicy: 'Background', preconditions: { uid: dep.metadata.uid } },
    ]);
  } finally {
    await t.close();
  }
});

test('garbage collector: a conflict removing the foregroundDeletion finalizer is retried until the owner goes', async () => {
  const t = await conflictingStore('update');
  try {
    await t.store.create(t.cms, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } } as KObject, t.ctx);
    await t.scope.start(t.store);
    await t.store.delete(t.cms, NS, 'owner', { propagationPolicy: 'Foreground' }, t.ctx);
    await t.until('the owner to go', async () => (await t.get('owner')) === undefined);
    assert.equal(t.conflicts(), 1);
  } finally {
    await t.close();
  }
});

test('garbage collector: a conflict orphaning a dependent is retried; the dependent loses the reference and stays', async () => {
  const t = await conflictingStore('update');
  try {
    const owner = await t.store.create(t.cms, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } } as KObject, t.ctx);
    await t.store.create(t.cms, NS, {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: 'kept', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! }] },
    } as KObject, t.ctx);
    await t.scope.start(t.store);
    await t.store.delete(t.cms, NS, 'owner', { propagationPolicy: 'Orphan' }, t.ctx);
    await t.until('the owner to go', async () => (await t.get('owner')) === undefined);
    assert.equal(t.conflicts(), 1);
    const kept = await t.get('kept');
    assert.ok(kept);
    assert.equal(kept.metadata.ownerReferences, undefined);
  } finally {
    await t.close();
  }
});

/** Three objects, each the blocking controller of the next, in a circle (as the conformance test's pods). */
test('garbage collector: a foreground deletion into a circle of blocking owners finishes, the circle broken by unblocking a reference', async () => {
  const t = await conflictingStore('update');
  try {
    const mk = (name: string) => t.store.create(t.cms, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } as KObject, t.ctx);
    const objs = [await mk('c1'), await mk('c2'), await mk('c3')];
    // c1 owned by c3, c2 by c1, c3 by c2.
    for (let i = 0; i < 3; i++) {
      const owner = objs[(i + 2) % 3]!;
      await t.store.update(t.cms, NS, objs[i]!.metadata.name!, (cur) => ({
        ...cur,
        metadata: { ...cur.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true }] },
      }), t.ctx);
    }
    await t.scope.start(t.store);
    await t.store.delete(t.cms, NS, 'c1', { propagationPolicy: 'Foreground' }, t.ctx);
    await t.until('the circle to go', async () => (await t.get('c1')) === undefined && (await t.get('c2')) === undefined && (await t.get('c3')) === undefined);
  } finally {
    await t.close();
  }
});

test('garbage collector: a dependent whose reference does not block its owner does not hold the owner\'s foreground deletion', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-test-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  const store = new Store(storage, allResources());
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  const cms = store.find('', 'v1', 'configmaps')!;
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, inProcessWriteContext('test'));
  const owner = await store.create(cms, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } } as KObject, ctx);
  // A finalizer nobody removes keeps the dependent in deletion for good.
  await store.create(cms, NS, {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'dep', finalizers: ['example.com/hold'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid!, blockOwnerDeletion: false }] },
  } as KObject, ctx);
  const scope = gcRunner();
  try {
    await scope.start(store);
    await store.delete(cms, NS, 'owner', { propagationPolicy: 'Foreground' }, ctx);
    while (await store.get('', 'configmaps', NS, 'owner')) await new Promise((r) => setTimeout(r, 10));
    // The owner went while its dependent stayed (the dependent's finalizer keeps it whatever the collector does next).
    const dep = await store.get('', 'configmaps', NS, 'dep');
    assert.deepEqual(dep?.metadata.finalizers, ['example.com/hold']);
  } finally {
    scope.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
