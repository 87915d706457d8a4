/**
 * `winkube up --dns-port`: the cluster DNS served on 127.0.0.1 over UDP and
 * TCP by the real server process, answering from the Services and
 * EndpointSlices in the API as they change.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { eventually, removeDir, rawJSON, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
let resolver: Resolver;

before(async () => {
  cluster = await startCluster(undefined, ['--api-only', '--dns-port', '0']);
  const m = /cluster DNS: 127\.0\.0\.1:(\d+) \(udp, tcp\)/.exec(cluster.output());
  assert.ok(m, cluster.output());
  resolver = new Resolver({ timeout: 10_000, tries: 1 });
  resolver.setServers([`127.0.0.1:${m[1]}`]);
});
after(async () => {
  await cluster.stop();
  removeDir(cluster.dataDir);
});

test('the kubernetes Service resolves, authoritatively, with TTL 30', async () => {
  assert.deepEqual(await resolver.resolve4('kubernetes.default.svc.cluster.local', { ttl: true }), [{ address: '10.96.0.1', ttl: 30 }]);
  assert.deepEqual(await resolver.resolveSrv('_https._tcp.kubernetes.default.svc.cluster.local'), [{ name: 'kubernetes.default.svc.cluster.local', port: 443, priority: 0, weight: 100 }]);
});

test('a headless Service created through the API: its ready endpoints, then NXDOMAIN once deleted', async () => {
  const svc = await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'db' }, spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'pg', port: 5432 }] },
  });
  assert.equal(svc.status, 201, JSON.stringify(svc.body));
  const slice = await rawJSON(cluster, 'POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'db-x1', labels: { 'kubernetes.io/service-name': 'db' } },
    addressType: 'IPv4', ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
    endpoints: [{ addresses: ['10.244.1.5'], hostname: 'db-0', conditions: { ready: true } }, { addresses: ['10.244.1.6'], conditions: { ready: false } }],
  });
  assert.equal(slice.status, 201, JSON.stringify(slice.body));
  assert.deepEqual(await eventually('db.default to resolve', () => resolver.resolve4('db.default.svc.cluster.local')), ['10.244.1.5']);
  assert.deepEqual(await resolver.resolve4('db-0.db.default.svc.cluster.local'), ['10.244.1.5']);
  assert.deepEqual(await resolver.resolveSrv('_pg._tcp.db.default.svc.cluster.local'), [{ name: 'db-0.db.default.svc.cluster.local', port: 5432, priority: 0, weight: 100 }]);
  assert.equal((await rawJSON(cluster, 'DELETE', '/api/v1/namespaces/default/services/db')).status, 200);
  await eventually('db.default to be gone', async () => {
    const code = await resolver.resolve4('db.default.svc.cluster.local').then(() => 'answered', (e: NodeJS.ErrnoException) => e.code);
    assert.equal(code, 'ENOTFOUND');
    return true;
  });
});

test('an ExternalName Service is a CNAME; a name outside the zone goes to the nodes\' resolver', async () => {
  const svc = await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'db.example.com' },
  });
  assert.equal(svc.status, 201, JSON.stringify(svc.body));
  assert.deepEqual(await eventually('ext.default to resolve', () => resolver.resolveCname('ext.default.svc.cluster.local')), ['db.example.com']);
  assert.deepEqual(await resolver.resolve4('example.com'), ['203.0.113.10']);
  await assert.rejects(resolver.resolve4('no-such-name.invalid'), { code: 'ENOTFOUND' });
});
