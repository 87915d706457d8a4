/**
 * The cluster DNS server over the wire: what a resolver (node's c-ares,
 * dns.promises.Resolver) and a raw UDP/TCP client get for each kind of
 * cluster name, the header flags and sections, truncation to TCP.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { Resolver } from 'node:dns/promises';
import type { KObject } from '../../src/apimachinery/object.js';
import { startDNSServer, type RunningDNSServer } from '../../src/node/net/dns-server.js';
import { dnsRecordSources } from '../../src/node/net/dns-sources.js';
import { encodeQuery, TYPE } from '../../src/node/net/dns-wire.js';

const svc = (ns: string, name: string, spec: Record<string, unknown>): KObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: ns, name }, spec });
const slice = (ns: string, service: string, ports: Record<string, unknown>[], endpoints: { ip: string; hostname?: string; ready?: boolean }[], n = 0): KObject =>
  ({
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: ns, name: `${service}-${n}`, labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4', ports,
    endpoints: endpoints.map((e) => ({ addresses: [e.ip], ...(e.hostname ? { hostname: e.hostname } : {}), conditions: { ready: e.ready ?? true } })),
  });

const SERVICES = [
  svc('default', 'kubernetes', { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] }),
  svc('default', 'web', { clusterIP: '10.96.10.1', clusterIPs: ['10.96.10.1'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }] }),
  svc('default', 'db', { clusterIP: 'None', clusterIPs: ['None'], ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }] }),
  svc('default', 'idle', { clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 80, protocol: 'TCP' }] }),
  svc('default', 'big', { clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 80, protocol: 'TCP' }] }),
  svc('default', 'ext', { type: 'ExternalName', externalName: 'example.com' }),
];
const BIG = Array.from({ length: 100 }, (_, i) => ({ ip: `10.244.${Math.floor(i / 250) + 3}.${(i % 250) + 1}` }));
const SLICES = [
  slice('default', 'db', [{ name: 'pg', port: 5432, protocol: 'TCP' }], [{ ip: '10.244.1.5', hostname: 'db-0' }, { ip: '10.244.2.7', hostname: 'db-1' }, { ip: '10.244.1.9', hostname: 'db-2', ready: false }]),
  slice('default', 'idle', [{ name: '', port: 80, protocol: 'TCP' }], [{ ip: '10.244.1.10', ready: false }]),
  slice('default', 'big', [{ name: '', port: 80, protocol: 'TCP' }], BIG),
];

const NAMESPACES = ['default', 'kube-system', 'empty'];
let server: RunningDNSServer;
let generation = 0;
let resolver: Resolver;

before(async () => {
  const sources = dnsRecordSources({
    services: () => SERVICES,
    service: (ns, name) => SERVICES.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
    endpointSlices: (ns) => SLICES.filter((s) => s.metadata.namespace === ns),
  }, { serial: () => 1700000000, generation: () => generation, namespaceExists: (ns) => NAMESPACES.includes(ns) });
  server = await startDNSServer({ host: '127.0.0.1', port: 0, sources, domain: 'cluster.local', dnsIP: '10.96.0.10' });
  resolver = new Resolver({ timeout: 10_000, tries: 1 });
  resolver.setServers([`127.0.0.1:${server.port}`]);
});
after(() => server.close());

/** The header of the response to a raw query: flags, rcode and section counts. */
interface Header { id: number; aa: boolean; tc: boolean; rd: boolean; ra: boolean; rcode: number; qd: number; an: number; ns: number; ar: number; size: number }
const header = (b: Buffer): Header => {
  const f = b.readUInt16BE(2);
  return { id: b.readUInt16BE(0), aa: !!(f & 0x400), tc: !!(f & 0x200), rd: !!(f & 0x100), ra: !!(f & 0x80), rcode: f & 0xf, qd: b.readUInt16BE(4), an: b.readUInt16BE(6), ns: b.readUInt16BE(8), ar: b.readUInt16BE(10), size: b.length };
};

function udpQuery(name: string, type: number): Promise<Header> {
  const sock = createSocket('udp4');
  return new Promise((resolve, reject) => {
    sock.once('message', (m) => { sock.close(); resolve(header(m)); });
    sock.once('error', reject);
    sock.send(encodeQuery(4242, name, type), server.port, '127.0.0.1');
  });
}

function tcpQuery(name: string, type: number): Promise<Header> {
  return new Promise((resolve, reject) => {
    const q = encodeQuery(4343, name, type);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(q.length);
    let got = Buffer.alloc(0);
    const s = connect(server.port, '127.0.0.1', () => s.write(Buffer.concat([len, q])));
    s.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) { s.end(); resolve(header(got.subarray(2, 2 + got.readUInt16BE(0)))); }
    });
    s.on('error', reject);
  });
}

const code = (p: Promise<unknown>) => p.then(() => 'answered', (e: NodeJS.ErrnoException) => e.code);

