/**
 * The protobuf request decoder against request bodies captured from real kubectl
 * (test/unit/fixtures/protobuf/kubectl-requests.json) and hand-encoded messages for
 * the wire shapes kubectl's generators do not produce.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeProtobufObject, ProtobufEnvelopeError, ProtobufObjectError, UnknownKindError } from '../../src/protobuf/decode.js';
import { formatDuration } from '../../src/apimachinery/duration.js';
import { messageForKind, messageSpec } from '../../src/protobuf/descriptors.js';
import { decodeProtobufRequest } from '../../src/protobuf/request.js';
import { decodeObject } from '../../src/api/body.js';
import { StatusError } from '../../src/apimachinery/errors.js';

interface Capture {
  name: string;
  kubectl: string;
  command: string;
  method: string;
  path: string;
  body: string;
  json?: Record<string, unknown>;
}

const FIXTURES = new URL('../../../test/unit/fixtures/protobuf/kubectl-requests.json', import.meta.url);
const captures: Capture[] = JSON.parse(readFileSync(FIXTURES, 'utf8')).requests;

function capture(name: string): Capture {
  const c = captures.find((x) => x.name === name);
  assert.ok(c, `no capture ${name}`);
  return c;
}

/** The decoded object of a captured body. */
function decoded(name: string): any {
  return decodeProtobufObject(Buffer.from(capture(name).body, 'base64')).object;
}

// ---- a tiny protobuf encoder for hand-made vectors ----

