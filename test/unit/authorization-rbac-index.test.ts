/**
 * The roles and bindings the RBAC authorizer reads: kept current from the
 * store (a binding counts once its create returns, not once deleted or
 * changed), indexed by subject; and the in-process client authorized as its
 * requests over HTTPS would be.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { RbacIndex } from '../../src/registry/auth/rbac-index.js';
import { newAuthorizationPolicy } from '../../src/authorization/authorizers.js';
import { resourceAttributes } from '../../src/authorization/types.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { configmaps } from '../../src/client/resources.js';

const RBAC = 'rbac.authorization.k8s.io';

async function setup() {
  const storage = new SqliteStorage(join(mkdtempSync(join(tmpdir(), 'rbac-index-')), 'state.db'));
  const store = new Store(storage, allResources());
  const index = await RbacIndex.start(store);
  store.authorization = newAuthorizationPolicy(['RBAC'], index);
  const def = (r: string) => store.find(RBAC, 'v1', r)!;
  const ctx = (namespace = '') => ({ ...inProcessWriteContext('test'), namespace });
  const create = (r: string, ns: string, obj: Record<string, unknown>) =>
    store.create(def(r), ns, { apiVersion: `${RBAC}/v1`, ...obj } as KObject, ctx(ns));
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } }, ctx());
  return { store, index, def, ctx, create, authorizer: store.authorization.authorizer };
}

test('a binding counts from its create, follows its changes and stops at its delete', async () => {
  const { store, index, def, ctx, create, authorizer } = await setup();
  const bob = { name: 'bob', groups: ['system:authenticated'] };
  const getPods = resourceAttributes(bob, { verb: 'get', resource: 'pods', namespace: 'ns1' });
  await create('clusterroles', '', { kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
  assert.equal(authorizer.authorize(getPods).decision, 'NoOpinion');
  await create('rolebindings', 'ns1', {
    kind: 'RoleBinding', metadata: { name: 'b' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'reader' },
    subjects: [{ apiGroup: RBAC, kind: 'User', name: 'bob' }],
  });
  assert.equal(authorizer.authorize(getPods).decision, 'Allow');
  assert.deepEqual(index.listRoleBindings('ns1', ['User:bob']).map((b) => b.metadata?.name), ['b']);
  assert.deepEqual(index.listRoleBindings('ns1', ['User:alice']), []);

  await store.update(def('rolebindings'), 'ns1', 'b', (cur) => ({ ...cur, subjects: [{ apiGroup: RBAC, kind: 'Group', name: 'devs' }] }), ctx('ns1'));
  assert.equal(authorizer.authorize(getPods).decision, 'NoOpinion');
  assert.deepEqual(index.listRoleBindings('ns1', ['User:bob']), []);
  assert.equal(authorizer.authorize({ ...getPods, user: { name: 'eve', groups: ['devs'] } }).decision, 'Allow');

  await store.delete(def('rolebindings'), 'ns1', 'b', {}, ctx('ns1'));
  assert.equal(authorizer.authorize({ ...getPods, user: { name: 'eve', groups: ['devs'] } }).decision, 'NoOpinion');
  assert.deepEqual(index.listRoleBindings('ns1'), []);
});

test('the in-process client is authorized with its user: a 403 Status for what it may not do', async () => {
  const { store, create } = await setup();
  const user = { name: 'system:serviceaccount:kube-system:robot', groups: ['system:serviceaccounts', 'system:authenticated'] };
  const client = new LoopbackClient(store, user, 'robot', store.authorization!.authorizer);
  const cms = client.resource(configmaps);
  await assert.rejects(cms.list('kube-system'), (e: unknown) => e instanceof StatusError && e.status.code === 403
    && e.status.message === 'configmaps is forbidden: User "system:serviceaccount:kube-system:robot" cannot list resource "configmaps" in API group "" in the namespace "kube-system"');
  await create('clusterroles', '', { kind: 'ClusterRole', metadata: { name: 'cm' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'], resourceNames: ['one'] }] });
  await create('clusterrolebindings', '', {
    kind: 'ClusterRoleBinding', metadata: { name: 'robot-cm' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cm' },
    subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'kube-system' }],
  });
  // A list pinned to the one name the rule allows, as RequestInfo names it.
  assert.deepEqual((await cms.list('kube-system', { fieldSelector: 'metadata.name=one' })).items, []);
  await assert.rejects(cms.list('kube-system'), (e: unknown) => e instanceof StatusError && e.status.code === 403);
  await assert.rejects(cms.get('kube-system', 'one'), (e: unknown) => e instanceof StatusError
    && e.status.message === 'configmaps "one" is forbidden: User "system:serviceaccount:kube-system:robot" cannot get resource "configmaps" in API group "" in the namespace "kube-system"');
  // Its admin-group clients are never refused.
  const admin = client.as({ name: 'system:apiserver', groups: ['system:masters'] }, 'apiserver');
  assert.deepEqual((await admin.resource(configmaps).list('kube-system')).items, []);
});
