/**
 * Endpoints written by hand for a Service without a selector are mirrored
 * into EndpointSlices, as kube-controller-manager's mirroring controller does.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';

async function slicesOf(service: string): Promise<any[]> {
  for (let i = 0; i < 100; i++) {
    const r = await kubectl(cluster, ['get', 'endpointslices', '-l', `kubernetes.io/service-name=${service}`, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const items = JSON.parse(r.stdout).items;
    if (items.length) return items;
    await new Promise((res) => setTimeout(res, 100));
  }
  return [];
}

async function eventually<T>(get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await get();
  for (let i = 0; i < 100 && !ok(v); i++) { await new Promise((res) => setTimeout(res, 100)); v = await get(); }
  return v;
}

test('a selector-less Service with hand-written Endpoints gets a mirrored EndpointSlice that follows them', async () => {
  const manifest = `
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  ports: [{port: 5432}]
---
apiVersion: v1
kind: Endpoints
metadata:
  name: db
  labels: {team: data}
  annotations: {note: external}
subsets:
- addresses: [{ip: 10.1.0.5}, {ip: "2001:0db8:0:0:0:0:0:1"}]
  notReadyAddresses: [{ip: 10.1.0.6}]
  ports: [{port: 5432}]
`;
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: manifest });
  assert.equal(r.code, 0, r.stderr);
  const slices = await eventually(() => slicesOf('db'), (s) => s.length === 2);
  const byType = Object.fromEntries(slices.map((s) => [s.addressType, s]));
  const v4 = byType.IPv4;
  assert.match(v4.metadata.name, /^db-[a-z0-9]{5}$/);
  assert.deepEqual(v4.metadata.labels, { team: 'data', 'kubernetes.io/service-name': 'db', [MANAGED_BY]: 'endpointslicemirroring-controller.k8s.io' });
  assert.equal(v4.metadata.annotations.note, 'external');
  assert.equal('kubectl.kubernetes.io/last-applied-configuration' in v4.metadata.annotations, false);
  assert.deepEqual(v4.metadata.ownerReferences.map((o: any) => [o.kind, o.name, o.controller]), [['Endpoints', 'db', true]]);
  assert.deepEqual(v4.endpoints, [{ addresses: ['10.1.0.5'], conditions: { ready: true } }, { addresses: ['10.1.0.6'], conditions: { ready: false } }]);
  assert.deepEqual(v4.ports, [{ name: '', port: 5432, protocol: 'TCP' }]);
  // Addresses are written back as Go prints them.
  assert.deepEqual(byType.IPv6.endpoints, [{ addresses: ['2001:db8::1'], conditions: { ready: true } }]);

  // The Endpoints change: the same slice is updated; the IPv6 one goes.
  const patch = await kubectl(cluster, ['patch', 'endpoints', 'db', '--type=merge', '-p', '{"subsets":[{"addresses":[{"ip":"10.1.0.7"}],"ports":[{"port":5432}]}]}']);
  assert.equal(patch.code, 0, patch.stderr);
  const after = await eventually(() => slicesOf('db'), (s) => s.length === 1 && s[0].endpoints?.[0]?.addresses[0] === '10.1.0.7');
  assert.equal(after[0].metadata.name, v4.metadata.name);
  assert.deepEqual(after[0].endpoints, [{ addresses: ['10.1.0.7'], conditions: { ready: true } }]);

  // With a selector the Service's slices are the EndpointSlice controller's: mirrored ones go.
  const sel = await kubectl(cluster, ['patch', 'service', 'db', '-p', '{"spec":{"selector":{"app":"db"}}}']);
  assert.equal(sel.code, 0, sel.stderr);
  const managers = await eventually(async () => (await slicesOf('db')).map((s) => s.metadata.labels[MANAGED_BY]),
    (m) => m.every((x) => x === 'endpointslice-controller.k8s.io'));
  assert.deepEqual(managers, ['endpointslice-controller.k8s.io']);
});

test('the kubernetes Endpoints carry skip-mirror and are not mirrored', async () => {
  const r = await kubectl(cluster, ['get', 'endpointslices', '-n', 'default', '-l', `${MANAGED_BY}=endpointslicemirroring-controller.k8s.io,kubernetes.io/service-name=kubernetes`, '-o', 'name']);
  assert.deepEqual(r, { code: 0, stdout: '', stderr: '' });
});
