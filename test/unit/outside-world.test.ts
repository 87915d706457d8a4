/**
 * Beyond the cluster: the Corefile as CoreDNS parses it, where each name
 * goes (kubernetes, forward, stub-domain blocks), the outside world's hosts
 * and resolvers, OutboundNAT's source addresses (Linux masquerade, Windows
 * ExceptionList and its mistakes), and the cluster network's fall-through
 * to all of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { ClusterNetwork } from '../../src/node/net/cluster-network.js';
import { CorefileError, parseCorefile } from '../../src/node/net/corefile.js';
import { corefile } from '../../src/cluster/system-workloads.js';
import { CoreDNS, nodeResolvConf } from '../../src/node/net/coredns.js';
import { FORWARD_TIMEOUT_MS } from '../../src/node/net/coredns-routing.js';
import type { QType } from '../../src/node/net/dns-records.js';
import { dnsRecordSources } from '../../src/node/net/dns-sources.js';
import { respondLater } from '../../src/node/net/dns-server.js';
import { encodeQuery, TYPE } from '../../src/node/net/dns-wire.js';
import { egressContext } from '../../src/node/net/outside-access.js';
import { defaultExceptionList, outboundSource, type EgressContext } from '../../src/node/net/outbound-nat.js';
import { EXAMPLE_PAGE, INTRANET_PAGE, OutsideWorld } from '../../src/node/net/outside-world.js';
import type { HttpResponse } from '../../src/node/shell/net-types.js';

/** kubeadm's Corefile, as the cluster's coredns ConfigMap carries it. */
const KUBEADM = corefile();
const withStub = (target: string) => `${KUBEADM}corp.example:53 {
    errors
    cache 30
    forward . ${target}
}
`;

const SERVICES: KObject[] = [
  { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: 'kubernetes' }, spec: { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443 }] } },
];
const LOOKUPS = {
  services: () => SERVICES,
  service: (ns: string, name: string) => SERVICES.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
  endpointSlices: () => [],
};
const SOURCES = dnsRecordSources(LOOKUPS);

function coreDNS(corefile: string | undefined, logs: string[] = []): { dns: CoreDNS; set: (text: string) => void } {
  let cm: ConfigMap | undefined = corefile === undefined ? undefined : { metadata: { name: 'coredns', namespace: 'kube-system' }, data: { Corefile: corefile } };
  return {
    dns: new CoreDNS(() => cm, new OutsideWorld(), (l) => logs.push(l)),
    set: (text) => { cm = { metadata: { name: 'coredns', namespace: 'kube-system' }, data: { Corefile: text } }; },
  };
}

/** An answer in one line: rcode, flags, answer records, authority owner and type. */
function show(dns: CoreDNS, name: string, qtype: QType = 'A'): string {
  const a = dns.answer(name, qtype, SOURCES);
  const records = a.answer.map((r) => `${r.name} ${r.ttl} ${r.type} ${r.type === 'A' ? r.address : ''}`.trim());
  const authority = a.authority.map((r) => `${r.name} ${r.type}${r.type === 'SOA' ? ` ${r.mname}` : ''}`);
  const flags = [a.authoritative ? 'aa' : '', a.recursionAvailable ? 'ra' : ''].filter(Boolean).join(',');
  return `${a.rcode}${flags ? ` [${flags}]` : ''}${records.length ? ` ${records.join('; ')}` : ''}${authority.length ? ` | ${authority.join('; ')}` : ''}${a.delayMs ? ` after ${a.delayMs} ms` : ''}`;
}

test('Corefile: kubeadm\'s server block, stub-domain blocks, upstreams', () => {
  assert.deepEqual(parseCorefile(withStub('198.51.100.53 dns://192.0.2.1:5353 tls://9.9.9.9'), nodeResolvConf), {
    servers: [
      {
        zones: ['.'], port: 53, plainDNS: true, reload: true,
        kubernetes: { zones: ['cluster.local', 'in-addr.arpa', 'ip6.arpa'], fallthrough: ['in-addr.arpa', 'ip6.arpa'] },
        forward: { from: '.', to: [{ kind: 'dns', ip: '172.18.0.1', port: 53 }], except: [] },
      },
      {
        zones: ['corp.example'], port: 53, plainDNS: true, reload: false,
        forward: { from: '.', to: [{ kind: 'dns', ip: '198.51.100.53', port: 53 }, { kind: 'dns', ip: '192.0.2.1', port: 5353 }, { kind: 'other', address: 'tls://9.9.9.9' }], except: [] },
      },
    ],
  });
  const keys = parseCorefile('example.org:53, dns://Example.NET. tls://secure.example:853 {\n  forward . 1.2.3.4 {\n    except a.example.org\n  }\n}\n', nodeResolvConf);
  assert.deepEqual(keys.servers.map((s) => [s.zones, s.port, s.plainDNS, s.forward?.except]), [[['example.org', 'example.net', 'secure.example'], 53, true, ['a.example.org']]]);
});

