import { test } from 'node:test';
import { loopback } from '../helpers/loopback.js';
import assert from 'node:assert/strict';
import { DisruptionController, goSelector } from '../../src/controllers/disruption.js';
import { eventually, fixture } from './service-fixture.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

test('disruption: PDB status from the pods and their controller scale; conditions; disruptedPods cleanup; fail-safe', async () => {
  const f = await fixture();
  const rs: any = await f.store.create(f.def('apps', 'replicasets'), 'ns', {
    metadata: { name: 'web-abc' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  }, f.ctx('ns'));
  const owner = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }];
  await f.pod('ns', 'web-1', { labels: { app: 'web' }, node: 'n', ip: '10.244.0.2', ready: true, ownerReferences: owner });
  await f.pod('ns', 'web-2', { labels: { app: 'web' }, node: 'n', ip: '10.244.0.3', ready: true, ownerReferences: owner });
  await f.pod('ns', 'web-3', { labels: { app: 'web' }, node: 'n', ip: '10.244.0.4', ready: false, ownerReferences: owner });
  const pdbDef = f.def('policy', 'poddisruptionbudgets');
  await f.store.create(pdbDef, 'ns', { metadata: { name: 'web' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } }, f.ctx('ns'));
  await f.store.create(pdbDef, 'ns', { metadata: { name: 'min' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } }, f.ctx('ns'));
  await f.store.create(pdbDef, 'ns', { metadata: { name: 'none' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'nothing' } } } }, f.ctx('ns'));
  const c = new DisruptionController(newControllerContext({ client: loopback(f.store) }));
  await c.start();
  const status = (name: string, pred: (s: any) => boolean) => eventually(async () => {
    const p: any = await f.store.get('policy', 'poddisruptionbudgets', 'ns', name);
    return p.status?.observedGeneration === 1 && pred(p.status) ? p.status : undefined;
  }, `${name} status`);
  const web = await status('web', () => true);
  assert.deepEqual({ ...web, conditions: undefined }, { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 3, conditions: undefined });
  assert.deepEqual(web.conditions.map((x: any) => [x.type, x.status, x.reason, x.message, x.observedGeneration]), [['DisruptionAllowed', 'False', 'InsufficientPods', '', 1]]);
  const min = await status('min', () => true);
  assert.deepEqual([min.expectedPods, min.desiredHealthy, min.currentHealthy, min.disruptionsAllowed], [3, 2, 2, 0]);
  const none = await status('none', () => true);
  assert.deepEqual([none.expectedPods, none.desiredHealthy, none.currentHealthy, none.disruptionsAllowed], [0, 1, 0, 0]);

  // web-3 turns Ready: one disruption is allowed.
  await f.setPodStatus('ns', 'web-3', (s) => { s.conditions[0].status = 'True'; });
  const allowed = await status('web', (s) => s.disruptionsAllowed === 1);
  assert.deepEqual(allowed.conditions.map((x: any) => [x.status, x.reason]), [['True', 'SufficientPods']]);
  // An eviction records the pod in disruptedPods; it is not counted healthy, and its entry goes once the pod is deleting.
  await f.store.update(pdbDef, 'ns', 'web', (p: any) => {
    p.status.disruptionsAllowed = 0; p.status.disruptedPods = { 'web-1': new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }; return p;
  }, f.ctx('ns'), 'status');
  const afterEvict = await status('web', (s) => s.currentHealthy === 2 && !!s.disruptedPods);
  assert.deepEqual(Object.keys(afterEvict.disruptedPods), ['web-1']);
  await f.store.update(f.def('', 'pods'), 'ns', 'web-1', (p) => { p.metadata.finalizers = ['example.com/hold']; return p; }, f.ctx('ns'));
  await f.store.delete(f.def('', 'pods'), 'ns', 'web-1', { gracePeriodSeconds: 30 }, f.ctx('ns'));
  const cleaned = await status('web', (s) => !s.disruptedPods);
  assert.equal(cleaned.currentHealthy, 2);

  // A percentage needs the controllers' scale: a pod whose controller cannot be found fails safe.
  await f.pod('ns', 'stray', { labels: { app: 'stray' }, node: 'n', ip: '10.244.0.9', ready: true,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gone', uid: '0000', controller: true }] });
  await f.store.create(pdbDef, 'ns', { metadata: { name: 'pct' }, spec: { minAvailable: '50%', selector: { matchLabels: { app: 'stray' } } } }, f.ctx('ns'));
  const failed = await eventually(async () => {
    const p: any = await f.store.get('policy', 'poddisruptionbudgets', 'ns', 'pct');
    return p.status?.conditions?.length ? p.status : undefined;
  }, 'pct fail-safe');
  assert.deepEqual(failed.conditions.map((x: any) => [x.type, x.status, x.reason, x.message]),
    [['DisruptionAllowed', 'False', 'SyncFailed', 'found no controllers for pod "stray"']]);
  // The recorder writes behind the status: wait for both events.
  const evs = await eventually(async () => {
    const items = (await f.store.list(f.def('', 'events'), 'ns')).items as any[];
    return items.some((e) => e.reason === 'NoPods') && items.some((e) => e.reason === 'CalculateExpectedPodCountFailed') ? items : undefined;
  }, 'the NoPods and CalculateExpectedPodCountFailed events');
  assert.ok(evs.some((e) => e.reason === 'NoPods' && e.message === 'No matching pods found' && e.involvedObject.name === 'none' && e.source.component === 'controllermanager'));
  assert.ok(evs.some((e) => e.reason === 'CalculateExpectedPodCountFailed' && e.type === 'Warning' &&
    e.message === 'Failed to calculate the number of expected pods: found no controllers for pod "stray"'));
  c.stop();
  await f.close();
});

test('disruption: Go formatting of a label selector for the UnmanagedPods event', () => {
  assert.equal(goSelector({ matchLabels: { b: '2', a: '1' } }), '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{},}');
  assert.equal(goSelector({ matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }] }),
    '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}');
});
