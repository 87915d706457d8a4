/**
 * Each node's kube-proxy through the network model: Linux's iptables
 * proxier and Windows' winkernel for the same Services, endpoint
 * conditions, traffic policies, session affinity, DSR and the 64-backend
 * limit, with the backend and the client address it sees.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { model, service, slice, type EndpointShape } from '../helpers/data-plane-model.js';

const LINUX_POD = '10.244.0.5';
const WIN22_POD = '10.244.2.9';
const WIN19_POD = '10.244.3.9';

function withClients(opts: Parameters<typeof model>[0] = {}) {
  const m = model(opts);
  m.pod('lclient', 'lin1', LINUX_POD);
  m.pod('w22client', 'win22', WIN22_POD);
  m.pod('w19client', 'win19', WIN19_POD);
  m.pod('b1', 'lin2', '10.244.1.5');
  m.pod('b2', 'lin2', '10.244.1.6');
  m.pod('b3', 'win22', '10.244.2.5', [80, 8080]);
  return m;
}

test('endpoint conditions: Linux falls back to serving terminating endpoints and REJECTs without any; Windows uses Ready ones only and has no policy without', () => {
  const cases: [string, EndpointShape[], string, string][] = [
    ['ready endpoint', [{ ip: '10.244.1.5', node: 'lin2' }], '10.244.1.5:80 from 10.244.0.5', '10.244.1.5:80 from 10.244.2.2'],
    ['only serving terminating endpoints', [{ ip: '10.244.1.5', node: 'lin2', ready: false, serving: true, terminating: true }], '10.244.1.5:80 from 10.244.0.5', 'timeout'],
    ['only not-ready endpoints', [{ ip: '10.244.1.5', node: 'lin2', ready: false, serving: false }], 'refused', 'timeout'],
    ['no endpoints', [], 'refused', 'timeout'],
  ];
  for (const [what, eps, linux, windows] of cases) {
    const m = withClients();
    m.services.push(service({ name: 'svc', clusterIP: '10.96.0.60' }));
    m.slices.push(slice('svc', eps));
    assert.equal(m.dial(LINUX_POD, '10.96.0.60', 80), linux, `Linux pod: ${what}`);
    assert.equal(m.dial(WIN22_POD, '10.96.0.60', 80), windows, `Windows pod: ${what}`);
    assert.deepEqual(m.net.kubeProxyLog('win22'), windows === 'timeout'
      ? ['"Endpoint information not available for service, not applying any policy" serviceName="default/svc"'] : [], `win22 kube-proxy log: ${what}`);
  }
});

test('Windows with LoadBalancer ingress IPs: when every endpoint terminates, ClusterIP and ingress use the serving ones, NodePort has no policy', () => {
  const m = withClients();
  m.services.push(service({ name: 'lb', clusterIP: '10.96.0.61', type: 'LoadBalancer', nodePort: 30061, ingressIP: '172.18.255.201' }));
  m.slices.push(slice('lb', [{ ip: '10.244.1.5', node: 'lin2', ready: false, serving: true, terminating: true }]));
  assert.equal(m.dial(WIN22_POD, '10.96.0.61', 80), '10.244.1.5:80 from 10.244.2.2');
  assert.equal(m.dial(WIN22_POD, '172.18.255.201', 80), '10.244.1.5:80 from 10.244.2.2');
  assert.equal(m.dialOutside('172.18.0.4', '172.18.0.1', '172.18.0.4', 30061), 'timeout');
  assert.equal(m.dialOutside('172.18.0.2', '172.18.0.1', '172.18.0.2', 30061), '10.244.1.5:80 from 10.244.0.0', 'Linux: serving terminating endpoints for every address');
});

test('random choice among the ready endpoints on both OSes', () => {
  const draws = [0.1, 0.9, 0.1, 0.9];
  const m = withClients({ random: () => draws.shift() ?? 0 });
  m.services.push(service({ name: 'pair', clusterIP: '10.96.0.62' }));
  m.slices.push(slice('pair', [{ ip: '10.244.1.5', node: 'lin2' }, { ip: '10.244.1.6', node: 'lin2' }]));
  assert.deepEqual([LINUX_POD, LINUX_POD, WIN22_POD, WIN22_POD].map((p) => m.dial(p, '10.96.0.62', 80).split(' ')[0]),
    ['10.244.1.5:80', '10.244.1.6:80', '10.244.1.5:80', '10.244.1.6:80']);
});

test('internalTrafficPolicy Local: node-local endpoints only; none on the node: dropped', () => {
  const m = withClients();
  m.pod('lclient2', 'lin2', '10.244.1.9');
  m.services.push(service({ name: 'itp', clusterIP: '10.96.0.63', internalTrafficPolicy: 'Local' }));
  m.slices.push(slice('itp', [{ ip: '10.244.1.5', node: 'lin2' }]));
  assert.equal(m.dial(LINUX_POD, '10.96.0.63', 80), 'timeout');
  assert.equal(m.dial('10.244.1.9', '10.96.0.63', 80), '10.244.1.5:80 from 10.244.1.9');
  assert.equal(m.dial(WIN22_POD, '10.96.0.63', 80), 'timeout');
});

test('externalTrafficPolicy Local on Linux: local endpoints keep the client\'s address; none: dropped; pods and the node itself use every endpoint', () => {
  const m = withClients();
  m.services.push(service({ name: 'etp', clusterIP: '10.96.0.64', nodePort: 30064, externalTrafficPolicy: 'Local' }));
  m.slices.push(slice('etp', [{ ip: '10.244.1.5', node: 'lin2' }]));
  assert.equal(m.dialOutside('172.18.0.3', '172.18.0.1', '172.18.0.3', 30064), '10.244.1.5:80 from 172.18.0.1');
  assert.equal(m.dialOutside('172.18.0.2', '172.18.0.1', '172.18.0.2', 30064), 'timeout');
  assert.equal(m.dial(LINUX_POD, '172.18.0.2', 30064), '10.244.1.5:80 from 10.244.0.5', 'pod traffic is short-circuited, unmasqueraded');
  assert.equal(m.dial('172.18.0.2', '172.18.0.2', 30064), '10.244.1.5:80 from 10.244.0.0', 'the node itself: masqueraded');
  assert.equal(m.dial('172.18.0.4', '172.18.0.2', 30064), 'timeout', 'another node\'s address is external traffic');
});

test('externalTrafficPolicy Local on Windows: ignored without DSR (SNAT to the source VIP); with DSR local endpoints and the client\'s address', () => {
  const setup = (enableDSR?: boolean) => {
    const m = withClients({ network: { plugin: 'flannel', mode: 'overlay', ...(enableDSR === undefined ? {} : { kubeProxy: { enableDSR } }) } });
    m.services.push(service({ name: 'etp', clusterIP: '10.96.0.65', nodePort: 30065, externalTrafficPolicy: 'Local' }));
    m.services.push(service({ name: 'etpw', clusterIP: '10.96.0.66', nodePort: 30066, externalTrafficPolicy: 'Local' }));
    m.slices.push(slice('etp', [{ ip: '10.244.1.5', node: 'lin2' }]), slice('etpw', [{ ip: '10.244.2.5', node: 'win22' }]));
    return m;
  };
  const off = setup();
  assert.equal(off.dialOutside('172.18.0.4', '172.18.0.1', '172.18.0.4', 30065), '10.244.1.5:80 from 10.244.2.2');
  assert.equal(off.dialOutside('172.18.0.4', '172.18.0.1', '172.18.0.4', 30066), '10.244.2.5:80 from 10.244.2.2');
  assert.equal(off.dial(WIN22_POD, '10.96.0.66', 80), '10.244.2.5:80 from 10.244.2.2', 'ClusterIP without DSR: the source VIP');
  const on = setup(true);
  assert.equal(on.dialOutside('172.18.0.4', '172.18.0.1', '172.18.0.4', 30065), 'timeout');
  assert.equal(on.dialOutside('172.18.0.4', '172.18.0.1', '172.18.0.4', 30066), '10.244.2.5:80 from 172.18.0.1');
  assert.equal(on.dial(WIN22_POD, '10.96.0.66', 80), '10.244.2.5:80 from 10.244.2.9', 'ClusterIP with DSR: the pod\'s address');
  // Calico's start script turns DSR on.
  const calico = withClients({ network: { plugin: 'calico', mode: 'overlay' } });
  calico.services.push(service({ name: 'etpw', clusterIP: '10.96.0.66', nodePort: 30066, externalTrafficPolicy: 'Local' }));
  calico.slices.push(slice('etpw', [{ ip: '10.244.2.5', node: 'win22' }]));
  assert.equal(calico.dialOutside('172.18.0.4', '172.18.0.1', '172.18.0.4', 30066), '10.244.2.5:80 from 172.18.0.1');
});

test('sessionAffinity ClientIP: iptables pins for timeoutSeconds; HNS pins without timeout on Windows Server 2022 and not at all on 2019', () => {
  let now = 1_000_000;
  const draws: number[] = [];
  const m = withClients({ random: () => draws.shift() ?? 0.9, data: { now: () => now } });
  m.pod('lclient2', 'lin1', '10.244.0.6');
  m.services.push(service({ name: 'sticky', clusterIP: '10.96.0.67', sessionAffinity: 'ClientIP', timeoutSeconds: 60 }));
  m.slices.push(slice('sticky', [{ ip: '10.244.1.5', node: 'lin2' }, { ip: '10.244.1.6', node: 'lin2' }]));
  const backend = (from: string) => m.dial(from, '10.96.0.67', 80).split(' ')[0];
  draws.push(0.1);
  assert.equal(backend(LINUX_POD), '10.244.1.5:80');
  assert.equal(backend(LINUX_POD), '10.244.1.5:80', 'pinned');
  assert.equal(backend('10.244.0.6'), '10.244.1.6:80', 'another client is balanced on its own');
  now += 59_000;
  assert.equal(backend(LINUX_POD), '10.244.1.5:80', 'each connection refreshes the entry');
  now += 61_000;
  assert.equal(backend(LINUX_POD), '10.244.1.6:80', 'past timeoutSeconds: balanced again');

  draws.push(0.1);
  assert.equal(backend(WIN22_POD), '10.244.1.5:80');
  now += 86_400_000;
  assert.equal(backend(WIN22_POD), '10.244.1.5:80', 'Windows Server 2022: no timeout');
  assert.deepEqual(m.net.kubeProxyLog('win22'), []);
  draws.push(0.1, 0.9);
  assert.equal(backend(WIN19_POD), '10.244.1.5:80');
  assert.equal(backend(WIN19_POD), '10.244.1.6:80', 'Windows Server 2019: no affinity');
  assert.deepEqual(m.net.kubeProxyLog('win19'), ['"Session Affinity is not supported on this version of Windows"']);
});

test('a named targetPort: Linux uses each endpoint\'s port, Windows the first endpoint\'s for all', () => {
  const draws = [0.9, 0.9];
  const m = withClients({ random: () => draws.shift() ?? 0 });
  m.pod('b4', 'lin2', '10.244.1.7', [8080]);
  m.services.push(service({ name: 'named', clusterIP: '10.96.0.68', targetPort: 'http', portName: 'web' }));
  m.slices.push(slice('named', [{ ip: '10.244.2.5', node: 'win22', port: 80 }], 'web'), slice('named', [{ ip: '10.244.1.7', node: 'lin2', port: 8080 }], 'web'));
  m.slices[1]!.metadata.name = 'named-second';
  assert.equal(m.dial(LINUX_POD, '10.96.0.68', 80), '10.244.1.7:8080 from 10.244.0.5');
  assert.equal(m.dial(WIN22_POD, '10.96.0.68', 80), 'refused', 'the second endpoint on the first one\'s port: nothing listens on 10.244.1.7:80');
});

test('more than 64 ready endpoints: Windows nodes cannot program the Service, Linux nodes can', () => {
  const eps = (n: number) => Array.from({ length: n }, (_, i) => ({ ip: `10.244.1.${i === 0 ? 5 : 100 + i}`, node: 'lin2' }));
  for (const [n, windows] of [[64, '10.244.1.5:80 from 10.244.2.2'], [65, 'timeout']] as const) {
    const m = withClients();
    m.services.push(service({ name: 'big', clusterIP: '10.96.0.69' }));
    m.slices.push(slice('big', eps(n)));
    assert.equal(m.dial(LINUX_POD, '10.96.0.69', 80), '10.244.1.5:80 from 10.244.0.5', `${n} endpoints, Linux`);
    assert.equal(m.dial(WIN22_POD, '10.96.0.69', 80), windows, `${n} endpoints, Windows`);
    assert.deepEqual(m.net.kubeProxyLog('win22'), n === 65 ? ['"ClusterIP policy creation failed" err="hcnCreateLoadBalancer failed in Win32: The parameter is incorrect. (0x57) {\\"Success\\":false,\\"Error\\":\\"The parameter is incorrect. Unable to initialize VFP LB rule: invalid number of destinations.\\",\\"ErrorCode\\":2147942487}"'] : []);
  }
});

test('a pod reaching itself through its Service: Linux masquerades the hairpin', () => {
  const m = withClients();
  m.services.push(service({ name: 'self', clusterIP: '10.96.0.70' }));
  m.slices.push(slice('self', [{ ip: '10.244.1.5', node: 'lin2' }]));
  assert.equal(m.dial('10.244.1.5', '10.96.0.70', 80), '10.244.1.5:80 from 10.244.1.1');
});

test('Windows nodes on flannel VXLAN reach only their own pods; Linux nodes and other modes every pod', () => {
  const m = withClients();
  assert.equal(m.dial('172.18.0.4', '10.244.2.5', 80), '10.244.2.5:80 from 172.18.0.4');
  assert.equal(m.dial('172.18.0.4', '10.244.1.5', 80), 'timeout');
  assert.equal(m.dial('172.18.0.2', '10.244.1.5', 80), '10.244.1.5:80 from 10.244.0.0');
  assert.equal(m.dial(WIN22_POD, '10.244.1.5', 80), '10.244.1.5:80 from 10.244.2.9', 'pod to pod keeps the pod\'s address');
  const l2 = withClients({ network: { plugin: 'flannel', mode: 'l2bridge' } });
  assert.equal(l2.dial('172.18.0.4', '10.244.1.5', 80), '10.244.1.5:80 from 172.18.0.4');
});