test('Corefile: what CoreDNS refuses, with its messages', () => {
  const cases: [string, string][] = [
    ['.:53 {\n    forwrd . 8.8.8.8\n}\n', "/etc/coredns/Corefile:2 - Error during parsing: Unknown directive 'forwrd'"],
    ['.:53 {\n    errors\n}\n}\n', "/etc/coredns/Corefile:4 - Error during parsing: Unexpected '}' because no matching opening brace"],
    ['.:53 {\n    errors\n', '/etc/coredns/Corefile:2 - Error during parsing: Unexpected EOF'],
    ['.:53 {\n    forward .\n}\n', "plugin/forward: /etc/coredns/Corefile:2 - Error during parsing: Wrong argument count or unexpected line ending after '.'"],
    ['.:53 {\n    forward\n}\n', "plugin/forward: /etc/coredns/Corefile:2 - Error during parsing: Wrong argument count or unexpected line ending after 'forward'"],
    ['.:53 {\n    forward . resolver.example\n}\n', 'plugin/forward: not an IP address or file: "resolver.example"'],
    ['.:53 {\n    forward . /etc/hosts.dns\n}\n', 'plugin/forward: open /etc/hosts.dns: no such file or directory'],
    ['.:53 {\n    forward . 1.1.1.1\n    forward . 8.8.8.8\n}\n', 'plugin/forward: this plugin can only be used once per Server Block'],
    ['.:53 {\n    errors\n}\n.:53 {\n    errors\n}\n', 'cannot serve dns://.:53 - it is already defined'],
    ['example.org {\n}\nexample.org.:53 {\n}\n', 'cannot serve dns://example.org.:53 - it is already defined'],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseCorefile(text, nodeResolvConf), (e: unknown) => e instanceof CorefileError && e.message === message, message);
  }
});

test('CoreDNS with kubeadm\'s Corefile: the cluster zone, then the nodes\' resolver', () => {
  const { dns } = coreDNS(KUBEADM);
  const cases: [string, QType, string][] = [
    ['kubernetes.default.svc.cluster.local', 'A', 'NOERROR [aa] kubernetes.default.svc.cluster.local. 30 A 10.96.0.1'],
    ['nope.default.svc.cluster.local', 'A', 'NXDOMAIN [aa] | cluster.local. SOA ns.dns.cluster.local.'],
    ['example.com', 'A', 'NOERROR [ra] example.com. 300 A 203.0.113.10'],
    ['WWW.Example.com.', 'A', 'NOERROR [ra] www.example.com. 300 A 203.0.113.10'],
    ['example.com', 'AAAA', 'NOERROR [ra] | example.com. SOA ns.icann.org.'],
    ['nope.example.com', 'A', 'NXDOMAIN [ra] | example.com. SOA ns.icann.org.'],
    ['ip.example.net', 'A', 'NOERROR [ra] ip.example.net. 300 A 203.0.113.20'],
    // The corporate zone is not public: only a stub domain reaches it.
    ['intranet.corp.example', 'A', 'NXDOMAIN [ra] | . SOA a.root-servers.net.'],
    ['example.com.default.svc.cluster.local', 'A', 'NXDOMAIN [aa] | cluster.local. SOA ns.dns.cluster.local.'],
    // A reverse name the cluster does not have falls through to the resolver.
    ['10.113.0.203.in-addr.arpa', 'PTR', 'NXDOMAIN [ra] | . SOA a.root-servers.net.'],
  ];
  for (const [name, qtype, want] of cases) assert.equal(show(dns, name, qtype), want, `${name} ${qtype}`);
});

