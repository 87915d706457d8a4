/**
 * kube-system/extension-apiserver-authentication as kube-apiserver v1.32 publishes it
 * (clusterauthenticationtrust): kubeadm's flags as JSON arrays, the CA bundles re-encoded,
 * what the ConfigMap held kept alongside, expired certificates left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { authenticationConfigMapData, ClusterAuthenticationTrustController, kubeadmAuthenticationInfo } from '../../src/cluster/cluster-authentication-trust.js';
import { createCA } from '../../src/pki/issue.js';
import { loopback } from '../helpers/loopback.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import { APISERVER_LOOPBACK } from '../../src/client/identities.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { eventually } from './service-fixture.js';

/** The certificates of a bundle, as DER in base64. */
const ders = (pem: string) => [...pem.matchAll(/-----BEGIN CERTIFICATE-----\n([\s\S]*?)-----END CERTIFICATE-----\n/g)].map((m) => m[1]!.replace(/\n/g, ''));
const derOf = (pem: string) => new X509Certificate(pem).raw.toString('base64');

test('the data: kubeadm\'s request header flags as JSON arrays, the uid headers empty, the two CAs', async () => {
  const ca = await createCA();
  const frontProxyCA = await createCA('CN=front-proxy-ca');
  const data = authenticationConfigMapData({}, kubeadmAuthenticationInfo({ ca, frontProxyCA }), Date.now());
  assert.deepEqual(Object.keys(data).sort(), ['client-ca-file', 'requestheader-allowed-names', 'requestheader-client-ca-file', 'requestheader-extra-headers-prefix',
    'requestheader-group-headers', 'requestheader-uid-headers', 'requestheader-username-headers']);
  assert.equal(data['requestheader-username-headers'], '["X-Remote-User"]');
  assert.equal(data['requestheader-group-headers'], '["X-Remote-Group"]');
  assert.equal(data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
  assert.equal(data['requestheader-allowed-names'], '["front-proxy-client"]');
  assert.equal(data['requestheader-uid-headers'], '[]');
  assert.deepEqual(ders(data['client-ca-file']!), [derOf(ca.cert)]);
  assert.deepEqual(ders(data['requestheader-client-ca-file']!), [derOf(frontProxyCA.cert)]);
  // pem.Encode: lines of 64.
  assert.ok(data['client-ca-file']!.split('\n').every((l) => l.length <= 64));

  // What another API server wrote is kept, each value once.
  const other = await createCA('CN=other-front-proxy');
  const merged = authenticationConfigMapData({
    'requestheader-client-ca-file': other.cert + frontProxyCA.cert, 'requestheader-allowed-names': '["aggregator","front-proxy-client"]',
    'requestheader-username-headers': '["X-Remote-User","X-User"]', 'unrelated-key': 'dropped',
  }, kubeadmAuthenticationInfo({ ca, frontProxyCA }), Date.now());
  assert.deepEqual(ders(merged['requestheader-client-ca-file']!), [derOf(other.cert), derOf(frontProxyCA.cert)]);
  assert.equal(merged['requestheader-allowed-names'], '["aggregator","front-proxy-client"]');
  assert.equal(merged['requestheader-username-headers'], '["X-Remote-User","X-User"]');
  assert.equal(merged['unrelated-key'], undefined);
  // Ten years on, the kept certificates have expired and are left out, the required ones too.
  const later = authenticationConfigMapData({ 'requestheader-client-ca-file': other.cert }, kubeadmAuthenticationInfo({ ca, frontProxyCA }), Date.now() + 11 * 365 * 24 * 3600_000);
  assert.deepEqual(later, {});
});

test('the controller writes the ConfigMap at start and puts it back when it is changed', async () => {
  const store = new Store(new SqliteStorage(':memory:'), allResources());
  const wctx = inProcessWriteContext('test');
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } } as KObject, wctx);
  const info = kubeadmAuthenticationInfo({ ca: await createCA(), frontProxyCA: await createCA('CN=front-proxy-ca') });
  const ctx = newControllerContext({ client: loopback(store, APISERVER_LOOPBACK, 'kube-apiserver') });
  const controller = new ClusterAuthenticationTrustController(ctx, info);
  await controller.start();
  try {
    const read = async () => (await store.get('', 'configmaps', 'kube-system', 'extension-apiserver-authentication')) as KObject & { data: Record<string, string> };
    const first = await read();
    assert.equal(first.data['requestheader-allowed-names'], '["front-proxy-client"]');
    await store.update(store.find('', 'v1', 'configmaps')!, 'kube-system', 'extension-apiserver-authentication', (c) => ({ ...c, data: { 'requestheader-allowed-names': '["someone"]' } }), wctx);
    const fixed = await eventually(async () => {
      const c = await read();
      return c.data['requestheader-allowed-names'] === '["someone","front-proxy-client"]' ? c : undefined;
    }, 'the controller to put its allowed names back');
    assert.equal(fixed.data['requestheader-username-headers'], '["X-Remote-User"]');
    assert.equal(fixed.data['client-ca-file'], first.data['client-ca-file']);
  } finally {
    controller.stop();
    ctx.informers.stop();
  }
});