test('a ClusterIP Service: its ClusterIP, authoritative, TTL 30, no recursion offered', async () => {
  assert.deepEqual(await resolver.resolve4('kubernetes.default.svc.cluster.local', { ttl: true }), [{ address: '10.96.0.1', ttl: 30 }]);
  assert.deepEqual(await udpQuery('web.default.svc.cluster.local', TYPE.A), { id: 4242, aa: true, tc: false, rd: true, ra: false, rcode: 0, qd: 1, an: 1, ns: 0, ar: 0, size: 63 });
});

test('names are matched in any case; the answer keeps the case asked', async () => {
  assert.deepEqual(await resolver.resolve4('Web.DEFAULT.svc.Cluster.Local'), ['10.96.10.1']);
  const sock = createSocket('udp4');
  const reply = await new Promise<Buffer>((resolve) => {
    sock.once('message', (m) => { sock.close(); resolve(m); });
    sock.send(encodeQuery(7, 'Web.DEFAULT.svc.cluster.local', TYPE.A), server.port, '127.0.0.1');
  });
  // The question (47 bytes with the header), then the answer owned by a pointer to it: the name as asked.
  assert.equal(reply.toString('latin1', 13, 16), 'Web');
  assert.equal(reply.readUInt16BE(47), 0xc00c);
});

test('a headless Service: one A per ready endpoint; its endpoints by hostname; none ready is NXDOMAIN', async () => {
  assert.deepEqual((await resolver.resolve4('db.default.svc.cluster.local')).sort(), ['10.244.1.5', '10.244.2.7']);
  assert.deepEqual(await resolver.resolve4('db-1.db.default.svc.cluster.local'), ['10.244.2.7']);
  assert.equal(await code(resolver.resolve4('db-2.db.default.svc.cluster.local')), 'ENOTFOUND');
  assert.equal(await code(resolver.resolve4('idle.default.svc.cluster.local')), 'ENOTFOUND');
});

test('SRV for named ports: the Service name for a ClusterIP Service, each endpoint for a headless one', async () => {
  assert.deepEqual(await resolver.resolveSrv('_http._tcp.web.default.svc.cluster.local'), [{ name: 'web.default.svc.cluster.local', port: 80, priority: 0, weight: 100 }]);
  assert.deepEqual(await resolver.resolveSrv('_dns._udp.web.default.svc.cluster.local'), [{ name: 'web.default.svc.cluster.local', port: 53, priority: 0, weight: 100 }]);
  assert.deepEqual((await resolver.resolveSrv('_pg._tcp.db.default.svc.cluster.local')).sort((a, b) => a.name.localeCompare(b.name)), [
    { name: 'db-0.db.default.svc.cluster.local', port: 5432, priority: 0, weight: 50 },
    { name: 'db-1.db.default.svc.cluster.local', port: 5432, priority: 0, weight: 50 },
  ]);
  assert.equal(await code(resolver.resolveSrv('_http._udp.web.default.svc.cluster.local')), 'ENOTFOUND');
  // The SRV answer carries the targets' addresses in the additional section.
  assert.deepEqual(await udpQuery('_http._tcp.web.default.svc.cluster.local', TYPE.SRV), { id: 4242, aa: true, tc: false, rd: true, ra: false, rcode: 0, qd: 1, an: 1, ns: 0, ar: 1, size: 94 });
});

test('ExternalName: a CNAME to the external name', async () => {
  assert.deepEqual(await resolver.resolveCname('ext.default.svc.cluster.local'), ['example.com']);
  const h = await udpQuery('ext.default.svc.cluster.local', TYPE.A);
  assert.equal(h.rcode, 0);
  assert.equal(h.an, 1);
});

test('NXDOMAIN for names that do not exist, NODATA for types a name lacks, both with the SOA as authority', async () => {
  assert.equal(await code(resolver.resolve4('nope.default.svc.cluster.local')), 'ENOTFOUND');
  assert.equal(await code(resolver.resolve4('web.nowhere.svc.cluster.local')), 'ENOTFOUND');
  assert.equal(await code(resolver.resolve6('web.default.svc.cluster.local')), 'ENODATA');
  assert.deepEqual(await udpQuery('nope.default.svc.cluster.local', TYPE.A), { id: 4242, aa: true, tc: false, rd: true, ra: false, rcode: 3, qd: 1, an: 0, ns: 1, ar: 0, size: 102 });
  const nodata = await udpQuery('web.default.svc.cluster.local', TYPE.AAAA);
  assert.deepEqual([nodata.rcode, nodata.an, nodata.ns], [0, 0, 1]);
  // A namespace is an empty non-terminal: it exists, Services or not; one that does not exist does not.
  assert.equal(await code(resolver.resolve4('default.svc.cluster.local')), 'ENODATA');
  assert.equal(await code(resolver.resolve4('empty.svc.cluster.local')), 'ENODATA');
  assert.equal(await code(resolver.resolve4('nowhere.svc.cluster.local')), 'ENOTFOUND');
  assert.equal(await code(resolver.resolve4('svc.cluster.local')), 'ENODATA');
  // Names the schema does not know; ANY is never answered.
  assert.equal(await code(resolver.resolve4('dns.cluster.local')), 'ENOTFOUND');
  assert.equal(await code(resolver.resolve4('web.default.other.cluster.local')), 'ENOTFOUND');
  assert.equal(await code(resolver.resolve4('a.b.c.web.default.svc.cluster.local')), 'ENOTFOUND');
  assert.deepEqual((await udpQuery('web.default.svc.cluster.local', TYPE.ANY)).an, 0);
  // SOA below the apex: NODATA even for a name that does not exist (the handler never looks it up).
  const soaBelow = await udpQuery('nope.default.svc.cluster.local', TYPE.SOA);
  assert.deepEqual([soaBelow.rcode, soaBelow.an, soaBelow.ns], [0, 0, 1]);
});

