/**
 * rbac.authorization.k8s.io/v1 served as upstream serves it: discovery,
 * kubectl apply/get/delete of the four kinds, defaulting, the printers'
 * columns, and the roleRef immutability kubectl users meet.
 */
import { after, before, test } from 'node:test';
import { existsSync, readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

// The ClusterRole of issue 18's report: before the group was served, apply said
// `no matches for kind "ClusterRole" in version "rbac.authorization.k8s.io/v1"`.
const clusterRole = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: r1
rules:
- apiGroups: [""]
  resources: ["pods", "pods/log"]
  verbs: ["get", "list", "watch"]
- nonResourceURLs: ["/healthz"]
  verbs: ["get"]
`;

test('discovery lists the four kinds as upstream does', async () => {
  const { status, body } = await rawJSON(cluster, 'GET', RBAC);
  assert.equal(status, 200);
  assert.deepEqual(body.resources.map((r: { name: string; namespaced: boolean; kind: string; storageVersionHash: string }) =>
    [r.name, r.namespaced, r.kind, r.storageVersionHash]), [
    ['clusterrolebindings', false, 'ClusterRoleBinding', '48tpQ8gZHFc='],
    ['clusterroles', false, 'ClusterRole', 'bYE5ZWDrJ44='],
    ['rolebindings', true, 'RoleBinding', 'eGsCzGH6b1g='],
    ['roles', true, 'Role', '7FuwZcIIItM='],
  ]);
  const resources = await ok(['api-resources', '--api-group', 'rbac.authorization.k8s.io', '--no-headers']);
  assert.match(resources, /^clusterroles\s+rbac\.authorization\.k8s\.io\/v1\s+false\s+ClusterRole$/m);
  assert.match(resources, /^rolebindings\s+rbac\.authorization\.k8s\.io\/v1\s+true\s+RoleBinding$/m);
});

test('kubectl apply, get and delete a ClusterRole', async () => {
  assert.equal(await ok(['apply', '-f', '-'], clusterRole), 'clusterrole.rbac.authorization.k8s.io/r1 created\n');
  const got = JSON.parse(await ok(['get', 'clusterrole', 'r1', '-o', 'json']));
  assert.deepEqual(got.rules, [
    { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] },
    { nonResourceURLs: ['/healthz'], verbs: ['get'] },
  ]);
  assert.equal(got.metadata.generation, undefined);
  assert.equal(await ok(['apply', '-f', '-'], clusterRole), 'clusterrole.rbac.authorization.k8s.io/r1 unchanged\n');
  const table = await ok(['get', 'clusterrole', 'r1']);
  assert.match(table, /^NAME\s+CREATED AT\nr1\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
  assert.equal(await ok(['delete', 'clusterrole', 'r1']), 'clusterrole.rbac.authorization.k8s.io "r1" deleted\n');
  const gone = await kubectl(cluster, ['get', 'clusterrole', 'r1']);
  assert.equal(gone.stderr, 'Error from server (NotFound): clusterroles.rbac.authorization.k8s.io "r1" not found\n');
});

test('defaults: a binding\'s roleRef and User/Group subjects get the rbac group, a Role without rules has rules null', async () => {
  const rb = await rawJSON(cluster, 'POST', `${RBAC}/namespaces/default/rolebindings`, {
    metadata: { name: 'defaults' }, roleRef: { kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', name: 'jane' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'default', namespace: 'default' }],
  });
  assert.equal(rb.status, 201, JSON.stringify(rb.body));
  assert.deepEqual(rb.body.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' });
  assert.deepEqual(rb.body.subjects, [
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' },
    { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
    { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
  ]);
  const role = await rawJSON(cluster, 'POST', `${RBAC}/namespaces/default/roles`, { metadata: { name: 'empty' }, rules: [] });
  assert.equal(role.status, 201, JSON.stringify(role.body));
  assert.equal(role.body.rules, null);
  assert.ok('rules' in role.body);
});

test('kubectl get clusterrolebinding -o wide prints the subjects by kind', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: readers
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: view
subjects:
- kind: User
  name: jane
- kind: User
  name: joe
- kind: Group
  name: auditors
- kind: ServiceAccount
  name: reader
  namespace: kube-system
`);
  const wide = await ok(['get', 'clusterrolebinding', 'readers', '-o', 'wide']);
  const [head, row, rest] = wide.split('\n');
  assert.match(head ?? '', /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/);
  assert.match(row ?? '', /^readers\s+ClusterRole\/view\s+\d+s\s+jane, joe\s+auditors\s+kube-system\/reader$/);
  assert.equal(rest, '');
  const narrow = await ok(['get', 'clusterrolebinding', 'readers']);
  assert.match(narrow, /^NAME\s+ROLE\s+AGE\nreaders\s+ClusterRole\/view\s+\d+s\n$/);
});