function varint(v: number | bigint): Buffer {
  let n = BigInt.asUintN(64, BigInt(v));
  const out: number[] = [];
  do {
    let b = Number(n & 0x7fn);
    n >>= 7n;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return Buffer.from(out);
}
const tag = (field: number, wire: number) => varint(field * 8 + wire);
const num = (field: number, v: number | bigint) => Buffer.concat([tag(field, 0), varint(v)]);
const bytes = (field: number, b: Buffer) => Buffer.concat([tag(field, 2), varint(b.length), b]);
const str = (field: number, s: string) => bytes(field, Buffer.from(s, 'utf8'));
const msg = (field: number, ...parts: Buffer[]) => bytes(field, Buffer.concat(parts));
const entry = (field: number, key: string, value: Buffer) => msg(field, str(1, key), value);
const MAGIC = Buffer.from('k8s\0', 'latin1');

function envelope(apiVersion: string, kind: string, ...raw: Buffer[]): Buffer {
  return Buffer.concat([MAGIC, msg(1, str(1, apiVersion), str(2, kind)), bytes(2, Buffer.concat(raw)), str(3, ''), str(4, '')]);
}

// ---- captured kubectl requests ----

test('every captured kubectl request decodes to the JSON body kubectl 1.31 sent for the same command', () => {
  let compared = 0;
  for (const c of captures) {
    const out = decodeProtobufObject(Buffer.from(c.body, 'base64'));
    assert.equal(out.object.kind, out.kind, c.name);
    if (!c.json) continue;
    assert.deepEqual(out.object, c.json, `${c.name}: ${c.command}`);
    compared++;
  }
  assert.ok(compared >= 30, `compared ${compared}`);
});

test('the research note example: kubectl 1.33 create configmap --from-literal=a=b', () => {
  const body = Buffer.from('6b3873000a0f0a0276311209436f6e6669674d6170121f0a150a05636667706212001a0022002a003200380042' +
    '00120 60a01611201621a002200'.replace(/ /g, ''), 'hex');
  assert.deepEqual(decodeProtobufObject(body), {
    apiVersion: 'v1', kind: 'ConfigMap',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfgpb' }, data: { a: 'b' } },
  });
});

test('create configmap: data, empty values kept, binaryData as base64, empty metadata fields left out', () => {
  const o = decoded('configmap');
  assert.equal(o.apiVersion, 'v1');
  assert.equal(o.kind, 'ConfigMap');
  assert.deepEqual(o.metadata, { name: 'cm-vec' });
  assert.deepEqual(o.data, { a: 'b', empty: '' });
  assert.deepEqual(o.binaryData, { bin: Buffer.from([0, 1, 0xff, 0xfe, 0x62, 0x69, 0x6e]).toString('base64') });
  assert.equal('immutable' in o, false);
});

test('create secret generic and docker-registry: data bytes as base64, type', () => {
  const s = decoded('secret-generic');
  assert.equal(s.kind, 'Secret');
  assert.deepEqual(s.data, { pass: Buffer.from('s3cr3t').toString('base64'), user: Buffer.from('admin').toString('base64') });
  assert.equal('type' in s, false);
  const d = decoded('secret-docker-registry');
  assert.equal(d.type, 'kubernetes.io/dockerconfigjson');
  const cfg = JSON.parse(Buffer.from(d.data['.dockerconfigjson'], 'base64').toString());
  assert.equal(cfg.auths['registry.example.com'].username, 'u');
});

test('create namespace and serviceaccount', () => {
  assert.deepEqual(decoded('namespace'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns-vec' }, spec: {}, status: {} });
  assert.deepEqual(decoded('serviceaccount'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa-vec' } });
});

test('create deployment: the PodTemplateSpec tree, replicas as a pointer (0 kept)', () => {
  const d = decoded('deployment');
  assert.equal(d.apiVersion, 'apps/v1');
  assert.deepEqual(d.metadata, { name: 'dep-vec', labels: { app: 'dep-vec' } });
  assert.equal(d.spec.replicas, 3);
  assert.deepEqual(d.spec.selector, { matchLabels: { app: 'dep-vec' } });
  assert.deepEqual(d.spec.template.metadata, { labels: { app: 'dep-vec' } });
  assert.deepEqual(d.spec.template.spec.containers, [{ name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80 }], resources: {} }]);
  assert.deepEqual(d.spec.strategy, {});
  assert.deepEqual(d.status, {});
  assert.equal(decoded('deployment-zero').spec.replicas, 0);
  assert.deepEqual(decoded('deployment-command').spec.template.spec.containers[0].command, ['sleep', '3600']);
});

test('create job, cronjob and job --from=cronjob', () => {
  const j = decoded('job');
  assert.equal(j.apiVersion, 'batch/v1');
  assert.deepEqual(j.spec.template.spec, { containers: [{ name: 'job-vec', image: 'busybox', command: ['echo', 'hi'], resources: {} }], restartPolicy: 'Never' });
  const c = decoded('cronjob');
  assert.equal(c.spec.schedule, '*/5 * * * *');
  assert.equal(c.spec.jobTemplate.metadata.name, 'cj-vec');
  assert.equal(c.spec.jobTemplate.spec.template.spec.restartPolicy, 'OnFailure');
  const f = decoded('job-from-cronjob');
  assert.deepEqual(f.metadata.annotations, { 'cronjob.kubernetes.io/instantiate': 'manual' });
  assert.deepEqual(f.metadata.ownerReferences, [{
    kind: 'CronJob', name: 'cj-vec', uid: '9873223e-5829-4f6c-a521-b6a65d21a929', apiVersion: 'batch/v1', controller: true,
  }]);
  assert.equal(f.spec.template.spec.terminationGracePeriodSeconds, 30);
  assert.deepEqual(f.spec.template.spec.securityContext, {});
});

test('create service: ports with IntOrString targetPort, clusterIP None, nodePort, externalName', () => {
  const s = decoded('service-clusterip');
  assert.deepEqual(s.spec.ports, [
    { name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 },
    { name: '443-8443', protocol: 'TCP', port: 443, targetPort: 8443 },
  ]);
  assert.equal(s.spec.type, 'ClusterIP');
  assert.deepEqual(s.status, { loadBalancer: {} });
  assert.equal(decoded('service-headless').spec.clusterIP, 'None');
  assert.equal(decoded('service-nodeport').spec.ports[0].nodePort, 30080);
  assert.equal(decoded('service-loadbalancer').spec.type, 'LoadBalancer');
  const e = decoded('service-externalname').spec;
  assert.equal(e.type, 'ExternalName');
  assert.equal(e.externalName, 'example.com');
});

test('create priorityclass: value 0 kept (not omitempty), false globalDefault left out', () => {
  const p = decoded('priorityclass');
  assert.equal(p.apiVersion, 'scheduling.k8s.io/v1');
  assert.equal(p.value, 1000);
  assert.equal(p.description, 'vector class');
  assert.equal(p.preemptionPolicy, 'Never');
  const z = decoded('priorityclass-default');
  assert.equal(z.value, 0);
  assert.equal('globalDefault' in z, false);
});

test('create poddisruptionbudget: minAvailable as a string, maxUnavailable as an int', () => {
  const min = decoded('pdb-min');
  assert.equal(min.apiVersion, 'policy/v1');
  assert.equal(min.spec.minAvailable, '50%');
  assert.deepEqual(min.spec.selector, { matchLabels: { app: 'web' } });
  assert.deepEqual(min.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  assert.equal(decoded('pdb-max').spec.maxUnavailable, 1);
});

test('create quota: Quantity map values', () => {
  assert.deepEqual(decoded('quota').spec, { hard: { cpu: '1', memory: '1Gi', pods: '10' }, scopes: ['BestEffort'] });
});

test('RBAC, TokenRequest and the self-subject reviews', () => {
  assert.deepEqual(decoded('role').rules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'configmaps'], resourceNames: ['a'] }]);
  const rb = decoded('rolebinding');
  assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role-vec' });
  assert.equal(rb.subjects.length, 3);
  assert.deepEqual(decoded('clusterrole').rules, [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
  const t = decoded('token');
  assert.equal(t.apiVersion, 'authentication.k8s.io/v1');
  assert.deepEqual(t.spec, { audiences: ['api'], expirationSeconds: 600 });
  assert.deepEqual(t.status, { token: '' });
  const ssar = decoded('can-i');
  assert.deepEqual(ssar.spec, { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } });
  assert.deepEqual(ssar.status, { allowed: false });
  assert.deepEqual(decoded('can-i-list').spec, { namespace: 'default' });
  assert.deepEqual(decoded('whoami'), { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {}, status: { userInfo: {} } });
});

test('autoscale: autoscaling/v2 from kubectl 1.33, autoscaling/v1 from kubectl 1.32', () => {
  const v2 = decoded('autoscale');
  assert.equal(v2.apiVersion, 'autoscaling/v2');
  assert.deepEqual(v2.spec, {
    scaleTargetRef: { kind: 'Deployment', name: 'dep-vec', apiVersion: 'apps/v1' }, minReplicas: 2, maxReplicas: 5,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
  });
  assert.deepEqual(v2.status, { desiredReplicas: 0 });
  const v1 = decoded('autoscale-v1');
  assert.equal(v1.apiVersion, 'autoscaling/v1');
  assert.equal(v1.spec.targetCPUUtilizationPercentage, 80);
  assert.deepEqual(v1.status, { currentReplicas: 0, desiredReplicas: 0 });
});

test('debug pods: projected volumes, tolerations, pointers to zero, host namespaces', () => {
  const p = decoded('debug-copy').spec;
  assert.deepEqual(p.volumes[0].projected.sources[0], { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } });
  assert.equal(p.volumes[0].projected.defaultMode, 420);
  assert.deepEqual(p.tolerations[0], { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  assert.equal(p.priority, 0);
  assert.equal(p.shareProcessNamespace, true);
  assert.equal(p.enableServiceLinks, true);
  const n = decoded('debug-node').spec;
  assert.deepEqual(n.volumes, [{ name: 'host-root', hostPath: { path: '/' } }]);
  assert.equal(n.hostPID, true);
  assert.deepEqual(n.containers[0].securityContext, { privileged: true });
});

test('drain --disable-eviction: a DeleteOptions body', () => {
  assert.deepEqual(decoded('drain-delete'), { apiVersion: 'v1', kind: 'DeleteOptions' });
});

// ---- hand-encoded vectors ----

test('DeleteOptions: pointer zero values, repeated dryRun, preconditions; under any group version', () => {
  const body = envelope('apps/v1', 'DeleteOptions', num(1, 0), msg(2, str(1, 'u-1')), str(4, 'Foreground'), str(5, 'All'), num(3, 0));
  assert.deepEqual(decodeProtobufObject(body).object, {
    apiVersion: 'apps/v1', kind: 'DeleteOptions',
    gracePeriodSeconds: 0, preconditions: { uid: 'u-1' }, orphanDependents: false, propagationPolicy: 'Foreground', dryRun: ['All'],
  });
});

test('Eviction with deleteOptions', () => {
  const body = envelope('policy/v1', 'Eviction', msg(1, str(1, 'web-0'), str(3, 'default')), msg(2, num(1, 30)));
  assert.deepEqual(decodeProtobufObject(body).object, {
    apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-0', namespace: 'default' }, deleteOptions: { gracePeriodSeconds: 30 },
  });
});

test('inline embedded structs: Probe handler, Volume source, LocalObjectReference', () => {
  const container = Buffer.concat([
    str(1, 'app'),
    // livenessProbe = 10 {handler(ProbeHandler) = 1 {httpGet = 2 {path = 1, port(IntOrString) = 2 {type 1, strVal "http"}}}, periodSeconds = 4}
    msg(10, msg(1, msg(2, str(1, '/healthz'), msg(2, num(1, 1), num(2, 0), str(3, 'http')))), num(4, 10)),
    // env = 7 {name, valueFrom = 3 {configMapKeyRef = 3 {localObjectReference = 1 {name}, key = 2}}}
    msg(7, str(1, 'MODE'), msg(3, msg(3, msg(1, str(1, 'cfg')), str(2, 'mode')))),
  ]);
  // volumes = 1 {name = 1, volumeSource = 2 {emptyDir = 2 {sizeLimit(Quantity) = 2 {string = 1}}}}
  const volume = Buffer.concat([str(1, 'scratch'), msg(2, msg(2, msg(2, str(1, '1Gi'))))]);
  const body = envelope('v1', 'Pod', msg(1, str(1, 'p')), msg(2, msg(1, volume), msg(2, container)));
  const o = decodeProtobufObject(body).object as any;
  assert.deepEqual(o.spec.volumes, [{ name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }]);
  assert.deepEqual(o.spec.containers[0].livenessProbe, { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 });
  assert.deepEqual(o.spec.containers[0].env, [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'mode' } } }]);
});

