/**
 * Two API servers' lease endpoint reconcilers on one storage, on an injected clock: both are
 * listed; one that stops renewing drops out once its key is TTL old; one shut down drops out at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { endpointReconcilerTimingsFromEnv, LeaseEndpointReconciler } from '../../src/cluster/lease-endpoint-reconciler.js';
import { leaseTimingsFromEnv } from '../../src/cluster/leader-elected.js';
import { fixture } from './service-fixture.js';

test('the kubernetes Endpoints and EndpointSlice list the servers whose master lease is alive', async () => {
  const f = await fixture();
  let now = 1_000_000;
  const logs: string[] = [];
  const reconciler = (ip: string) => new LeaseEndpointReconciler({ store: f.store, storage: f.storage, ip, port: 6443, ttlMs: 15_000, log: (m) => logs.push(m), now: () => now });
  const a = reconciler('127.0.0.1');
  const b = reconciler('127.0.0.2');
  const listed = async () => {
    const e = await f.store.get('', 'endpoints', 'default', 'kubernetes') as Endpoints;
    const s = await f.store.get('discovery.k8s.io', 'endpointslices', 'default', 'kubernetes') as unknown as EndpointSlice;
    return { endpoints: e.subsets!.map((sub) => [sub.addresses!.map((x) => `${x.ip}`), sub.ports!.map((p) => p.port)]), slice: s.endpoints.map((x) => x.addresses[0]) };
  };
  await a.reconcileEndpoints();
  assert.deepEqual(await listed(), { endpoints: [[['127.0.0.1'], [6443]]], slice: ['127.0.0.1'] });
  await b.reconcileEndpoints();
  assert.deepEqual(await listed(), { endpoints: [[['127.0.0.1', '127.0.0.2'], [6443]]], slice: ['127.0.0.1', '127.0.0.2'] });
  assert.deepEqual((await f.storage.list('/core/masterleases/')).items.map((kv) => kv.key), ['/core/masterleases/127.0.0.1', '/core/masterleases/127.0.0.2']);
  // Nothing changed: no write.
  const rv = (await f.store.get('', 'endpoints', 'default', 'kubernetes'))!.metadata.resourceVersion;
  now += 10_000;
  await a.reconcileEndpoints();
  await b.reconcileEndpoints();
  assert.equal((await f.store.get('', 'endpoints', 'default', 'kubernetes'))!.metadata.resourceVersion, rv);
  // a dies (kill -9: no more renewals). b still lists it while its key is younger than the TTL as b has seen it...
  now += 14_999;
  await b.reconcileEndpoints();
  assert.deepEqual((await listed()).slice, ['127.0.0.1', '127.0.0.2']);
  // ...and drops it once the key has stood unchanged for the TTL; the key is deleted.
  now += 1;
  await b.reconcileEndpoints();
  assert.deepEqual(await listed(), { endpoints: [[['127.0.0.2'], [6443]]], slice: ['127.0.0.2'] });
  assert.deepEqual((await f.storage.list('/core/masterleases/')).items.map((kv) => kv.key), ['/core/masterleases/127.0.0.2']);
  // a comes back, then shuts down cleanly: it is removed at once.
  await a.reconcileEndpoints();
  assert.deepEqual((await listed()).slice, ['127.0.0.1', '127.0.0.2']);
  await a.stop();
  assert.deepEqual(await listed(), { endpoints: [[['127.0.0.2'], [6443]]], slice: ['127.0.0.2'] });
  // The last server leaves the Endpoints as they were, without a word (upstream refuses to empty them, and logs it).
  await b.stop();
  assert.deepEqual(await listed(), { endpoints: [[['127.0.0.2'], [6443]]], slice: ['127.0.0.2'] });
  assert.deepEqual((await f.storage.list('/core/masterleases/')).items, []);
  assert.deepEqual(logs, [
    'Resetting endpoints for master service "kubernetes" to [127.0.0.1]',
    'Resetting endpoints for master service "kubernetes" to [127.0.0.1 127.0.0.2]',
    'Resetting endpoints for master service "kubernetes" to [127.0.0.2]',
    'Resetting endpoints for master service "kubernetes" to [127.0.0.1 127.0.0.2]',
    'Resetting endpoints for master service "kubernetes" to [127.0.0.2]',
  ]);
  await f.close();
});

test('upstream timings by default; the WINKUBE_ variables shorten them', () => {
  assert.deepEqual(leaseTimingsFromEnv({}), { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  assert.deepEqual(leaseTimingsFromEnv({ WINKUBE_LEADER_ELECT_LEASE_DURATION: '4s', WINKUBE_LEADER_ELECT_RENEW_DEADLINE: '3s', WINKUBE_LEADER_ELECT_RETRY_PERIOD: '500ms' }),
    { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 });
  assert.deepEqual(endpointReconcilerTimingsFromEnv({}), { ttlMs: 15_000, intervalMs: 10_000 });
  assert.deepEqual(endpointReconcilerTimingsFromEnv({ WINKUBE_ENDPOINT_RECONCILER_TTL: '5s', WINKUBE_ENDPOINT_INTERVAL: '1s' }), { ttlMs: 5_000, intervalMs: 1_000 });
});

test('a server on another port is listed with the port the Endpoints were made with', async () => {
  const f = await fixture();
  const make = (ip: string, port: number) => new LeaseEndpointReconciler({ store: f.store, storage: f.storage, ip, port, log: () => {}, now: () => 0 });
  await make('127.0.0.1', 6443).reconcileEndpoints();
  await make('127.0.0.2', 7443).reconcileEndpoints();
  const e = await f.store.get('', 'endpoints', 'default', 'kubernetes') as Endpoints;
  assert.deepEqual(e.subsets, [{ addresses: [{ ip: '127.0.0.1' }, { ip: '127.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
  await f.close();
});