test('CoreDNS: stub domains, forwarders that do not answer, except, no matching block', () => {
  const { dns, set } = coreDNS(withStub('198.51.100.53'));
  assert.equal(show(dns, 'intranet.corp.example'), 'NOERROR [aa] intranet.corp.example. 300 A 198.51.100.80');
  assert.equal(show(dns, 'nope.corp.example'), 'NXDOMAIN [aa] | corp.example. SOA ns.corp.example.');
  assert.equal(show(dns, 'example.com'), 'NOERROR [ra] example.com. 300 A 203.0.113.10', 'other names still go to the resolver');
  // An address where no DNS server answers: the forward plugin's deadline, then SERVFAIL.
  set(withStub('1.2.3.4'));
  assert.equal(show(dns, 'intranet.corp.example'), `SERVFAIL after ${FORWARD_TIMEOUT_MS} ms`);
  // The first upstream that answers answers.
  set(withStub('1.2.3.4 198.51.100.53'));
  assert.equal(show(dns, 'intranet.corp.example'), 'NOERROR [aa] intranet.corp.example. 300 A 198.51.100.80');
  // A server that is authoritative only refuses what is not its zone.
  set(KUBEADM.replace('forward . /etc/resolv.conf', 'forward . 198.51.100.53'));
  assert.equal(show(dns, 'example.com'), 'REFUSED');
  set(KUBEADM.replace('forward . /etc/resolv.conf {', 'forward . /etc/resolv.conf {\n       except example.com'));
  assert.equal(show(dns, 'example.com'), 'SERVFAIL');
  assert.equal(show(dns, 'ip.example.net'), 'NOERROR [ra] ip.example.net. 300 A 203.0.113.20');
  set('corp.example:53 {\n    forward . 198.51.100.53\n}\n');
  assert.equal(show(dns, 'example.com'), 'REFUSED', 'no server block for the root zone');
  assert.equal(show(dns, 'kubernetes.default.svc.cluster.local'), 'REFUSED');
  set('.:53 {\n    forward . /etc/resolv.conf\n}\n');
  assert.equal(show(dns, 'kubernetes.default.svc.cluster.local'), 'NXDOMAIN [ra] | . SOA a.root-servers.net.', 'without the kubernetes plugin the cluster zone goes upstream');
});

test('CoreDNS: a Corefile that does not parse keeps the last good one, logged as the reload plugin logs it', () => {
  const logs: string[] = [];
  const { dns, set } = coreDNS(withStub('198.51.100.53'), logs);
  assert.equal(show(dns, 'intranet.corp.example'), 'NOERROR [aa] intranet.corp.example. 300 A 198.51.100.80');
  set(`${KUBEADM}corp.example:53 {\n    forwad . 1.2.3.4\n}\n`);
  assert.equal(show(dns, 'intranet.corp.example'), 'NOERROR [aa] intranet.corp.example. 300 A 198.51.100.80');
  assert.equal(show(dns, 'intranet.corp.example'), 'NOERROR [aa] intranet.corp.example. 300 A 198.51.100.80');
  assert.deepEqual(logs, ["[ERROR] plugin/reload: Corefile changed but reload failed: /etc/coredns/Corefile:25 - Error during parsing: Unknown directive 'forwad'"]);
  set(KUBEADM);
  assert.equal(show(dns, 'intranet.corp.example'), 'NXDOMAIN [ra] | . SOA a.root-servers.net.');
  // Before any ConfigMap: kubeadm's routing.
  assert.equal(show(coreDNS(undefined).dns, 'example.com'), 'NOERROR [ra] example.com. 300 A 203.0.113.10');
});

test('the DNS server: forwarded answers with the upstream\'s flags, and SERVFAIL only after the forward deadline', () => {
  const { dns, set } = coreDNS(withStub('198.51.100.53'));
  const opts = { sources: SOURCES, coreDNS: dns };
  const flags = (b: Buffer | undefined) => {
    const f = b!.readUInt16BE(2);
    return { aa: (f & 0x400) !== 0, rd: (f & 0x100) !== 0, ra: (f & 0x80) !== 0, rcode: f & 0xf, an: b!.readUInt16BE(6) };
  };
  const ex = respondLater(encodeQuery(7, 'example.com', TYPE.A), opts, true);
  assert.deepEqual([flags(ex.wire), ex.delayMs], [{ aa: false, rd: true, ra: true, rcode: 0, an: 1 }, 0]);
  const corp = respondLater(encodeQuery(8, 'intranet.corp.example', TYPE.A), opts, true);
  assert.deepEqual([flags(corp.wire), corp.delayMs], [{ aa: true, rd: true, ra: false, rcode: 0, an: 1 }, 0]);
  set(withStub('1.2.3.4'));
  const dead = respondLater(encodeQuery(9, 'intranet.corp.example', TYPE.A), opts, true);
  assert.deepEqual([flags(dead.wire), dead.delayMs], [{ aa: false, rd: true, ra: false, rcode: 2, an: 0 }, FORWARD_TIMEOUT_MS]);
});

