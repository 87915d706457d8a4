import { test } from 'node:test';
import { loopback } from '../helpers/loopback.js';
import assert from 'node:assert/strict';
import { EndpointSliceController, reconcileSlices } from '../../src/controllers/endpointslice/controller.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { eventually, fixture } from './service-fixture.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

const slicesOf = async (f: Awaited<ReturnType<typeof fixture>>, ns: string, svc: string) =>
  (await f.store.list(f.def('discovery.k8s.io', 'endpointslices'), ns)).items.filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === svc);

test('endpointslices: one slice per service with conditions, node, zone and owner', async () => {
  const f = await fixture();
  await f.node('win-1', { ready: 'True', labels: { 'topology.kubernetes.io/zone': 'zone-a' } });
  await f.node('lin-1', { ready: 'True' });
  await f.pod('ns', 'a', { labels: { app: 'web' }, node: 'win-1', ip: '10.244.1.5', ready: true });
  await f.pod('ns', 'b', { labels: { app: 'web' }, node: 'lin-1', ip: '10.244.2.5', ready: false });
  const svc: any = await f.store.create(f.def('', 'services'), 'ns', {
    metadata: { name: 'web', labels: { tier: 'front' } }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
  }, f.ctx('ns'));
  const c = new EndpointSliceController(newControllerContext({ client: loopback(f.store) }));
  await c.start();
  const [slice] = await eventually(async () => {
    const s = await slicesOf(f, 'ns', 'web');
    return s.length === 1 && (s[0]?.endpoints as any[])?.length === 2 ? s : undefined;
  }, 'slice');
  const s: any = slice;
  assert.match(s.metadata.name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.equal(s.metadata.generateName, 'web-');
  assert.deepEqual(s.metadata.labels, {
    tier: 'front', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
  });
  assert.deepEqual(s.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  assert.equal(s.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time'], svc.metadata.creationTimestamp);
  assert.equal(s.addressType, 'IPv4');
  assert.deepEqual(s.ports, [{ name: '', port: 8080, protocol: 'TCP' }]);
  const a = await f.store.get('', 'pods', 'ns', 'a');
  const byName = Object.fromEntries(s.endpoints.map((e: any) => [e.targetRef.name, e]));
  assert.deepEqual(byName.a, {
    addresses: ['10.244.1.5'], conditions: { ready: true, serving: true, terminating: false },
    targetRef: { kind: 'Pod', namespace: 'ns', name: 'a', uid: a!.metadata.uid }, nodeName: 'win-1', zone: 'zone-a',
  });
  assert.deepEqual(byName.b.conditions, { ready: false, serving: false, terminating: false });
  assert.equal(byName.b.zone, undefined);
  // The last pod of a port set leaving empties the service: one placeholder slice remains.
  await f.store.delete(f.def('', 'pods'), 'ns', 'a', { gracePeriodSeconds: 0 }, f.ctx('ns'));
  await f.store.delete(f.def('', 'pods'), 'ns', 'b', { gracePeriodSeconds: 0 }, f.ctx('ns'));
  const [ph] = await eventually(async () => {
    const all = await slicesOf(f, 'ns', 'web');
    return all.length === 1 && all[0]?.endpoints === null ? all : undefined;
  }, 'placeholder');
  assert.equal((ph as any).ports, null);
  await f.close();
});

test('endpointslices: a terminating pod stays as serving, not ready; 65 Windows backends make one slice', async () => {
  const f = await fixture();
  await f.node('win-1', { ready: 'True' });
  for (let i = 0; i < 65; i++) await f.pod('ns', `w${i}`, { labels: { app: 'iis' }, node: 'win-1', ip: `10.244.3.${i + 2}`, ready: true });
  await f.store.create(f.def('', 'services'), 'ns', { metadata: { name: 'iis' }, spec: { selector: { app: 'iis' }, ports: [{ port: 80 }] } }, f.ctx('ns'));
  const c = new EndpointSliceController(newControllerContext({ client: loopback(f.store) }));
  await c.start();
  await eventually(async () => {
    const s = await slicesOf(f, 'ns', 'iis');
    return s.length === 1 && (s[0]?.endpoints as any[]).length === 65 ? s : undefined;
  }, '65 endpoints in one slice');
  // A finalizer keeps the pod while it terminates.
  await f.store.update(f.def('', 'pods'), 'ns', 'w0', (p) => { p.metadata.finalizers = ['example.com/hold']; return p; }, f.ctx('ns'));
  await f.store.delete(f.def('', 'pods'), 'ns', 'w0', { gracePeriodSeconds: 30 }, f.ctx('ns'));
  const ep = await eventually(async () => {
    const s = await slicesOf(f, 'ns', 'iis');
    return (s[0]?.endpoints as any[]).find((e) => e.targetRef.name === 'w0' && e.conditions.terminating);
  }, 'terminating endpoint');
  assert.deepEqual(ep.conditions, { ready: false, serving: true, terminating: true });
  await f.close();
});

test('endpointslices reconciler: 100 per slice; different port numbers split; updates fill existing slices', () => {
  const svc: any = { metadata: { name: 's', namespace: 'ns', uid: 'u' }, spec: { selector: { a: 'b' }, ports: [{ name: 'p', port: 80, targetPort: 'web' }], ipFamilies: ['IPv4'], clusterIP: '10.96.0.9' } };
  const nodes = new Map<string, KObject>([['n', { metadata: { name: 'n' } }]]);
  const pod = (i: number, port: number): any => ({
    metadata: { name: `p${String(i).padStart(3, '0')}`, namespace: 'ns', uid: `uid${i}` },
    spec: { nodeName: 'n', containers: [{ ports: [{ name: 'web', containerPort: port }] }] },
    status: { phase: 'Running', podIP: `10.0.${Math.floor(i / 200)}.${i % 200}`, conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const pods = [...Array.from({ length: 230 }, (_, i) => pod(i, 8080)), pod(500, 9090)];
  const first = reconcileSlices(svc, pods, nodes, []);
  assert.deepEqual(first.create.map((s: any) => [s.ports[0].port, s.endpoints.length]), [[8080, 100], [8080, 100], [8080, 30], [9090, 1]]);
  // Existing slices: removing one pod and adding two refills the slice being updated.
  const existing = first.create.map((s, i) => ({ ...structuredClone(s), metadata: { ...structuredClone(s.metadata), name: `s-${i}` } }));
  const next = [...pods.filter((p) => p.metadata.name !== 'p000'), pod(600, 8080), pod(601, 8080)];
  const second = reconcileSlices(svc, next, nodes, existing);
  assert.equal(second.create.length, 0);
  assert.equal(second.delete.length, 0);
  assert.deepEqual(second.update.map((s: any) => [s.metadata.name, s.endpoints.length]), [['s-0', 100], ['s-2', 31]]);
});
