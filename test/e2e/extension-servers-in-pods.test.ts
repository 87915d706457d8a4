/**
 * Extension servers deployed as pods, reached by the API server through the cluster network
 * model: the sample-apiserver image (with its etcd sidecar) behind an APIService, driven with
 * real kubectl through the aggregator (create, get as a Table, BanFlunder, validation, delete);
 * and `agnhost crd-conversion-webhook` behind a Service converting a CRD's v1 hostPort into v2's
 * host and port, as upstream's conformance tests deploy them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCA, issue } from '../../src/pki/issue.js';
import { eventually, kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
const NS = 'wardle';

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The sample API server as aggregator.go deploys it (trimmed to what it needs). */
function sampleAPIServerManifests(cert: { cert: string; key: string }, caPEM: string): unknown[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sample-apiserver-secret', namespace: NS }, type: 'Opaque', data: { 'tls.crt': b64(cert.cert), 'tls.key': b64(cert.key) } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'sample-apiserver-reader' }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'wardler:reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'sample-apiserver-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: NS }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'wardler:auth-delegator' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: NS }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'wardler-auth-reader', namespace: 'kube-system' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: NS }] },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'sample-apiserver', namespace: NS },
      spec: {
        replicas: 1, selector: { matchLabels: { apiserver: 'true' } },
        template: {
          metadata: { labels: { apiserver: 'true' } },
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            volumes: [{ name: 'apiserver-certs', secret: { secretName: 'sample-apiserver-secret' } }],
            containers: [
              {
                name: 'sample-apiserver', image: 'registry.k8s.io/e2e-test-images/sample-apiserver:1.17.7',
                args: ['--etcd-servers=http://127.0.0.1:2379', '--tls-cert-file=/apiserver.local.config/certificates/tls.crt',
                  '--tls-private-key-file=/apiserver.local.config/certificates/tls.key', '--audit-log-path=-', '--audit-log-maxage=0', '--audit-log-maxbackup=0'],
                volumeMounts: [{ name: 'apiserver-certs', readOnly: true, mountPath: '/apiserver.local.config/certificates' }],
              },
              { name: 'etcd', image: 'registry.k8s.io/etcd:3.5.1-0', command: ['/usr/local/bin/etcd', '--listen-client-urls', 'http://127.0.0.1:2379', '--advertise-client-urls', 'http://127.0.0.1:2379'] },
            ],
          },
        },
      },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'sample-api', namespace: NS }, spec: { selector: { apiserver: 'true' }, ports: [{ protocol: 'TCP', port: 7443, targetPort: 443 }] } },
    {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.wardle.example.com' },
      spec: { service: { namespace: NS, name: 'sample-api', port: 7443 }, group: 'wardle.example.com', version: 'v1alpha1', caBundle: b64(caPEM), groupPriorityMinimum: 2000, versionPriority: 200 },
    },
  ];
}

const list = (items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

before(async () => {
  cluster = await startCluster();
});

after(async () => {
  await cluster?.stop();
  if (cluster) removeDir(cluster.dataDir);
});

test('the sample API server serves flunders through the aggregator', async () => {
  const ca = await createCA();
  const cert = await issue(ca, `CN=sample-api.${NS}.svc`, 'server', { dns: [`sample-api.${NS}.svc`], ip: [] });
  await kubectlOk(cluster, ['apply', '-f', '-'], list(sampleAPIServerManifests(cert, ca.cert)));
  await eventually('the APIService is available', async () => {
    const r = await kubectl(cluster, ['get', 'apiservice', 'v1alpha1.wardle.example.com', '-o', 'jsonpath={.status.conditions[0].message}']);
    return r.stdout === 'all checks passed' ? true : undefined;
  }, 60_000);

  const flunder = { apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', metadata: { name: 'test-flunder', namespace: 'default', labels: { 'sample-label': 'true' } } };
  assert.equal(await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify(flunder)), 'flunder.wardle.example.com/test-flunder created\n');
  const created = await kubectlOk(cluster, ['get', 'flunder', 'test-flunder', '-o', 'jsonpath={.metadata.creationTimestamp}']);
  assert.match(created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // The default Table: Name and Created At, the date as the server wrote it.
  assert.equal(await kubectlOk(cluster, ['get', 'flunders']), `NAME           CREATED AT\ntest-flunder   ${created}\n`);
  // v1alpha1 defaults a reference's type (only v1alpha1 is registered with the aggregator).
  const referring = { ...flunder, metadata: { name: 'referring', namespace: 'default' }, spec: { reference: 'test-flunder' } };
  await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify(referring));
  assert.equal(await kubectlOk(cluster, ['get', 'flunder', 'referring', '-o', 'jsonpath={.spec}']), '{"reference":"test-flunder","referenceType":"Flunder"}');

  // BanFlunder: a Fischer's disallowed names are forbidden.
  await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'wardle.example.com/v1alpha1', kind: 'Fischer', metadata: { name: 'f' }, disallowedFlunders: ['banned'] }));
  const ban = await kubectl(cluster, ['create', '-f', '-'], { input: JSON.stringify({ ...flunder, metadata: { name: 'banned', namespace: 'default' } }) });
  assert.equal(ban.code, 1);
  assert.equal(ban.stderr, 'Error from server (Forbidden): error when creating "STDIN": flunders.wardle.example.com "banned" is forbidden: this name may not be used, please change the resource name\n');

  const bad = await kubectl(cluster, ['create', '-f', '-'], { input: JSON.stringify({ ...flunder, metadata: { name: 'bad', namespace: 'default' }, spec: { referenceType: 'Fischer' } }) });
  assert.equal(bad.stderr, 'The Flunder "bad" is invalid: spec.fischerReference: Invalid value: "": cannot be empty if referenceType is Fischer\n');

  assert.equal(await kubectlOk(cluster, ['delete', 'flunder', 'test-flunder', 'referring']),
    'flunder.wardle.example.com "test-flunder" deleted\nflunder.wardle.example.com "referring" deleted\n');
  const none = await kubectl(cluster, ['get', 'flunders']);
  assert.equal(none.stderr, 'No resources found in default namespace.\n');
  const missing = await kubectl(cluster, ['get', 'flunder', 'test-flunder']);
  assert.equal(missing.stderr, 'Error from server (NotFound): flunders.wardle.example.com "test-flunder" not found\n');
});

