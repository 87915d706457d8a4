/**
 * The cluster network model's routing and name resolution, table by table:
 * pod IPs (listener, RST, silence), Service ClusterIPs through their
 * EndpointSlices (ready, terminating, none, named target ports, undefined
 * ports), the cluster DNS records, and each OS's resolver rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { ClusterNetwork } from '../../src/node/net/cluster-network.js';
import { candidates } from '../../src/node/net/dns-resolver.js';
import { Pending } from '../../src/node/shell/pending.js';
import type { HttpResponse } from '../../src/node/shell/net-types.js';

const svc = (ns: string, name: string, clusterIP: string, ports: Record<string, unknown>[], extra: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: ns, name }, spec: { clusterIP, clusterIPs: clusterIP === 'None' ? ['None'] : [clusterIP], ports, ...extra } });

const slice = (ns: string, service: string, ports: Record<string, unknown>[], endpoints: { ip: string; ready?: boolean; serving?: boolean; terminating?: boolean }[]): KObject =>
  ({
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: ns, name: `${service}-abcde`, labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4', ports,
    endpoints: endpoints.map((e) => ({ addresses: [e.ip], conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false } })),
  });

const SERVICES = [
  svc('default', 'web', '10.96.10.1', [{ port: 80, targetPort: 80, protocol: 'TCP' }]),
  svc('default', 'named', '10.96.10.2', [{ name: 'http', port: 8080, targetPort: 'web', protocol: 'TCP' }]),
  svc('default', 'empty', '10.96.10.3', [{ port: 80, targetPort: 80, protocol: 'TCP' }]),
  svc('default', 'draining', '10.96.10.4', [{ port: 80, targetPort: 80, protocol: 'TCP' }]),
  svc('default', 'headless', 'None', [{ port: 80, targetPort: 80, protocol: 'TCP' }]),
  svc('other', 'api', '10.96.20.1', [{ port: 443, targetPort: 8443, protocol: 'TCP' }]),
  svc('default', 'ext', '', [], { type: 'ExternalName', externalName: 'example.com', clusterIP: undefined, clusterIPs: undefined }),
];
const SLICES = [
  slice('default', 'web', [{ name: '', port: 80, protocol: 'TCP' }], [{ ip: '10.244.1.5' }]),
  slice('default', 'named', [{ name: 'http', port: 9376, protocol: 'TCP' }], [{ ip: '10.244.2.7' }]),
  slice('default', 'empty', [{ name: '', port: 80, protocol: 'TCP' }], [{ ip: '10.244.1.9', ready: false, serving: false }]),
  slice('default', 'draining', [{ name: '', port: 80, protocol: 'TCP' }], [{ ip: '10.244.1.5', ready: false, serving: true, terminating: true }]),
  slice('default', 'headless', [{ name: '', port: 80, protocol: 'TCP' }], [{ ip: '10.244.1.5' }, { ip: '10.244.2.7' }, { ip: '10.244.1.9', ready: false }]),
];

function network(): ClusterNetwork {
  const net = new ClusterNetwork({
    services: () => SERVICES,
    service: (ns, name) => SERVICES.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
    endpointSlices: (ns) => SLICES.filter((s) => s.metadata.namespace === ns),
  }, () => 0);
  const ok = () => Pending.of<HttpResponse>({ status: 200, reason: 'OK', headers: [], body: new Uint8Array() });
  net.attach('10.244.1.5', { namespace: 'default', name: 'web-1', node: 'w1' });
  net.attach('10.244.2.7', { namespace: 'default', name: 'named-1', node: 'w2' });
  net.attach('10.244.1.9', { namespace: 'default', name: 'idle-1', node: 'w1' });
  net.listen('10.244.1.5', 80, 'TCP', ok);
  net.listen('10.244.2.7', 9376, 'TCP', ok);
  return net;
}

test('connect: pod IPs, ClusterIPs and their endpoints', () => {
  const net = network();
  const cases: [string, string, number, string][] = [
    ['pod IP with a listener', '10.244.1.5', 80, 'connected 10.244.1.5:80'],
    ['pod IP, port nothing listens on: RST', '10.244.1.5', 81, 'refused'],
    ['running pod without listeners', '10.244.1.9', 80, 'refused'],
    ['address no pod has: unanswered', '10.244.3.3', 80, 'timeout'],
    ['ClusterIP to its ready endpoint', '10.96.10.1', 80, 'connected 10.244.1.5:80'],
    ['ClusterIP, a port the Service does not define: no rule', '10.96.10.1', 81, 'timeout'],
    ['named targetPort: the port the EndpointSlice resolved', '10.96.10.2', 8080, 'connected 10.244.2.7:9376'],
    ['Service whose endpoints are not ready: REJECT', '10.96.10.3', 80, 'refused'],
    ['only serving terminating endpoints: used', '10.96.10.4', 80, 'connected 10.244.1.5:80'],
    ['Service without EndpointSlices: REJECT', '10.96.20.1', 443, 'refused'],
  ];
  for (const [name, ip, port, want] of cases) {
    const r = net.connect('10.244.2.9', ip, port);
    const route = net.route(ip, port);
    const got = r.kind === 'connected' && route.kind === 'pod' ? `connected ${route.ip}:${route.port}` : r.kind;
    assert.equal(got, want, name);
    if (r.kind === 'connected') {
      assert.equal(r.local.ip, '10.244.2.9', `${name}: the client's own address`);
      assert.deepEqual(r.remote, { ip, port }, `${name}: the address the client dialled`);
    }
  }
});

test('round robin by chance: every ready endpoint of a Service gets connections', () => {
  const two = [svc('default', 'pair', '10.96.30.1', [{ port: 80, targetPort: 80 }])];
  const slices = [slice('default', 'pair', [{ name: '', port: 80, protocol: 'TCP' }], [{ ip: '10.244.1.2' }, { ip: '10.244.1.3' }])];
  const draws = [0.1, 0.9, 0.4, 0.6];
  const net = new ClusterNetwork({ services: () => two, service: () => two[0], endpointSlices: () => slices }, () => draws.shift() ?? 0);
  const picked = [0, 1, 2, 3].map(() => { const r = net.route('10.96.30.1', 80); return r.kind === 'pod' ? r.ip : r.kind; });
  assert.deepEqual(picked, ['10.244.1.2', '10.244.1.3', '10.244.1.2', '10.244.1.3']);
});

test('a port is bound once per address; closing frees it', () => {
  const net = network();
  const handler = () => Pending.of<HttpResponse>({ status: 200, reason: 'OK', headers: [], body: new Uint8Array() });
  assert.equal(net.listen('10.244.1.5', 80, 'TCP', handler), undefined, 'taken');
  const l = net.listen('10.244.1.9', 80, 'TCP', handler);
  assert.ok(l);
  assert.equal(net.connect('10.244.2.9', '10.244.1.9', 80).kind, 'connected');
  l.close();
  assert.equal(net.connect('10.244.2.9', '10.244.1.9', 80).kind, 'refused');
});

test('cluster DNS records', () => {
  const net = network();
  const cases: [string, string[] | undefined][] = [
    ['web.default.svc.cluster.local', ['10.96.10.1']],
    ['WEB.Default.svc.cluster.local.', ['10.96.10.1']],
    ['api.other.svc.cluster.local', ['10.96.20.1']],
    ['api.default.svc.cluster.local', undefined],
    ['headless.default.svc.cluster.local', ['10.244.1.5', '10.244.2.7']],
    ['ext.default.svc.cluster.local', undefined],
    ['10-244-1-5.default.pod.cluster.local', ['10.244.1.5']],
    ['web.default.svc', undefined],
    ['web', undefined],
    ['example.com', undefined],
  ];
  for (const [name, want] of cases) assert.deepEqual(net.lookup(name), want, name);
});

test('resolver search order: Linux search list with ndots:5, Windows one suffix and the FQDN rule', () => {
  const searches = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
  const linux = { os: 'linux' as const, searches };
  const windows = { os: 'windows' as const, searches };
  const cases: [string, { os: 'linux' | 'windows'; searches: string[]; ndots?: number }, string[]][] = [
    ['web', linux, ['web.default.svc.cluster.local', 'web.svc.cluster.local', 'web.cluster.local', 'web']],
    ['api.other', linux, ['api.other.default.svc.cluster.local', 'api.other.svc.cluster.local', 'api.other.cluster.local', 'api.other']],
    ['a.b.c.d.e.f', linux, ['a.b.c.d.e.f', 'a.b.c.d.e.f.default.svc.cluster.local', 'a.b.c.d.e.f.svc.cluster.local', 'a.b.c.d.e.f.cluster.local']],
    ['api.other', { ...linux, ndots: 1 }, ['api.other', 'api.other.default.svc.cluster.local', 'api.other.svc.cluster.local', 'api.other.cluster.local']],
    ['web.default.svc.cluster.local.', linux, ['web.default.svc.cluster.local.']],
    ['web', windows, ['web.default.svc.cluster.local']],
    ['api.other', windows, ['api.other']],
    ['web.default.svc.cluster.local', windows, ['web.default.svc.cluster.local']],
  ];
  for (const [name, cfg, want] of cases) assert.deepEqual(candidates(name, cfg), want, `${cfg.os} ${name}`);

  const net = network();
  const resolved: [string, 'linux' | 'windows', string[] | undefined][] = [
    ['web', 'linux', ['10.96.10.1']],
    ['web.default', 'linux', ['10.96.10.1']],
    ['api.other', 'linux', ['10.96.20.1']],
    ['api.other.svc', 'linux', ['10.96.20.1']],
    ['no-such-svc', 'linux', undefined],
    ['10.244.1.5', 'linux', ['10.244.1.5']],
    ['web', 'windows', ['10.96.10.1']],
    ['web.default', 'windows', undefined],
    ['web.default.svc.cluster.local', 'windows', ['10.96.10.1']],
    ['api', 'windows', undefined],
  ];
  for (const [name, os, want] of resolved) assert.deepEqual(net.resolve(name, { os, searches }), want, `${os} resolves ${name}`);
});

test('the kubernetes Service leads to the API server, over TLS with the cluster CA; other Services to their pods', () => {
  const kubernetes = svc('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443, targetPort: 6443, protocol: 'TCP' }]);
  const apiSlice = slice('default', 'kubernetes', [{ name: 'https', port: 6443, protocol: 'TCP' }], [{ ip: '127.0.0.1' }]);
  const seen: string[] = [];
  const net = new ClusterNetwork({
    services: () => [...SERVICES, kubernetes],
    service: (ns, name) => [...SERVICES, kubernetes].find((s) => s.metadata.namespace === ns && s.metadata.name === name),
    endpointSlices: (ns) => [...SLICES, apiSlice].filter((s) => s.metadata.namespace === ns),
  }, () => 0, {
    ca: 'CA PEM',
    accept: (req) => { seen.push(`${req.method} ${req.target}`); return Pending.of<HttpResponse>({ status: 200, reason: 'OK', headers: [], body: new Uint8Array() }); },
  });
  net.attach('10.244.1.5', { namespace: 'default', name: 'web-1', node: 'w1' });
  net.listen('10.244.1.5', 80, 'TCP', () => Pending.of<HttpResponse>({ status: 200, reason: 'OK', headers: [], body: new Uint8Array() }));
  const api = net.connect('10.244.1.5', '10.96.0.1', 443);
  assert.equal(api.kind, 'connected');
  if (api.kind !== 'connected') return;
  assert.equal(api.tlsCA, 'CA PEM');
  api.exchange({ method: 'GET', target: '/version', headers: [], body: new Uint8Array() });
  assert.deepEqual(seen, ['GET /version']);
  const web = net.connect('10.244.1.5', '10.96.10.1', 80);
  assert.equal(web.kind === 'connected' ? web.tlsCA : 'not connected', undefined);
  // The endpoint's own address is outside the pod network: a pod reaches it only through the Service.
  assert.equal(net.connect('10.244.1.5', '127.0.0.1', 6443).kind, 'timeout');
});
