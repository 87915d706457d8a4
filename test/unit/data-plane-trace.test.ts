/**
 * The trace of a connection through the network model: the source's link,
 * the kube-proxy rule on the node it meets (iptables chains by their real
 * hashed names, the HNS load balancer), the endpoint and the source the
 * backend sees, or the rule that stopped it; a trace remembers nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { model, service, slice } from '../helpers/data-plane-model.js';
import { endpointChain, serviceChain } from '../../src/node/net/iptables-chains.js';

test('iptables chain names are kube-proxy\'s hashes (its proxier_test.go vectors)', () => {
  assert.equal(serviceChain('KUBE-SVC', 'ns1/svc1:p80', 'TCP'), 'KUBE-SVC-XPGD46QRK7WJZT7O');
  assert.equal(endpointChain('ns1/svc1:p80', 'TCP', '10.180.0.1:80'), 'KUBE-SEP-SXIVWICOYRO3J4NJ');
});

test('traces from Linux and Windows pods and nodes', () => {
  const m = model();
  m.pod('client', 'lin1', '10.244.0.5');
  m.pod('web-1', 'lin2', '10.244.1.5');
  m.pod('wclient', 'win22', '10.244.2.9');
  m.services.push(service({ name: 'web', clusterIP: '10.96.0.50', type: 'NodePort', nodePort: 30080, portName: 'http', sessionAffinity: 'ClientIP' }));
  m.services.push(service({ name: 'empty', clusterIP: '10.96.0.51' }));
  m.slices.push(slice('web', [{ ip: '10.244.1.5', node: 'lin2' }], 'http'));
  const cases: [string, string, number, string, string[]][] = [
    ['10.244.0.5', '10.96.0.50', 80, 'connected', [
      'pod default/client 10.244.0.5 on lin1 (linux): veth',
      'lin1 iptables: KUBE-SERVICES 10.96.0.50:80/tcp → KUBE-SVC-CDGGSHYLG3RE2FKL (default/web:http)',
      'KUBE-SEP-THCUGE4PYEGQIHCR: DNAT to 10.244.1.5:80',
      'pod default/web-1 listens on 10.244.1.5:80, sees the client as 10.244.0.5']],
    ['10.244.2.9', '10.96.0.50', 80, 'connected', [
      'pod default/wclient 10.244.2.9 on win22 (windows 10.0.20348): HNS endpoint on flannel.4096',
      'win22 VFP: HNS load balancer 10.96.0.50:80/tcp → 1 endpoint, source VIP',
      '→ 10.244.1.5:80, source 10.244.2.2',
      'pod default/web-1 listens on 10.244.1.5:80, sees the client as 10.244.2.2']],
    ['10.244.0.5', '172.18.0.3', 30080, 'connected', [
      'pod default/client 10.244.0.5 on lin1 (linux): veth',
      'lin2 iptables: KUBE-NODEPORTS :30080/tcp → KUBE-EXT-CDGGSHYLG3RE2FKL (default/web:http)',
      'KUBE-SEP-THCUGE4PYEGQIHCR: DNAT to 10.244.1.5:80, source 10.244.1.1',
      'pod default/web-1 listens on 10.244.1.5:80, sees the client as 10.244.1.1']],
    ['10.244.0.5', '10.96.0.51', 80, 'refused', [
      'pod default/client 10.244.0.5 on lin1 (linux): veth',
      'lin1 iptables: KUBE-SERVICES 10.96.0.51:80/tcp → REJECT "default/empty has no endpoints"']],
    ['10.244.2.9', '10.96.0.51', 80, 'timeout', [
      'pod default/wclient 10.244.2.9 on win22 (windows 10.0.20348): HNS endpoint on flannel.4096',
      'win22 VFP: no HNS load balancer: no usable endpoint']],
    ['10.244.0.5', '10.96.0.50', 81, 'timeout', [
      'pod default/client 10.244.0.5 on lin1 (linux): veth',
      'stopped: 10.96.0.50 has no rule for port 81/tcp: dropped']],
    ['172.18.0.4', '10.96.0.50', 80, 'timeout', [
      'node win22 172.18.0.4 (windows 10.0.20348): host network',
      'stopped: Service VIPs are not reachable from Windows nodes',
      'fix: connect from a pod (pod → Service works), or from the node to an endpoint\'s pod IP']],
    ['172.18.0.4', '10.244.1.5', 80, 'timeout', [
      'node win22 172.18.0.4 (windows 10.0.20348): host network',
      'stopped: a Windows node on flannel VXLAN reaches only its own pods',
      'fix: reach the pod from a pod or through its Service, or run flannel host-gw (l2bridge)']],
    ['10.244.0.5', '10.244.1.5', 81, 'refused', [
      'pod default/client 10.244.0.5 on lin1 (linux): veth',
      'pod default/web-1 10.244.1.5: nothing listens on 81/tcp: RST']],
    ['10.244.0.5', '10.244.1.99', 80, 'timeout', [
      'pod default/client 10.244.0.5 on lin1 (linux): veth',
      'stopped: no host has 10.244.1.99']],
    ['10.244.0.5', '203.0.113.1', 80, 'outside', [
      'pod default/client 10.244.0.5 on lin1 (linux): veth',
      '203.0.113.1 is outside the cluster']],
  ];
  for (const [from, ip, port, result, hops] of cases) assert.deepEqual(m.net.trace(from, ip, port), { hops, result }, `${from} → ${ip}:${port}`);
  assert.deepEqual(m.net.kubeProxyLog('win22'), [], 'a trace logs nothing');
});

test('a trace does not pin a session-affinity client', () => {
  const draws = [0.1, 0.9];
  const m = model({ random: () => draws.shift() ?? 0 });
  m.pod('client', 'lin1', '10.244.0.5');
  m.pod('a', 'lin2', '10.244.1.5');
  m.pod('b', 'lin2', '10.244.1.6');
  m.services.push(service({ name: 'sticky', clusterIP: '10.96.0.52', sessionAffinity: 'ClientIP' }));
  m.slices.push(slice('sticky', [{ ip: '10.244.1.5', node: 'lin2' }, { ip: '10.244.1.6', node: 'lin2' }]));
  assert.equal(m.net.trace('10.244.0.5', '10.96.0.52', 80).hops[2], `${endpointChain('default/sticky', 'TCP', '10.244.1.5:80')}: DNAT to 10.244.1.5:80`);
  assert.equal(m.dial('10.244.0.5', '10.96.0.52', 80), '10.244.1.6:80 from 10.244.0.5');
});
