/**
 * The containers' network tools through the cluster network model: busybox
 * ping, nslookup and nc, glibc getent, Windows ping.exe, nslookup.exe,
 * Resolve-DnsName and Test-NetConnection, each with its exact output, exit
 * code and the time a real one waits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { ClusterNetwork, type NetworkLookups } from '../../src/node/net/cluster-network.js';
import { collect, ContainerFS, interpret, type ShellContext } from '../../src/node/shell/index.js';
import type { HttpResponse, Listening, PodNetAccess } from '../../src/node/shell/net-types.js';
import { Pending } from '../../src/node/shell/pending.js';
import { nslookupCandidates } from '../../src/node/shell/windows-nslookup.js';
import { linuxImageHas } from '../../src/node/shell/linux-image-tools.js';

const SEARCHES = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
const LINUX_IP = '10.244.1.4';
const WINDOWS_IP = '10.244.2.6';
const WEB_IP = '10.244.1.5';

const svc = (ns: string, name: string, clusterIP: string, port: number): KObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: ns, name }, spec: { clusterIP, clusterIPs: [clusterIP], ports: [{ port, targetPort: port, protocol: 'TCP' }] } });
const services = [svc('default', 'kubernetes', '10.96.0.1', 443), svc('kube-system', 'kube-dns', '10.96.0.10', 53), svc('default', 'web', '10.96.10.1', 80)];
const slices: KObject[] = [{
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: 'default', name: 'web-abcde', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4', ports: [{ name: '', port: 80, protocol: 'TCP' }], endpoints: [{ addresses: [WEB_IP], conditions: { ready: true, serving: true, terminating: false } }],
}];
const lookups: NetworkLookups = {
  services: () => services,
  service: (ns, name) => services.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
  endpointSlices: (ns) => slices.filter((s) => s.metadata.namespace === ns),
};
const net = new ClusterNetwork(lookups);
for (const [ip, name] of [[LINUX_IP, 'client'], [WINDOWS_IP, 'win-client'], [WEB_IP, 'web-1']] as const) net.attach(ip, { namespace: 'default', name, node: 'n' });
net.listen(WEB_IP, 80, 'TCP', () => Pending.of<HttpResponse>({ status: 200, reason: 'OK', headers: [], body: new Uint8Array() }));

function context(os: 'linux' | 'windows', ip: string, extra: Partial<ShellContext> = {}, withReverse = true): ShellContext {
  const access: PodNetAccess = net.forPod(ip, { os, searches: SEARCHES }, new Set<Listening>());
  return {
    os, env: {}, hostname: os === 'linux' ? 'client' : 'win-client', fs: new ContainerFS(os),
    network: { podIP: ip, prefixLength: 24, dnsServers: ['10.96.0.10'], searches: SEARCHES },
    net: withReverse ? access : { ...access, reverse: undefined },
    ...extra,
  };
}

const sh = (script: string, extra: Partial<ShellContext> = {}) => collect(interpret(['sh', '-c', script], context('linux', LINUX_IP, extra)));
const cmd = (line: string, withReverse = true) => collect(interpret(['cmd', '/c', line], context('windows', WINDOWS_IP, {}, withReverse)));
const ps = (script: string) => collect(interpret(['powershell', '-Command', script], context('windows', WINDOWS_IP)));

test('busybox ping: replies from a pod, silence from a ClusterIP, a name that does not resolve', () => {
  assert.deepEqual(sh(`ping -c 2 ${WEB_IP}`), {
    stdout: `PING ${WEB_IP} (${WEB_IP}): 56 data bytes\n64 bytes from ${WEB_IP}: seq=0 ttl=64 time=0.084 ms\n64 bytes from ${WEB_IP}: seq=1 ttl=64 time=0.084 ms\n\n` +
      `--- ${WEB_IP} ping statistics ---\n2 packets transmitted, 2 packets received, 0% packet loss\nround-trip min/avg/max = 0.084/0.084/0.084 ms\n`,
    stderr: '', code: 0, slept: 1000,
  });
  // A ClusterIP is a DNAT rule for its TCP ports: nothing answers ICMP; ping waits MAXWAIT (10 s) after the last request.
  assert.deepEqual(sh('ping -c 3 kubernetes'), {
    stdout: 'PING kubernetes (10.96.0.1): 56 data bytes\n\n--- kubernetes ping statistics ---\n3 packets transmitted, 0 packets received, 100% packet loss\n',
    stderr: '', code: 1, slept: 12_000,
  });
  assert.deepEqual(sh('ping -c 1 nosuch'), { stdout: '', stderr: "ping: bad address 'nosuch'\n", code: 1, slept: 0 });
});

test('busybox nslookup: the search list only for a name without a dot, A and AAAA replies', () => {
  assert.deepEqual(sh('nslookup kubernetes.default.svc.cluster.local'), {
    stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n\n',
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(sh('nslookup kubernetes'), {
    stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n' +
      "** server can't find kubernetes.svc.cluster.local: NXDOMAIN\n\n** server can't find kubernetes.cluster.local: NXDOMAIN\n\n\n" +
      "** server can't find kubernetes.svc.cluster.local: NXDOMAIN\n\n** server can't find kubernetes.cluster.local: NXDOMAIN\n\n",
    stderr: '', code: 1, slept: 0,
  });
  // busybox >= 1.29 asks a dotted name as it is: the partially qualified name fails.
  assert.deepEqual(sh('nslookup kubernetes.default'), {
    stdout: "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n** server can't find kubernetes.default: NXDOMAIN\n\n** server can't find kubernetes.default: NXDOMAIN\n\n",
    stderr: '', code: 1, slept: 0,
  });
  assert.deepEqual(sh('nslookup 10.96.0.10'), {
    stdout: 'Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n10.0.96.10.in-addr.arpa\tname = kube-dns.kube-system.svc.cluster.local\n\n',
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(sh('nslookup kubernetes 10.0.0.53'), { stdout: ';; connection timed out; no servers could be reached\n\n', stderr: '', code: 1, slept: 10_000 });
});

test('busybox nc -z: open, refused (quiet unless -vv), unanswered after -w', () => {
  assert.deepEqual(sh('nc -z -v -w 2 web 80'), { stdout: '', stderr: `web (10.96.10.1:80) open\n`, code: 0, slept: 0 });
  assert.deepEqual(sh(`nc -zv ${WEB_IP} 81`), { stdout: '', stderr: '', code: 1, slept: 0 });
  assert.deepEqual(sh(`nc -zvv ${WEB_IP} 81`), { stdout: '', stderr: `nc: ${WEB_IP} (${WEB_IP}:81): Connection refused\n sent 0, rcvd 0\n`, code: 1, slept: 0 });
  assert.deepEqual(sh('nc -z -v -w 3 web 8080'), { stdout: '', stderr: 'nc: web (10.96.10.1:8080): Connection timed out\n', code: 1, slept: 3000 });
  assert.deepEqual(sh('nc -z nosuch 80'), { stdout: '', stderr: "nc: bad address 'nosuch'\n", code: 1, slept: 0 });
});

test('getent hosts (glibc images): the canonical name that answered; exit 2 when not found', () => {
  const dash = { posixShell: 'dash' as const };
  assert.deepEqual(sh('getent hosts kubernetes; echo $?', dash), { stdout: '10.96.0.1       kubernetes.default.svc.cluster.local\n0\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(sh('getent hosts nosuch; echo $?', dash), { stdout: '2\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(sh('getent hosts client', dash), { stdout: `${LINUX_IP}      client\n`, stderr: '', code: 0, slept: 0 });
});

test('which Linux images have which tool: busybox applets, Debian without them', () => {
  assert.equal(sh('ping -c 1 web', { posixShell: 'dash' }).stderr, 'sh: 1: ping: not found\n');
  assert.equal(sh('nslookup web', { posixShell: 'dash' }).stderr, 'sh: 1: nslookup: not found\n');
  assert.equal(sh('getent hosts web').stderr, 'sh: getent: not found\n');
  assert.deepEqual(['ping', 'nslookup', 'nc', 'getent', 'wget'].map((p) => [linuxImageHas(p, { posixShell: 'ash' }), linuxImageHas(p, { posixShell: 'dash' })]),
    [[true, false], [true, false], [true, false], [false, true], [true, true]]);
  // Run directly on Debian, ping is no program of the image: the image's application stands in, and exec reports the missing executable.
  assert.equal(collect(interpret(['nc', '-z', 'web', '80'], context('linux', LINUX_IP, { posixShell: 'dash' })), 3).code, 'forever');
});

test('ping.exe: the DNS client names the FQDN; pods reply, a ClusterIP does not', () => {
  assert.deepEqual(cmd(`ping -n 2 ${WEB_IP}`), {
    stdout: `\r\nPinging ${WEB_IP} with 32 bytes of data:\r\nReply from ${WEB_IP}: bytes=32 time<1ms TTL=128\r\nReply from ${WEB_IP}: bytes=32 time<1ms TTL=128\r\n\r\n` +
      `Ping statistics for ${WEB_IP}:\r\n    Packets: Sent = 2, Received = 2, Lost = 0 (0% loss),\r\nApproximate round trip times in milli-seconds:\r\n    Minimum = 0ms, Maximum = 0ms, Average = 0ms\r\n`,
    stderr: '', code: 0, slept: 1000,
  });
  assert.deepEqual(cmd('ping -n 1 kubernetes'), {
    stdout: '\r\nPinging kubernetes.default.svc.cluster.local [10.96.0.1] with 32 bytes of data:\r\nRequest timed out.\r\n\r\n' +
      'Ping statistics for 10.96.0.1:\r\n    Packets: Sent = 1, Received = 0, Lost = 1 (100% loss),\r\n',
    stderr: '', code: 1, slept: 4000,
  });
  // The DNS client takes a dotted name as fully qualified.
  assert.deepEqual(cmd('ping -n 1 kubernetes.default'), { stdout: 'Ping request could not find host kubernetes.default. Please check the name and try again.\r\n', stderr: '', code: 1, slept: 0 });
});

test('nslookup.exe: its own suffix search, the server named by its PTR record', () => {
  assert.deepEqual(nslookupCandidates('kubernetes.default', SEARCHES),
    ['kubernetes.default.default.svc.cluster.local', 'kubernetes.default.svc.cluster.local', 'kubernetes.default.cluster.local', 'kubernetes.default']);
  assert.deepEqual(nslookupCandidates('kubernetes.default.svc.cluster.local.', SEARCHES), ['kubernetes.default.svc.cluster.local']);
  assert.deepEqual(cmd('nslookup kubernetes.default'), {
    stdout: 'Server:  kube-dns.kube-system.svc.cluster.local\r\nAddress:  10.96.0.10\r\n\r\nName:    kubernetes.default.svc.cluster.local\r\nAddress:  10.96.0.1\r\n\r\n',
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(cmd('nslookup nosuch'), {
    stdout: 'Server:  kube-dns.kube-system.svc.cluster.local\r\nAddress:  10.96.0.10\r\n\r\n',
    stderr: "*** kube-dns.kube-system.svc.cluster.local can't find nosuch: Non-existent domain\r\n", code: 1, slept: 0,
  });
  // Without reverse records the PTR query fails: `UnKnown`.
  assert.equal(cmd('nslookup web', false).stdout, 'Server:  UnKnown\r\nAddress:  10.96.0.10\r\n\r\nName:    web.default.svc.cluster.local\r\nAddress:  10.96.10.1\r\n\r\n');
});

test('Resolve-DnsName: the pod\'s one suffix, a dotted name is fully qualified', () => {
  assert.deepEqual(ps('Resolve-DnsName kubernetes'), {
    stdout: '\r\nName                                           Type   TTL   Section    IPAddress\r\n' +
      '----                                           ----   ---   -------    ---------\r\n' +
      'kubernetes.default.svc.cluster.local           A      30    Answer     10.96.0.1\r\n\r\n',
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(ps('Resolve-DnsName kubernetes.default'), {
    stdout: '',
    stderr: 'Resolve-DnsName : kubernetes.default : DNS name does not exist\r\nAt line:1 char:1\r\n+ Resolve-DnsName kubernetes.default\r\n+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\r\n' +
      '    + CategoryInfo          : ResourceUnavailable: (kubernetes.default:String) [Resolve-DnsName], Win32Exception\r\n' +
      '    + FullyQualifiedErrorId : DNS_ERROR_RCODE_NAME_ERROR,Microsoft.DnsClient.Commands.ResolveDnsName\r\n \r\n',
    code: 1, slept: 0,
  });
  assert.equal(ps('(Resolve-DnsName kubernetes.default.svc.cluster.local).IPAddress').stdout, '10.96.0.1\r\n');
});

test('Test-NetConnection without -Port: an ICMP echo through the network', () => {
  assert.deepEqual(ps(`Test-NetConnection ${WEB_IP}`), {
    stdout: `\r\nComputerName           : ${WEB_IP}\r\nRemoteAddress          : ${WEB_IP}\r\nInterfaceAlias         : vEthernet (Ethernet)\r\nSourceAddress          : ${WINDOWS_IP}\r\nPingSucceeded          : True\r\nPingReplyDetails (RTT) : 0 ms\r\n\r\n`,
    stderr: '', code: 0, slept: 0,
  });
  assert.deepEqual(ps('Test-NetConnection kubernetes'), {
    stdout: 'WARNING: Ping to 10.96.0.1 failed with status: TimedOut\r\n\r\nComputerName           : kubernetes\r\nRemoteAddress          : 10.96.0.1\r\nInterfaceAlias         : vEthernet (Ethernet)\r\n' +
      `SourceAddress          : ${WINDOWS_IP}\r\nPingSucceeded          : False\r\nPingReplyDetails (RTT) : 0 ms\r\n\r\n`,
    stderr: '', code: 0, slept: 4000,
  });
});