test('changing a binding\'s roleRef is refused: delete and re-create it instead', async () => {
  const r = await kubectl(cluster, ['create', 'rolebinding', 'ref', '--clusterrole=view', '--user=jane', '-n', 'default']);
  assert.equal(r.code, 0, r.stderr);
  const patched = await kubectl(cluster, ['patch', 'rolebinding', 'ref', '-n', 'default', '--type=merge', '-p', '{"roleRef":{"name":"edit"}}']);
  assert.equal(patched.code, 1);
  assert.equal(patched.stderr, 'The RoleBinding "ref" is invalid: roleRef: Invalid value: ' +
    'rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef\n');
});

test('a ClusterRole with an aggregationRule gets the rules of the ClusterRoles it selects, and follows them', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: monitoring
aggregationRule:
  clusterRoleSelectors:
  - matchLabels:
      example.com/aggregate-to-monitoring: "true"
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: monitoring-endpoints
  labels:
    example.com/aggregate-to-monitoring: "true"
rules:
- apiGroups: [""]
  resources: ["services", "endpoints", "pods"]
  verbs: ["get", "list", "watch"]
`);
  const rules = async () => JSON.parse(await ok(['get', 'clusterrole', 'monitoring', '-o', 'jsonpath={.rules}']) || 'null');
  const until = async (want: unknown) => {
    for (let i = 0; i < 50 && JSON.stringify(await rules()) !== JSON.stringify(want); i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await rules(), want);
  };
  await until([{ apiGroups: [''], resources: ['services', 'endpoints', 'pods'], verbs: ['get', 'list', 'watch'] }]);
  await ok(['label', 'clusterrole', 'monitoring-endpoints', 'example.com/aggregate-to-monitoring-']);
  await until(null);
});

const LOCAL_PATH = new URL('../../../../shared/corpus/charts-rendered/localpath__deploy__local-path-storage.yaml', import.meta.url);

test('kubectl apply of a real manifest with a Role, a ClusterRole and their bindings', { skip: !existsSync(LOCAL_PATH) }, async () => {
  const out = await ok(['apply', '-f', '-'], readFileSync(LOCAL_PATH, 'utf8'));
  for (const line of ['role.rbac.authorization.k8s.io/local-path-provisioner-role created',
    'clusterrole.rbac.authorization.k8s.io/local-path-provisioner-role created',
    'rolebinding.rbac.authorization.k8s.io/local-path-provisioner-bind created',
    'clusterrolebinding.rbac.authorization.k8s.io/local-path-provisioner-bind created']) {
    assert.ok(out.split('\n').includes(line), out);
  }
  const again = await ok(['apply', '-f', '-'], readFileSync(LOCAL_PATH, 'utf8'));
  assert.ok(again.split('\n').includes('clusterrolebinding.rbac.authorization.k8s.io/local-path-provisioner-bind unchanged'), again);
});

const CALICO = new URL('../../../../shared/corpus/charts-rendered/calico__calico.yaml', import.meta.url);

test("kubectl apply (client-side) of Calico's manifest: its CRDs with v1.28+ CEL rule fields, its RBAC, its DaemonSet", async () => {
  const out = await ok(['apply', '-f', '-'], readFileSync(CALICO, 'utf8'));
  for (const line of ['clusterrole.rbac.authorization.k8s.io/calico-node created', 'clusterrolebinding.rbac.authorization.k8s.io/calico-node created',
    'customresourcedefinition.apiextensions.k8s.io/felixconfigurations.crd.projectcalico.org created', 'daemonset.apps/calico-node created']) {
    assert.ok(out.split('\n').includes(line), out);
  }
  // A ValidationRule's reason (v1.28) is decoded and kept, not refused as an unknown field.
  assert.equal(await ok(['get', 'crd', 'felixconfigurations.crd.projectcalico.org', '-o', 'jsonpath={.spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].reason}']),
    'FieldValueForbidden');
});

test('a PUT of a missing role or binding creates it (201), as their strategies allow; other kinds stay 404', async () => {
  const put = await rawJSON(cluster, 'PUT', `${RBAC}/namespaces/default/roles/put-created`,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'put-created', resourceVersion: '12345' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
  assert.equal(put.status, 201, JSON.stringify(put.body));
  assert.equal(put.body.metadata.name, 'put-created');
  assert.ok(put.body.metadata.uid);
  const again = await rawJSON(cluster, 'PUT', `${RBAC}/clusterrolebindings/put-created`,
    { metadata: { name: 'put-created' }, roleRef: { kind: 'ClusterRole', name: 'view' } });
  assert.equal(again.status, 201, JSON.stringify(again.body));
  const cm = await rawJSON(cluster, 'PUT', '/api/v1/namespaces/default/configmaps/put-missing', { metadata: { name: 'put-missing' } });
  assert.equal(cm.status, 404);
  const invalid = await rawJSON(cluster, 'PUT', `${RBAC}/clusterroles/put-invalid`, { metadata: { name: 'put-invalid' }, rules: [{}] });
  assert.equal(invalid.status, 422);
  assert.equal(invalid.body.message, 'ClusterRole.rbac.authorization.k8s.io "put-invalid" is invalid: [rules[0].verbs: Required value: ' +
    'verbs must contain at least one value, rules[0].apiGroups: Required value: resource rules must supply at least one api group, ' +
    'rules[0].resources: Required value: resource rules must supply at least one resource]');
});
