/**
 * The RBAC authorizer on every request (--authorization-mode=RBAC): a service
 * account's token is allowed what its bindings grant and gets upstream's 403
 * elsewhere; impersonation needs the impersonate verb; access reviews and
 * `kubectl auth can-i` answer what the authorizer decides; roles and bindings
 * cannot grant more than their writer holds.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
let token: string;
const SA = 'system:serviceaccount:team:robot';

/** What every authenticated user needs for kubectl to work (discovery, the self reviews), independent of the bootstrap policy. */
const BASICS = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: test-basics}
rules:
- nonResourceURLs: [/api, /api/*, /apis, /apis/*]
  verbs: [get]
- apiGroups: [authorization.k8s.io]
  resources: [selfsubjectaccessreviews, selfsubjectrulesreviews]
  verbs: [create]
- apiGroups: [authentication.k8s.io]
  resources: [selfsubjectreviews]
  verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: test-basics}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: test-basics}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: system:authenticated}
`;

const asToken = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => raw(cluster, method, path, {
  anonymous: true, body: body === undefined ? undefined : JSON.stringify(body),
  headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
});

async function ok(args: string[], input?: string): Promise<string> {
  const r = await kubectl(cluster, args, input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

before(async () => {
  cluster = await startCluster(undefined, ['--api-only', '--authorization-mode=RBAC']);
  await ok(['create', 'namespace', 'team']);
  await ok(['create', 'serviceaccount', 'robot', '-n', 'team']);
  await ok(['apply', '-f', '-'], BASICS);
  await ok(['create', 'rolebinding', 'robot-views', '--clusterrole=view', `--serviceaccount=team:robot`, '-n', 'team']);
  token = (await ok(['create', 'token', 'robot', '-n', 'team'])).trim();
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const forbidden = (message: string, details: Record<string, string>) => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403,
});

test('a service account bound to view in its namespace lists pods there', async () => {
  // The bootstrap view role is filled by the aggregation controller.
  let r = await asToken('GET', '/api/v1/namespaces/team/pods');
  for (let i = 0; i < 100 && r.status === 403; i++) {
    await new Promise((res) => setTimeout(res, 100));
    r = await asToken('GET', '/api/v1/namespaces/team/pods');
  }
  assert.equal(r.status, 200, r.body);
  assert.equal(JSON.parse(r.body).kind, 'PodList');
});

test('elsewhere it gets the 403 with upstream text: another namespace, writes, cluster scope, names, subresources, paths', async () => {
  const cases: [string, string, unknown, string, Record<string, string>][] = [
    ['GET', '/api/v1/namespaces/default/pods', undefined,
      `pods is forbidden: User "${SA}" cannot list resource "pods" in API group "" in the namespace "default"`, { kind: 'pods' }],
    ['POST', '/api/v1/namespaces/team/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
      `configmaps is forbidden: User "${SA}" cannot create resource "configmaps" in API group "" in the namespace "team"`, { kind: 'configmaps' }],
    ['DELETE', '/api/v1/namespaces/team/pods/web', undefined,
      `pods "web" is forbidden: User "${SA}" cannot delete resource "pods" in API group "" in the namespace "team"`, { name: 'web', kind: 'pods' }],
    ['GET', '/api/v1/nodes', undefined,
      `nodes is forbidden: User "${SA}" cannot list resource "nodes" in API group "" at the cluster scope`, { kind: 'nodes' }],
    ['GET', '/apis/apps/v1/namespaces/default/deployments/web', undefined,
      `deployments.apps "web" is forbidden: User "${SA}" cannot get resource "deployments" in API group "apps" in the namespace "default"`,
      { name: 'web', group: 'apps', kind: 'deployments' }],
    ['GET', '/api/v1/namespaces/default/pods/web/log', undefined,
      `pods "web" is forbidden: User "${SA}" cannot get resource "pods/log" in API group "" in the namespace "default"`, { name: 'web', kind: 'pods' }],
    ['GET', '/api/v1/namespaces/team/secrets?watch=true', undefined,
      `secrets is forbidden: User "${SA}" cannot watch resource "secrets" in API group "" in the namespace "team"`, { kind: 'secrets' }],
    ['GET', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dc1', undefined,
      `configmaps "c1" is forbidden: User "${SA}" cannot list resource "configmaps" in API group "" in the namespace "default"`, { name: 'c1', kind: 'configmaps' }],
    ['DELETE', '/api/v1/namespaces/team/pods', undefined,
      `pods is forbidden: User "${SA}" cannot deletecollection resource "pods" in API group "" in the namespace "team"`, { kind: 'pods' }],
    ['POST', '/api/v1/namespaces/team/pods/web/exec?command=ls', undefined,
      `pods "web" is forbidden: User "${SA}" cannot create resource "pods/exec" in API group "" in the namespace "team"`, { name: 'web', kind: 'pods' }],
    ['GET', '/metrics', undefined, `forbidden: User "${SA}" cannot get path "/metrics"`, {}],
  ];
  for (const [method, path, body, message, details] of cases) {
    const r = await asToken(method, path, body);
    assert.equal(r.status, 403, `${method} ${path}: ${r.body}`);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.deepEqual(JSON.parse(r.body), forbidden(message, details), `${method} ${path}`);
  }
});

test('an exec upgrade is authorized too: the verb is the method\'s (get)', async () => {
  const r = await asToken('GET', '/api/v1/namespaces/team/pods/web/exec?command=ls&stdout=true', undefined,
    { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' });
  assert.equal(r.status, 403);
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.deepEqual(JSON.parse(r.body), forbidden(
    `pods "web" is forbidden: User "${SA}" cannot get resource "pods/exec" in API group "" in the namespace "team"`, { name: 'web', kind: 'pods' }));
});

test('a binding to a missing role adds RBAC\'s reason to the 403', async () => {
  await ok(['create', 'rolebinding', 'dangling', '--clusterrole=not-there', '--serviceaccount=team:robot', '-n', 'team']);
  try {
    const r = await asToken('GET', '/api/v1/namespaces/team/secrets');
    assert.equal(JSON.parse(r.body).message, `secrets is forbidden: User "${SA}" cannot list resource "secrets" in API group "" in the namespace "team": `
      + 'RBAC: clusterrole.rbac.authorization.k8s.io "not-there" not found');
  } finally {
    await ok(['delete', 'rolebinding', 'dangling', '-n', 'team']);
  }
});

test('kubectl auth can-i --as answers what the authorizer decides', async () => {
  assert.equal(await ok(['auth', 'can-i', 'list', 'pods', '-n', 'team', '--as', SA]), 'yes\n');
  const no = await kubectl(cluster, ['auth', 'can-i', 'create', 'pods', '-n', 'team', '--as', SA]);
  assert.equal(no.code, 1);
  assert.equal(no.stdout, 'no\n');
  const other = await kubectl(cluster, ['auth', 'can-i', 'list', 'pods', '-n', 'default', '--as', SA]);
  assert.equal(other.stdout, 'no\n');
  // --list: the SelfSubjectRulesReview of the namespace, as kubectl tabulates it.
  const list = await ok(['auth', 'can-i', '--list', '-n', 'team', '--as', SA]);
  assert.match(list, /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
  assert.match(list, /^selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
  assert.doesNotMatch(list, /^\*\.\*/m);
  assert.doesNotMatch(await ok(['auth', 'can-i', '--list', '-n', 'default', '--as', SA]), /^pods\s/m);
});

