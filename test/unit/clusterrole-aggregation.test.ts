/** The ClusterRole aggregation controller: rules gathered from the roles its selectors match, kept up to date. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopback } from '../helpers/loopback.js';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { aggregatedRules, ClusterRoleAggregationController } from '../../src/controllers/clusterrole-aggregation.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { eventually } from './service-fixture.js';

const role = (name: string, labels: Record<string, string>, rules: unknown[] | null, aggregationRule?: unknown): KObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules,
  ...(aggregationRule ? { aggregationRule } : {}),
});

const podsRead = { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] };
const secretsRead = { apiGroups: [''], resources: ['secrets'], verbs: ['get'] };
const metrics = { nonResourceURLs: ['/metrics'], verbs: ['get'] };

test('aggregatedRules: selector by selector, matching roles in name order, each rule once, never the role itself', () => {
  const agg = role('agg', { a: 'x' }, null, { clusterRoleSelectors: [{ matchLabels: { b: 'y' } }, { matchLabels: { a: 'x' } }] });
  const all = [
    agg,
    role('zeta', { b: 'y' }, [podsRead]),
    role('alpha', { b: 'y' }, [secretsRead, podsRead]),
    role('other', { a: 'x' }, [metrics, { ...podsRead, resourceNames: [] }]),
    role('unlabelled', {}, [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }]),
  ];
  assert.deepEqual(aggregatedRules(agg, all), [secretsRead, podsRead, metrics]);
  const bad = role('bad', {}, null, { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] });
  assert.equal(aggregatedRules(bad, all), undefined);
});

test('the controller fills an aggregated role and follows changes to the roles it selects', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  const ctx = inProcessWriteContext('test');
  const roles = store.find('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;
  await store.create(roles, '', role('monitoring', {}, null, { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-monitoring': 'true' } }] }), ctx);
  await store.create(roles, '', role('pods-reader', { 'example.com/aggregate-to-monitoring': 'true' }, [podsRead]), ctx);
  const cctx = newControllerContext({ client: loopback(store) });
  const controller = new ClusterRoleAggregationController(cctx);
  const rulesOf = async () => (await store.get('rbac.authorization.k8s.io', 'clusterroles', '', 'monitoring') as KObject & { rules: unknown }).rules;
  // The last mismatch is the timeout's message.
  const rulesBecome = (want: unknown) => eventually(async () => { assert.deepEqual(await rulesOf(), want); return true; }, 'the aggregated rules');
  await controller.start();
  await rulesBecome([podsRead]);
  const stored = await store.get('rbac.authorization.k8s.io', 'clusterroles', '', 'monitoring');
  assert.ok(stored?.metadata.managedFields?.some((m) => m.manager === 'clusterrole-aggregation-controller' && m.operation === 'Update'),
    JSON.stringify(stored?.metadata.managedFields));
  await store.create(roles, '', role('metrics', { 'example.com/aggregate-to-monitoring': 'true' }, [metrics]), ctx);
  await rulesBecome([metrics, podsRead]);
  await store.delete(roles, '', 'pods-reader', {}, ctx);
  await rulesBecome([metrics]);
  await store.delete(roles, '', 'metrics', {}, ctx);
  await rulesBecome(null);
  controller.stop();
  cctx.informers.stop();
  await storage.close();
});
