import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceLBController } from '../../src/controllers/service-lb.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { loopback } from '../helpers/loopback.js';
import { DEFAULT_LB_POOL, LBPool } from '../../src/network/lb-pool.js';
import { eventually, fixture } from './service-fixture.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

test('lb pool: ranges and CIDRs', () => {
  const p = LBPool.parse(DEFAULT_LB_POOL);
  assert.equal(p.size, 51);
  assert.equal(p.contains('172.18.255.200'), true);
  assert.equal(p.contains('172.18.255.251'), false);
  assert.equal(p.firstFree(new Set(['172.18.255.200'])), '172.18.255.201');
  const c = LBPool.parse('10.0.0.0/30, 10.1.0.5');
  assert.equal(c.size, 3);
  assert.equal(c.firstFree(new Set()), '10.0.0.1');
  assert.throws(() => LBPool.parse('10.0.0.9-10.0.0.1'), /the last address comes before the first/);
  assert.throws(() => LBPool.parse('nope'), /want <first IP>-<last IP> or a CIDR/);
});

test('service lb: LoadBalancer services get ingress IPs from the pool, a finalizer and events; released on type change', async () => {
  const f = await fixture();
  const events = new EventRecorder(loopback(f.store));
  const c = new ServiceLBController(newControllerContext({ client: loopback(f.store), events: events }), LBPool.parse('172.18.255.200-172.18.255.201'));
  await c.start();
  const svcDef = f.def('', 'services');
  const lb = (name: string, extra: any = {}) => f.store.create(svcDef, 'ns', { metadata: { name }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }], ...extra } }, f.ctx('ns'));
  const ingress = (name: string) => eventually(async () => {
    const s: any = await f.store.get('', 'services', 'ns', name);
    return s.status.loadBalancer.ingress?.length ? s : undefined;
  }, `${name} ingress`);
  // spec.loadBalancerIP is honoured when it is in the pool.
  await lb('b', { loadBalancerIP: '172.18.255.201' });
  const b = await ingress('b');
  assert.deepEqual(b.status.loadBalancer.ingress, [{ ip: '172.18.255.201', ipMode: 'VIP' }]);
  await lb('a');
  await lb('other', { loadBalancerClass: 'example.com/lb' });
  const a = await ingress('a');
  assert.deepEqual(a.status.loadBalancer.ingress, [{ ip: '172.18.255.200', ipMode: 'VIP' }]);
  const ips = ['172.18.255.200'];
  assert.deepEqual(a.metadata.finalizers, ['service.kubernetes.io/load-balancer-cleanup']);
  // The pool is exhausted: a third one fails with the service controller's event.
  await lb('c');
  const failed = await eventually(async () => ((await f.store.list(f.def('', 'events'), 'ns')).items as any[])
    .find((e) => e.reason === 'SyncLoadBalancerFailed' && e.involvedObject.name === 'c'), 'failure event');
  assert.equal(failed.type, 'Warning');
  assert.equal(failed.message, 'Error syncing load balancer: failed to ensure load balancer: no available IPs in the load balancer pool 172.18.255.200-172.18.255.201');
  assert.equal(failed.source.component, 'service-controller');
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(((await f.store.get('', 'services', 'ns', 'other'))!.status as any).loadBalancer, {});
  // a becomes a ClusterIP service: its address and finalizer go, and c gets the address.
  await f.store.update(svcDef, 'ns', 'a', (s: any) => { s.spec.type = 'ClusterIP'; return s; }, f.ctx('ns'));
  await eventually(async () => ((await f.store.get('', 'services', 'ns', 'a'))!.metadata.finalizers ? undefined : true), 'finalizer removed');
  const cc = await ingress('c');
  assert.equal(cc.status.loadBalancer.ingress[0].ip, ips[0]);
  const reasons = await eventually(async () => {
    const r = ((await f.store.list(f.def('', 'events'), 'ns')).items as any[]).filter((e) => e.involvedObject.name === 'a').map((e) => [e.reason, e.message]);
    return r.length === 4 ? r : undefined;
  }, 'events of a');
  assert.deepEqual(reasons, [['EnsuringLoadBalancer', 'Ensuring load balancer'], ['EnsuredLoadBalancer', 'Ensured load balancer'],
    ['DeletingLoadBalancer', 'Deleting load balancer'], ['DeletedLoadBalancer', 'Deleted load balancer']]);
  // Deleting an LB service waits for the controller to let go.
  await f.store.delete(svcDef, 'ns', 'c', {}, f.ctx('ns'));
  await eventually(async () => ((await f.store.get('', 'services', 'ns', 'c')) ? undefined : true), 'c deleted');
  await f.close();
});
