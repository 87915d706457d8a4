/**
 * `winkube up --storage etcd --etcd-servers URL` on a real etcd member: kubectl creates, gets,
 * lists (in pages too) and watches; the objects are where kube-apiserver puts them
 * (`etcdctl get /registry/configmaps/default/NAME`), their resourceVersion is the etcd mod
 * revision, Secrets are encrypted at rest on top (`--encryption-provider-config`), and a
 * compaction recorded by another API server's compactor makes old versions 410 Gone.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Etcd3 } from 'etcd3';
import { kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { otherClientUrl, startEtcd, type EtcdServer } from '../helpers/etcd-server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
const encryptionConfig = join(dataDir, 'encryption.yaml');
let etcd: EtcdServer;
let cluster: TestCluster;

/** Debian's etcd-client ships etcdctl beside etcd-server's etcd. */
async function etcdctl(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('etcdctl', ['--endpoints', etcd.url, ...args], { env: { ...process.env, ETCDCTL_API: '3' } });
  return stdout;
}

before(async () => {
  etcd = await startEtcd();
  writeFileSync(encryptionConfig, `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources:
      - secrets
    providers:
      - aescbc:
          keys:
            - name: key1
              secret: ${randomBytes(32).toString('base64')}
      - identity: {}
`);
  cluster = await startCluster(dataDir, ['--api-only', '--storage', 'etcd', '--etcd-servers', etcd.url, '--encryption-provider-config', encryptionConfig]);
});
after(async () => {
  await cluster?.stop();
  await etcd?.stop();
  removeDir(dataDir);
});

test('objects live under /registry with their etcd revision as resourceVersion', async () => {
  assert.equal(await kubectlOk(cluster, ['create', 'configmap', 'cm1', '--from-literal=a=1']), 'configmap/cm1 created\n');
  const rv = await kubectlOk(cluster, ['get', 'configmap', 'cm1', '-o', 'jsonpath={.metadata.resourceVersion}']);
  const stored = JSON.parse(await etcdctl(['get', '/registry/configmaps/default/cm1', '-w', 'json'])) as
    { kvs: { key: string; value: string; create_revision: number; mod_revision: number }[] };
  assert.equal(stored.kvs.length, 1);
  assert.equal(String(stored.kvs[0]!.mod_revision), rv);
  const obj = JSON.parse(Buffer.from(stored.kvs[0]!.value, 'base64').toString('utf8')) as { kind: string; metadata: { name: string; namespace: string }; data: unknown };
  assert.deepEqual([obj.kind, obj.metadata.name, obj.metadata.namespace, obj.data], ['ConfigMap', 'cm1', 'default', { a: '1' }]);
  assert.equal(await etcdctl(['get', '/registry/configmaps/default/cm1', '--print-value-only']),
    `${Buffer.from(stored.kvs[0]!.value, 'base64').toString('utf8')}\n`);
  // An update is guarded by the revision: a stale one is a Conflict.
  const stale = await kubectl(cluster, ['replace', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default', resourceVersion: String(Number(rv) - 1) }, data: { a: 'x' } }),
  });
  assert.equal(stale.code, 1);
  assert.equal(stale.stderr, 'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "cm1": the object has been modified; please apply your changes to the latest version and try again\n');
});

