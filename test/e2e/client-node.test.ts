import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
let kc: k8s.KubeConfig;
before(async () => {
  cluster = await startCluster();
  kc = new k8s.KubeConfig();
  kc.loadFromFile(cluster.kubeconfig);
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

test('client-node creates, lists and follows objects with an informer', async () => {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'client-node' } } });
  const created = await core.createNamespacedConfigMap({ namespace: 'client-node', body: { metadata: { name: 'first', labels: { app: 'x' } }, data: { a: '1' } } });
  assert.equal(created.metadata?.namespace, 'client-node');
  assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);

  const list = await core.listNamespacedConfigMap({ namespace: 'client-node', labelSelector: 'app=x' });
  assert.deepEqual(list.items.map((i) => i.metadata?.name), ['first']);
  assert.match(list.metadata?.resourceVersion ?? '', /^\d+$/);

  const informer = k8s.makeInformer(kc, '/api/v1/namespaces/client-node/configmaps',
    () => core.listNamespacedConfigMap({ namespace: 'client-node' }));
  const seen: string[] = [];
  const synced = new Promise<void>((resolve) => {
    informer.on('add', (o) => { seen.push(`add:${o.metadata?.name}`); if (o.metadata?.name === 'second') resolve(); });
  });
  const updated = new Promise<void>((resolve) => informer.on('update', (o) => { if (o.data?.a === '2') { seen.push(`update:${o.metadata?.name}`); resolve(); } }));
  const deleted = new Promise<void>((resolve) => informer.on('delete', (o) => { seen.push(`delete:${o.metadata?.name}`); resolve(); }));
  await informer.start();
  await core.createNamespacedConfigMap({ namespace: 'client-node', body: { metadata: { name: 'second' } } });
  await synced;
  await core.replaceNamespacedConfigMap({ name: 'first', namespace: 'client-node', body: { ...created, data: { a: '2' } } });
  await updated;
  await core.deleteNamespacedConfigMap({ name: 'second', namespace: 'client-node' });
  await deleted;
  await informer.stop();
  assert.ok(seen.includes('add:first'), seen.join());
  assert.ok(seen.includes('add:kube-root-ca.crt'), seen.join());
  assert.deepEqual(seen.filter((s) => !s.startsWith('add:first') && !s.includes('kube-root-ca')), ['add:second', 'update:first', 'delete:second']);

  await assert.rejects(core.readNamespacedConfigMap({ name: 'nope', namespace: 'client-node' }), (e: any) => {
    assert.equal(e.code, 404);
    assert.equal(JSON.parse(e.body).message, 'configmaps "nope" not found');
    return true;
  });
});