test('Time as RFC 3339 seconds, MicroTime with microseconds, empty Time left out', () => {
  const meta = msg(1, str(1, 'l'), msg(8, num(1, 1700000000), num(2, 123456789)), msg(9, num(1, 0)), num(10, 0));
  // Lease spec: holderIdentity = 1, leaseDurationSeconds = 2, acquireTime = 3, renewTime = 4 (empty)
  const spec = msg(2, str(1, 'me'), num(2, 15), msg(3, num(1, 1700000000), num(2, 123456789)), msg(4));
  const o = decodeProtobufObject(envelope('coordination.k8s.io/v1', 'Lease', meta, spec)).object as any;
  assert.deepEqual(o.metadata, {
    name: 'l', creationTimestamp: '2023-11-14T22:13:20Z', deletionTimestamp: '1970-01-01T00:00:00Z', deletionGracePeriodSeconds: 0,
  });
  assert.deepEqual(o.spec, { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: '2023-11-14T22:13:20.123456Z' });
});

test('managedFields FieldsV1 and ControllerRevision RawExtension as raw JSON', () => {
  const fields = Buffer.from('{"f:data":{"f:a":{}}}');
  const meta = msg(1, str(1, 'r'), msg(17, str(1, 'kubectl'), str(2, 'Update'), str(3, 'v1'), str(6, 'FieldsV1'), msg(7, bytes(1, fields))));
  const o = decodeProtobufObject(envelope('apps/v1', 'ControllerRevision', meta, msg(2, bytes(1, Buffer.from('{"spec":{"x":1}}'))), num(3, 2))).object as any;
  assert.deepEqual(o.metadata.managedFields, [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }]);
  assert.deepEqual(o.data, { spec: { x: 1 } });
  assert.equal(o.revision, 2);
});

