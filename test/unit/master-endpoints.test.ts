/**
 * The lease endpoint reconciler's rules (pkg/controlplane/reconcilers/lease.go): the `kubernetes`
 * Endpoints list exactly the live master IPs with this server's ports, the slice mirrors them, and
 * a master lease is alive until seen unchanged for the TTL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import { checkEndpointSubsetFormat, endpointSliceFromEndpoints, LeaseAges, reconcileMasterEndpoints } from '../../src/cluster/master-endpoints.js';

const PORTS = [{ name: 'https', port: 6443, protocol: 'TCP' }];
const endpoints = (ips: string[], port = 6443, labels: Record<string, string> = { 'endpointslice.kubernetes.io/skip-mirror': 'true' }): Endpoints => ({
  apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes', namespace: 'default', labels, resourceVersion: '7' },
  subsets: [{ addresses: ips.map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] }],
});

test('checkEndpointSubsetFormatWithLease: one subset, the expected addresses each once, the ports in order', () => {
  assert.deepEqual(checkEndpointSubsetFormat(endpoints(['127.0.0.1', '127.0.0.2']), ['127.0.0.2', '127.0.0.1'], PORTS, true),
    { formatCorrect: true, ipsCorrect: true, portsCorrect: true });
  assert.deepEqual(checkEndpointSubsetFormat(endpoints(['127.0.0.1']), ['127.0.0.1', '127.0.0.2'], PORTS, true),
    { formatCorrect: true, ipsCorrect: false, portsCorrect: true });
  assert.deepEqual(checkEndpointSubsetFormat(endpoints(['127.0.0.1', '127.0.0.1']), ['127.0.0.1', '127.0.0.2'], PORTS, true),
    { formatCorrect: true, ipsCorrect: false, portsCorrect: true });
  assert.deepEqual(checkEndpointSubsetFormat(endpoints(['127.0.0.1'], 7443), ['127.0.0.1'], PORTS, true),
    { formatCorrect: true, ipsCorrect: true, portsCorrect: false });
  assert.deepEqual(checkEndpointSubsetFormat(endpoints(['127.0.0.1'], 7443), ['127.0.0.1'], PORTS, false),
    { formatCorrect: true, ipsCorrect: true, portsCorrect: true });
  assert.deepEqual(checkEndpointSubsetFormat({ ...endpoints([]), subsets: [] }, ['127.0.0.1'], PORTS, true),
    { formatCorrect: false, ipsCorrect: false, portsCorrect: false });
});

test('doReconcile: nothing to write when the Endpoints list the live masters; otherwise the addresses (sorted) and ports are reset', () => {
  assert.equal(reconcileMasterEndpoints(endpoints(['127.0.0.1', '127.0.0.2']), 'kubernetes', ['127.0.0.2', '127.0.0.1'], PORTS, true), undefined);
  assert.deepEqual(reconcileMasterEndpoints(endpoints(['127.0.0.1']), 'kubernetes', ['127.0.0.2', '127.0.0.1'], PORTS, true), endpoints(['127.0.0.1', '127.0.0.2']));
  // A master gone: only the live one stays.
  assert.deepEqual(reconcileMasterEndpoints(endpoints(['127.0.0.1', '127.0.0.2']), 'kubernetes', ['127.0.0.2'], PORTS, true), endpoints(['127.0.0.2']));
  // Another server's port is replaced by this one's when ports are reconciled; the periodic reconcile leaves it.
  assert.deepEqual(reconcileMasterEndpoints(endpoints(['127.0.0.1'], 7443), 'kubernetes', ['127.0.0.1'], PORTS, true), endpoints(['127.0.0.1']));
  assert.equal(reconcileMasterEndpoints(endpoints(['127.0.0.1'], 7443), 'kubernetes', ['127.0.0.1'], PORTS, false), undefined);
  assert.deepEqual(reconcileMasterEndpoints(endpoints(['127.0.0.1'], 7443), 'kubernetes', ['127.0.0.1', '127.0.0.2'], PORTS, false), endpoints(['127.0.0.1', '127.0.0.2'], 7443));
  // The skip-mirror label alone is reason enough to write.
  assert.deepEqual(reconcileMasterEndpoints(endpoints(['127.0.0.1'], 6443, {}), 'kubernetes', ['127.0.0.1'], PORTS, true), endpoints(['127.0.0.1']));
  // Two subsets are rebuilt as one.
  const two = { ...endpoints(['127.0.0.1']), subsets: [{ addresses: [{ ip: '127.0.0.1' }] }, { addresses: [{ ip: '127.0.0.9' }] }] };
  assert.deepEqual(reconcileMasterEndpoints(two, 'kubernetes', ['127.0.0.1'], PORTS, true), endpoints(['127.0.0.1']));
  // None yet: created.
  assert.deepEqual(reconcileMasterEndpoints(undefined, 'kubernetes', ['127.0.0.1'], PORTS, true), {
    apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: PORTS }],
  });
  assert.throws(() => reconcileMasterEndpoints(endpoints(['127.0.0.1']), 'kubernetes', [], PORTS, true),
    { message: 'no master IPs were listed in storage, refusing to erase all endpoints for the kubernetes service' });
});

test('EnsureEndpointSliceFromEndpoints: one ready endpoint per address, the same ports', () => {
  assert.deepEqual(endpointSliceFromEndpoints(endpoints(['127.0.0.1', '127.0.0.2'])), {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }, { addresses: ['127.0.0.2'], conditions: { ready: true } }],
    ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
  });
});

test('a master lease is alive until this server has seen it unchanged for the TTL', () => {
  const ages = new LeaseAges(15_000);
  const key = '/core/masterleases/127.0.0.2';
  assert.equal(ages.alive(key, 10, 1_000), true);
  assert.equal(ages.alive(key, 10, 15_999), true);
  // Renewed (a new revision): its age starts again.
  assert.equal(ages.alive(key, 12, 16_000), true);
  assert.equal(ages.alive(key, 12, 30_999), true);
  assert.equal(ages.alive(key, 12, 31_000), false);
  // Forgotten (deleted): a key written again is new.
  ages.forget(key);
  assert.equal(ages.alive(key, 12, 90_000), true);
});
