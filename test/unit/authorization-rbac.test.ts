/**
 * The RBAC authorizer's rules, from upstream's plugin/pkg/auth/authorizer/rbac
 * rbac_test.go (TestAuthorizer, TestRuleMatches), pkg/registry/rbac/validation
 * (rule_test.go, policy_comparator_test.go) and responsewriters' forbiddenMessage.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { ruleAllows } from '../../src/authorization/rule-matching.js';
import { RbacAuthorizer, UnionAuthorizer, alwaysAllow, alwaysDeny, newAuthorizer } from '../../src/authorization/authorizers.js';
import { subjectKey, subjectKeys, type RbacSource } from '../../src/authorization/rule-resolver.js';
import { forbiddenError, forbiddenMessage } from '../../src/authorization/forbidden.js';
import { compactString, covers, escalationError } from '../../src/authorization/escalation.js';
import { parseAuthorizationModes } from '../../src/authorization/modes.js';
import { nonResourceAttributes, resourceAttributes, type UserInfo } from '../../src/authorization/types.js';

const RBAC = 'rbac.authorization.k8s.io';

function rule(verbs: string, apiGroups: string, resources: string, nonResourceURLs = ''): PolicyRule {
  const split = (s: string) => (s ? s.split(',') : undefined);
  // As upstream's newRule: "" is the core group.
  const r: PolicyRule = { verbs: verbs.split(',') };
  if (resources) r.apiGroups = apiGroups.split(',');
  if (split(resources)) r.resources = split(resources);
  if (split(nonResourceURLs)) r.nonResourceURLs = split(nonResourceURLs);
  return r;
}

function subjects(list: string[]) {
  return list.map((s) => {
    const [kind = '', name = ''] = s.split(/:(.*)/s);
    return kind === 'ServiceAccount' ? { kind, name: name.split('/')[1]!, namespace: name.split('/')[0] || undefined }
      : { kind, apiGroup: RBAC, name };
  });
}

/** A source that lists every binding (no index), as upstream's StaticRoles. */
function staticSource(o: { roles?: Role[]; clusterRoles?: ClusterRole[]; roleBindings?: RoleBinding[]; clusterRoleBindings?: ClusterRoleBinding[] }): RbacSource {
  return {
    getRole: (ns, name) => o.roles?.find((r) => r.metadata?.namespace === ns && r.metadata?.name === name),
    getClusterRole: (name) => o.clusterRoles?.find((r) => r.metadata?.name === name),
    listRoleBindings: (ns) => (o.roleBindings ?? []).filter((b) => b.metadata?.namespace === ns),
    listClusterRoleBindings: () => o.clusterRoleBindings ?? [],
  };
}

const clusterRole = (name: string, ...rules: PolicyRule[]): ClusterRole => ({ metadata: { name }, rules });
const role = (ns: string, name: string, ...rules: PolicyRule[]): Role => ({ metadata: { namespace: ns, name }, rules });
const roleBinding = (ns: string, name: string, ref: 'Role' | 'ClusterRole', roleName: string, ...subs: string[]): RoleBinding =>
  ({ metadata: { namespace: ns, name }, roleRef: { apiGroup: RBAC, kind: ref, name: roleName }, subjects: subjects(subs) });
const clusterRoleBinding = (name: string, roleName: string, ...subs: string[]): ClusterRoleBinding =>
  ({ metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: roleName }, subjects: subjects(subs) });

const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups });
const res = (u: UserInfo, verb: string, resource: string, namespace = '', subresource = '', apiGroup = '', name = '') =>
  resourceAttributes(u, { verb, resource, namespace, subresource, apiGroup, name });

