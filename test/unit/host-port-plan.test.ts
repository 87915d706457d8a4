/**
 * Which Services `--expose` and the winkube.io/expose annotation put on
 * 127.0.0.1: NodePorts on their nodePort, LoadBalancers on their port once
 * they have an ingress IP, TCP only; one Service per host port, the holder
 * keeping it, else the oldest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service, ServicePort } from 'kubernetes-types/core/v1.js';
import { planHostPorts, serviceExposures, type Exposure } from '../../src/network/host-port-plan.js';

const svc = (name: string, type: string, ports: ServicePort[], opts: { created?: string; ip?: string; annotation?: string; ns?: string } = {}): Service => ({
  metadata: {
    namespace: opts.ns ?? 'default', name, creationTimestamp: opts.created ?? '2026-01-01T00:00:00Z',
    ...(opts.annotation !== undefined ? { annotations: { 'winkube.io/expose': opts.annotation } } : {}),
  },
  spec: { type, clusterIP: '10.96.0.10', ports },
  ...(opts.ip ? { status: { loadBalancer: { ingress: [{ ip: opts.ip }] } } } : {}),
});

/** host port → "ns/name kind target" */
const summary = (m: Map<number, Exposure>) => Object.fromEntries([...m].map(([p, e]) =>
  [p, `${e.namespace}/${e.name} ${e.target.kind === 'NodePort' ? `NodePort ${e.target.nodePort} port ${e.target.port}` : `LoadBalancer ${e.target.ip}:${e.target.port}`}`]));

test('what a Service asks for: NodePorts on their nodePort, LoadBalancers on their port (TCP, once they have an ingress IP), nothing else', () => {
  const cases: [string, Service, boolean, string[]][] = [
    ['NodePort, --expose', svc('np', 'NodePort', [{ port: 80, nodePort: 30080 }, { port: 53, nodePort: 30053, protocol: 'UDP' }]), true, ['30080 NodePort 30080 port 80']],
    ['NodePort, no --expose, no annotation', svc('np', 'NodePort', [{ port: 80, nodePort: 30080 }]), false, []],
    ['NodePort, annotated true', svc('np', 'NodePort', [{ port: 80, nodePort: 30080 }], { annotation: 'true' }), false, ['30080 NodePort 30080 port 80']],
    ['NodePort, annotated false under --expose', svc('np', 'NodePort', [{ port: 80, nodePort: 30080 }], { annotation: 'false' }), true, []],
    ['LoadBalancer with its ingress IP', svc('lb', 'LoadBalancer', [{ port: 8080, nodePort: 31000 }, { port: 8443, nodePort: 31001, protocol: 'TCP' }], { ip: '172.18.255.200' }), true,
      ['8080 LoadBalancer 172.18.255.200:8080', '8443 LoadBalancer 172.18.255.200:8443']],
    ['LoadBalancer still pending', svc('lb', 'LoadBalancer', [{ port: 8080, nodePort: 31000 }]), true, []],
    ['ClusterIP', svc('c', 'ClusterIP', [{ port: 80 }]), true, []],
    ['ClusterIP annotated true', svc('c', 'ClusterIP', [{ port: 80 }], { annotation: 'true' }), false, []],
  ];
  for (const [what, s, all, want] of cases) {
    const got = serviceExposures(s, all).map((e) => `${e.hostPort} ${e.target.kind === 'NodePort' ? `NodePort ${e.target.nodePort} port ${e.target.port}` : `LoadBalancer ${e.target.ip}:${e.target.port}`}`);
    assert.deepEqual(got, want, what);
  }
});

test('two LoadBalancers on one port: the oldest gets it, the other is refused naming the holder; the holder keeps it when an older one arrives', () => {
  const older = svc('older', 'LoadBalancer', [{ port: 8080 }], { ip: '172.18.255.201', created: '2026-01-01T00:00:00Z' });
  const newer = svc('newer', 'LoadBalancer', [{ port: 8080 }], { ip: '172.18.255.202', created: '2026-01-02T00:00:00Z' });
  const first = planHostPorts([newer, older], true, new Map());
  assert.deepEqual(summary(first.exposed), { 8080: 'default/older LoadBalancer 172.18.255.201:8080' });
  assert.deepEqual(first.refused.map((r) => `${r.exposure.name} held by ${r.heldBy.name}`), ['newer held by older']);
  // newer holds the port (older was not there yet): it keeps it.
  const held = new Map([[8080, serviceExposures(newer, true)[0]!]]);
  const second = planHostPorts([older, newer], true, held);
  assert.deepEqual(summary(second.exposed), { 8080: 'default/newer LoadBalancer 172.18.255.202:8080' });
  assert.deepEqual(second.refused.map((r) => `${r.exposure.name} held by ${r.heldBy.name}`), ['older held by newer']);
  // The holder gone, the one left out gets the port.
  assert.deepEqual(summary(planHostPorts([older], true, held).exposed), { 8080: 'default/older LoadBalancer 172.18.255.201:8080' });
});

test('the same instant: namespace and name decide, whatever the list order', () => {
  const a = svc('a', 'LoadBalancer', [{ port: 80 }], { ip: '172.18.255.201', ns: 'x' });
  const b = svc('a', 'LoadBalancer', [{ port: 80 }], { ip: '172.18.255.202', ns: 'w' });
  assert.deepEqual(summary(planHostPorts([a, b], true, new Map()).exposed), { 80: 'w/a LoadBalancer 172.18.255.202:80' });
  assert.deepEqual(summary(planHostPorts([b, a], true, new Map()).exposed), { 80: 'w/a LoadBalancer 172.18.255.202:80' });
});

test('a NodePort and a LoadBalancer port share the host port space; a holder whose ingress IP changed keeps its port with the new target', () => {
  const np = svc('np', 'NodePort', [{ port: 80, nodePort: 30080 }], { created: '2026-01-02T00:00:00Z' });
  const lb = svc('lb', 'LoadBalancer', [{ port: 30080 }], { ip: '172.18.255.200', created: '2026-01-01T00:00:00Z' });
  const plan = planHostPorts([np, lb], true, new Map());
  assert.deepEqual(summary(plan.exposed), { 30080: 'default/lb LoadBalancer 172.18.255.200:30080' });
  assert.deepEqual(plan.refused.map((r) => r.exposure.name), ['np']);
  const held = new Map([[30080, serviceExposures(lb, true)[0]!]]);
  const moved = svc('lb', 'LoadBalancer', [{ port: 30080 }], { ip: '172.18.255.210', created: '2026-01-01T00:00:00Z' });
  assert.deepEqual(summary(planHostPorts([np, moved], true, held).exposed), { 30080: 'default/lb LoadBalancer 172.18.255.210:30080' });
});