test('SubjectAccessReview extra (ExtraValue) as string lists', () => {
  const spec = msg(2, str(3, 'alice'), str(4, 'devs'), entry(5, 'scopes', Buffer.concat([msg(2, str(1, 'a'), str(1, 'b'))])));
  const o = decodeProtobufObject(envelope('authorization.k8s.io/v1', 'SubjectAccessReview', msg(1), spec)).object as any;
  assert.deepEqual(o.spec, { user: 'alice', groups: ['devs'], extra: { scopes: ['a', 'b'] } });
});

test('negative int32, packed repeated int64, a message field given twice merges, unknown fields skipped', () => {
  // PodSecurityContext: runAsUser = 2 (int64), supplementalGroups = 4 (repeated int64, here packed)
  const packed = Buffer.concat([varint(1), varint(2), varint(3000)]);
  const sc = Buffer.concat([num(2, 0), bytes(4, packed), num(4, 7)]);
  const spec = Buffer.concat([
    msg(14, sc), num(25, -5), str(99, 'unknown'), num(98, 1),
    msg(2, str(1, 'c')), // containers
    msg(18, msg(1)), // affinity {nodeAffinity {}}
    msg(18, msg(2)), // affinity again: {podAffinity {}} merges
  ]);
  const o = decodeProtobufObject(envelope('v1', 'Pod', msg(1, str(1, 'p')), msg(2, spec))).object as any;
  assert.deepEqual(o.spec.securityContext, { runAsUser: 0, supplementalGroups: [1, 2, 3000, 7] });
  assert.equal(o.spec.priority, -5);
  assert.deepEqual(o.spec.affinity, { nodeAffinity: {}, podAffinity: {} });
  assert.deepEqual(o.spec.containers, [{ name: 'c' }]);
});