test('the outside world: HTTP on 80, 443 without TLS, refused ports, silent addresses, ping', () => {
  const world = new OutsideWorld();
  const get = (ip: string, port: number, from = '172.18.0.3') => {
    const c = world.connect({ ip: '10.244.1.5', port: 40000 }, { ip: from, port: 40000 }, ip, port);
    if (c.kind !== 'connected') return c.kind;
    const reply = c.exchange({ method: 'GET', target: '/', headers: [['Host', 'x']], body: new Uint8Array() }).value;
    if (reply === 'reset') return 'reset';
    return `${reply.status} ${reply.headers.map(([k, v]) => `${k}=${v}`).join(',')} ${Buffer.from(reply.body).toString()}`;
  };
  assert.equal(get('203.0.113.10', 80), `200 Content-Type=text/html,Content-Length=${Buffer.byteLength(EXAMPLE_PAGE)} ${EXAMPLE_PAGE}`);
  assert.equal(get('203.0.113.20', 80, '172.18.0.4'), '200 Content-Type=text/plain,Content-Length=11 172.18.0.4\n');
  assert.equal(get('198.51.100.80', 80), `200 Content-Type=text/html,Content-Length=${INTRANET_PAGE.length} ${INTRANET_PAGE}`);
  assert.equal(get('203.0.113.10', 443), 'reset');
  assert.equal(get('203.0.113.10', 8080), 'refused');
  assert.equal(get('8.8.8.8', 53), 'timeout');
  assert.equal(get('203.0.113.99', 80), 'timeout');
  assert.deepEqual([world.ping('172.18.0.1'), world.ping('203.0.113.10'), world.ping('8.8.8.8')],
    [{ kind: 'reply', from: '172.18.0.1' }, { kind: 'reply', from: '203.0.113.10' }, { kind: 'timeout' }]);
});

test('OutboundNAT: the source each destination sees, and whether it answers', () => {
  const linux: EgressContext = { os: 'linux', nodeIP: '172.18.0.3', clusterCIDR: '10.244.0.0/16', nodeSubnet: '172.18.0.0/16', mode: 'overlay' };
  const win = (mode: 'overlay' | 'l2bridge', exceptionList: string[]): EgressContext =>
    ({ os: 'windows', nodeIP: '172.18.0.4', clusterCIDR: '10.244.0.0/16', nodeSubnet: '172.18.0.0/16', mode, exceptionList });
  assert.deepEqual(defaultExceptionList('l2bridge', '10.96.0.0/12', '10.244.0.0/16', '172.18.0.0/16'), ['10.96.0.0/12', '10.244.0.0/16', '172.18.0.0/16']);
  assert.deepEqual(defaultExceptionList('overlay', '10.96.0.0/12', '10.244.0.0/16', '172.18.0.0/16'), ['10.96.0.0/12', '10.244.0.0/16']);
  const row = (from: string, to: string, ctx: EgressContext) => {
    const o = outboundSource(from, to, ctx);
    return `${o.source}${o.natted ? ' (NAT)' : ''}${o.replies ? '' : ' no reply'}`;
  };
  const cases: [string, string, string, EgressContext, string][] = [
    ['Linux: pod to a pod on another node, as it is', '10.244.1.5', '10.244.2.7', linux, '10.244.1.5'],
    ['Linux: pod to a node, masqueraded', '10.244.1.5', '172.18.0.5', linux, '172.18.0.3 (NAT)'],
    ['Linux: pod to the outside, masqueraded', '10.244.1.5', '203.0.113.10', linux, '172.18.0.3 (NAT)'],
    ['Windows overlay, default list: pod to pod', '10.244.3.4', '10.244.1.5', win('overlay', ['10.96.0.0/12', '10.244.0.0/16']), '10.244.3.4'],
    ['Windows overlay, default list: outside NATed', '10.244.3.4', '203.0.113.10', win('overlay', ['10.96.0.0/12', '10.244.0.0/16']), '172.18.0.4 (NAT)'],
    ['Windows l2bridge, default list: pod to node', '10.244.3.4', '172.18.0.3', win('l2bridge', ['10.96.0.0/12', '10.244.0.0/16', '172.18.0.0/16']), '10.244.3.4'],
    ['mistake: cluster CIDR missing, pod to pod NATed', '10.244.3.4', '10.244.1.5', win('overlay', ['10.96.0.0/12']), '172.18.0.4 (NAT)'],
    ['mistake: node subnet missing on l2bridge, pod to node breaks', '10.244.3.4', '172.18.0.3', win('l2bridge', ['10.96.0.0/12', '10.244.0.0/16']), '172.18.0.4 (NAT) no reply'],
    ['node subnet missing on overlay: NATed, answered', '10.244.3.4', '172.18.0.3', win('overlay', ['10.96.0.0/12', '10.244.0.0/16']), '172.18.0.4 (NAT)'],
    ['mistake: a too wide entry covers the outside, no reply', '10.244.3.4', '203.0.113.10', win('overlay', ['10.96.0.0/12', '10.244.0.0/16', '203.0.0.0/8']), '10.244.3.4 no reply'],
    ['mistake: the external address itself listed', '10.244.3.4', '203.0.113.10', win('overlay', ['10.244.0.0/16', '203.0.113.10']), '10.244.3.4 no reply'],
    ['an empty ExceptionList NATs everything', '10.244.3.4', '10.244.3.9', win('overlay', []), '172.18.0.4 (NAT)'],
  ];
  for (const [name, from, to, ctx, want] of cases) assert.equal(row(from, to, ctx), want, name);
});

