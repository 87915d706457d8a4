/** Bootstrap reconciliation (pkg/registry/rbac/reconciliation) and the rule comparison it rests on (policy_comparator.go). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakdownRule, covers } from '../../src/registry/rbac/policy-comparator.js';
import { reconcileBinding, reconcileRole } from '../../src/registry/rbac/reconcile.js';

test('covers: wildcards, */subresource, resource names, non-resource URL prefixes; what is left uncovered, broken down', () => {
  const owner = [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] },
    { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
    { verbs: ['get'], nonResourceURLs: ['/healthz/*'] },
  ];
  assert.deepEqual(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'nodes/status'] }]), { covered: true, uncovered: [] });
  assert.deepEqual(covers(owner, [{ verbs: ['get'], nonResourceURLs: ['/healthz/etcd'] }]).covered, true);
  assert.deepEqual(covers(owner, [{ verbs: ['delete'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }]).covered, true);
  assert.deepEqual(covers(owner, [{ verbs: ['get', 'watch'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments'] }]).uncovered, [
    { apiGroups: [''], resources: ['pods'], verbs: ['watch'] },
    { apiGroups: [''], resources: ['deployments'], verbs: ['get'] },
    { apiGroups: [''], resources: ['deployments'], verbs: ['watch'] },
    { apiGroups: ['apps'], resources: ['pods'], verbs: ['get'] },
    { apiGroups: ['apps'], resources: ['pods'], verbs: ['watch'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['watch'] },
  ]);
  assert.deepEqual(breakdownRule({ verbs: ['get', 'head'], nonResourceURLs: ['/a'] }), [
    { nonResourceURLs: ['/a'], verbs: ['get'] }, { nonResourceURLs: ['/a'], verbs: ['head'] },
  ]);
});

const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, ...extra });
const role = (rules: unknown[], metadata = meta('r'), aggregationRule?: unknown) =>
  ({ kind: 'ClusterRole', metadata, rules, ...(aggregationRule ? { aggregationRule } : {}) });

test('reconcileRole: creates, adds missing rules and selectors after the stored ones, merges labels (stored wins), keeps extras', () => {
  const want = role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }],
    meta('r', { labels: { a: '1', b: '2' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } }));
  assert.equal(reconcileRole(undefined, want).operation, 'create');
  const stored = role([{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    meta('r', { labels: { a: 'mine' }, uid: 'u' }));
  const r = reconcileRole(stored, want);
  assert.equal(r.operation, 'update');
  assert.deepEqual(r.object.rules, [...stored.rules, { apiGroups: [''], resources: ['pods'], verbs: ['list'] }]);
  assert.deepEqual(r.object.metadata, { name: 'r', uid: 'u', labels: { a: 'mine', b: '2' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } });
  assert.equal(reconcileRole(r.object, want).operation, 'none');
  const locked = { ...stored, metadata: meta('r', { annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }) };
  assert.equal(reconcileRole(locked, want).protected, true);
  const sel = (l: string) => ({ matchLabels: { [l]: 'true' } });
  const agg = reconcileRole(role([], meta('v'), { clusterRoleSelectors: [sel('x')] }), role([], meta('v'), { clusterRoleSelectors: [sel('y')] }));
  assert.deepEqual(agg.object.aggregationRule, { clusterRoleSelectors: [sel('x'), sel('y')] });
});

test('reconcileBinding: a different roleRef re-creates the binding; missing subjects are added after the stored ones', () => {
  const binding = (ref: string, subjects: unknown[]) =>
    ({ kind: 'ClusterRoleBinding', metadata: meta('b'), subjects, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ref } });
  const g = (name: string) => ({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name });
  assert.equal(reconcileBinding(binding('view', [g('a')]), binding('edit', [g('a')])).operation, 'recreate');
  const r = reconcileBinding(binding('view', [g('z')]), binding('view', [g('a'), g('z')]));
  assert.equal(r.operation, 'update');
  assert.deepEqual(r.object.subjects, [g('z'), g('a')]);
  assert.equal(reconcileBinding(r.object, binding('view', [g('a')])).operation, 'none');
});