test('Scale and Binding, the subresource bodies', () => {
  const scale = decodeProtobufObject(envelope('autoscaling/v1', 'Scale', msg(1, str(1, 'web')), msg(2, num(1, 4)))).object;
  assert.deepEqual(scale, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 4 } });
  const binding = decodeProtobufObject(envelope('v1', 'Binding', msg(1, str(1, 'p')), msg(2, str(1, 'Node'), str(3, 'n1')))).object;
  assert.deepEqual(binding, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
});

test('an empty typeMeta takes the expected kind and its apiVersion', () => {
  const body = Buffer.concat([MAGIC, msg(1), bytes(2, msg(1, str(1, 'x')))]);
  assert.deepEqual(decodeProtobufObject(body, { kind: 'ConfigMap' }).object, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
});

test('Go duration strings', () => {
  assert.equal(formatDuration(0n), '0s');
  assert.equal(formatDuration(1_500_000_000n), '1.5s');
  assert.equal(formatDuration(3_600_000_000_000n), '1h0m0s');
  assert.equal(formatDuration(90_000_000_000n), '1m30s');
  assert.equal(formatDuration(1500n), '1.5µs');
  assert.equal(formatDuration(-2_000_000n), '-2ms');
});

test('descriptor facts agree with upstream generated.proto', () => {
  const fields = (m: string) => [...messageSpec(m)!.values()].map((f) => `${f.number}:${f.name}`);
  assert.deepEqual(fields('core.v1.ConfigMap'), ['1:metadata', '2:data', '3:binaryData', '4:immutable']);
  assert.deepEqual(fields('apps.v1.DeploymentSpec'), ['1:replicas', '2:selector', '3:template', '4:strategy', '5:minReadySeconds',
    '6:revisionHistoryLimit', '7:paused', '9:progressDeadlineSeconds']);
  assert.deepEqual(fields('meta.v1.ObjectMeta').slice(7), ['8:creationTimestamp', '9:deletionTimestamp', '10:deletionGracePeriodSeconds',
    '11:labels', '12:annotations', '13:ownerReferences', '14:finalizers', '17:managedFields']);
  assert.equal(messageForKind('v1', 'ConfigMap'), 'core.v1.ConfigMap');
  assert.equal(messageForKind('batch/v1', 'DeleteOptions'), 'meta.v1.DeleteOptions');
  for (const [v, k] of [['v1', 'Secret'], ['v1', 'Namespace'], ['apps/v1', 'Deployment'], ['batch/v1', 'Job'], ['batch/v1', 'CronJob'],
    ['v1', 'Service'], ['v1', 'ServiceAccount'], ['policy/v1', 'PodDisruptionBudget'], ['scheduling.k8s.io/v1', 'PriorityClass'],
    ['autoscaling/v1', 'HorizontalPodAutoscaler'], ['autoscaling/v2', 'HorizontalPodAutoscaler'], ['v1', 'Pod'], ['policy/v1', 'Eviction'],
    ['authentication.k8s.io/v1', 'TokenRequest'], ['authorization.k8s.io/v1', 'SelfSubjectAccessReview'],
    ['authorization.k8s.io/v1', 'SelfSubjectRulesReview'], ['authentication.k8s.io/v1', 'SelfSubjectReview'],
    ['rbac.authorization.k8s.io/v1', 'Role'], ['rbac.authorization.k8s.io/v1', 'RoleBinding']] as const) {
    assert.ok(messageForKind(v, k), `${v} ${k}`);
  }
});

// ---- errors ----

function wireError(body: Buffer): Error {
  try {
    decodeProtobufObject(body);
  } catch (e) {
    return e as Error;
  }
  assert.fail('expected a decoding error');
}

test('malformed bodies: errors worded as the serializer and the generated Unmarshal word them', () => {
  assert.equal(wireError(Buffer.alloc(0)).message, 'empty data');
  const notPb = wireError(Buffer.from('{"kind":"ConfigMap"}'));
  assert.ok(notPb instanceof ProtobufEnvelopeError);
  assert.equal(notPb.message, 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  assert.equal(wireError(MAGIC).message, 'empty body');
  const cm = capture('configmap');
  const full = Buffer.from(cm.body, 'base64');
  const truncated = wireError(full.subarray(0, full.length - 30));
  assert.ok(truncated instanceof ProtobufEnvelopeError);
  assert.equal(truncated.message, 'unexpected EOF');
  const badRaw = wireError(envelope('v1', 'ConfigMap', msg(1, str(1, 'x')).subarray(0, 3)));
  assert.ok(badRaw instanceof ProtobufObjectError);
  assert.equal(badRaw.message, 'unexpected EOF');
  assert.equal(wireError(envelope('v1', 'ConfigMap', num(2, 1))).message, 'proto: wrong wireType = 0 for field Data');
  assert.equal(wireError(envelope('v1', 'ConfigMap', msg(1, num(1, 5)))).message, 'proto: wrong wireType = 0 for field Name');
  assert.equal(wireError(envelope('v1', 'ConfigMap', Buffer.from([0x00]))).message, 'proto: ConfigMap: illegal tag 0 (wire type 0)');
  assert.equal(wireError(envelope('v1', 'ConfigMap', Buffer.from([0x0c]))).message, 'proto: ConfigMap: wiretype end group for non-group');
  assert.equal(wireError(envelope('v1', 'ConfigMap', Buffer.from([0x78, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])))
    .message, 'proto: integer overflow');
  assert.ok(wireError(envelope('example.com/v1', 'Widget')) instanceof UnknownKindError);
});

function statusOf(f: () => unknown): { code: number; reason?: string; message?: string } {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return e.status;
  }
  assert.fail('expected a StatusError');
}

test('request bodies: 400 with transformDecodeError wording, kind mismatches left to the type check', () => {
  const full = Buffer.from(capture('configmap').body, 'base64');
  const broken = full.subarray(0, full.length - 30);
  const s1 = statusOf(() => decodeProtobufRequest(broken, 'ConfigMap'));
  assert.equal(s1.code, 400);
  assert.equal(s1.reason, 'BadRequest');
  assert.equal(s1.message, `the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (${broken.subarray(0, 30).toString('hex')} ...)`);
  const s2 = statusOf(() => decodeProtobufRequest(envelope('apps/v1', 'Deployment', num(2, 1)), 'Deployment'));
  assert.equal(s2.message, 'Deployment in version "v1" cannot be handled as a Deployment: proto: wrong wireType = 0 for field Spec');
  const s3 = statusOf(() => decodeProtobufRequest(Buffer.alloc(0), 'Secret'));
  assert.equal(s3.message, 'the object provided is unrecognized (must be of type Secret): empty data (<empty>)');
  const s4 = statusOf(() => decodeProtobufRequest(Buffer.from('{"a":1}'), 'Secret'));
  assert.equal(s4.message, 'the object provided is unrecognized (must be of type Secret): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"a":1})');
  // Another known kind decodes fully; the handler's type check then answers as for JSON.
  assert.equal((decodeProtobufRequest(full, 'Secret') as any).kind, 'ConfigMap');
  assert.deepEqual(decodeProtobufRequest(envelope('example.com/v1', 'Widget'), 'Secret'), { apiVersion: 'example.com/v1', kind: 'Widget' });
  const s5 = statusOf(() => decodeProtobufRequest(envelope('example.com/v1', 'Widget'), 'Widget'));
  assert.equal(s5.code, 415);
});

test('decodeObject routes application/vnd.kubernetes.protobuf to the decoder', () => {
  const body = Buffer.from(capture('namespace').body, 'base64');
  assert.deepEqual(decodeObject(body, 'application/vnd.kubernetes.protobuf', 'Namespace'),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns-vec' }, spec: {}, status: {} });
});

test('MutatingWebhookConfiguration, as client-go sends it in protobuf: webhooks with their inlined rule and pointer fields', () => {
  const rule = msg(2, str(1, ''), str(2, 'v1'), str(3, 'configmaps'));
  const webhook = msg(2, str(1, 'm.example.com'), msg(2, str(3, 'https://127.0.0.1:8443/mutate')), msg(3, str(1, 'CREATE'), rule),
    str(4, 'Fail'), str(6, 'None'), num(7, 10), str(8, 'v1'));
  const body = envelope('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', msg(1, str(1, 'm')), webhook);
  assert.deepEqual(decodeProtobufRequest(body, 'MutatingWebhookConfiguration'), {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' },
    webhooks: [{
      name: 'm.example.com', clientConfig: { url: 'https://127.0.0.1:8443/mutate' },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      failurePolicy: 'Fail', sideEffects: 'None', timeoutSeconds: 10, admissionReviewVersions: ['v1'],
    }],
  });
});