test('SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview', async () => {
  const sar = await rawJSON(cluster, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
    spec: { user: SA, groups: ['system:serviceaccounts'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'team' } },
  });
  assert.equal(sar.status, 201);
  assert.deepEqual(sar.body.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "robot-views/team" of ClusterRole "view" to ServiceAccount "robot/team"' });
  const denied = await rawJSON(cluster, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: SA, nonResourceAttributes: { verb: 'get', path: '/metrics' } },
  });
  assert.deepEqual(denied.body.status, { allowed: false });
  const invalid = await rawJSON(cluster, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: {},
  });
  assert.equal(invalid.status, 422);
  // The internal object the decoder filled has an empty kind (see test/golden/cases/auth-lsar-namespace-mismatch.json).
  assert.equal(invalid.body.message, '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": '
    + 'exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]');
  const local = await rawJSON(cluster, 'POST', '/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata: { namespace: 'team' },
    spec: { user: SA, resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } },
  });
  assert.equal(local.status, 422);
  assert.match(local.body.message, /spec\.resourceAttributes\.namespace: Invalid value: "default": must match metadata\.namespace/);
  const rules = await asToken('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
    { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'team' } });
  assert.equal(rules.status, 201, rules.body);
  const status = JSON.parse(rules.body).status;
  assert.ok(status.resourceRules.some((r: { verbs: string[]; resources?: string[] }) => r.resources?.includes('pods') && r.verbs.join() === 'get,list,watch'),
    JSON.stringify(status));
  assert.equal(status.incomplete, false);
});

test('impersonation needs the impersonate verb; kubectl --as works for the admin', async () => {
  const r = await asToken('GET', '/api/v1/namespaces/team/pods', undefined, { 'Impersonate-User': 'bob' });
  assert.equal(r.status, 403);
  assert.deepEqual(JSON.parse(r.body), forbidden(
    `users "bob" is forbidden: User "${SA}" cannot impersonate resource "users" in API group "" at the cluster scope`, { name: 'bob', kind: 'users' }));
  const sa = await asToken('GET', '/api/v1/namespaces/team/pods', undefined, { 'Impersonate-User': 'system:serviceaccount:kube-system:default' });
  assert.equal(JSON.parse(sa.body).message,
    `serviceaccounts "default" is forbidden: User "${SA}" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-system"`);
  const groupOnly = await raw(cluster, 'GET', '/api/v1/namespaces', { headers: { 'Impersonate-Group': 'devs' } });
  assert.equal(groupOnly.status, 500);
  assert.equal(groupOnly.body, 'Internal Server Error: "/api/v1/namespaces": requested [{Group  devs    }] without impersonating a user\n');
  const who = JSON.parse(await ok(['auth', 'whoami', '--as', 'jane', '--as-group', 'devs', '-o', 'json']));
  assert.deepEqual(who.status.userInfo, { username: 'jane', groups: ['devs', 'system:authenticated'] });
  const denied = await kubectl(cluster, ['get', 'pods', '-n', 'team', '--as', 'jane']);
  assert.equal(denied.code, 1);
  assert.match(denied.stderr, /User "jane" cannot list resource "pods" in API group "" in the namespace "team"/);
});

