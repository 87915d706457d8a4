/**
 * The DNS query tools an image decides: bind9's nslookup, host and dig in
 * the dnsutils image (jessie-dnsutils), the old busybox nslookup applet in
 * busybox:1.28, each with its exact output and exit code through the
 * cluster network model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { ClusterNetwork, type NetworkLookups } from '../../src/node/net/cluster-network.js';
import { collect, ContainerFS, interpret, type ShellContext } from '../../src/node/shell/index.js';
import type { Listening } from '../../src/node/shell/net-types.js';
import { linuxImageHas, nslookupFlavour } from '../../src/node/shell/linux-image-tools.js';
import { ExecStartError } from '../../src/node/exec/exec-session.js';
import { execShellFor } from '../../src/node/exec/shell-exec.js';

const SEARCHES = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
const POD_IP = '10.244.1.4';
const DNSUTILS = 'registry.k8s.io/e2e-test-images/jessie-dnsutils:1.3';

const svc = (ns: string, name: string, clusterIP: string, port: number): KObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: ns, name }, spec: { clusterIP, clusterIPs: [clusterIP], ports: [{ port, targetPort: port, protocol: 'TCP' }] } });
const services = [svc('default', 'kubernetes', '10.96.0.1', 443), svc('kube-system', 'kube-dns', '10.96.0.10', 53)];
const lookups: NetworkLookups = {
  services: () => services,
  service: (ns, name) => services.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
  endpointSlices: () => [],
};
const net = new ClusterNetwork(lookups);
net.attach(POD_IP, { namespace: 'default', name: 'dnsutils', node: 'n' });

function context(image: string, posixShell: 'ash' | 'dash'): ShellContext {
  return {
    os: 'linux', env: {}, hostname: 'dnsutils', fs: new ContainerFS('linux'), image, posixShell,
    network: { podIP: POD_IP, prefixLength: 24, dnsServers: ['10.96.0.10'], searches: SEARCHES },
    net: net.forPod(POD_IP, { os: 'linux', searches: SEARCHES }, new Set<Listening>()),
  };
}
const dnsutils = (argv: string[]) => collect(interpret(argv, context(DNSUTILS, 'dash')));
const busybox128 = (argv: string[]) => collect(interpret(argv, context('busybox:1.28', 'ash')));

test('the image decides the DNS tools', () => {
  assert.equal(nslookupFlavour({ image: DNSUTILS, posixShell: 'dash' }), 'bind9');
  assert.equal(nslookupFlavour({ image: 'busybox:1.28', posixShell: 'ash' }), 'busybox-legacy');
  assert.equal(nslookupFlavour({ image: 'docker.io/library/busybox:1.27.2-glibc', posixShell: 'ash' }), 'busybox-legacy');
  assert.equal(nslookupFlavour({ image: 'busybox:1.29', posixShell: 'ash' }), 'busybox');
  assert.equal(nslookupFlavour({ image: 'busybox', posixShell: 'ash' }), 'busybox');
  assert.equal(nslookupFlavour({ image: 'debian:12', posixShell: 'dash' }), undefined);
  assert.deepEqual(['dig', 'host', 'getent', 'ping'].map((p) => linuxImageHas(p, { image: DNSUTILS, posixShell: 'dash' })), [true, true, true, false]);
  assert.deepEqual(['dig', 'host'].map((p) => linuxImageHas(p, { image: 'busybox:1.28', posixShell: 'ash' })), [false, false]);
  assert.deepEqual(collect(interpret(['sh', '-c', 'dig +short kubernetes'], context('debian:12', 'dash'))), { stdout: '', stderr: 'sh: 1: dig: not found\n', code: 127, slept: 0 });
});

test('bind9 nslookup: the search list by ndots, so kubernetes.default resolves', () => {
  assert.deepEqual(dnsutils(['nslookup', 'kubernetes.default']), {
    stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\nName:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n',
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(dnsutils(['nslookup', 'kubernetes']), {
    stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\nName:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n',
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(dnsutils(['nslookup', 'nosuch.default']), {
    stdout: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\n** server can't find nosuch.default: NXDOMAIN\n\n",
    stderr: '', code: 1, slept: 0,
  });
  assert.deepEqual(dnsutils(['nslookup', '10.96.0.10']), {
    stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\n10.0.96.10.in-addr.arpa\tname = kube-dns.kube-system.svc.cluster.local.\n\n',
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(dnsutils(['nslookup', '10.96.7.7']), {
    stdout: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\n** server can't find 7.7.96.10.in-addr.arpa.: NXDOMAIN\n\n",
    stderr: '', code: 1, slept: 0,
  });
  assert.deepEqual(dnsutils(['nslookup', 'kubernetes', '10.0.0.53']), { stdout: ';; connection timed out; no servers could be reached\n\n', stderr: '', code: 1, slept: 15_000 });
});

test('bind9 host: the owner name that answered; NXDOMAIN exits 1', () => {
  assert.deepEqual(dnsutils(['host', 'kubernetes.default']), { stdout: 'kubernetes.default.svc.cluster.local has address 10.96.0.1\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(dnsutils(['host', '-t', 'A', 'kube-dns.kube-system']), { stdout: 'kube-dns.kube-system.svc.cluster.local has address 10.96.0.10\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(dnsutils(['host', 'nosuch']), { stdout: 'Host nosuch not found: 3(NXDOMAIN)\n', stderr: '', code: 1, slept: 0 });
  assert.deepEqual(dnsutils(['host', '10.96.0.1']), { stdout: '1.0.96.10.in-addr.arpa domain name pointer kubernetes.default.svc.cluster.local.\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(dnsutils(['host', 'kubernetes', '10.96.0.10']), {
    stdout: 'Using domain server:\nName: 10.96.0.10\nAddress: 10.96.0.10#53\nAliases: \n\nkubernetes.default.svc.cluster.local has address 10.96.0.1\n',
    stderr: '', code: 0, slept: 0,
  });
});

test('kubectl exec of a tool the image lacks does not start: ping in a Debian image, dig in busybox', () => {
  for (const [image, shell, tool] of [['debian:12', 'dash', 'ping'], ['busybox:1.36', 'ash', 'dig']] as const) {
    const exec = execShellFor({ ...context(image, shell) });
    assert.throws(() => exec.program([tool, '10.96.0.1'], undefined),
      (e: unknown) => e instanceof ExecStartError && new RegExp(`exec: "${tool}": executable file not found in \\$PATH: unknown$`).test(e.message), tool);
  }
  assert.ok(execShellFor(context('busybox:1.36', 'ash')).program(['ping', '-c', '1', '10.96.0.1'], undefined));
});

test('bind9 dig +short: no search list unless +search; -x gives the PTR target', () => {
  assert.deepEqual(dnsutils(['dig', '+short', 'kubernetes.default.svc.cluster.local']), { stdout: '10.96.0.1\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(dnsutils(['dig', '+short', 'kubernetes.default']), { stdout: '', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(dnsutils(['dig', '+short', '+search', 'kubernetes.default']), { stdout: '10.96.0.1\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(dnsutils(['dig', '+short', '-x', '10.96.0.10']), { stdout: 'kube-dns.kube-system.svc.cluster.local.\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(dnsutils(['dig', '@10.0.0.53', '+short', 'kubernetes']), { stdout: ';; connection timed out; no servers could be reached\n', stderr: '', code: 9, slept: 15_000 });
});

test('bind9 dig without +short prints the whole reply: flags, EDNS, sections in master-file columns, statistics', () => {
  const at = new Date('2026-11-28T19:56:58Z');
  const dig = (argv: string[]) => {
    const r = collect(interpret(argv, { ...context(DNSUTILS, 'dash'), now: () => at }));
    return { ...r, stdout: r.stdout.replace(/, id: \d+\n/, ', id: ID\n') };
  };
  const stats = (size: number) => `;; Query time: 0 msec\n;; SERVER: 10.96.0.10#53(10.96.0.10)\n;; WHEN: Sat Nov 28 19:56:58 UTC 2026\n;; MSG SIZE  rcvd: ${size}\n\n`;
  const head = (args: string, status: string, answer: number, authority: number) =>
    `\n; <<>> DiG 9.9.5-9+deb8u19-Debian <<>> ${args}\n;; global options: +cmd\n;; Got answer:\n` +
    `;; ->>HEADER<<- opcode: QUERY, status: ${status}, id: ID\n` +
    `;; flags: qr aa rd; QUERY: 1, ANSWER: ${answer}, AUTHORITY: ${authority}, ADDITIONAL: 1\n;; WARNING: recursion requested but not available\n\n` +
    ';; OPT PSEUDOSECTION:\n; EDNS: version: 0, flags:; udp: 4096\n';
  assert.deepEqual(dig(['dig', 'kubernetes.default.svc.cluster.local']), {
    stdout: head('kubernetes.default.svc.cluster.local', 'NOERROR', 1, 0) +
      ';; QUESTION SECTION:\n;kubernetes.default.svc.cluster.local. IN A\n\n' +
      ';; ANSWER SECTION:\nkubernetes.default.svc.cluster.local. 30 IN A\t10.96.0.1\n\n' + stats(81),
    stderr: '', code: 0, slept: 0,
  });
  // An NXDOMAIN in the cluster zone: CoreDNS's SOA in the authority section (serial: the records' generation, 0 here).
  assert.deepEqual(dig(['dig', 'nosuch.default.svc.cluster.local']), {
    stdout: head('nosuch.default.svc.cluster.local', 'NXDOMAIN', 0, 1) +
      ';; QUESTION SECTION:\n;nosuch.default.svc.cluster.local. IN\tA\n\n' +
      ';; AUTHORITY SECTION:\ncluster.local.\t\t30\tIN\tSOA\tns.dns.cluster.local. hostmaster.cluster.local. 0 7200 1800 86400 30\n\n' + stats(115),
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(dig(['dig', '-x', '10.96.0.10']), {
    stdout: head('-x 10.96.0.10', 'NOERROR', 1, 0) +
      ';; QUESTION SECTION:\n;10.0.96.10.in-addr.arpa.\tIN\tPTR\n\n' +
      ';; ANSWER SECTION:\n10.0.96.10.in-addr.arpa. 30\tIN\tPTR\tkube-dns.kube-system.svc.cluster.local.\n\n' + stats(104),
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(dig(['dig', '@10.0.0.53', 'kubernetes']), {
    stdout: '\n; <<>> DiG 9.9.5-9+deb8u19-Debian <<>> @10.0.0.53 kubernetes\n; (1 server found)\n;; global options: +cmd\n;; connection timed out; no servers could be reached\n',
    stderr: '', code: 9, slept: 15_000,
  });
});

test('busybox:1.28 nslookup: the old applet through getaddrinfo, reverse names beside the addresses', () => {
  assert.deepEqual(busybox128(['nslookup', 'kubernetes.default']), {
    stdout: 'Server:    10.96.0.10\nAddress 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local\n\n' +
      'Name:      kubernetes.default\nAddress 1: 10.96.0.1 kubernetes.default.svc.cluster.local\n',
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(busybox128(['nslookup', 'nosuch']), {
    stdout: 'Server:    10.96.0.10\nAddress 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local\n\n',
    stderr: "nslookup: can't resolve 'nosuch'\n", code: 1, slept: 0,
  });
  assert.deepEqual(busybox128(['nslookup', 'kubernetes', '10.0.0.53']), {
    stdout: 'Server:    10.0.0.53\nAddress 1: 10.0.0.53\n\n',
    stderr: "nslookup: can't resolve 'kubernetes'\n", code: 1, slept: 20_000,
  });
});