test('TestAuthorizer: bindings in a namespace, groups, non-resource URLs and subresources', () => {
  const cases: { source: RbacSource; pass: ReturnType<typeof res>[]; fail: ReturnType<typeof res>[] }[] = [
    {
      source: staticSource({
        clusterRoles: [clusterRole('admin', rule('*', '*', '*', '*'))],
        roleBindings: [roleBinding('ns1', 'b', 'ClusterRole', 'admin', 'User:admin', 'Group:admins')],
      }),
      pass: [
        res(user('admin'), 'get', 'Pods', 'ns1'), res(user('admin'), 'watch', 'Pods', 'ns1'),
        res(user('admin', 'group1'), 'watch', 'Foobar', 'ns1'), res(user('joe', 'admins'), 'watch', 'Foobar', 'ns1'),
        res(user('joe', 'group1', 'admins'), 'watch', 'Foobar', 'ns1'),
      ],
      fail: [
        res(user('admin'), 'GET', 'Pods', 'ns2'), res(user('admin'), 'GET', 'Nodes'),
        res(user('admin', 'admins'), 'GET', 'Pods', 'ns2'), res(user('admin', 'admins'), 'GET', 'Nodes'),
      ],
    },
    {
      source: staticSource({
        clusterRoles: [
          clusterRole('non-resource-url-getter', rule('get', '', '', '/apis')),
          clusterRole('non-resource-url', rule('*', '', '', '/apis')),
          clusterRole('non-resource-url-prefix', rule('get', '', '', '/apis/*')),
        ],
        clusterRoleBindings: [
          clusterRoleBinding('a', 'non-resource-url-getter', 'User:foo', 'Group:bar'),
          clusterRoleBinding('b', 'non-resource-url', 'User:admin', 'Group:admin'),
          clusterRoleBinding('c', 'non-resource-url-prefix', 'User:prefixed', 'Group:prefixed'),
        ],
      }),
      pass: [
        nonResourceAttributes(user('foo'), 'get', '/apis'), nonResourceAttributes(user('', 'bar'), 'get', '/apis'),
        nonResourceAttributes(user('admin'), 'get', '/apis'), nonResourceAttributes(user('', 'admin'), 'watch', '/apis'),
        nonResourceAttributes(user('prefixed'), 'get', '/apis/v1'), nonResourceAttributes(user('', 'prefixed'), 'get', '/apis/v1/foobar'),
      ],
      fail: [
        nonResourceAttributes(user('foo'), 'watch', '/apis'), nonResourceAttributes(user('', 'bar'), 'watch', '/apis'),
        nonResourceAttributes(user('foo'), 'get', '/api/v1'), nonResourceAttributes(user('admin'), 'get', '/api/v1'),
        nonResourceAttributes(user('prefixed'), 'get', '/api/v1'), nonResourceAttributes(user('prefixed'), 'get', '/apis'),
      ],
    },
    {
      source: staticSource({
        clusterRoles: [clusterRole('admin', rule('*', '*', 'pods'))],
        roleBindings: [roleBinding('ns1', 'b', 'ClusterRole', 'admin', 'User:admin')],
      }),
      pass: [res(user('admin'), 'get', 'pods', 'ns1')],
      fail: [res(user('admin'), 'get', 'pods', 'ns1', 'status')],
    },
    {
      source: staticSource({
        clusterRoles: [clusterRole('admin', rule('*', '*', 'pods/status'))],
        roleBindings: [roleBinding('ns1', 'b', 'ClusterRole', 'admin', 'User:admin')],
      }),
      pass: [res(user('admin'), 'get', 'pods', 'ns1', 'status')],
      fail: [res(user('admin'), 'get', 'pods', 'ns1')],
    },
  ];
  cases.forEach((c, i) => {
    const a = new RbacAuthorizer(c.source);
    for (const attrs of c.pass) assert.equal(a.authorize(attrs).decision, 'Allow', `case ${i}: restricted ${JSON.stringify(attrs)}`);
    for (const attrs of c.fail) assert.equal(a.authorize(attrs).decision, 'NoOpinion', `case ${i}: passed ${JSON.stringify(attrs)}`);
  });
});

