/**
 * API aggregation, the local side: the APIServices kube-apiserver registers for its own group versions
 * and for each CRD's, the table kubectl prints, the validation texts, discovery built from the
 * APIServices (order, a user's local APIService, one deleted), and the local availability condition.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectlFails, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { goldenDiscovery } from '../helpers/golden.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);

const BUILTIN = [
  'v1.', 'v1.admissionregistration.k8s.io', 'v1.apiextensions.k8s.io', 'v1.apps', 'v1.authentication.k8s.io', 'v1.authorization.k8s.io',
  'v1.autoscaling', 'v1.batch', 'v1.certificates.k8s.io', 'v1.coordination.k8s.io', 'v1.discovery.k8s.io', 'v1.events.k8s.io',
  'v1.flowcontrol.apiserver.k8s.io', 'v1.networking.k8s.io', 'v1.node.k8s.io', 'v1.policy', 'v1.rbac.authorization.k8s.io', 'v1.scheduling.k8s.io',
  'v1.storage.k8s.io', 'v2.autoscaling',
];

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget }
  versions:
  - { name: v1, served: true, storage: true, schema: { openAPIV3Schema: { type: object } } }
  - { name: v1beta1, served: true, storage: false, schema: { openAPIV3Schema: { type: object } } }
  - { name: v1alpha1, served: false, storage: false, schema: { openAPIV3Schema: { type: object } } }
`;

test('kube-apiserver registers a local APIService per served group version, once at start, Available as Local', async () => {
  const out = await ok(['get', 'apiservices']);
  const lines = out.trimEnd().split('\n');
  assert.match(lines[0]!, /^NAME +SERVICE +AVAILABLE +AGE$/);
  assert.deepEqual(lines.slice(1).map((l) => l.split(/ +/).slice(0, 3)), BUILTIN.map((n) => [n, 'Local', 'True']));
  const apps = JSON.parse(await ok(['get', 'apiservice', 'v1.apps', '-o', 'json']));
  assert.deepEqual(apps.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
  assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
  assert.deepEqual(apps.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]),
    [['Available', 'True', 'Local', 'Local APIServices are always available']]);
  const v2 = JSON.parse(await ok(['get', 'apiservice', 'v2.autoscaling', '-o', 'jsonpath={.spec}']));
  assert.deepEqual(v2, { group: 'autoscaling', version: 'v2', groupPriorityMinimum: 17500, versionPriority: 30 });
});

test('/apis lists the groups in upstream\'s order, which the APIServices\' priorities give', async () => {
  const served = new Set(BUILTIN.map((n) => n.slice(n.indexOf('.') + 1)));
  const upstream = (goldenDiscovery('apis.json').groups as { name: string }[]).map((g) => g.name)
    .filter((g) => g === 'apiregistration.k8s.io' || served.has(g));
  const apis = (await rawJSON(cluster, 'GET', '/apis')).body;
  assert.deepEqual(apis.groups.map((g: { name: string }) => g.name), upstream);
});

test('APIService validation answers with kube-aggregator\'s texts', async () => {
  const err = await kubectlFails(cluster, ['create', '-f', '-'], `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: { name: v1.bad }
spec: { group: example.com, version: v1, groupPriorityMinimum: 0, versionPriority: 2000, caBundle: aGVsbG8=, insecureSkipTLSVerify: true }
`);
  assert.equal(err, 'The APIService "v1.bad" is invalid: \n' +
    '* metadata.name: Invalid value: "v1.bad": must be `spec.version+"."+spec.group`: "v1.example.com"\n' +
    '* spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000\n' +
    '* spec.versionPriority: Invalid value: 2000: must be positive and less than 1000\n' +
    '* spec.caBundle: Invalid value: "5 bytes": local APIServices may not have a caBundle\n' +
    '* spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify\n');
  const remote = await kubectlFails(cluster, ['create', '-f', '-'], `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: { name: v1.remote.example.com }
spec: { group: remote.example.com, version: v1, groupPriorityMinimum: 10, versionPriority: 10, service: { port: 70000 } }
`);
  assert.equal(remote, 'The APIService "v1.remote.example.com" is invalid: \n' +
    '* spec.service.namespace: Required value\n' +
    '* spec.service.name: Required value\n' +
    '* spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive\n');
});

test('a CRD\'s served versions get continuously kept APIServices (priority 1000/100), gone with the CRD', async () => {
  await ok(['apply', '-f', '-'], CRD);
  await eventually('CRD APIServices', async () => ((await ok(['get', 'apiservices', '-o', 'name'])).includes('v1beta1.example.com')) || undefined);
  const svc = JSON.parse(await ok(['get', 'apiservice', 'v1beta1.example.com', '-o', 'json']));
  assert.deepEqual(svc.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'true' });
  assert.deepEqual(svc.spec, { group: 'example.com', version: 'v1beta1', groupPriorityMinimum: 1000, versionPriority: 100 });
  assert.doesNotMatch(await ok(['get', 'apiservices', '-o', 'name']), /v1alpha1\.example\.com/);
  // A continuously kept APIService edited by hand is put back.
  await ok(['patch', 'apiservice', 'v1.example.com', '--type=merge', '-p', '{"spec":{"versionPriority":5}}']);
  await eventually('spec put back', async () => ((await ok(['get', 'apiservice', 'v1.example.com', '-o', 'jsonpath={.spec.versionPriority}'])) === '100') || undefined);
  const group = (await rawJSON(cluster, 'GET', '/apis/example.com')).body;
  assert.deepEqual(group.versions.map((v: { version: string }) => v.version), ['v1', 'v1beta1']);
  await ok(['delete', 'crd', 'widgets.example.com']);
  await eventually('CRD APIServices deleted', async () => (!(await ok(['get', 'apiservices', '-o', 'name'])).includes('example.com')) || undefined);
});

test('a user\'s local APIService is listed in discovery with no resources; deleting a built-in one unlists its group', async () => {
  await ok(['create', '-f', '-'], `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: { name: v1alpha1.local.example.com }
spec: { group: local.example.com, version: v1alpha1, groupPriorityMinimum: 17900, versionPriority: 10 }
`);
  await eventually('listed by priority', async () => ((await rawJSON(cluster, 'GET', '/apis')).body.groups[1]?.name === 'local.example.com') || undefined);
  const agg = (await rawJSON(cluster, 'GET', '/apis', undefined, { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).body;
  assert.deepEqual(agg.items[1], { metadata: { name: 'local.example.com' }, versions: [{ version: 'v1alpha1', resources: [], freshness: 'Current' }] });
  assert.equal((await rawJSON(cluster, 'GET', '/apis/local.example.com/v1alpha1')).status, 404);
  await ok(['delete', 'apiservice', 'v1alpha1.local.example.com', 'v1.node.k8s.io']);
  await eventually('node.k8s.io unlisted', async () => (!(await rawJSON(cluster, 'GET', '/apis')).body.groups.some((g: { name: string }) => g.name === 'node.k8s.io')) || undefined);
  // Still served: only discovery reads the APIServices.
  assert.equal((await rawJSON(cluster, 'GET', '/apis/node.k8s.io/v1/runtimeclasses')).status, 200);
});

test('the local availability controller puts back a local APIService\'s Available condition', async () => {
  const svc = (await rawJSON(cluster, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.batch')).body;
  svc.status.conditions[0] = { type: 'Available', status: 'False', reason: 'Edited', message: 'by hand' };
  const put = await rawJSON(cluster, 'PUT', '/apis/apiregistration.k8s.io/v1/apiservices/v1.batch/status', svc);
  assert.equal(put.status, 200);
  await eventually('condition restored', async () => ((await ok(['get', 'apiservice', 'v1.batch', '-o', 'jsonpath={.status.conditions[0].reason}'])) === 'Local') || undefined);
  const current = (await rawJSON(cluster, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.batch')).body;
  const bad = await rawJSON(cluster, 'PUT', '/apis/apiregistration.k8s.io/v1/apiservices/v1.batch/status',
    { ...current, status: { conditions: [{ type: 'Available', status: 'Maybe' }] } });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.message, 'APIService.apiregistration.k8s.io "v1.batch" is invalid: status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"');
  // The strategy refuses unconditional updates: a write must name the resourceVersion it replaces.
  const unconditional = await rawJSON(cluster, 'PUT', '/apis/apiregistration.k8s.io/v1/apiservices/v1.batch',
    { ...current, metadata: { name: 'v1.batch' } });
  assert.equal(unconditional.status, 422);
  assert.equal(unconditional.body.message, 'apiservices.apiregistration.k8s.io "v1.batch" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
  assert.deepEqual(unconditional.body.details, { name: 'v1.batch', group: 'apiregistration.k8s.io', kind: 'apiservices',
    causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }] });
});
