/**
 * The etcd backend while its member is away: calls fail with UnavailableError (answered with
 * the Status kube-apiserver answers), the storage recovers by itself once the member is back, a watch resumes after the
 * last event it handed out, and an in-process informer whose watch etcd canceled (its history
 * compacted meanwhile) lists again, as client-go's reflector does.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { EtcdStorage } from '../../src/storage/etcd.js';
import { isEtcdUnreachable, unreachableAs } from '../../src/storage/etcd-unavailable.js';
import { UnavailableError } from '../../src/storage/types.js';
import { storageUnavailableStatus, watchStorageUnavailableStatus } from '../../src/api/storage-unavailable.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { SharedInformer } from '../../src/client/shared-informer.js';
import { configmaps, namespaces } from '../../src/client/resources.js';
import type { ResourceRef } from '../../src/client/types.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { loopback } from '../helpers/loopback.js';
import { otherClientUrl, startEtcd, type EtcdServer } from '../helpers/etcd-server.js';

let etcd: EtcdServer;
before(async () => { etcd = await startEtcd(); });
after(async () => { await etcd?.stop(); });

/** Polls until `check` gives a value; a throw counts as not yet. */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + 30_000;
  let last: unknown;
  for (;;) {
    try { const v = await check(); if (v !== undefined) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${String(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the etcd client\'s unreachable errors are UnavailableError, answered with the finisher\'s 504 for writes and a 500 for reads', () => {
  const broken = Object.assign(new Error('Execution prevented because the circuit breaker is open'), { isBrokenCircuitError: true });
  assert.equal(isEtcdUnreachable(broken), true);
  assert.equal(isEtcdUnreachable(new Error('etcdserver: mvcc: required revision has been compacted')), false);
  assert.equal(isEtcdUnreachable('not an error'), false);
  const other = new Error('key exists');
  assert.equal(unreachableAs(other), other);
  const wrapped = unreachableAs(broken);
  assert.ok(wrapped instanceof UnavailableError);
  assert.equal(wrapped.message, 'Execution prevented because the circuit breaker is open');
  const timeout = {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'Timeout: request did not complete within requested timeout - context deadline exceeded', reason: 'Timeout', details: {}, code: 504,
  };
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) assert.deepEqual(storageUnavailableStatus(method), timeout);
  for (const method of ['GET', 'HEAD', undefined]) {
    assert.deepEqual(storageUnavailableStatus(method), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'context deadline exceeded', code: 500 });
  }
  assert.deepEqual(watchStorageUnavailableStatus(), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Internal error occurred: context deadline exceeded',
    reason: 'InternalError', details: { causes: [{ message: 'context deadline exceeded' }] }, code: 500,
  });
});

test('etcd: while the member is away every call fails with UnavailableError, and the storage recovers by itself', async () => {
  const storage = await EtcdStorage.open({ servers: [etcd.url], prefix: '/away' });
  try {
    const a = await storage.create('/core/configmaps/ns/a', '1');
    await etcd.restart(await otherClientUrl());
    await assert.rejects(storage.get('/core/configmaps/ns/a'), UnavailableError);
    await assert.rejects(storage.update('/core/configmaps/ns/a', '2', a.modRevision), UnavailableError);
    await assert.rejects(storage.create('/core/configmaps/ns/b', '1'), UnavailableError);
    await assert.rejects(storage.delete('/core/configmaps/ns/a'), UnavailableError);
    await assert.rejects(storage.list('/core/configmaps/'), UnavailableError);
    await assert.rejects(storage.count('/core/configmaps/'), UnavailableError);
    await etcd.restart();
    // The refused update was not applied; the next one is, by the same storage.
    const b = await until('the member to answer again', () => storage.update('/core/configmaps/ns/a', '2', a.modRevision));
    assert.deepEqual(await storage.get('/core/configmaps/ns/a'), { key: '/core/configmaps/ns/a', value: '2', createRevision: a.modRevision, modRevision: b.modRevision });
  } finally { await storage.close(); }
});

test('etcd: a watch resumes after the last event it handed out, with what was written while it reconnected', async () => {
  const storage = await EtcdStorage.open({ servers: [etcd.url], prefix: '/resume' });
  try {
    const first = await storage.create('/core/configmaps/ns/a', '1');
    const seen: string[] = [];
    let ended: unknown;
    const handle = await storage.watch('/core/configmaps/', first.modRevision - 1, (evs) => seen.push(...evs.map((e) => `${e.key}=${e.value}@${e.revision}`)), (e) => { ended = e; });
    await until('the first event', async () => (seen.length ? true : undefined));
    // What a bookmark may carry: no further than the events handed out.
    assert.equal(handle.progress?.(), first.modRevision);
    const elsewhere = await otherClientUrl();
    await etcd.restart(elsewhere);
    const other = await EtcdStorage.open({ servers: [elsewhere], prefix: '/resume' });
    const revs: number[] = [];
    try {
      let last = first.modRevision;
      for (const v of ['2', '3', '4']) revs.push(last = (await other.update('/core/configmaps/ns/a', v, last)).modRevision);
      revs.push((await other.create('/core/configmaps/ns/b', '1')).modRevision);
    } finally { await other.close(); }
    await etcd.restart();
    await until('the missed events', async () => (seen.length === 5 ? true : undefined));
    assert.deepEqual(seen, [
      `/core/configmaps/ns/a=1@${first.modRevision}`,
      `/core/configmaps/ns/a=2@${revs[0]}`, `/core/configmaps/ns/a=3@${revs[1]}`, `/core/configmaps/ns/a=4@${revs[2]}`,
      `/core/configmaps/ns/b=1@${revs[3]}`,
    ]);
    assert.equal(handle.progress?.(), revs[3]);
    assert.equal(ended, undefined);
  } finally { await storage.close(); }
});

test('an in-process informer whose etcd watch was canceled for a compaction lists again', async () => {
  const storage = await EtcdStorage.open({ servers: [etcd.url], prefix: '/informer' });
  const store = new Store(storage, allResources());
  const client = loopback(store);
  const informer = new SharedInformer(client.resource(configmaps as ResourceRef<KObject>));
  try {
    await client.resource(namespaces).create('', { metadata: { name: 'ns' } });
    await client.resource(configmaps).create('ns', { metadata: { name: 'a' }, data: { v: '1' } });
    await informer.start();
    const events: string[] = [];
    informer.onEvent((type, obj) => events.push(`${type} ${obj.metadata.name} ${(obj as ConfigMap).data?.v ?? ''}`));
    // Written, and the history compacted, where this storage cannot reach the member.
    const elsewhere = await otherClientUrl();
    await etcd.restart(elsewhere);
    const otherStorage = await EtcdStorage.open({ servers: [elsewhere], prefix: '/informer' });
    try {
      const otherClient = loopback(new Store(otherStorage, allResources()));
      await otherClient.resource(configmaps).update('ns', 'a', (current) => ({ ...current, data: { v: '2' } }));
      await otherClient.resource(configmaps).create('ns', { metadata: { name: 'b' }, data: { v: '1' } });
      await otherStorage.compact(otherStorage.currentRevision());
    } finally { await otherStorage.close(); }
    await etcd.restart();
    const cached = (name: string) => informer.cache.list('*').find((o: KObject) => o.metadata.name === name) as ConfigMap | undefined;
    await until('the relist', async () => (cached('b') && cached('a')?.data?.v === '2' ? true : undefined));
    assert.deepEqual(events, ['ADDED a 1', 'MODIFIED a 2', 'ADDED b 1']);
  } finally {
    informer.stop();
    await storage.close();
  }
});
