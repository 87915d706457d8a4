import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import { EtcdStorage } from '../../src/storage/etcd.js';
import { etcdKey } from '../../src/storage/etcd-keys.js';
import { otherClientUrl, startEtcd, type EtcdServer } from '../helpers/etcd-server.js';
import { CompactedError } from '../../src/storage/types.js';
import { storageContractTests } from '../helpers/storage-contract.js';

let etcd: EtcdServer;
before(async () => { etcd = await startEtcd(); });
after(async () => { await etcd?.stop(); });

// Each test under a prefix of its own on the one member.
let prefixes = 0;
storageContractTests('etcd', async () => {
  const storage = await EtcdStorage.open({ servers: [etcd.url], prefix: `/contract-${++prefixes}` });
  return { storage, done: () => storage.close() };
});

test('keys are laid out as kube-apiserver lays them out', () => {
  assert.equal(etcdKey('/registry', '/core/configmaps/default/cm'), '/registry/configmaps/default/cm');
  assert.equal(etcdKey('/registry', '/core/nodes/n1'), '/registry/minions/n1');
  assert.equal(etcdKey('/registry', '/core/services/default/'), '/registry/services/specs/default/');
  assert.equal(etcdKey('/registry', '/core/endpoints/default/kubernetes'), '/registry/services/endpoints/default/kubernetes');
  assert.equal(etcdKey('/registry', '/core/replicationcontrollers/ns/rc'), '/registry/controllers/ns/rc');
  assert.equal(etcdKey('/registry', '/networking.k8s.io/ingresses/ns/i'), '/registry/ingress/ns/i');
  assert.equal(etcdKey('/registry', '/apps/deployments/ns/d'), '/registry/deployments/ns/d');
  assert.equal(etcdKey('/registry', '/coordination.k8s.io/leases/kube-node-lease/'), '/registry/leases/kube-node-lease/');
  assert.equal(etcdKey('/registry', '/apiextensions.k8s.io/customresourcedefinitions/w.example.com'),
    '/registry/apiextensions.k8s.io/customresourcedefinitions/w.example.com');
  assert.equal(etcdKey('/registry', '/apiregistration.k8s.io/apiservices/v1.'), '/registry/apiregistration.k8s.io/apiservices/v1.');
  assert.equal(etcdKey('/registry', '/example.com/widgets/ns/w'), '/registry/example.com/widgets/ns/w');
  assert.equal(etcdKey('/custom/', '/core/secrets/ns/s'), '/custom/secrets/ns/s');
});

test('etcd: values are stored as written under the prefix, and compaction is recorded in compact_rev_key', async () => {
  const storage = await EtcdStorage.open({ servers: [etcd.url], prefix: '/layout' });
  const client = new Etcd3({ hosts: etcd.url });
  try {
    const cm = await storage.create('/core/configmaps/default/cm', '{"kind":"ConfigMap"}');
    assert.equal((await client.get('/layout/configmaps/default/cm').string()), '{"kind":"ConfigMap"}');
    await storage.compact(cm.modRevision);
    assert.equal(await client.get('compact_rev_key').string(), String(cm.modRevision));
    // Another server on the same etcd learns the compacted and the newest revision there.
    const other = await EtcdStorage.open({ servers: [etcd.url], prefix: '/layout' });
    try {
      assert.equal(other.compactedRevision(), cm.modRevision);
      assert.equal(other.currentRevision(), storage.currentRevision());
      assert.deepEqual(await other.get('/core/configmaps/default/cm'),
        { key: '/core/configmaps/default/cm', value: '{"kind":"ConfigMap"}', createRevision: cm.modRevision, modRevision: cm.modRevision });
    } finally { await other.close(); }
  } finally {
    client.close();
    await storage.close();
  }
});

test('etcd: a member nobody answers at fails to open with the address', async () => {
  await assert.rejects(EtcdStorage.open({ servers: ['http://127.0.0.1:1'] }), (e: unknown) =>
    e instanceof Error && e.message.startsWith('failed to reach etcd at http://127.0.0.1:1: '));
});

test('etcd: a watch whose history was compacted while it reconnected ends with CompactedError', async () => {
  const storage = await EtcdStorage.open({ servers: [etcd.url], prefix: '/reconnect' });
  try {
    const first = await storage.create('/core/configmaps/ns/a', '1');
    const seen: number[] = [];
    let ended!: (e: unknown) => void;
    const end = new Promise<unknown>((resolve) => { ended = resolve; });
    await storage.watch('/core/configmaps/', first.modRevision - 1, (evs) => seen.push(...evs.map((e) => e.revision)), ended);
    while (!seen.length) await new Promise((r) => setTimeout(r, 5));
    // Written and compacted while the member answers elsewhere: the watch cannot reconnect meanwhile.
    const elsewhere = await otherClientUrl();
    await etcd.restart(elsewhere);
    const other = await EtcdStorage.open({ servers: [elsewhere], prefix: '/reconnect' });
    let compactTo: number;
    try {
      const missed = await other.update('/core/configmaps/ns/a', '2', first.modRevision);
      await other.update('/core/configmaps/ns/a', '3', missed.modRevision);
      compactTo = other.currentRevision();
      await other.compact(compactTo);
    } finally { await other.close(); }
    await etcd.restart();
    const err = await end;
    assert.ok(err instanceof CompactedError);
    assert.deepEqual([err.requested, err.compacted, seen], [first.modRevision, compactTo, [first.modRevision]]);
  } finally { await storage.close(); }
});
