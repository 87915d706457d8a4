/**
 * Malformed Roles, ClusterRoles and their bindings: the answers of v1.32's
 * pkg/apis/rbac/validation (texts and field paths as upstream formats them),
 * and nothing stored or changed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

let cluster: TestCluster;
before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  const rb = await rawJSON(cluster, 'POST', `${RBAC}/namespaces/default/rolebindings`,
    { metadata: { name: 'kept' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'jane' }] });
  assert.equal(rb.status, 201, JSON.stringify(rb.body));
  const crb = await rawJSON(cluster, 'POST', `${RBAC}/clusterrolebindings`,
    { metadata: { name: 'kept' }, roleRef: { kind: 'ClusterRole', name: 'view' } });
  assert.equal(crb.status, 201, JSON.stringify(crb.body));
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ROLES = `${RBAC}/namespaces/default/roles`;
const CLUSTER_ROLES = `${RBAC}/clusterroles`;
const BINDINGS = `${RBAC}/namespaces/default/rolebindings`;
const CLUSTER_BINDINGS = `${RBAC}/clusterrolebindings`;
const VIEW = { kind: 'ClusterRole', name: 'view' };

type Obj = Record<string, unknown>;

function create(kind: string, path: string, name: string, body: Obj, message: string,
  causes?: MalformedCase['causes']): MalformedCase {
  return {
    name: `${kind} ${name}: ${message}`, method: 'POST', path, status: 422, reason: 'Invalid',
    body: JSON.stringify({ metadata: { name }, ...body }),
    message: `${kind}.rbac.authorization.k8s.io "${name}" is invalid: ${message}`, absent: `${path}/${name}`,
    ...(causes ? { causes } : {}),
  };
}

const SUBDOMAIN = 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must ' +
  'start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is ' +
  '\'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')';

const cases: MalformedCase[] = [
  create('Role', ROLES, 'nru', { rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] },
    'rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs'),
  create('Role', ROLES, 'both', { rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'], resources: ['pods'] }] },
    '[rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs, ' +
    'rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: rules cannot apply to both regular resources and non-resource URLs]'),
  // No `absent` check: a GET of that name is refused before any lookup.
  { ...create('Role', ROLES, 'a%b', { rules: [] }, 'metadata.name: Invalid value: "a%b": may not contain \'%\''), absent: undefined },
  create('ClusterRole', CLUSTER_ROLES, 'no-verbs', { rules: [{ apiGroups: [''], resources: ['pods'] }] },
    'rules[0].verbs: Required value: verbs must contain at least one value',
    [{ reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value', field: 'rules[0].verbs' }]),
  create('ClusterRole', CLUSTER_ROLES, 'no-resources', { rules: [{ verbs: ['get'] }] },
    '[rules[0].apiGroups: Required value: resource rules must supply at least one api group, ' +
    'rules[0].resources: Required value: resource rules must supply at least one resource]'),
  create('ClusterRole', CLUSTER_ROLES, 'mixed', { rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'], apiGroups: [''] }] },
    'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: rules cannot apply to both regular resources and non-resource URLs'),
  create('ClusterRole', CLUSTER_ROLES, 'empty-aggregation', { aggregationRule: {} },
    'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil'),
  create('ClusterRole', CLUSTER_ROLES, 'bad-selector', { aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] } },
    '[aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator, ' +
    'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.]'),
  create('ClusterRole', CLUSTER_ROLES, 'bad-label-value', { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b c' } }] } },
    '[aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "b c": a valid label must be an empty string or consist of ' +
    'alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or ' +
    '\'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\'), ' +
    'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.]'),
  create('RoleBinding', BINDINGS, 'pod-ref', { roleRef: { kind: 'Pod', name: 'x' } },
    'roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"'),
  create('RoleBinding', BINDINGS, 'other-group', { roleRef: { apiGroup: 'example.com', kind: 'Role', name: 'x' } },
    'roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"'),
  create('RoleBinding', BINDINGS, 'no-ref', {}, '[roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole", roleRef.name: Required value]'),
  create('RoleBinding', BINDINGS, 'bad-ref-name', { roleRef: { kind: 'Role', name: '..' } }, 'roleRef.name: Invalid value: "..": may not be \'..\''),
  create('RoleBinding', BINDINGS, 'robot', { roleRef: VIEW, subjects: [{ kind: 'Robot', name: 'r2' }] },
    'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'),
  create('RoleBinding', BINDINGS, 'nameless', { roleRef: VIEW, subjects: [{ kind: 'User' }] }, 'subjects[0].name: Required value'),
  create('RoleBinding', BINDINGS, 'user-group', { roleRef: VIEW, subjects: [{ kind: 'User', name: 'jane', apiGroup: 'example.com' }] },
    'subjects[0].apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"'),
  create('RoleBinding', BINDINGS, 'sa-group', { roleRef: VIEW, subjects: [{ kind: 'ServiceAccount', name: 'default', apiGroup: 'rbac.authorization.k8s.io' }] },
    'subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""'),
  create('RoleBinding', BINDINGS, 'sa-name', { roleRef: VIEW, subjects: [{ kind: 'ServiceAccount', name: 'Bad_Name' }] },
    `subjects[0].name: Invalid value: "Bad_Name": ${SUBDOMAIN}`),
  create('ClusterRoleBinding', CLUSTER_BINDINGS, 'role-ref', { roleRef: { kind: 'Role', name: 'x' } },
    'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'),
  create('ClusterRoleBinding', CLUSTER_BINDINGS, 'sa-no-ns', { roleRef: VIEW, subjects: [{ kind: 'ServiceAccount', name: 'default' }] },
    'subjects[0].namespace: Required value'),
  {
    name: 'RoleBinding kept: cannot change roleRef', method: 'PUT', path: `${BINDINGS}/kept`, status: 422, reason: 'Invalid',
    body: JSON.stringify({ metadata: { name: 'kept' }, roleRef: { kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'User', name: 'jane' }] }),
    message: 'RoleBinding.rbac.authorization.k8s.io "kept" is invalid: roleRef: Invalid value: ' +
      'rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    causes: [{
      reason: 'FieldValueInvalid', field: 'roleRef',
      message: 'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    }],
    unchanged: `${BINDINGS}/kept`,
  },
  {
    // The strategy runs ValidateClusterRoleBinding, then ValidateClusterRoleBindingUpdate (which runs it again):
    // the message lists an error once, the causes twice.
    name: 'ClusterRoleBinding kept: a bad subject on update is reported by both validations', method: 'PUT',
    path: `${CLUSTER_BINDINGS}/kept`, status: 422, reason: 'Invalid',
    body: JSON.stringify({ metadata: { name: 'kept' }, roleRef: VIEW, subjects: [{ kind: 'ServiceAccount', name: 'default' }] }),
    message: 'ClusterRoleBinding.rbac.authorization.k8s.io "kept" is invalid: subjects[0].namespace: Required value',
    causes: [
      { reason: 'FieldValueRequired', message: 'Required value', field: 'subjects[0].namespace' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'subjects[0].namespace' },
    ],
    unchanged: `${CLUSTER_BINDINGS}/kept`,
  },
];

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));
