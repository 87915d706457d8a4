/**
 * A connection from outside the cluster to a node's address and nodePort, or
 * to a LoadBalancer ingress IP and port: the Service's ClusterIP rule picks
 * the endpoint, the pod sees the node's address as the client.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { ClusterNetwork } from '../../src/node/net/cluster-network.js';
import { dialFromOutside, outsideServiceAddress } from '../../src/node/net/outside-dial.js';
import { Pending } from '../../src/node/shell/pending.js';
import type { HttpResponse } from '../../src/node/shell/net-types.js';

const SERVICES: Service[] = [
  { metadata: { namespace: 'default', name: 'np' }, spec: { type: 'NodePort', clusterIP: '10.96.0.20', ports: [{ port: 8080, targetPort: 80, nodePort: 30080 }, { port: 53, nodePort: 30053, protocol: 'UDP' }] } },
  { metadata: { namespace: 'default', name: 'lb' }, spec: { type: 'LoadBalancer', clusterIP: '10.96.0.21', ports: [{ port: 9000, targetPort: 80, nodePort: 31000 }] },
    status: { loadBalancer: { ingress: [{ ip: '172.18.255.200' }] } } },
  { metadata: { namespace: 'default', name: 'cip' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.22', ports: [{ port: 7000, targetPort: 80 }] } },
];
const NODES = new Set(['172.18.0.2', '172.18.0.3']);

test('which Service address an outside address and port stands for', () => {
  const cases: [string, string, number, string][] = [
    ['a nodePort on a node', '172.18.0.3', 30080, '10.96.0.20:8080'],
    ['a LoadBalancer Service\'s nodePort', '172.18.0.2', 31000, '10.96.0.21:9000'],
    ['the ingress IP and port', '172.18.255.200', 9000, '10.96.0.21:9000'],
    ['the ingress IP, another port', '172.18.255.200', 9001, 'none'],
    ['a UDP nodePort (the model carries TCP)', '172.18.0.2', 30053, 'none'],
    ['a nodePort on an address no node has', '172.18.0.9', 30080, 'none'],
    ['a ClusterIP Service has no node port', '172.18.0.2', 7000, 'none'],
  ];
  for (const [what, ip, port, want] of cases) {
    const got = outsideServiceAddress(SERVICES, NODES, ip, port);
    assert.equal(got ? `${got.ip}:${got.port}` : 'none', want, what);
  }
});

test('the connection reaches the endpoint, from the node\'s address; no rule: the packets are dropped', () => {
  const objects = SERVICES as unknown as KObject[];
  const slices: KObject[] = [{
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: 'default', name: 'np-x', labels: { 'kubernetes.io/service-name': 'np' } },
    addressType: 'IPv4', ports: [{ name: '', port: 80, protocol: 'TCP' }], endpoints: [{ addresses: ['10.244.1.5'], conditions: { ready: true } }],
  }];
  const net = new ClusterNetwork({ services: () => objects, service: () => undefined, endpointSlices: () => slices }, () => 0);
  net.attach('10.244.1.5', { namespace: 'default', name: 'web', node: 'w1' });
  const clients: string[] = [];
  net.listen('10.244.1.5', 80, 'TCP', (_req, conn) => { clients.push(conn.client.ip); return Pending.of<HttpResponse>({ status: 200, reason: 'OK', headers: [], body: new Uint8Array() }); });
  const c = dialFromOutside(net, SERVICES, NODES, '172.18.0.2', '172.18.0.3', 30080);
  assert.equal(c.kind, 'connected');
  if (c.kind === 'connected') c.exchange({ method: 'GET', target: '/', headers: [], body: new Uint8Array() });
  assert.deepEqual(clients, ['172.18.0.2']);
  // The LoadBalancer Service has no endpoints: kube-proxy's REJECT.
  assert.equal(dialFromOutside(net, SERVICES, NODES, '172.18.0.2', '172.18.255.200', 9000).kind, 'refused');
  assert.equal(dialFromOutside(net, SERVICES, NODES, '172.18.0.2', '172.18.0.2', 30999).kind, 'timeout');
});