test('the cluster network leaves the cluster: names by CoreDNS, connections with the SNATed source, ping', () => {
  let exceptionList: string[] | undefined;
  const net = new ClusterNetwork(LOOKUPS, () => 0, undefined, {
    world: new OutsideWorld(),
    coreDNS: coreDNS(KUBEADM).dns,
    egress: (pod) => pod.node === 'lin-1'
      ? egressContext('linux', '172.18.0.3', { plugin: 'flannel', mode: 'overlay' })
      : egressContext('windows', '172.18.0.4', { plugin: 'flannel', mode: 'overlay' }, undefined, exceptionList),
  });
  net.attach('10.244.1.5', { namespace: 'default', name: 'linux-pod', node: 'lin-1' });
  net.attach('10.244.2.5', { namespace: 'default', name: 'windows-pod', node: 'win-1' });
  const linux = { os: 'linux' as const, searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'] };
  const windows = { os: 'windows' as const, searches: ['default.svc.cluster.local'] };
  assert.deepEqual(net.answer('example.com', linux), { name: 'example.com', addresses: ['203.0.113.10'] });
  assert.deepEqual(net.answer('example.com', windows), { name: 'example.com', addresses: ['203.0.113.10'] });
  assert.equal(net.resolve('nope.example', linux), undefined);
  assert.deepEqual(net.resolve('kubernetes', windows), ['10.96.0.1']);
  const seen = (from: string) => {
    const c = net.connect(from, '203.0.113.20', 80);
    if (c.kind !== 'connected') return c.kind;
    const r = c.exchange({ method: 'GET', target: '/', headers: [], body: new Uint8Array() }).value as HttpResponse;
    return `${c.local.ip} -> ${Buffer.from(r.body).toString().trim()}`;
  };
  assert.equal(seen('10.244.1.5'), '10.244.1.5 -> 172.18.0.3', 'Linux: masqueraded to the node');
  assert.equal(seen('10.244.2.5'), '10.244.2.5 -> 172.18.0.4', 'Windows: OutBoundNAT to the node');
  exceptionList = ['10.96.0.0/12', '10.244.0.0/16', '203.0.113.0/24'];
  assert.equal(seen('10.244.2.5'), 'timeout', 'Windows, the destination excepted from NAT: the reply never comes');
  assert.deepEqual(net.ping('10.244.2.5', '203.0.113.20'), { kind: 'timeout' });
  exceptionList = undefined;
  assert.equal(net.connect('10.244.1.5', '203.0.113.10', 22).kind, 'refused');
  assert.equal(net.connect('10.244.1.5', '192.0.2.77', 80).kind, 'timeout');
  assert.equal(net.connect('10.244.1.5', '10.244.9.9', 80).kind, 'timeout', 'a pod address nobody has stays silent');
  assert.deepEqual(net.ping('10.244.1.5', '203.0.113.10'), { kind: 'reply', from: '203.0.113.10' });
  assert.deepEqual(net.ping('10.244.1.5', '192.0.2.77'), { kind: 'timeout' });
  assert.deepEqual(net.ping('10.244.2.5', '203.0.113.10'), { kind: 'timeout' }, 'outbound ICMP from a Windows pod is not routed back');
});
