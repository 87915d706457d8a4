/**
 * The conformance tests' admission webhook on an emulated node: `agnhost webhook` serving HTTPS
 * with the certificate of its mounted Secret, behind a Service, called by the API server through
 * the cluster network model; kubectl shows its denial, and a caBundle that does not hold the
 * server's CA fails the call with Go's x509 text. The cluster runs Calico, and the API server calls
 * from the control-plane node: a default-deny ingress policy on the webhook's pod times the call out
 * until a policy lets that node's address in.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issue } from '../../src/pki/issue.js';
import { eventually, kubectl, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
let configDir = '';
let caBundle = '';
let otherBundle = '';
const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.52';

async function apply(obj: object): Promise<void> {
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: JSON.stringify(obj) });
  assert.equal(r.code, 0, r.stderr);
}

function webhookConfig(name: string, bundle: string, objectSelector: Record<string, string>, timeoutSeconds = 10): object {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name },
    webhooks: [{
      name: `${name}.k8s.io`, failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1', 'v1beta1'], timeoutSeconds,
      objectSelector: { matchLabels: objectSelector },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      clientConfig: { service: { namespace: 'default', name: 'e2e-test-webhook', path: '/configmaps', port: 8443 }, caBundle: bundle },
    }],
  };
}

before(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'winkube-webhook-'));
  writeFileSync(join(configDir, 'cluster.yaml'), `apiVersion: winkube.io/v1alpha1
kind: Cluster
network: {plugin: calico, mode: overlay}
nodePools:
  - {name: winkube-control-plane, os: linux, role: control-plane, exactName: true}
  - {name: linux, os: linux, count: 1}
`);
  cluster = await startCluster(undefined, ['--config', join(configDir, 'cluster.yaml')]);
  const ca = await createCA('CN=e2e-server-cert-ca');
  const other = await createCA('CN=another-ca');
  caBundle = Buffer.from(ca.cert).toString('base64');
  otherBundle = Buffer.from(other.cert).toString('base64');
  const serving = await issue(ca, 'e2e-test-webhook.default.svc', 'server', { dns: ['e2e-test-webhook.default.svc'], ip: [] });
  await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sample-webhook-secret' }, type: 'Opaque', stringData: { 'tls.crt': serving.cert, 'tls.key': serving.key } });
  await apply({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sample-webhook', labels: { app: 'sample-webhook', webhook: 'true' } },
    spec: {
      nodeName: 'linux-1',
      containers: [{
        name: 'sample-webhook', image: AGNHOST,
        args: ['webhook', '--tls-cert-file=/webhook.local.config/certificates/tls.crt', '--tls-private-key-file=/webhook.local.config/certificates/tls.key',
          '--alsologtostderr', '-v=4', '--port=8444'],
        ports: [{ containerPort: 8444 }],
        readinessProbe: { httpGet: { scheme: 'HTTPS', port: 8444, path: '/readyz' }, periodSeconds: 1 },
        volumeMounts: [{ name: 'webhook-certs', mountPath: '/webhook.local.config/certificates', readOnly: true }],
      }],
      volumes: [{ name: 'webhook-certs', secret: { secretName: 'sample-webhook-secret' } }],
    },
  });
  await apply({
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'e2e-test-webhook', labels: { test: 'webhook' } },
    spec: { selector: { webhook: 'true' }, ports: [{ protocol: 'TCP', port: 8443, targetPort: 8444 }] },
  });
  for (let i = 0; ; i++) {
    const r = await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/endpoints/e2e-test-webhook');
    const ready = (r.body as { subsets?: { addresses?: unknown[] }[] }).subsets?.[0]?.addresses?.length;
    if (r.status === 200 && ready) break;
    assert.ok(i < 600, `the webhook's Service never got a ready endpoint: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); removeDir(configDir); });

test('kubectl shows agnhost webhook\'s denial of a configmap with the unwanted key and value', async () => {
  await apply(webhookConfig('deny-unwanted-configmap-data', caBundle, { deny: 'yes' }));
  const cm = (name: string, value: string) => JSON.stringify({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { deny: 'yes' } }, data: { 'webhook-e2e-test': value },
  });
  const denied = await kubectl(cluster, ['create', '-f', '-'], { input: cm('disallowed', 'webhook-disallow') });
  assert.equal(denied.code, 1);
  assert.equal(denied.stderr, 'Error from server (the configmap contains unwanted key and value): error when creating "STDIN": '
    + 'admission webhook "deny-unwanted-configmap-data.k8s.io" denied the request: the configmap contains unwanted key and value\n');
  const allowed = await kubectl(cluster, ['create', '-f', '-'], { input: cm('allowed', 'fine') });
  assert.equal(allowed.stdout, 'configmap/allowed created\n', allowed.stderr);
  const logs = await kubectl(cluster, ['logs', 'sample-webhook']);
  assert.match(logs.stdout, /^I\d{4} \d\d:\d\d:\d\d\.\d{6} {7}1 main\.go:\d+\] handling request: \{"kind":"AdmissionReview"/m);
});

test('a caBundle without the server\'s CA: the call fails with x509\'s unknown authority', async () => {
  await apply(webhookConfig('wrong-ca', otherBundle, { 'wrong-ca': 'yes' }));
  const failed = await kubectl(cluster, ['create', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'checked', labels: { 'wrong-ca': 'yes' } } }),
  });
  assert.equal(failed.stderr, 'Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "wrong-ca.k8s.io": '
    + 'failed to call webhook: Post "https://e2e-test-webhook.default.svc:8443/configmaps?timeout=10s": '
    + 'tls: failed to verify certificate: x509: certificate signed by unknown authority\n');
});

test('pods/proxy to the TLS server: https: speaks TLS without checking the certificate; plain HTTP gets Go\'s TLS listener\'s 400', async () => {
  const tls = await kubectl(cluster, ['get', '--raw', '/api/v1/namespaces/default/pods/https:sample-webhook:8444/proxy/readyz']);
  assert.deepEqual([tls.code, tls.stdout, tls.stderr], [0, 'ok', '']);
  // The 400 has no Content-Type, so kubectl does not show its text.
  const plain = await kubectl(cluster, ['get', '--raw', '/api/v1/namespaces/default/pods/sample-webhook:8444/proxy/readyz']);
  assert.deepEqual([plain.code, plain.stderr], [1, 'Error from server (BadRequest): the server rejected our request for an unknown reason\n']);
  const answer = await raw(cluster, 'GET', '/api/v1/namespaces/default/pods/sample-webhook:8444/proxy/readyz');
  assert.deepEqual([answer.status, answer.headers['content-type'], answer.body], [400, undefined, 'Client sent an HTTP request to an HTTPS server.\n']);
});

test('Calico: default-deny ingress on the webhook\'s pod times the API server\'s call out; an ipBlock of the control-plane node lets it in', async () => {
  await apply(webhookConfig('fenced', caBundle, { fenced: 'yes' }, 2));
  await apply({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'default-deny-ingress' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } });
  let attempt = 0;
  const create = () => kubectl(cluster, ['create', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `fenced-${++attempt}`, labels: { fenced: 'yes' } } }),
  });
  // The nodes enforce a policy once their informers hold it: until then a call may still get through.
  const stopped = await eventually('a call the policy stops', async () => { const r = await create(); return r.code !== 0 ? r : undefined; }, 60_000);
  assert.equal(stopped.stderr, 'Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "fenced.k8s.io": '
    + 'failed to call webhook: Post "https://e2e-test-webhook.default.svc:8443/configmaps?timeout=2s": context deadline exceeded\n');
  const controlPlane = await kubectl(cluster, ['get', 'node', 'winkube-control-plane', '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}']);
  assert.match(controlPlane.stdout, /^\d+\.\d+\.\d+\.\d+$/);
  await apply({
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'webhook-from-control-plane' },
    spec: { podSelector: { matchLabels: { app: 'sample-webhook' } }, ingress: [{ from: [{ ipBlock: { cidr: `${controlPlane.stdout}/32` } }], ports: [{ port: 8444 }] }] },
  });
  const admitted = await eventually('a call the policy lets in', async () => { const r = await create(); return r.code === 0 ? r : undefined; }, 60_000);
  assert.equal(admitted.stdout, `configmap/fenced-${attempt} created\n`);
});