test('TestRuleMatches: stars, tuples, subresources, */subresource, resource names and URL prefixes', () => {
  const r = (verb: string, group: string, resource: string, subresource = '', name = '') =>
    resourceAttributes(user('u'), { verb, apiGroup: group, resource, subresource, name });
  const cases: [string, PolicyRule, [ReturnType<typeof r>, boolean][]][] = [
    ['star verb', rule('*', 'group1', 'resource1'), [
      [r('verb1', 'group1', 'resource1'), true], [r('verb1', 'group2', 'resource1'), false], [r('verb1', 'group1', 'resource2'), false],
      [r('verb2', 'group1', 'resource1'), true]]],
    ['star group', rule('verb1', '*', 'resource1'), [
      [r('verb1', 'group1', 'resource1'), true], [r('verb1', 'group2', 'resource1'), true], [r('verb2', 'group1', 'resource1'), false]]],
    ['star resource', rule('verb1', 'group1', '*'), [
      [r('verb1', 'group1', 'resource2'), true], [r('verb1', 'group2', 'resource1'), false], [r('verb1', 'group1', 'resource1', 'sub'), true]]],
    ['tuple expansion', rule('verb1,verb2', 'group1,group2', 'resource1,resource2'), [
      [r('verb2', 'group2', 'resource2'), true], [r('verb1', 'group1', 'resource1'), true], [r('verb3', 'group1', 'resource1'), false]]],
    ['subresource expansion', rule('*', '*', 'resource1/subresource1'), [
      [r('verb1', 'group1', 'resource1', 'subresource1'), true], [r('verb1', 'group1', 'resource1', 'subresource2'), false],
      [r('verb1', 'group1', 'resource2', 'subresource1'), false], [r('verb1', 'group1', 'resource1'), false]]],
    ['star subresource', rule('get', '', '*/log'), [
      [r('get', '', 'pods', 'log'), true], [r('get', '', 'nodes', 'log'), true], [r('get', '', 'pods', 'logs'), false],
      [r('get', '', 'pods', 'og'), false], [r('get', '', 'pods'), false]]],
    ['resource names', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] }, [
      [r('get', '', 'configmaps', '', 'a'), true], [r('get', '', 'configmaps', '', 'c'), false], [r('get', '', 'configmaps'), false]]],
  ];
  for (const [name, pr, expectations] of cases) {
    for (const [attrs, want] of expectations) assert.equal(ruleAllows(attrs, pr), want, `${name}: ${JSON.stringify(attrs)}`);
  }
  const urls: [PolicyRule, string, string, boolean][] = [
    [rule('verb1', '', '', '*'), 'verb1', '/foo/bar/one', true],
    [rule('verb1', '', '', '*'), 'verb2', '/foo', false],
    [rule('verb1', '', '', '/foo/*'), 'verb1', '/foo', false],
    [rule('verb1', '', '', '/foo/*'), 'verb1', '/foo/', true],
    [rule('verb1', '', '', '/foo/*'), 'verb1', '/foo/bar/one', true],
    [rule('verb1', '', '', '/foo/*'), 'verb1', '/foobar', false],
    [rule('verb1', '', '', '/foo/bar'), 'verb1', '/foo/bar', true],
    [rule('verb1', '', '', '/foo/bar'), 'verb1', '/foo/bar/one', false],
  ];
  for (const [pr, verb, path, want] of urls) assert.equal(ruleAllows(nonResourceAttributes(user('u'), verb, path), pr), want, `${path} ${verb}`);
});

test('service account subjects default to the RoleBinding namespace; a ClusterRoleBinding needs one', () => {
  const sa = user('system:serviceaccount:ns1:robot', 'system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated');
  const source = staticSource({
    clusterRoles: [clusterRole('view', rule('get,list', '', 'pods'))],
    roleBindings: [roleBinding('ns1', 'robot-view', 'ClusterRole', 'view', 'ServiceAccount:/robot')],
    clusterRoleBindings: [clusterRoleBinding('no-namespace', 'view', 'ServiceAccount:/robot')],
  });
  const a = new RbacAuthorizer(source);
  assert.deepEqual(a.authorize(res(sa, 'list', 'pods', 'ns1')), {
    decision: 'Allow', reason: 'RBAC: allowed by RoleBinding "robot-view/ns1" of ClusterRole "view" to ServiceAccount "robot/ns1"',
  });
  assert.equal(a.authorize(res(sa, 'list', 'pods', 'ns2')).decision, 'NoOpinion');
  assert.equal(a.authorize(res(sa, 'list', 'pods')).decision, 'NoOpinion');
  assert.equal(subjectKey({ kind: 'ServiceAccount', name: 'robot' }, ''), '');
  assert.equal(subjectKey({ kind: 'ServiceAccount', name: 'robot' }, 'ns1'), 'User:system:serviceaccount:ns1:robot');
  assert.deepEqual(subjectKeys(user('u', 'g')), ['User:u', 'Group:g']);
});

