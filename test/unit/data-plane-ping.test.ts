/**
 * ICMP echo through the network model: pods and nodes answer, Service VIPs
 * only under IPVS, and a Windows pod's echo to a remote network never comes
 * back; addresses beyond the cluster go to the outside network.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { model, service, slice } from '../helpers/data-plane-model.js';
import type { PingResult } from '../../src/node/shell/net-types.js';

const show = (r: PingResult) => (r.kind === 'reply' ? `reply from ${r.from}` : 'timeout');

function cluster(opts: Parameters<typeof model>[0] = {}) {
  const m = model(opts);
  m.pod('lclient', 'lin1', '10.244.0.5');
  m.pod('wclient', 'win22', '10.244.2.9');
  m.pod('web', 'lin2', '10.244.1.5');
  m.services.push(service({ name: 'web', clusterIP: '10.96.0.80', type: 'LoadBalancer', nodePort: 30080, ingressIP: '172.18.255.200' }));
  m.slices.push(slice('web', [{ ip: '10.244.1.5', node: 'lin2' }]));
  return m;
}

test('ping from Linux and Windows pods and nodes (iptables)', () => {
  const outsideHost = '203.0.113.10';
  const m = cluster({ outside: true });
  const cases: [string, string, string, string][] = [
    ['Linux pod → pod', '10.244.0.5', '10.244.1.5', 'reply from 10.244.1.5'],
    ['Linux pod → itself by loopback', '10.244.0.5', '127.0.0.1', 'reply from 10.244.0.5'],
    ['Linux pod → ClusterIP: only DNAT rules, nothing answers', '10.244.0.5', '10.96.0.80', 'timeout'],
    ['Linux pod → ingress IP', '10.244.0.5', '172.18.255.200', 'timeout'],
    ['Linux pod → a node', '10.244.0.5', '172.18.0.4', 'reply from 172.18.0.4'],
    ['Linux pod → an unused pod address', '10.244.1.77', '10.244.1.78', 'timeout'],
    ['Linux pod → an outside host', '10.244.0.5', outsideHost, `reply from ${outsideHost}`],
    ['Linux pod → an outside address nobody has', '10.244.0.5', '203.0.113.8', 'timeout'],
    ['Windows pod → pod', '10.244.2.9', '10.244.1.5', 'reply from 10.244.1.5'],
    ['Windows pod → a node', '10.244.2.9', '172.18.0.2', 'reply from 172.18.0.2'],
    ['Windows pod → an outside host: ICMP is not routed back', '10.244.2.9', outsideHost, 'timeout'],
    ['Windows node → a remote pod on flannel VXLAN', '172.18.0.4', '10.244.1.5', 'timeout'],
    ['Windows node → its own pod', '172.18.0.4', '10.244.2.9', 'reply from 10.244.2.9'],
    ['Windows node → an outside host', '172.18.0.4', outsideHost, `reply from ${outsideHost}`],
  ];
  for (const [what, from, ip, want] of cases) assert.equal(show(m.net.ping(from, ip)), want, what);
});

test('IPVS binds Service addresses to kube-ipvs0: Linux nodes answer them, Windows ones do not', () => {
  const m = cluster({ network: { plugin: 'flannel', mode: 'overlay', kubeProxy: { mode: 'ipvs' } } });
  assert.equal(show(m.net.ping('10.244.0.5', '10.96.0.80')), 'reply from 10.96.0.80');
  assert.equal(show(m.net.ping('10.244.0.5', '172.18.255.200')), 'reply from 172.18.255.200');
  assert.equal(show(m.net.ping('10.244.2.9', '10.96.0.80')), 'timeout');
});

test('TCP to an address beyond the cluster: the outside world sees the node\'s SNAT, nodes their own address', () => {
  const m = cluster({ outside: true });
  const body = (from: string) => {
    const c = m.net.connect(from, '203.0.113.20', 80);
    if (c.kind !== 'connected') return c.kind;
    const r = c.exchange({ method: 'GET', target: '/', headers: [], body: new Uint8Array() }).value;
    return r && r !== 'reset' ? new TextDecoder().decode(r.body) : String(r);
  };
  assert.equal(body('10.244.0.5'), '172.18.0.2\n', 'a Linux pod: masqueraded to its node');
  assert.equal(body('10.244.2.9'), '172.18.0.4\n', 'a Windows pod: OutBoundNAT to its node');
  assert.equal(body('172.18.0.3'), '172.18.0.3\n', 'a node itself');
  assert.equal(m.dial('10.244.0.5', '203.0.113.10', 443), 'no exchange', 'another port of an outside host');
  assert.equal(m.dial('10.244.0.5', '203.0.113.9', 80), 'timeout');
  assert.equal(m.dial('10.244.0.5', '10.244.9.9', 80), 'timeout', 'an unused pod address is the cluster\'s, not the outside\'s');
  assert.equal(cluster().dial('10.244.0.5', '203.0.113.10', 80), 'timeout', 'a model without the outside world');
});