test('a role or binding that grants more than its writer holds is refused unless it may escalate or bind', async () => {
  await ok(['create', 'role', 'role-writer', '--verb=create,update,get', '--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io', '-n', 'team']);
  await ok(['create', 'rolebinding', 'robot-writes-roles', '--role=role-writer', '--serviceaccount=team:robot', '-n', 'team']);
  const role = (name: string, verbs: string[]) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs }],
  });
  const held = await asToken('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', role('reads', ['get', 'list']));
  assert.equal(held.status, 201, held.body);
  const more = await asToken('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', role('deletes', ['get', 'delete', 'create']));
  assert.equal(more.status, 403);
  assert.deepEqual(JSON.parse(more.body), forbidden(`roles.rbac.authorization.k8s.io "deletes" is forbidden: user "${SA}" `
    + '(groups=["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
    + '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "create"]}', { name: 'deletes', group: 'rbac.authorization.k8s.io', kind: 'roles' }));

  const binding = (name: string, kind: string, roleName: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName }, subjects: [{ kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  assert.equal((await asToken('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', binding('jane-reads', 'Role', 'reads'))).status, 201);
  await ok(['create', 'role', 'secret-admin', '--verb=*', '--resource=secrets', '-n', 'team']);
  const escalating = await asToken('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', binding('jane-secrets', 'Role', 'secret-admin'));
  assert.equal(escalating.status, 403);
  assert.equal(JSON.parse(escalating.body).message, `rolebindings.rbac.authorization.k8s.io "jane-secrets" is forbidden: user "${SA}" `
    + '(groups=["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
    + '{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}');
  const missing = await asToken('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', binding('jane-nothing', 'ClusterRole', 'no-such-role'));
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.body).message, 'clusterroles.rbac.authorization.k8s.io "no-such-role" not found');

  // With `bind` on the role, the binding is allowed without holding its rules.
  await ok(['create', 'role', 'binder', '--verb=bind', '--resource=roles.rbac.authorization.k8s.io', '--resource-name=secret-admin', '-n', 'team']);
  await ok(['create', 'rolebinding', 'robot-binds', '--role=binder', '--serviceaccount=team:robot', '-n', 'team']);
  const bound = await asToken('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', binding('jane-secrets', 'Role', 'secret-admin'));
  assert.equal(bound.status, 201, bound.body);

  // `escalate` on one role name: a PUT that creates that role is allowed (RequestInfo names it), a POST is not (it names none).
  await ok(['create', 'role', 'escalator', '--verb=escalate', '--resource=roles.rbac.authorization.k8s.io', '--resource-name=deletes', '-n', 'team']);
  await ok(['create', 'rolebinding', 'robot-escalates', '--role=escalator', '--serviceaccount=team:robot', '-n', 'team']);
  const posted = await asToken('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', role('deletes', ['get', 'delete', 'create']));
  assert.equal(posted.status, 403, posted.body);
  const put = await asToken('PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles/deletes', role('deletes', ['get', 'delete', 'create']));
  assert.equal(put.status, 201, put.body);
});

test('the controllers act within their bootstrap roles: a new namespace gets its default ServiceAccount and kube-root-ca.crt', async () => {
  await ok(['create', 'namespace', 'fresh']);
  await eventually('the default ServiceAccount', async () => ((await rawJSON(cluster, 'GET', '/api/v1/namespaces/fresh/serviceaccounts/default')).status === 200 ? true : undefined));
  const rootCA = async () => (await rawJSON(cluster, 'GET', '/api/v1/namespaces/fresh/configmaps/kube-root-ca.crt')).body;
  await eventually('kube-root-ca.crt', async () => ((await rootCA()).data?.['ca.crt'] ? true : undefined));
  const ca = (await rootCA()).data['ca.crt'];
  // The publisher puts back a changed kube-root-ca.crt (the conformance test's reconcile), and re-creates a deleted one.
  await ok(['patch', 'configmap', 'kube-root-ca.crt', '-n', 'fresh', '--type=merge', '-p', '{"data":{"ca.crt":"changed","extra":"x"}}']);
  await eventually('the reconciled kube-root-ca.crt', async () => {
    const cm = await rootCA();
    return JSON.stringify(cm.data) === JSON.stringify({ 'ca.crt': ca }) ? true : undefined;
  });
  await ok(['delete', 'configmap', 'kube-root-ca.crt', '-n', 'fresh']);
  await eventually('the re-created kube-root-ca.crt', async () => ((await rootCA()).data?.['ca.crt'] === ca ? true : undefined));
  assert.doesNotMatch(cluster.output(), /service-account-controller" cannot|root-ca-cert-publisher" cannot/);
});
