/** Service validation (pkg/apis/core/validation ValidateService and ValidateServiceUpdate, v1.32). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { defaultService, services } from '../../src/registry/core/services.js';
import { normalizeClusterIPs } from '../../src/registry/core/service-alloc.js';

const msgs = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);

/** A service as the registry validates it: defaulted, clusterIPs synced, families set. */
function svc(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): any {
  const s: any = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'ns', ...meta }, spec: structuredClone(spec) };
  defaultService(s);
  normalizeClusterIPs(s);
  if (s.spec.type !== 'ExternalName') {
    s.spec.ipFamilyPolicy ??= 'SingleStack';
    s.spec.ipFamilies ??= ['IPv4'];
  }
  return s;
}
const validate = (s: any) => msgs(services.validate!(s));

test('a plain ClusterIP service is valid', () => {
  assert.deepEqual(validate(svc({ selector: { app: 'web' }, ports: [{ port: 80 }] })), []);
});

test('ports are required except for headless and ExternalName services', () => {
  assert.deepEqual(validate(svc({ selector: { app: 'web' } })), ['spec.ports: Required value']);
  assert.deepEqual(validate(svc({ clusterIP: 'None', selector: { app: 'web' } })), []);
});

test('several ports need names, unique and DNS labels', () => {
  assert.deepEqual(validate(svc({ ports: [{ port: 80 }, { name: 'Web', port: 81 }, { name: 'Web', port: 82 }] })), [
    'spec.ports[0].name: Required value',
    "spec.ports[1].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    "spec.ports[2].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    'spec.ports[2].name: Duplicate value: "Web"',
  ]);
});

test('port numbers, protocols and target port names', () => {
  assert.deepEqual(validate(svc({ ports: [{ port: 70000, protocol: 'HTTP', targetPort: 'http--x' }] })), [
    'spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
    'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    'spec.ports[0].targetPort: Invalid value: "http--x": must not contain consecutive hyphens',
  ]);
});

test('duplicate port/protocol pairs print the Go struct key', () => {
  assert.deepEqual(validate(svc({ ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] })), [
    'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
  ]);
});

test('type: unsupported values are listed sorted', () => {
  assert.deepEqual(validate(svc({ type: 'Internal', ports: [{ port: 80 }] })), [
    'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
  ]);
});

test('ExternalName: externalName required, a DNS subdomain (trailing dot allowed)', () => {
  assert.deepEqual(validate(svc({ type: 'ExternalName' })), ['spec.externalName: Required value']);
  assert.deepEqual(validate(svc({ type: 'ExternalName', externalName: 'db.example.com.' })), []);
  assert.match(validate(svc({ type: 'ExternalName', externalName: 'db_1.example.com' }))[0] ?? '',
    /^spec\.externalName: Invalid value: "db_1\.example\.com": a lowercase RFC 1123 subdomain/);
});

test('headless NodePort and LoadBalancer services are refused, as is the kubelet port', () => {
  assert.deepEqual(validate(svc({ type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] })),
    ["spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services"]);
  assert.deepEqual(validate(svc({ type: 'LoadBalancer', ports: [{ port: 10250 }] })),
    ['spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet']);
});

test('nodePort is forbidden for ClusterIP services; duplicates are caught per protocol', () => {
  assert.deepEqual(validate(svc({ ports: [{ port: 80, nodePort: 30080 }] })),
    ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
  assert.deepEqual(validate(svc({ type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30080 }, { name: 'b', port: 81, nodePort: 30080 }] })),
    ['spec.ports[1].nodePort: Duplicate value: 30080']);
});

test('session affinity ClientIP timeout bounds', () => {
  assert.deepEqual(validate(svc({ ports: [{ port: 80 }], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } } })),
    ['spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400']);
});

test('externalIPs must be valid, non-special addresses', () => {
  assert.deepEqual(validate(svc({ ports: [{ port: 80 }], externalIPs: ['1.2.3', '127.0.0.1'] })), [
    'spec.externalIPs[0]: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'spec.externalIPs[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  ]);
});

test('loadBalancerSourceRanges only for LoadBalancer, upstream spells the path with a capital L', () => {
  assert.deepEqual(validate(svc({ ports: [{ port: 80 }], loadBalancerSourceRanges: ['10.0.0.0/8'] })),
    ["spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'"]);
});

test('clusterIP must be a valid IP', () => {
  assert.deepEqual(validate(svc({ ports: [{ port: 80 }], clusterIP: '10.96.0.300' })),
    ['spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
});

test('update: the cluster IP may not change; ValidateService runs again', () => {
  const old = svc({ ports: [{ port: 80 }], clusterIP: '10.96.0.10' });
  const next = svc({ ports: [{ port: 80 }], clusterIP: '10.96.0.11' });
  assert.deepEqual(msgs(services.validateUpdate!(next, old)),
    ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']);
});

test('update allocation: a requested node port must be free and in range; a missing one is allocated', async () => {
  const { allocateServiceUpdate } = await import('../../src/registry/core/service-alloc.js');
  const holder: any = { metadata: { name: 'a', namespace: 'ns', uid: 'ua' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] } };
  const lookup: any = { get: async () => undefined, listAll: async () => [holder] };
  const old: any = svc({ ports: [{ port: 80 }] });
  old.metadata.uid = 'ub';
  const attempt = async (spec: Record<string, unknown>) => {
    const next = svc(spec);
    next.metadata.uid = 'ub';
    try {
      (await allocateServiceUpdate(next, old, lookup, false))(true);
      return next;
    } catch (e: any) {
      return e.status.message as string;
    }
  };
  assert.equal(await attempt({ type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }),
    'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 31000: provided port is already allocated');
  assert.equal(await attempt({ type: 'NodePort', ports: [{ port: 80, nodePort: 40000 }] }),
    'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 40000: provided port is not in the valid range. The range of valid ports is 30000-32767');
  const ok: any = await attempt({ type: 'NodePort', ports: [{ port: 80 }] });
  assert.ok(ok.spec.ports[0].nodePort >= 30000 && ok.spec.ports[0].nodePort <= 32767 && ok.spec.ports[0].nodePort !== 31000);
});
