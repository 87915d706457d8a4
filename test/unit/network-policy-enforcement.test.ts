/**
 * NetworkPolicy in the cluster network model: a denied SYN is dropped (a
 * timeout, never a refusal, even where nothing listens), a Service
 * connection is judged against the backend after the DNAT, a pod reaching
 * its own address is not policed, addresses outside the pod network have
 * no policy of their own, ICMP follows the rules, and nodes whose plugin
 * enforces nothing (flannel) let everything through.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { ClusterNetwork } from '../../src/node/net/cluster-network.js';
import { Pending } from '../../src/node/shell/pending.js';
import type { HttpResponse } from '../../src/node/shell/net-types.js';

const SERVICE: KObject = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'app', name: 'web' },
  spec: { clusterIP: '10.96.50.1', clusterIPs: ['10.96.50.1'], ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] } };
const SLICE: KObject = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
  metadata: { namespace: 'app', name: 'web-abcde', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4', ports: [{ name: '', port: 8080, protocol: 'TCP' }], endpoints: [{ addresses: ['10.244.1.10'], conditions: { ready: true } }] };

const pod = (name: string, labels: Record<string, string>): Pod => ({ metadata: { namespace: 'app', name, labels }, spec: { containers: [{ name: 'main' }] } });
const PODS = [pod('web', { app: 'web' }), pod('client', { role: 'client' }), pod('other', { role: 'other' })];
const NAMESPACE: Namespace = { metadata: { name: 'app', labels: { 'kubernetes.io/metadata.name': 'app' } } };

const DENY_INGRESS: NetworkPolicy = { metadata: { namespace: 'app', name: 'default-deny-ingress' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } };
const ALLOW_CLIENT: NetworkPolicy = { metadata: { namespace: 'app', name: 'allow-client' }, spec: {
  podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'],
  ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }], ports: [{ protocol: 'TCP', port: 8080 }] }],
} };

function network(plugin: 'calico' | 'flannel', policies: NetworkPolicy[]): ClusterNetwork {
  const net = new ClusterNetwork({
    services: () => [SERVICE],
    service: (ns, name) => (ns === 'app' && name === 'web' ? SERVICE : undefined),
    endpointSlices: (ns) => (ns === 'app' ? [SLICE] : []),
    policy: {
      enforces: () => plugin === 'calico',
      pod: (ns, name) => PODS.find((p) => p.metadata?.namespace === ns && p.metadata.name === name),
      namespace: (name) => (name === 'app' ? NAMESPACE : undefined),
      networkPolicies: (ns) => policies.filter((p) => p.metadata?.namespace === ns),
    },
  }, () => 0);
  net.attach('10.244.1.10', { namespace: 'app', name: 'web', node: 'win-1' });
  net.attach('10.244.2.11', { namespace: 'app', name: 'client', node: 'linux-1' });
  net.attach('10.244.2.12', { namespace: 'app', name: 'other', node: 'linux-1' });
  net.listen('10.244.1.10', 8080, 'TCP', () => Pending.of<HttpResponse>({ status: 200, reason: 'OK', headers: [], body: new Uint8Array() }));
  return net;
}

const CLIENT = '10.244.2.11';
const OTHER = '10.244.2.12';
const WEB = '10.244.1.10';

test('calico: connections under default-deny ingress and an allowing policy', () => {
  const cases: [string, NetworkPolicy[], string, string, number, string][] = [
    ['no policy: connected', [], OTHER, WEB, 8080, 'connected'],
    ['default deny: the SYN is dropped', [DENY_INGRESS], CLIENT, WEB, 8080, 'timeout'],
    ['default deny through the Service: judged against the backend', [DENY_INGRESS], CLIENT, '10.96.50.1', 80, 'timeout'],
    ['default deny where nothing listens: dropped before any RST', [DENY_INGRESS], CLIENT, WEB, 9999, 'timeout'],
    ['allowed by the client label', [DENY_INGRESS, ALLOW_CLIENT], CLIENT, WEB, 8080, 'connected'],
    ['allowed through the Service: the rule names the target port', [DENY_INGRESS, ALLOW_CLIENT], CLIENT, '10.96.50.1', 80, 'connected'],
    ['another pod is still dropped', [DENY_INGRESS, ALLOW_CLIENT], OTHER, WEB, 8080, 'timeout'],
    ['a port the rule does not name: dropped, not refused', [DENY_INGRESS, ALLOW_CLIENT], CLIENT, WEB, 9999, 'timeout'],
    ['a node address is no pod: dropped', [DENY_INGRESS, ALLOW_CLIENT], '192.168.0.2', WEB, 8080, 'timeout'],
    ['a pod reaching its own address never leaves it', [DENY_INGRESS], WEB, WEB, 8080, 'connected'],
    ['a pod reaching its own address, no listener: refused', [DENY_INGRESS], WEB, WEB, 9999, 'refused'],
  ];
  for (const [name, policies, from, ip, port, want] of cases) assert.equal(network('calico', policies).connect(from, ip, port).kind, want, name);
});

test('flannel: policies are stored and not enforced', () => {
  const net = network('flannel', [DENY_INGRESS]);
  assert.equal(net.connect(CLIENT, WEB, 8080).kind, 'connected');
  assert.equal(net.connect(OTHER, '10.96.50.1', 80).kind, 'connected');
  assert.equal(net.connect(CLIENT, WEB, 9999).kind, 'refused');
  assert.deepEqual(net.ping(CLIENT, WEB), { kind: 'reply', from: WEB });
});

test('calico: ICMP echo follows the rules (ports in a rule leave ICMP out)', () => {
  assert.deepEqual(network('calico', [DENY_INGRESS]).ping(CLIENT, WEB), { kind: 'timeout' });
  assert.deepEqual(network('calico', [DENY_INGRESS, ALLOW_CLIENT]).ping(CLIENT, WEB), { kind: 'timeout' });
  const anyProtocol: NetworkPolicy = { ...ALLOW_CLIENT, spec: { ...ALLOW_CLIENT.spec!, ingress: [{ from: ALLOW_CLIENT.spec!.ingress![0]!.from! }] } };
  assert.deepEqual(network('calico', [DENY_INGRESS, anyProtocol]).ping(CLIENT, WEB), { kind: 'reply', from: WEB });
  assert.deepEqual(network('calico', [DENY_INGRESS]).ping(WEB, '127.0.0.1'), { kind: 'reply', from: WEB });
});
