/**
 * The NetworkPolicy decision, case by case: isolation per direction,
 * default-deny ingress and egress, egress to DNS, peers (podSelector in
 * the policy's namespace, namespaceSelector, both in one peer vs separate
 * peers), ports (number, named on the destination pod, protocol, endPort),
 * ipBlock with except, and ICMP under rules with and without ports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy, NetworkPolicySpec } from 'kubernetes-types/networking/v1.js';
import { judgeFlow, policyTypes, type Flow, type FlowProtocol, type PolicyView, type Verdict } from '../../src/node/net/network-policy.js';
import { ipv4InCIDR } from '../../src/node/net/ipv4-cidr.js';

const pod = (namespace: string, name: string, labels: Record<string, string>, ports: { name?: string; containerPort: number; protocol?: string }[] = []): Pod =>
  ({ metadata: { namespace, name, labels }, spec: { containers: [{ name: 'main', ports }] } });

const policy = (namespace: string, name: string, spec: NetworkPolicySpec): NetworkPolicy => ({ metadata: { namespace, name }, spec });

const NAMESPACES: Record<string, Record<string, string>> = {
  default: { 'kubernetes.io/metadata.name': 'default' },
  prod: { 'kubernetes.io/metadata.name': 'prod', team: 'web' },
  dev: { 'kubernetes.io/metadata.name': 'dev', team: 'web' },
  'kube-system': { 'kubernetes.io/metadata.name': 'kube-system' },
};

const WEB = pod('prod', 'web', { app: 'web' }, [{ name: 'http', containerPort: 8080 }, { name: 'metrics', containerPort: 9090 }]);
const CLIENT = pod('prod', 'client', { role: 'client' });
const OTHER = pod('prod', 'other', { role: 'other' });
const DEV_CLIENT = pod('dev', 'client', { role: 'client' });
const DEV_OTHER = pod('dev', 'other', { role: 'other' });
const DEFAULT_CLIENT = pod('default', 'client', { role: 'client' });
const DNS = pod('kube-system', 'coredns', { 'k8s-app': 'kube-dns' }, [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53 }]);

const IPS = new Map<Pod, string>([[WEB, '10.244.1.10'], [CLIENT, '10.244.1.11'], [OTHER, '10.244.2.12'], [DEV_CLIENT, '10.244.2.13'],
  [DEV_OTHER, '10.244.2.14'], [DEFAULT_CLIENT, '10.244.3.15'], [DNS, '10.244.0.2']]);

const view = (...policies: NetworkPolicy[]): PolicyView => ({
  policies: (ns) => policies.filter((p) => p.metadata?.namespace === ns),
  namespaceLabels: (ns) => NAMESPACES[ns],
});

const flow = (src: Pod | string, dst: Pod | string, port: number, protocol: FlowProtocol = 'TCP'): Flow => ({
  src: typeof src === 'string' ? { ip: src } : { ip: IPS.get(src)!, pod: src },
  dst: typeof dst === 'string' ? { ip: dst } : { ip: IPS.get(dst)!, pod: dst },
  port, protocol,
});

const DENY_INGRESS = policy('prod', 'default-deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] });
const DENY_EGRESS = policy('prod', 'default-deny-egress', { podSelector: {}, policyTypes: ['Egress'] });
const ALLOW_DNS = policy('prod', 'allow-dns', {
  podSelector: {}, policyTypes: ['Egress'],
  egress: [{
    to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
    ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }],
  }],
});
const ALLOW_CLIENT = policy('prod', 'allow-client', {
  podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'],
  ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }] }],
});
const AND_PEER = policy('prod', 'web-clients-of-team', {
  podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'],
  ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'web' } }, podSelector: { matchLabels: { role: 'client' } } }] }],
});
const OR_PEERS = policy('prod', 'web-team-or-clients', {
  podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'],
  ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'web' } } }, { podSelector: { matchLabels: { role: 'client' } } }] }],
});
const NAMED_PORT = policy('prod', 'web-http', {
  podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'],
  ingress: [{ ports: [{ protocol: 'TCP', port: 'http' }] }],
});
const PORT_RANGE = policy('prod', 'web-range', {
  podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'],
  ingress: [{ ports: [{ protocol: 'TCP', port: 32000, endPort: 32768 }] }],
});
const IP_BLOCK = policy('prod', 'web-from-lan', {
  podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'],
  ingress: [{ from: [{ ipBlock: { cidr: '172.17.0.0/16', except: ['172.17.1.0/24'] } }] }],
});
const EGRESS_TO_LAN = policy('prod', 'client-to-lan', {
  podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'],
  egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.244.2.0/24'] } }], ports: [{ protocol: 'TCP', port: 8080 }] }],
});
const ICMP_ANY = policy('prod', 'web-from-clients-any-protocol', {
  podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'],
  ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }] }],
});
const UDP_ONLY = policy('prod', 'web-udp', {
  podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'],
  ingress: [{ ports: [{ protocol: 'UDP' }] }],
});

test('the verdict on a flow, case by case', () => {
  const cases: [string, NetworkPolicy[], Flow, Verdict][] = [
    ['no policy: every pod is non-isolated', [], flow(CLIENT, WEB, 8080), 'allowed'],
    ['default-deny ingress drops pod to pod', [DENY_INGRESS], flow(CLIENT, WEB, 8080), 'denied-by-ingress'],
    ['default-deny ingress drops an outside address too', [DENY_INGRESS], flow('172.17.0.5', WEB, 8080), 'denied-by-ingress'],
    ['default-deny ingress leaves egress open', [DENY_INGRESS], flow(WEB, DEFAULT_CLIENT, 80), 'allowed'],
    ['default-deny ingress of prod does not isolate dev', [DENY_INGRESS], flow(CLIENT, DEV_OTHER, 80), 'allowed'],
    ['default-deny egress drops pod to pod', [DENY_EGRESS], flow(CLIENT, DEFAULT_CLIENT, 80), 'denied-by-egress'],
    ['default-deny egress drops DNS without an allowing rule', [DENY_EGRESS], flow(CLIENT, DNS, 53, 'UDP'), 'denied-by-egress'],
    ['default-deny egress plus DNS: UDP 53 to kube-dns', [DENY_EGRESS, ALLOW_DNS], flow(CLIENT, DNS, 53, 'UDP'), 'allowed'],
    ['default-deny egress plus DNS: TCP 53 to kube-dns', [DENY_EGRESS, ALLOW_DNS], flow(CLIENT, DNS, 53, 'TCP'), 'allowed'],
    ['default-deny egress plus DNS: port 80 to kube-dns still dropped', [DENY_EGRESS, ALLOW_DNS], flow(CLIENT, DNS, 80), 'denied-by-egress'],
    ['default-deny egress plus DNS: other pods still dropped', [DENY_EGRESS, ALLOW_DNS], flow(CLIENT, WEB, 53, 'UDP'), 'denied-by-egress'],
    ['default-deny egress: traffic into prod from elsewhere is not egress', [DENY_EGRESS], flow(DEFAULT_CLIENT, WEB, 8080), 'allowed'],
    ['allowed by the client label, the other deny policy notwithstanding', [DENY_INGRESS, ALLOW_CLIENT], flow(CLIENT, WEB, 8080), 'allowed'],
    ['a pod without the label is still dropped', [DENY_INGRESS, ALLOW_CLIENT], flow(OTHER, WEB, 8080), 'denied-by-ingress'],
    ['podSelector alone is the policy\'s namespace only', [ALLOW_CLIENT], flow(DEV_CLIENT, WEB, 8080), 'denied-by-ingress'],
    ['podSelector alone matches no outside address', [ALLOW_CLIENT], flow('10.244.1.11', WEB, 8080), 'denied-by-ingress'],
    ['AND peer: client in a team namespace', [AND_PEER], flow(DEV_CLIENT, WEB, 8080), 'allowed'],
    ['AND peer: another pod in a team namespace', [AND_PEER], flow(DEV_OTHER, WEB, 8080), 'denied-by-ingress'],
    ['AND peer: a client in a namespace without the label', [AND_PEER], flow(DEFAULT_CLIENT, WEB, 8080), 'denied-by-ingress'],
    ['OR peers: any pod of a team namespace', [OR_PEERS], flow(DEV_OTHER, WEB, 8080), 'allowed'],
    ['OR peers: a client of the policy\'s namespace', [OR_PEERS], flow(CLIENT, WEB, 8080), 'allowed'],
    ['OR peers: a client of another namespace without the label', [OR_PEERS], flow(DEFAULT_CLIENT, WEB, 8080), 'denied-by-ingress'],
    ['named port: http is 8080 on the web pod', [NAMED_PORT], flow(OTHER, WEB, 8080), 'allowed'],
    ['named port: 9090 is metrics, not http', [NAMED_PORT], flow(OTHER, WEB, 9090), 'denied-by-ingress'],
    ['named port: the name with another protocol', [NAMED_PORT], flow(OTHER, WEB, 8080, 'UDP'), 'denied-by-ingress'],
    ['endPort: the first port of the range', [PORT_RANGE], flow(OTHER, WEB, 32000), 'allowed'],
    ['endPort: the last port of the range', [PORT_RANGE], flow(OTHER, WEB, 32768), 'allowed'],
    ['endPort: one past the range', [PORT_RANGE], flow(OTHER, WEB, 32769), 'denied-by-ingress'],
    ['endPort: the range is TCP only', [PORT_RANGE], flow(OTHER, WEB, 32100, 'UDP'), 'denied-by-ingress'],
    ['ipBlock: an address in the CIDR', [IP_BLOCK], flow('172.17.0.5', WEB, 8080), 'allowed'],
    ['ipBlock: an address in an except', [IP_BLOCK], flow('172.17.1.5', WEB, 8080), 'denied-by-ingress'],
    ['ipBlock: an address outside the CIDR', [IP_BLOCK], flow('192.168.1.5', WEB, 8080), 'denied-by-ingress'],
    ['ipBlock: matches a pod address too (Calico nets)', [EGRESS_TO_LAN], flow(CLIENT, WEB, 8080), 'allowed'],
    ['ipBlock except: a pod in the excepted range', [EGRESS_TO_LAN], flow(CLIENT, OTHER, 8080), 'denied-by-egress'],
    ['ipBlock with ports: another port', [EGRESS_TO_LAN], flow(CLIENT, WEB, 9090), 'denied-by-egress'],
    ['both ends must allow: egress open, ingress denied', [DENY_INGRESS, EGRESS_TO_LAN], flow(CLIENT, WEB, 8080), 'denied-by-ingress'],
    ['ICMP under a rule without ports', [ICMP_ANY], flow(CLIENT, WEB, 0, 'ICMP'), 'allowed'],
    ['ICMP under a rule with ports only', [NAMED_PORT], flow(CLIENT, WEB, 0, 'ICMP'), 'denied-by-ingress'],
    ['a port entry with a protocol and no port: every UDP port', [UDP_ONLY], flow(CLIENT, WEB, 5353, 'UDP'), 'allowed'],
    ['a port entry with a protocol and no port: not TCP', [UDP_ONLY], flow(CLIENT, WEB, 5353, 'TCP'), 'denied-by-ingress'],
  ];
  for (const [name, policies, f, want] of cases) assert.equal(judgeFlow(f, view(...policies)), want, name);
});

test('only the enforcing side\'s policy is applied', () => {
  const v = view(DENY_INGRESS, DENY_EGRESS);
  assert.equal(judgeFlow(flow(CLIENT, WEB, 8080), v, { egress: false, ingress: true }), 'denied-by-ingress');
  assert.equal(judgeFlow(flow(CLIENT, WEB, 8080), v, { egress: true, ingress: false }), 'denied-by-egress');
  assert.equal(judgeFlow(flow(CLIENT, WEB, 8080), v, { egress: false, ingress: false }), 'allowed');
});

test('policyTypes: stored ones, else Ingress plus Egress when there are egress rules', () => {
  assert.deepEqual(policyTypes(policy('prod', 'a', { podSelector: {} })), ['Ingress']);
  assert.deepEqual(policyTypes(policy('prod', 'b', { podSelector: {}, egress: [{}] })), ['Ingress', 'Egress']);
  assert.deepEqual(policyTypes(policy('prod', 'c', { podSelector: {}, policyTypes: ['Egress'] })), ['Egress']);
  // An Egress-only policy does not isolate for ingress.
  const egressOnly = policy('prod', 'd', { podSelector: {}, policyTypes: ['Egress'], egress: [{}] });
  assert.equal(judgeFlow(flow(OTHER, WEB, 8080), view(egressOnly)), 'allowed');
});

test('ipv4InCIDR: prefix lengths, the family and malformed CIDRs', () => {
  const cases: [string, string, boolean][] = [
    ['10.244.1.5', '10.244.0.0/16', true], ['10.245.0.1', '10.244.0.0/16', false], ['1.2.3.4', '0.0.0.0/0', true],
    ['10.0.0.1', '10.0.0.1/32', true], ['10.0.0.2', '10.0.0.1/32', false], ['10.0.0.1', 'fd00::/8', false], ['10.0.0.1', '10.0.0.0', false],
  ];
  for (const [ip, cidr, want] of cases) assert.equal(ipv4InCIDR(ip, cidr), want, `${ip} in ${cidr}`);
});