test('agnhost crd-conversion-webhook converts hostPort to host and port', async () => {
  const ns = 'crdconv';
  const ca = await createCA();
  const cert = await issue(ca, `CN=conv.${ns}.svc`, 'server', { dns: [`conv.${ns}.svc`], ip: [] });
  const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
  await kubectlOk(cluster, ['apply', '-f', '-'], list([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'conv-cert', namespace: ns }, data: { 'tls.crt': b64(cert.cert), 'tls.key': b64(cert.key) } },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'conv', namespace: ns },
      spec: {
        replicas: 1, selector: { matchLabels: { app: 'conv' } },
        template: {
          metadata: { labels: { app: 'conv' } },
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            volumes: [{ name: 'certs', secret: { secretName: 'conv-cert' } }],
            containers: [{
              name: 'conv', image: 'registry.k8s.io/e2e-test-images/agnhost:2.52',
              args: ['crd-conversion-webhook', '--tls-cert-file=/certs/tls.crt', '--tls-private-key-file=/certs/tls.key', '--alsologtostderr', '-v=4', '--port=9444'],
              volumeMounts: [{ name: 'certs', mountPath: '/certs', readOnly: true }],
              // As the conformance test's deployment has it: rollout status then waits for the HTTPS /readyz.
              readinessProbe: { httpGet: { scheme: 'HTTPS', port: 9444, path: '/readyz' }, periodSeconds: 1 },
            }],
          },
        },
      },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'conv', namespace: ns }, spec: { selector: { app: 'conv' }, ports: [{ port: 9443, targetPort: 9444 }] } },
    {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'hosts.stable.example.com' },
      spec: {
        group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'hosts', singular: 'host', kind: 'Host', listKind: 'HostList' },
        versions: [{ name: 'v1', served: true, storage: true, schema }, { name: 'v2', served: true, storage: false, schema }],
        conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1', 'v1beta1'], clientConfig: { caBundle: b64(ca.cert), service: { namespace: ns, name: 'conv', path: '/crdconvert', port: 9443 } } } },
      },
    },
  ]));
  await kubectlOk(cluster, ['rollout', 'status', '-n', ns, 'deployment/conv', '--timeout=60s']);
  await eventually('the CRD is served', async () => ((await kubectl(cluster, ['get', 'hosts.v1.stable.example.com'])).code === 0 ? true : undefined));
  await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'stable.example.com/v1', kind: 'Host', metadata: { name: 'e1', namespace: 'default' }, hostPort: 'localhost:8080' }));
  const v2 = JSON.parse(await eventually('the webhook answers', async () => {
    const r = await kubectl(cluster, ['get', 'hosts.v2.stable.example.com', 'e1', '-o', 'json']);
    return r.code === 0 ? r.stdout : undefined;
  }, 30_000)) as Record<string, unknown>;
  assert.deepEqual([v2.apiVersion, v2.host, v2.port, v2.hostPort], ['stable.example.com/v2', 'localhost', '8080', undefined]);
  // -v=4: the handler's klog lines are in the container's log.
  const logs = await kubectlOk(cluster, ['logs', '-n', ns, 'deployment/conv']);
  assert.match(logs, /^I\d{4} \d\d:\d\d:\d\d\.\d{6}       1 example_converter\.go:30\] converting crd$/m);
});