test("the zone's SOA as CoreDNS's kubernetes plugin gives it", async () => {
  assert.deepEqual(await resolver.resolveSoa('cluster.local'), {
    nsname: 'ns.dns.cluster.local', hostmaster: 'hostmaster.cluster.local', serial: 1700000000, refresh: 7200, retry: 1800, expire: 86400, minttl: 30,
  });
  assert.deepEqual(await resolver.resolveNs('cluster.local'), ['ns.dns.cluster.local']);
  assert.deepEqual(await resolver.resolve4('ns.dns.cluster.local'), ['10.96.0.10']);
});

test('pods, dns-version and reverse lookups', async () => {
  assert.deepEqual(await resolver.resolve4('10-244-1-5.default.pod.cluster.local'), ['10.244.1.5']);
  assert.equal(await code(resolver.resolve4('10-244-1-256.default.pod.cluster.local')), 'ENOTFOUND');
  assert.equal(await code(resolver.resolve4('10-244-1-5.nowhere.pod.cluster.local')), 'ENOTFOUND');
  assert.equal(await code(resolver.resolve4('010-244-1-5.default.pod.cluster.local')), 'ENOTFOUND');
  assert.deepEqual(await resolver.resolveTxt('dns-version.cluster.local'), [['1.1.0']]);
  assert.equal(await code(resolver.resolve4('dns-version.cluster.local')), 'ENOTFOUND');
  assert.deepEqual(await resolver.reverse('10.96.10.1'), ['web.default.svc.cluster.local']);
  assert.deepEqual(await resolver.reverse('10.244.2.7'), ['db-1.db.default.svc.cluster.local']);
  // Not the cluster's: falls through to the Corefile's forward, with nowhere to forward to.
  assert.equal((await udpQuery('3.2.1.10.in-addr.arpa', TYPE.PTR)).rcode, 2);
});

test('names outside the cluster zone: SERVFAIL (no upstream to forward to), not authoritative', async () => {
  assert.equal(await code(resolver.resolve4('example.com')), 'ESERVFAIL');
  const h = await udpQuery('example.com', TYPE.A);
  assert.deepEqual([h.rcode, h.aa, h.an, h.ns], [2, false, 0, 0]);
});

test('TCP answers the same; a UDP answer over 512 bytes is truncated and the resolver retries over TCP', async () => {
  assert.deepEqual(await tcpQuery('web.default.svc.cluster.local', TYPE.A), { id: 4343, aa: true, tc: false, rd: true, ra: false, rcode: 0, qd: 1, an: 1, ns: 0, ar: 0, size: 63 });
  assert.deepEqual(await udpQuery('big.default.svc.cluster.local', TYPE.A), { id: 4242, aa: true, tc: true, rd: true, ra: false, rcode: 0, qd: 1, an: 0, ns: 0, ar: 0, size: 47 });
  const full = await tcpQuery('big.default.svc.cluster.local', TYPE.A);
  assert.deepEqual([full.tc, full.an], [false, 100]);
  assert.equal((await resolver.resolve4('big.default.svc.cluster.local')).length, 100);
});

test('answers are kept until the sources change, then answered afresh', async () => {
  assert.equal(await code(resolver.resolve4('late.default.svc.cluster.local')), 'ENOTFOUND');
  SERVICES.push(svc('default', 'late', { clusterIP: '10.96.10.9', clusterIPs: ['10.96.10.9'], ports: [{ port: 80, protocol: 'TCP' }] }));
  generation++;
  assert.deepEqual(await resolver.resolve4('late.default.svc.cluster.local'), ['10.96.10.9']);
  SERVICES.pop();
  generation++;
  assert.equal(await code(resolver.resolve4('late.default.svc.cluster.local')), 'ENOTFOUND');
});
