import { test } from 'node:test';
import { loopback } from '../helpers/loopback.js';
import assert from 'node:assert/strict';
import { EndpointsController, truncateSubsets } from '../../src/controllers/endpoints.js';
import { eventually, fixture } from './service-fixture.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

const svcObj = (name: string, spec: any, labels?: Record<string, string>) => ({ metadata: { name, labels }, spec });

test('endpoints: ready pods are addresses, unready ones notReadyAddresses, named ports resolved per pod', async () => {
  const f = await fixture();
  await f.node('win-1', { ready: 'True' });
  await f.pod('ns', 'a', { labels: { app: 'web' }, node: 'win-1', ip: '10.244.1.5', ready: true, ports: [{ name: 'http', containerPort: 8080 }] });
  await f.pod('ns', 'b', { labels: { app: 'web' }, node: 'win-1', ip: '10.244.1.6', ready: false, ports: [{ name: 'http', containerPort: 9090 }] });
  await f.pod('ns', 'noip', { labels: { app: 'web' }, node: 'win-1', ready: true });
  await f.pod('ns', 'other', { labels: { app: 'db' }, node: 'win-1', ip: '10.244.1.7', ready: true });
  const svc: any = await f.store.create(f.def('', 'services'), 'ns', svcObj('web', {
    selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }],
  }, { tier: 'front' }), f.ctx('ns'));
  const c = new EndpointsController(newControllerContext({ client: loopback(f.store) }));
  await c.start();
  const ep: any = await eventually(() => f.store.get('', 'endpoints', 'ns', 'web'), 'endpoints');
  const a = await f.store.get('', 'pods', 'ns', 'a');
  const b = await f.store.get('', 'pods', 'ns', 'b');
  assert.deepEqual(ep.metadata.labels, { tier: 'front' });
  assert.equal(ep.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time'], svc.metadata.creationTimestamp);
  assert.deepEqual(ep.subsets, [
    { addresses: [{ ip: '10.244.1.5', nodeName: 'win-1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'a', uid: a!.metadata.uid } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] },
    { notReadyAddresses: [{ ip: '10.244.1.6', nodeName: 'win-1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'b', uid: b!.metadata.uid } }],
      ports: [{ name: 'http', port: 9090, protocol: 'TCP' }] },
  ]);
  // b turns Ready: it moves to addresses.
  await f.setPodStatus('ns', 'b', (s) => { s.conditions[0].status = 'True'; s.conditions[0].lastTransitionTime = '2030-01-01T00:00:00Z'; });
  const after: any = await eventually(async () => {
    const e: any = await f.store.get('', 'endpoints', 'ns', 'web');
    return e.subsets.every((s: any) => !s.notReadyAddresses) ? e : undefined;
  }, 'b ready');
  assert.equal(after.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time'], '2030-01-01T00:00:00Z');
  // The pod goes away: so does its address; the service goes: so do its endpoints.
  await f.store.delete(f.def('', 'pods'), 'ns', 'a', { gracePeriodSeconds: 0 }, f.ctx('ns'));
  await eventually(async () => {
    const e: any = await f.store.get('', 'endpoints', 'ns', 'web');
    return e.subsets.length === 1 && e.subsets[0].addresses[0].ip === '10.244.1.6' ? e : undefined;
  }, 'a gone');
  await f.store.delete(f.def('', 'services'), 'ns', 'web', {}, f.ctx('ns'));
  await eventually(async () => ((await f.store.get('', 'endpoints', 'ns', 'web')) ? undefined : true), 'endpoints deleted');
  await f.close();
});

test('endpoints: publishNotReadyAddresses, headless label and hostname; no selector and ExternalName are skipped', async () => {
  const f = await fixture();
  await f.pod('ns', 'db-0', { labels: { app: 'db' }, node: 'n1', ip: '10.244.2.2', ready: false, hostname: 'db-0', subdomain: 'db' });
  await f.store.create(f.def('', 'services'), 'ns', svcObj('db', { clusterIP: 'None', selector: { app: 'db' }, publishNotReadyAddresses: true }), f.ctx('ns'));
  await f.store.create(f.def('', 'services'), 'ns', svcObj('manual', { ports: [{ port: 80 }] }), f.ctx('ns'));
  await f.store.create(f.def('', 'services'), 'ns', svcObj('ext', { type: 'ExternalName', externalName: 'example.com', selector: { app: 'db' } }), f.ctx('ns'));
  const c = new EndpointsController(newControllerContext({ client: loopback(f.store) }));
  await c.start();
  const ep: any = await eventually(() => f.store.get('', 'endpoints', 'ns', 'db'), 'endpoints');
  assert.deepEqual(ep.metadata.labels, { 'service.kubernetes.io/headless': '' });
  assert.deepEqual(ep.subsets[0].addresses.map((a: any) => [a.ip, a.hostname]), [['10.244.2.2', 'db-0']]);
  assert.equal(ep.subsets[0].ports, undefined);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await f.store.get('', 'endpoints', 'ns', 'manual'), undefined);
  assert.equal(await f.store.get('', 'endpoints', 'ns', 'ext'), undefined);
  await f.close();
});

test('endpoints: over 1000 addresses are truncated, ready ones first', () => {
  const addrs = (n: number, p: string) => Array.from({ length: n }, (_, i) => ({ ip: `${p}.${Math.floor(i / 250)}.${i % 250}` }));
  const subsets: any[] = [{ addresses: addrs(900, '10.1'), notReadyAddresses: addrs(300, '10.2'), ports: [{ port: 80 }] }];
  assert.equal(truncateSubsets(subsets), true);
  assert.equal(subsets[0].addresses.length, 900);
  assert.equal(subsets[0].notReadyAddresses.length, 100);
  const over: any[] = [{ addresses: addrs(700, '10.1') }, { addresses: addrs(700, '10.3'), notReadyAddresses: addrs(5, '10.4') }];
  assert.equal(truncateSubsets(over), true);
  assert.deepEqual(over.map((s) => [s.addresses.length, s.notReadyAddresses?.length]), [[500, undefined], [500, undefined]]);
  assert.equal(truncateSubsets([{ addresses: addrs(1000, '10.1') }]), false);
});