test('lists, in pages at one revision too, and watches through kubectl', async () => {
  await kubectlOk(cluster, ['create', 'configmap', 'l1', '--from-literal=a=1']);
  await kubectlOk(cluster, ['create', 'configmap', 'l2', '--from-literal=a=1']);
  await kubectlOk(cluster, ['create', 'configmap', 'l3', '--from-literal=a=1']);
  assert.equal(await kubectlOk(cluster, ['label', 'configmap', 'l1', 'l2', 'l3', 't=list']), 'configmap/l1 labeled\nconfigmap/l2 labeled\nconfigmap/l3 labeled\n');
  assert.equal(await kubectlOk(cluster, ['get', 'configmaps', '-l', 't=list', '-o', 'name']), 'configmap/l1\nconfigmap/l2\nconfigmap/l3\n');
  assert.equal(await kubectlOk(cluster, ['get', 'configmaps', '-l', 't=list', '-o', 'name', '--chunk-size=1']), 'configmap/l1\nconfigmap/l2\nconfigmap/l3\n');
  const page = JSON.parse(await kubectlOk(cluster, ['get', '--raw', '/api/v1/namespaces/default/configmaps?labelSelector=t%3Dlist&limit=2'])) as
    { metadata: { continue: string; resourceVersion: string }; items: { metadata: { name: string } }[] };
  assert.deepEqual(page.items.map((i) => i.metadata.name), ['l1', 'l2']);
  // Upstream's continue token: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<key after the prefix>\u0000"}.
  assert.deepEqual(JSON.parse(Buffer.from(page.metadata.continue, 'base64').toString('utf8')),
    { v: 'meta.k8s.io/v1', rv: Number(page.metadata.resourceVersion), start: 'l2\u0000' });

  const watch = spawn('kubectl', ['--kubeconfig', cluster.kubeconfig, 'get', 'configmaps', '-l', 't=list', '--watch', '--output-watch-events',
    '-o', 'jsonpath={.type} {.object.metadata.name} {.object.data.a}{"\\n"}'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  watch.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  const lines = (n: number) => new Promise<void>((resolve, reject) => {
    const check = () => { if (out.split('\n').length > n) resolve(); };
    watch.stdout.on('data', check);
    watch.once('exit', () => reject(new Error(`kubectl exited: ${out}`)));
    check();
  });
  try {
    await lines(3);
    await kubectlOk(cluster, ['patch', 'configmap', 'l2', '-p', '{"data":{"a":"2"}}']);
    await kubectlOk(cluster, ['delete', 'configmap', 'l3']);
    await lines(5);
  } finally {
    watch.kill();
  }
  assert.equal(out, 'ADDED l1 1\nADDED l2 1\nADDED l3 1\nMODIFIED l2 2\nDELETED l3 1\n');
});

test('a Secret is encrypted at rest in etcd and read back decrypted', async () => {
  await kubectlOk(cluster, ['create', 'secret', 'generic', 'db', '--from-literal=password=hunter2-plaintext']);
  const client = new Etcd3({ hosts: etcd.url });
  try {
    const stored = await client.get('/registry/secrets/default/db').buffer();
    assert.ok(stored);
    assert.equal(stored.subarray(0, 'k8s:enc:aescbc:v1:'.length).toString('latin1'), 'k8s:enc:aescbc:v1:');
    assert.equal(stored.subarray(0, 'k8s:enc:aescbc:v1:key1:'.length).toString('latin1'), 'k8s:enc:aescbc:v1:key1:');
    assert.ok(!stored.includes('hunter2-plaintext'));
  } finally {
    client.close();
  }
  assert.equal(await kubectlOk(cluster, ['get', 'secret', 'db', '-o', 'jsonpath={.data.password}']), Buffer.from('hunter2-plaintext').toString('base64'));
});

test('a compaction another server recorded in compact_rev_key makes older versions 410 Gone', async () => {
  await kubectlOk(cluster, ['create', 'configmap', 'old', '--from-literal=a=1']);
  const oldRV = Number(await kubectlOk(cluster, ['get', 'configmap', 'old', '-o', 'jsonpath={.metadata.resourceVersion}']));
  await kubectlOk(cluster, ['patch', 'configmap', 'old', '-p', '{"data":{"a":"2"}}']);
  const compactTo = Number(await kubectlOk(cluster, ['get', 'configmap', 'old', '-o', 'jsonpath={.metadata.resourceVersion}']));
  // What k8s.io/apiserver/pkg/storage/etcd3/compact.go does: record the revision, then compact.
  await etcdctl(['put', 'compact_rev_key', String(compactTo)]);
  await etcdctl(['compaction', String(compactTo)]);
  const list = await kubectl(cluster, ['get', '--raw', `/api/v1/namespaces/default/configmaps?resourceVersion=${oldRV}&resourceVersionMatch=Exact`]);
  assert.equal(list.stderr, 'Error from server (Expired): The resourceVersion for the provided list is too old.\n');
  const watch = await kubectlOk(cluster, ['get', '--raw', `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${oldRV}`]);
  assert.deepEqual(JSON.parse(watch), {
    type: 'ERROR',
    object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${oldRV} (${compactTo})`, reason: 'Expired', code: 410 },
  });
});

test('a watch whose history etcd compacted while it reconnected ends with a 410 ERROR event', async () => {
  await kubectlOk(cluster, ['create', 'configmap', 'w0', '--from-literal=a=1']);
  const from = await kubectlOk(cluster, ['get', 'configmap', 'w0', '-o', 'jsonpath={.metadata.resourceVersion}']);
  const watch = spawn('kubectl', ['--kubeconfig', cluster.kubeconfig, 'get', '--raw', `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${from}`],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  watch.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => watch.once('exit', resolve));
  try {
    await kubectlOk(cluster, ['create', 'configmap', 'w1', '--from-literal=a=1']);
    while (!out.includes('\n')) await new Promise((r) => setTimeout(r, 10));
    // Writes and a compaction (as another API server's compactor makes them) while the member answers
    // where this server cannot reach it; then it is back where it was.
    const elsewhere = await otherClientUrl();
    await etcd.restart(elsewhere);
    const ctl = (args: string[]) => promisify(execFile)('etcdctl', ['--endpoints', elsewhere, ...args], { env: { ...process.env, ETCDCTL_API: '3' } });
    await ctl(['put', '/elsewhere', '1']);
    await ctl(['put', '/elsewhere', '2']);
    const rev = (JSON.parse((await ctl(['get', '/elsewhere', '-w', 'json'])).stdout) as { header: { revision: number } }).header.revision;
    await ctl(['put', 'compact_rev_key', String(rev)]);
    await ctl(['compaction', String(rev)]);
    await etcd.restart();
    assert.equal(await exited, 0);
  } finally {
    watch.kill();
  }
  const [added, error, rest] = out.split('\n');
  assert.deepEqual((JSON.parse(added!) as { type: string; object: { metadata: { name: string } } }).object.metadata.name, 'w1');
  assert.deepEqual(JSON.parse(error!), {
    type: 'ERROR',
    object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'The resourceVersion for the provided watch is too old.', reason: 'Expired', code: 410 },
  });
  assert.equal(rest, '');
});