test('the reason names the allowing ClusterRoleBinding, or the roles that could not be read', () => {
  const source = staticSource({
    clusterRoles: [clusterRole('edit', rule('*', '', 'pods'))],
    clusterRoleBindings: [clusterRoleBinding('devs', 'edit', 'Group:devs'), clusterRoleBinding('gone', 'missing', 'User:jane')],
    roleBindings: [roleBinding('ns1', 'r', 'Role', 'nope', 'User:jane'), roleBinding('ns1', 'r2', 'Role', 'nope', 'User:jane')],
  });
  const a = new RbacAuthorizer(source);
  assert.deepEqual(a.authorize(res(user('bob', 'devs'), 'delete', 'pods', 'ns1')),
    { decision: 'Allow', reason: 'RBAC: allowed by ClusterRoleBinding "devs" of ClusterRole "edit" to Group "devs"' });
  assert.deepEqual(a.authorize(res(user('jane'), 'get', 'pods', 'ns1')), {
    decision: 'NoOpinion',
    reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "nope" not found]',
  });
  assert.deepEqual(a.authorize(res(user('jane'), 'get', 'pods')),
    { decision: 'NoOpinion', reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found' });
  assert.deepEqual(a.rulesFor(user('jane'), 'ns1'), {
    resourceRules: [], nonResourceRules: [], incomplete: false,
    error: '[clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "nope" not found]',
  });
});

test('rulesFor splits resource and non-resource rules, as SelfSubjectRulesReview shows them', () => {
  const source = staticSource({
    clusterRoles: [clusterRole('basic', rule('get', '', '', '/healthz,/version'), { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] })],
    roles: [role('ns1', 'r', rule('list', 'apps', 'deployments'))],
    clusterRoleBindings: [clusterRoleBinding('basic', 'basic', 'Group:system:authenticated')],
    roleBindings: [roleBinding('ns1', 'r', 'Role', 'r', 'User:u')],
  });
  const r = new RbacAuthorizer(source).rulesFor(user('u', 'system:authenticated'), 'ns1');
  assert.deepEqual(r, {
    resourceRules: [
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] },
      { verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'] },
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] }],
    incomplete: false,
  });
});

test('system:masters is always allowed; AlwaysDeny explains itself; the union keeps every reason', () => {
  const empty = staticSource({});
  const union = newAuthorizer(['RBAC'], empty);
  assert.equal(union.authorize(res(user('admin', 'system:masters'), 'delete', 'nodes')).decision, 'Allow');
  assert.deepEqual(union.authorize(res(user('bob'), 'delete', 'nodes')), { decision: 'NoOpinion', reason: '' });
  assert.deepEqual(new UnionAuthorizer([alwaysDeny, new RbacAuthorizer(staticSource({ clusterRoleBindings: [clusterRoleBinding('x', 'y', 'User:bob')] }))])
    .authorize(res(user('bob'), 'get', 'pods')),
  { decision: 'NoOpinion', reason: 'Everything is forbidden.\nRBAC: clusterrole.rbac.authorization.k8s.io "y" not found' });
  assert.equal(new UnionAuthorizer([alwaysAllow]).authorize(res(user('bob'), 'delete', 'nodes')).decision, 'Allow');
  assert.deepEqual(new UnionAuthorizer([alwaysAllow]).rulesFor(user('bob'), 'default').resourceRules, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
});

test('the 403 text: namespaced, cluster-scoped, subresource, named and non-resource requests', () => {
  const sa = user('system:serviceaccount:default:default');
  assert.equal(forbiddenMessage(res(sa, 'list', 'pods', 'default')),
    'User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"');
  assert.equal(forbiddenMessage(res(sa, 'list', 'nodes')),
    'User "system:serviceaccount:default:default" cannot list resource "nodes" in API group "" at the cluster scope');
  assert.equal(forbiddenMessage(res(sa, 'get', 'pods', 'default', 'log', '', 'web')),
    'User "system:serviceaccount:default:default" cannot get resource "pods/log" in API group "" in the namespace "default"');
  assert.equal(forbiddenMessage(nonResourceAttributes(sa, 'get', '/metrics')),
    'User "system:serviceaccount:default:default" cannot get path "/metrics"');

  const named = forbiddenError(res(sa, 'get', 'deployments', 'default', '', 'apps', 'web'), '');
  assert.deepEqual(named.status, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'deployments.apps "web" is forbidden: User "system:serviceaccount:default:default" cannot get resource "deployments" in API group "apps" in the namespace "default"',
    reason: 'Forbidden', details: { name: 'web', group: 'apps', kind: 'deployments' }, code: 403,
  });
  const list = forbiddenError(res(sa, 'list', 'pods', 'default'), '');
  assert.equal(list.status.message, 'pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"');
  assert.deepEqual(list.status.details, { kind: 'pods' });
  const path = forbiddenError(nonResourceAttributes(sa, 'get', '/<x>'), 'RBAC: why');
  assert.equal(path.status.message, 'forbidden: User "system:serviceaccount:default:default" cannot get path "/&lt;x&gt;": RBAC: why');
  assert.deepEqual(path.status.details, {});
});

