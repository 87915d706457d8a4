/**
 * A Service's addresses beyond the ClusterIP through the network model:
 * any node's address and nodePort, LoadBalancer ingress IPs and
 * externalIPs, from pods, from the nodes themselves (hostNetwork pods) and
 * from outside, with the address each backend sees.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { model, service, slice } from '../helpers/data-plane-model.js';

function cluster(network?: { plugin: 'flannel' | 'calico'; mode: 'overlay' | 'l2bridge' }) {
  const m = model(network ? { network } : {});
  m.pod('client', 'lin1', '10.244.0.5');
  m.pod('web-1', 'lin2', '10.244.1.5');
  m.pod('wclient', 'win22', '10.244.2.9');
  m.services.push(service({ name: 'web', clusterIP: '10.96.0.50', type: 'LoadBalancer', nodePort: 30080, ingressIP: '172.18.255.200', externalIPs: ['192.0.2.10'] }));
  m.slices.push(slice('web', [{ ip: '10.244.1.5', node: 'lin2' }]));
  return m;
}

test('nodePort, ingress IP and externalIP from pods, nodes and outside (flannel VXLAN)', () => {
  const m = cluster();
  const cases: [string, string, string, number, string][] = [
    ['pod → another node\'s nodePort: that node masquerades (its cni0 to a local pod)', '10.244.0.5', '172.18.0.3', 30080, '10.244.1.5:80 from 10.244.1.1'],
    ['pod → its own node\'s nodePort: flannel.1\'s address toward a remote pod', '10.244.0.5', '172.18.0.2', 30080, '10.244.1.5:80 from 10.244.0.0'],
    ['pod → ingress IP: its own node\'s rule, masqueraded', '10.244.0.5', '172.18.255.200', 80, '10.244.1.5:80 from 10.244.0.0'],
    ['pod → externalIP', '10.244.0.5', '192.0.2.10', 80, '10.244.1.5:80 from 10.244.0.0'],
    ['pod → ingress IP, a port the Service does not have', '10.244.0.5', '172.18.255.200', 81, 'timeout'],
    ['pod → a node address, a port that is no nodePort and nothing listens on', '10.244.0.5', '172.18.0.3', 30081, 'refused'],
    ['Linux node → ClusterIP (flannel.1 toward a remote pod)', '172.18.0.2', '10.96.0.50', 80, '10.244.1.5:80 from 10.244.0.0'],
    ['Linux node → its own nodePort', '172.18.0.2', '172.18.0.2', 30080, '10.244.1.5:80 from 10.244.0.0'],
    ['Linux node → the node of the endpoint, its nodePort (cni0)', '172.18.0.3', '172.18.0.3', 30080, '10.244.1.5:80 from 10.244.1.1'],
    ['Windows node → ClusterIP: Service VIPs are not reachable from Windows nodes', '172.18.0.4', '10.96.0.50', 80, 'timeout'],
    ['Windows node → its own nodePort: fails', '172.18.0.4', '172.18.0.4', 30080, 'timeout'],
    ['Windows node → a Linux node\'s nodePort: works, masqueraded there', '172.18.0.4', '172.18.0.2', 30080, '10.244.1.5:80 from 10.244.0.0'],
    ['Windows pod → ingress IP: the node\'s HNS load balancer, source VIP', '10.244.2.9', '172.18.255.200', 80, '10.244.1.5:80 from 10.244.2.2'],
  ];
  for (const [what, from, ip, port, want] of cases) assert.equal(m.dial(from, ip, port), want, what);
});

test('from outside: the entry node\'s rules, the backend sees the node', () => {
  const m = cluster();
  const cases: [string, string, string, number, string][] = [
    ['Linux node\'s nodePort', '172.18.0.2', '172.18.0.2', 30080, '10.244.1.5:80 from 10.244.0.0'],
    ['Windows node\'s nodePort: SNAT to the source VIP (overlay)', '172.18.0.4', '172.18.0.4', 30080, '10.244.1.5:80 from 10.244.2.2'],
    ['ingress IP entering by a Linux node', '172.18.0.3', '172.18.255.200', 80, '10.244.1.5:80 from 10.244.1.1'],
    ['the ClusterIP is not routed outside the nodes', '172.18.0.2', '10.96.0.50', 80, 'timeout'],
    ['a nodePort nobody has: nothing listens', '172.18.0.2', '172.18.0.2', 30999, 'refused'],
  ];
  for (const [what, entry, ip, port, want] of cases) assert.equal(m.dialOutside(entry, '172.18.0.1', ip, port), want, what);
});

test('L2Bridge (flannel host-gw): the Windows source VIP is the node\'s address; Linux leaves by eth0 toward remote pods', () => {
  const m = cluster({ plugin: 'flannel', mode: 'l2bridge' });
  assert.equal(m.dialOutside('172.18.0.4', '172.18.0.1', '172.18.0.4', 30080), '10.244.1.5:80 from 172.18.0.4');
  assert.equal(m.dialOutside('172.18.0.2', '172.18.0.1', '172.18.0.2', 30080), '10.244.1.5:80 from 172.18.0.2');
  assert.equal(m.dial('172.18.0.2', '10.96.0.50', 80), '10.244.1.5:80 from 172.18.0.2');
});