test('Covers and ConfirmNoEscalation: atomic rules, */subresource, resource names and the refusal text', () => {
  const owner = [rule('get,list', '', 'pods,*/status'), { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }];
  assert.equal(covers(owner, [rule('get', '', 'pods')]).covered, true);
  assert.equal(covers(owner, [rule('list', '', 'nodes/status')]).covered, true);
  assert.equal(covers(owner, [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }]).covered, true);
  assert.equal(covers(owner, [rule('get', 'apps', 'deployments')]).covered, false);
  assert.equal(covers([rule('*', '', '', '/healthz/*')], [rule('get', '', '', '/healthz/etcd')]).covered, true);
  assert.equal(covers([rule('get', '', '', '/healthz')], [rule('get', '', '', '/healthz/etcd')]).covered, false);
  assert.equal(compactString({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }),
    '{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list"]}');
  assert.equal(escalationError(user('bob', 'system:authenticated'), { rules: owner }, [rule('get,delete,create', '', 'pods,secrets'), rule('get', '', '', '/metrics')]),
    'user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
    + '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "create"]}\n'
    + '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "create"]}\n'
    + '{NonResourceURLs:["/metrics"], Verbs:["get"]}');
  assert.equal(escalationError(user('bob'), { rules: [], error: 'clusterroles.rbac.authorization.k8s.io "x" not found' }, [rule('get', '', 'pods')]),
    'user "bob" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}'
    + '; resolution errors: [clusterroles.rbac.authorization.k8s.io "x" not found]');
  assert.equal(escalationError(user('bob'), { rules: owner }, [rule('list', '', 'pods')]), undefined);
});

test('--authorization-mode is checked as kube-apiserver checks it', () => {
  assert.deepEqual(parseAuthorizationModes('RBAC'), ['RBAC']);
  assert.deepEqual(parseAuthorizationModes('AlwaysDeny,RBAC,AlwaysAllow'), ['AlwaysDeny', 'RBAC', 'AlwaysAllow']);
  assert.throws(() => parseAuthorizationModes(''), { message: 'at least one authorization-mode must be passed' });
  assert.throws(() => parseAuthorizationModes('rbac'), { message: 'authorization-mode "rbac" is not a valid mode' });
  assert.throws(() => parseAuthorizationModes('RBAC,RBAC'), { message: 'authorization-mode ["RBAC" "RBAC"] has mode specified more than once' });
  assert.deepEqual(parseAuthorizationModes('Node,RBAC'), ['Node', 'RBAC']);
  assert.throws(() => parseAuthorizationModes('Webhook,RBAC'), /authorization-mode "Webhook" is not supported by winkube/);
});
