/**
 * The malformed-input corpus of body decoding: every create, update and patch
 * body is decoded against its kind's Go type before anything else, as the API
 * server's JSON decoder does (k8s.io/apimachinery serializer/json,
 * sigs.k8s.io/json), and bodies nested past 10000 levels get the decoder's
 * max-depth error. Each case asserts the status, the Status message and that
 * nothing was stored.
 */
import { after, before, test } from 'node:test';
import { raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

let cluster: TestCluster;
const NS = 'decode';
before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
  await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'base' }, data: { a: 'b' } });
  await rawJSON(cluster, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments`, deployment('base'));
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const CM = `/api/v1/namespaces/${NS}/configmaps`;
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const SERVICES = `/api/v1/namespaces/${NS}/services`;
const RCS = `/api/v1/namespaces/${NS}/replicationcontrollers`;
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const STATEFULSETS = `/apis/apps/v1/namespaces/${NS}/statefulsets`;
const REPLICASETS = `/apis/apps/v1/namespaces/${NS}/replicasets`;
const JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;
const CRONJOBS = `/apis/batch/v1/namespaces/${NS}/cronjobs`;
const HPAS = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`;
const PDBS = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;
const PRIORITYCLASSES = '/apis/scheduling.k8s.io/v1/priorityclasses';

const LABELS = { app: 'decode' };
const podSpec = () => ({ containers: [{ name: 'c', image: 'nginx' }] as Record<string, unknown>[] });
const template = () => ({ metadata: { labels: LABELS }, spec: podSpec() });
function deployment(name: string, spec: Record<string, unknown> = {}) {
  return { metadata: { name }, spec: { selector: { matchLabels: LABELS }, template: template(), ...spec } };
}

/** A body whose "@" placeholder string is replaced by the literal JSON text given (a number Go and JSON.parse read apart). */
function withLiteral(body: unknown, literal: string): string {
  return JSON.stringify(body).replace('"@"', literal);
}

const cannotHandle = (kind: string, version: string, err: string) => `${kind} in version "${version}" cannot be handled as a ${kind}: ${err}`;

/** transformDecodeError's summary of a body: its first 30 bytes, as text for JSON objects and hex otherwise. */
function summary(body: string): string {
  const b = Buffer.from(body);
  const head = b.subarray(0, 30);
  const text = b[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return b.length > 30 ? `${text} ...` : text;
}

const cases: MalformedCase[] = [];

/** A create whose body does not decode into the kind's type. */
function create(name: string, path: string, kind: string, version: string, objName: string, body: string, err: string, contentType?: string): void {
  cases.push({ name, method: 'POST', path, body, contentType, status: 400, reason: 'BadRequest', message: cannotHandle(kind, version, err), absent: `${path}/${objName}` });
}

/** A create that decodes: the bound or literal is accepted. */
function accepted(name: string, path: string, objName: string, body: string): void {
  cases.push({ name, method: 'POST', path, body, status: 201 });
  void objName;
}

const field = (struct: string, path: string, what: string, type: string) => `json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${type}`;

// Wrong JSON types and numbers their Go type cannot hold: the reported shapes.
create('ConfigMap data given a string', CM, 'ConfigMap', 'v1', 'c1', '{"metadata":{"name":"c1"},"data":"notamap"}', field('ConfigMap', 'data', 'string', 'map[string]string'));
create('ConfigMap data value given a number', CM, 'ConfigMap', 'v1', 'c2', '{"metadata":{"name":"c2"},"data":{"a":1}}', field('ConfigMap', 'data', 'number', 'string'));
create('metadata.name given a number', CM, 'ConfigMap', 'v1', 'c3', '{"metadata":{"name":22},"data":{}}', field('ObjectMeta', 'metadata.name', 'number', 'string'));
create('metadata.labels given a list', CM, 'ConfigMap', 'v1', 'c4', '{"metadata":{"name":"c4","labels":["a"]}}', field('ObjectMeta', 'metadata.labels', 'array', 'map[string]string'));
create('metadata.generation 1e400', CM, 'ConfigMap', 'v1', 'c5', '{"metadata":{"name":"c5","generation":1e400}}', field('ObjectMeta', 'metadata.generation', 'number 1e400', 'int64'));
create('Deployment replicas given a string', DEPLOYMENTS, 'Deployment', 'v1', 'd1', withLiteral(deployment('d1', { replicas: '@' }), '"3"'), field('DeploymentSpec', 'spec.replicas', 'string', 'int32'));
create('Deployment replicas 1.5', DEPLOYMENTS, 'Deployment', 'v1', 'd2', withLiteral(deployment('d2', { replicas: '@' }), '1.5'), field('DeploymentSpec', 'spec.replicas', 'number 1.5', 'int32'));
create('Deployment replicas 1e20', DEPLOYMENTS, 'Deployment', 'v1', 'd3', withLiteral(deployment('d3', { replicas: '@' }), '1e20'), field('DeploymentSpec', 'spec.replicas', 'number 1e20', 'int32'));
create('Deployment replicas 100000000000000000000', DEPLOYMENTS, 'Deployment', 'v1', 'd4', withLiteral(deployment('d4', { replicas: '@' }), '100000000000000000000'),
  field('DeploymentSpec', 'spec.replicas', 'number 100000000000000000000', 'int32'));
create('Deployment replicas 1.0 (an integer written as a float)', DEPLOYMENTS, 'Deployment', 'v1', 'd5', withLiteral(deployment('d5', { replicas: '@' }), '1.0'), field('DeploymentSpec', 'spec.replicas', 'number 1.0', 'int32'));
create('YAML !!binary for the data map', CM, 'ConfigMap', 'v1', 'y1', 'metadata: {name: y1}\ndata: !!binary aGVsbG8=\n', field('ConfigMap', 'data', 'string', 'map[string]string'), 'application/yaml');
create('YAML replicas quoted', DEPLOYMENTS, 'Deployment', 'v1', 'y2',
  'metadata: {name: y2}\nspec:\n  replicas: "3"\n  selector: {matchLabels: {app: decode}}\n  template: {metadata: {labels: {app: decode}}, spec: {containers: [{name: c, image: nginx}]}}\n',
  field('DeploymentSpec', 'spec.replicas', 'string', 'int32'), 'application/yaml');
create('YAML replicas 1.5', DEPLOYMENTS, 'Deployment', 'v1', 'y3',
  'metadata: {name: y3}\nspec:\n  replicas: 1.5\n  selector: {matchLabels: {app: decode}}\n  template: {metadata: {labels: {app: decode}}, spec: {containers: [{name: c, image: nginx}]}}\n',
  field('DeploymentSpec', 'spec.replicas', 'number 1.5', 'int32'), 'application/yaml');

// Neighbours: every JSON type into every kind of Go type.
create('ConfigMap data value given a bool', CM, 'ConfigMap', 'v1', 'c6', '{"metadata":{"name":"c6"},"data":{"a":true}}', field('ConfigMap', 'data', 'bool', 'string'));
create('ConfigMap data value given an object', CM, 'ConfigMap', 'v1', 'c7', '{"metadata":{"name":"c7"},"data":{"a":{}}}', field('ConfigMap', 'data', 'object', 'string'));
create('ConfigMap data given a list', CM, 'ConfigMap', 'v1', 'c8', '{"metadata":{"name":"c8"},"data":[]}', field('ConfigMap', 'data', 'array', 'map[string]string'));
create('ConfigMap immutable given a string', CM, 'ConfigMap', 'v1', 'c9', '{"metadata":{"name":"c9"},"immutable":"true"}', field('ConfigMap', 'immutable', 'string', 'bool'));
create('ConfigMap binaryData not base64', CM, 'ConfigMap', 'v1', 'c10', '{"metadata":{"name":"c10"},"binaryData":{"a":"!!"}}', 'illegal base64 data at input byte 0');
create('ConfigMap binaryData given a number', CM, 'ConfigMap', 'v1', 'c11', '{"metadata":{"name":"c11"},"binaryData":{"a":5}}', field('ConfigMap', 'binaryData', 'number', '[]uint8'));
create('metadata.annotations value given a number', CM, 'ConfigMap', 'v1', 'c12', '{"metadata":{"name":"c12","annotations":{"a":1}}}', field('ObjectMeta', 'metadata.annotations', 'number', 'string'));
create('metadata.finalizers given a string', CM, 'ConfigMap', 'v1', 'c13', '{"metadata":{"name":"c13","finalizers":"x"}}', field('ObjectMeta', 'metadata.finalizers', 'string', '[]string'));
create('metadata.finalizers item given a number', CM, 'ConfigMap', 'v1', 'c14', '{"metadata":{"name":"c14","finalizers":[1]}}', field('ObjectMeta', 'metadata.finalizers', 'number', 'string'));
create('metadata.uid given a number', CM, 'ConfigMap', 'v1', 'c15', '{"metadata":{"name":"c15","uid":5}}', field('ObjectMeta', 'metadata.uid', 'number', 'types.UID'));
create('metadata.creationTimestamp given a number', CM, 'ConfigMap', 'v1', 'c16', '{"metadata":{"name":"c16","creationTimestamp":5}}', 'json: cannot unmarshal number into Go value of type string');
create('metadata.creationTimestamp not a time', CM, 'ConfigMap', 'v1', 'c17', '{"metadata":{"name":"c17","creationTimestamp":"yesterday"}}',
  'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
create('ownerReferences controller given a string', CM, 'ConfigMap', 'v1', 'c18', '{"metadata":{"name":"c18","ownerReferences":[{"controller":"yes"}]}}',
  field('OwnerReference', 'metadata.ownerReferences.controller', 'string', 'bool'));
create('managedFields given a string', CM, 'ConfigMap', 'v1', 'c19', '{"metadata":{"name":"c19","managedFields":"x"}}', field('ObjectMeta', 'metadata.managedFields', 'string', '[]v1.ManagedFieldsEntry'));
create('the first wrong type is reported, the decoder goes on', CM, 'ConfigMap', 'v1', 'c20', '{"metadata":{"name":"c20"},"immutable":1,"data":{"a":1}}', field('ConfigMap', 'immutable', 'number', 'bool'));
create('a time error ends the decode and wins over an earlier type error', CM, 'ConfigMap', 'v1', 'c21', '{"data":{"a":1},"metadata":{"name":"c21","creationTimestamp":"x"}}',
  'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"');
create('Secret data not base64', SECRETS, 'Secret', 'v1', 's1', '{"metadata":{"name":"s1"},"data":{"a":"!!"}}', 'illegal base64 data at input byte 0');
create('Secret data value given a number', SECRETS, 'Secret', 'v1', 's2', '{"metadata":{"name":"s2"},"data":{"a":5}}', field('Secret', 'data', 'number', '[]uint8'));
create('Secret stringData value given a number', SECRETS, 'Secret', 'v1', 's3', '{"metadata":{"name":"s3"},"stringData":{"a":1}}', field('Secret', 'stringData', 'number', 'string'));
create('Secret type given a number', SECRETS, 'Secret', 'v1', 's4', '{"metadata":{"name":"s4"},"type":5}', field('Secret', 'type', 'number', 'v1.SecretType'));
const pod = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec: { ...podSpec(), ...spec } });
create('Pod containers given an object', PODS, 'Pod', 'v1', 'p1', '{"metadata":{"name":"p1"},"spec":{"containers":{"name":"c","image":"nginx"}}}', field('PodSpec', 'spec.containers', 'object', '[]v1.Container'));
create('Pod container given a string', PODS, 'Pod', 'v1', 'p2', '{"metadata":{"name":"p2"},"spec":{"containers":["c"]}}', field('PodSpec', 'spec.containers', 'string', 'v1.Container'));
create('container port protocol given a number', PODS, 'Pod', 'v1', 'p3', JSON.stringify(pod('p3', { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 5 }] }] })),
  field('ContainerPort', 'spec.containers.ports.protocol', 'number', 'v1.Protocol'));
create('resources.limits given a string', PODS, 'Pod', 'v1', 'p4', JSON.stringify(pod('p4', { containers: [{ name: 'c', image: 'nginx', resources: { limits: '1' } }] })),
  field('ResourceRequirements', 'spec.containers.resources.limits', 'string', 'v1.ResourceList'));
const QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
create('a quantity that does not parse', PODS, 'Pod', 'v1', 'p5', JSON.stringify(pod('p5', { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: 'abc' } } }] })), QUANTITY_ERROR);
create('a quantity given an object', PODS, 'Pod', 'v1', 'p6', JSON.stringify(pod('p6', { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: {} } } }] })), QUANTITY_ERROR);
create('nodeSelector given a list', PODS, 'Pod', 'v1', 'p7', JSON.stringify(pod('p7', { nodeSelector: ['a'] })), field('PodSpec', 'spec.nodeSelector', 'array', 'map[string]string'));
create('hostNetwork given a string', PODS, 'Pod', 'v1', 'p8', JSON.stringify(pod('p8', { hostNetwork: 'true' })), field('PodSpec', 'spec.hostNetwork', 'string', 'bool'));
create('env value given a number', PODS, 'Pod', 'v1', 'p9', JSON.stringify(pod('p9', { containers: [{ name: 'c', image: 'nginx', env: [{ name: 'A', value: 1 }] }] })),
  field('EnvVar', 'spec.containers.env.value', 'number', 'string'));
const service = (name: string, port: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { ports: [{ port: 80, ...port }], ...spec } });
create('targetPort 1.5', SERVICES, 'Service', 'v1', 'v1', withLiteral(service('v1', { targetPort: '@' }), '1.5'), 'json: cannot unmarshal number 1.5 into Go value of type int32');
create('targetPort given an object', SERVICES, 'Service', 'v1', 'v2', JSON.stringify(service('v2', { targetPort: {} })), 'json: cannot unmarshal object into Go value of type int32');
create('targetPort given a bool', SERVICES, 'Service', 'v1', 'v3', JSON.stringify(service('v3', { targetPort: true })), 'json: cannot unmarshal bool into Go value of type int32');
create('service port given a string', SERVICES, 'Service', 'v1', 'v4', JSON.stringify(service('v4', { port: '80' })), field('ServicePort', 'spec.ports.port', 'string', 'int32'));
create('service type given a number', SERVICES, 'Service', 'v1', 'v5', JSON.stringify(service('v5', {}, { type: 1 })), field('ServiceSpec', 'spec.type', 'number', 'v1.ServiceType'));
create('PDB minAvailable past int32', PDBS, 'PodDisruptionBudget', 'v1', 'b1', withLiteral({ metadata: { name: 'b1' }, spec: { minAvailable: '@', selector: { matchLabels: LABELS } } }, '2147483648'),
  'json: cannot unmarshal number 2147483648 into Go value of type int32');

// Not a string where the type meta is read, or not an object where a struct is decoded (500s before).
create('metadata given a string', CM, 'ConfigMap', 'v1', 'm24', '{"metadata":"m24"}', field('ConfigMap', 'metadata', 'string', 'v1.ObjectMeta'));
create('Pod metadata given a list', PODS, 'Pod', 'v1', 'm25', '{"metadata":[],"spec":{"containers":[]}}', field('Pod', 'metadata', 'array', 'v1.ObjectMeta'));
create('Deployment spec given a string', DEPLOYMENTS, 'Deployment', 'v1', 'm26', '{"metadata":{"name":"m26"},"spec":"x"}', field('Deployment', 'spec', 'string', 'v1.DeploymentSpec'));
create('Deployment template containers given an object', DEPLOYMENTS, 'Deployment', 'v1', 'm27',
  JSON.stringify({ metadata: { name: 'm27' }, spec: { selector: { matchLabels: LABELS }, template: { metadata: { labels: LABELS }, spec: { containers: { name: 'c' } } } } }),
  field('PodSpec', 'spec.template.spec.containers', 'object', '[]v1.Container'));
for (const [name, body, err] of [
  ['apiVersion given a number', '{"apiVersion":1,"kind":"ConfigMap","metadata":{"name":"t1"}}', "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string"],
  ['kind given a bool', '{"kind":true,"metadata":{"name":"t2"}}', "couldn't get version/kind; json parse error: json: cannot unmarshal bool into Go struct field .kind of type string"],
  ['apiVersion given an object', '{"apiVersion":{},"metadata":{"name":"t3"}}', "couldn't get version/kind; json parse error: json: cannot unmarshal object into Go struct field .apiVersion of type string"],
  ['apiVersion with two slashes', '{"apiVersion":"a/b/c","kind":"ConfigMap","metadata":{"name":"t4"}}', 'unexpected GroupVersion string: a/b/c'],
] as const) {
  cases.push({ name, method: 'POST', path: CM, body, status: 400, reason: 'BadRequest',
    message: `the object provided is unrecognized (must be of type ConfigMap): ${err} (${summary(body)})`, absent: `${CM}/${/"name":"(\w+)"/.exec(body)![1]}` });
}

// Every resource's integer fields at their bounds.
const INT32_OVER = '2147483648';
const int32 = (struct: string, path: string, literal: string) => field(struct, path, `number ${literal}`, 'int32');
accepted('Deployment replicas 2147483647 is an int32', DEPLOYMENTS, 'i1', withLiteral(deployment('i1', { replicas: '@' }), '2147483647'));
create('Deployment replicas 2147483648', DEPLOYMENTS, 'Deployment', 'v1', 'i2', withLiteral(deployment('i2', { replicas: '@' }), INT32_OVER), int32('DeploymentSpec', 'spec.replicas', INT32_OVER));
create('Deployment replicas -2147483649', DEPLOYMENTS, 'Deployment', 'v1', 'i3', withLiteral(deployment('i3', { replicas: '@' }), '-2147483649'), int32('DeploymentSpec', 'spec.replicas', '-2147483649'));
create('Deployment revisionHistoryLimit 2147483648', DEPLOYMENTS, 'Deployment', 'v1', 'i4', withLiteral(deployment('i4', { revisionHistoryLimit: '@' }), INT32_OVER),
  int32('DeploymentSpec', 'spec.revisionHistoryLimit', INT32_OVER));
create('StatefulSet replicas 2147483648', STATEFULSETS, 'StatefulSet', 'v1', 'i5', withLiteral({ metadata: { name: 'i5' }, spec: { replicas: '@', selector: { matchLabels: LABELS }, template: template() } }, INT32_OVER),
  int32('StatefulSetSpec', 'spec.replicas', INT32_OVER));
create('ReplicaSet replicas 2147483648', REPLICASETS, 'ReplicaSet', 'v1', 'i6', withLiteral({ metadata: { name: 'i6' }, spec: { replicas: '@', selector: { matchLabels: LABELS }, template: template() } }, INT32_OVER),
  int32('ReplicaSetSpec', 'spec.replicas', INT32_OVER));
create('ReplicationController replicas 2147483648', RCS, 'ReplicationController', 'v1', 'i7', withLiteral({ metadata: { name: 'i7' }, spec: { replicas: '@', selector: LABELS, template: template() } }, INT32_OVER),
  int32('ReplicationControllerSpec', 'spec.replicas', INT32_OVER));
const job = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec: { template: { spec: { ...podSpec(), restartPolicy: 'Never' } }, ...spec } });
create('Job parallelism 2147483648', JOBS, 'Job', 'v1', 'i8', withLiteral(job('i8', { parallelism: '@' }), INT32_OVER), int32('JobSpec', 'spec.parallelism', INT32_OVER));
create('Job backoffLimit 1.0', JOBS, 'Job', 'v1', 'i9', withLiteral(job('i9', { backoffLimit: '@' }), '1.0'), int32('JobSpec', 'spec.backoffLimit', '1.0'));
create('Job activeDeadlineSeconds past int64', JOBS, 'Job', 'v1', 'i10', withLiteral(job('i10', { activeDeadlineSeconds: '@' }), '9223372036854775808'),
  field('JobSpec', 'spec.activeDeadlineSeconds', 'number 9223372036854775808', 'int64'));
create('CronJob successfulJobsHistoryLimit 1e3', CRONJOBS, 'CronJob', 'v1', 'i11',
  withLiteral({ metadata: { name: 'i11' }, spec: { schedule: '* * * * *', successfulJobsHistoryLimit: '@', jobTemplate: { spec: job('x', {}).spec } } }, '1e3'),
  int32('CronJobSpec', 'spec.successfulJobsHistoryLimit', '1e3'));
create('Service port 2147483648', SERVICES, 'Service', 'v1', 'i12', withLiteral(service('i12', { port: '@' }), INT32_OVER), int32('ServicePort', 'spec.ports.port', INT32_OVER));
create('containerPort 2147483648', PODS, 'Pod', 'v1', 'i13', withLiteral(pod('i13', { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: '@' }] }] }), INT32_OVER),
  int32('ContainerPort', 'spec.containers.ports.containerPort', INT32_OVER));
create('PriorityClass value -2147483649', PRIORITYCLASSES, 'PriorityClass', 'v1', 'i14', withLiteral({ metadata: { name: 'i14' }, value: '@' }, '-2147483649'), int32('PriorityClass', 'value', '-2147483649'));
create('HPA maxReplicas 2147483648', HPAS, 'HorizontalPodAutoscaler', 'v2', 'i15',
  withLiteral({ metadata: { name: 'i15' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'base' }, maxReplicas: '@' } }, INT32_OVER),
  int32('HorizontalPodAutoscalerSpec', 'spec.maxReplicas', INT32_OVER));
create('Lease leaseDurationSeconds 2147483648', LEASES, 'Lease', 'v1', 'i16', withLiteral({ metadata: { name: 'i16' }, spec: { leaseDurationSeconds: '@' } }, INT32_OVER),
  int32('LeaseSpec', 'spec.leaseDurationSeconds', INT32_OVER));
accepted('metadata.generation 9223372036854775807 is an int64', CM, 'i17', withLiteral({ metadata: { name: 'i17', generation: '@' } }, '9223372036854775807'));
create('metadata.generation 9223372036854775808', CM, 'ConfigMap', 'v1', 'i18', withLiteral({ metadata: { name: 'i18', generation: '@' } }, '9223372036854775808'),
  field('ObjectMeta', 'metadata.generation', 'number 9223372036854775808', 'int64'));
create('metadata.generation -9223372036854775809', CM, 'ConfigMap', 'v1', 'i19', withLiteral({ metadata: { name: 'i19', generation: '@' } }, '-9223372036854775809'),
  field('ObjectMeta', 'metadata.generation', 'number -9223372036854775809', 'int64'));
create('terminationGracePeriodSeconds past int64', PODS, 'Pod', 'v1', 'i20', withLiteral(pod('i20', { terminationGracePeriodSeconds: '@' }), '9223372036854775808'),
  field('PodSpec', 'spec.terminationGracePeriodSeconds', 'number 9223372036854775808', 'int64'));
create('runAsUser 1.5', PODS, 'Pod', 'v1', 'i21', withLiteral(pod('i21', { securityContext: { runAsUser: '@' } }), '1.5'),
  field('PodSecurityContext', 'spec.securityContext.runAsUser', 'number 1.5', 'int64'));
create('deletionGracePeriodSeconds 1e1', CM, 'ConfigMap', 'v1', 'i22', withLiteral({ metadata: { name: 'i22', deletionGracePeriodSeconds: '@' } }, '1e1'),
  field('ObjectMeta', 'metadata.deletionGracePeriodSeconds', 'number 1e1', 'int64'));

// Updates and patches decode what they would store.
cases.push({ name: 'update with a data value given a number', method: 'PUT', path: `${CM}/base`, body: '{"metadata":{"name":"base"},"data":{"a":1}}',
  status: 400, reason: 'BadRequest', message: cannotHandle('ConfigMap', 'v1', field('ConfigMap', 'data', 'number', 'string')), unchanged: `${CM}/base` });
cases.push({ name: 'merge patch giving a data value a number', method: 'PATCH', path: `${CM}/base`, body: '{"data":{"a":1}}', contentType: 'application/merge-patch+json',
  status: 422, reason: 'Invalid', message: /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"data\\":\{\\"a\\":1\}.*": json: cannot unmarshal number into Go struct field ConfigMap\.data of type string$/s,
  unchanged: `${CM}/base` });
cases.push({ name: 'merge patch writing replicas as 1.0 (the patch is merged as raw JSON)', method: 'PATCH', path: `${DEPLOYMENTS}/base`, body: '{"spec":{"replicas":1.0}}',
  contentType: 'application/merge-patch+json', status: 422, reason: 'Invalid',
  message: /: json: cannot unmarshal number 1\.0 into Go struct field DeploymentSpec\.spec\.replicas of type int32$/, unchanged: `${DEPLOYMENTS}/base` });
cases.push({ name: 'JSON patch replacing replicas with a string', method: 'PATCH', path: `${DEPLOYMENTS}/base`, body: '[{"op":"replace","path":"/spec/replicas","value":"3"}]',
  contentType: 'application/json-patch+json', status: 422, reason: 'Invalid',
  message: /: json: cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32$/, unchanged: `${DEPLOYMENTS}/base` });
cases.push({ name: 'strategic merge patch giving replicas a string', method: 'PATCH', path: `${DEPLOYMENTS}/base`, body: '{"spec":{"replicas":"3"}}',
  contentType: 'application/strategic-merge-patch+json', status: 422, reason: 'Invalid', unchanged: `${DEPLOYMENTS}/base` });

// Subresources decode their own types.
cases.push({ name: 'scale update with replicas given a string', method: 'PUT', path: `${DEPLOYMENTS}/base/scale`,
  body: '{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"base"},"spec":{"replicas":"3"}}', status: 400, reason: 'BadRequest',
  message: cannotHandle('Scale', 'v1', field('ScaleSpec', 'spec.replicas', 'string', 'int32')), unchanged: `${DEPLOYMENTS}/base` });
cases.push({ name: 'scale merge patch with replicas past int32', method: 'PATCH', path: `${DEPLOYMENTS}/base/scale`, body: '{"spec":{"replicas":2147483648}}',
  contentType: 'application/merge-patch+json', status: 422, reason: 'Invalid',
  message: /: json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec\.spec\.replicas of type int32$/, unchanged: `${DEPLOYMENTS}/base` });
cases.push({ name: 'status update with status.replicas given a string', method: 'PUT', path: `${DEPLOYMENTS}/base/status`,
  body: JSON.stringify({ ...deployment('base'), status: { replicas: 'x' } }), status: 400, reason: 'BadRequest',
  message: cannotHandle('Deployment', 'v1', field('DeploymentStatus', 'status.replicas', 'string', 'int32')), unchanged: `${DEPLOYMENTS}/base` });
cases.push({ name: 'status merge patch with status.replicas 1.5', method: 'PATCH', path: `${DEPLOYMENTS}/base/status`, body: '{"status":{"replicas":1.5}}',
  contentType: 'application/merge-patch+json', status: 422, reason: 'Invalid',
  message: /: json: cannot unmarshal number 1\.5 into Go struct field DeploymentStatus\.status\.replicas of type int32$/, unchanged: `${DEPLOYMENTS}/base` });
cases.push({ name: 'binding with target given a string', method: 'POST', path: `${PODS}/nobody/binding`, body: '{"metadata":{"name":"nobody"},"target":"node"}',
  status: 400, reason: 'BadRequest', message: cannotHandle('Binding', 'v1', field('Binding', 'target', 'string', 'v1.ObjectReference')) });
cases.push({ name: 'eviction with gracePeriodSeconds given a string', method: 'POST', path: `${PODS}/nobody/eviction`,
  body: '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"nobody"},"deleteOptions":{"gracePeriodSeconds":"5"}}',
  status: 400, reason: 'BadRequest', message: cannotHandle('Eviction', 'v1', field('DeleteOptions', 'deleteOptions.gracePeriodSeconds', 'string', 'int64')) });

// Nesting past encoding/json's 10000 levels.
const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
const tooDeep = (name: string, path: string, body: string, contentType?: string) => {
  cases.push({ name, method: 'POST', path, body, contentType, status: 400, reason: 'BadRequest',
    message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth (${summary(body)})`,
    absent: `${path}/${/"name":"(\w+)"/.exec(body)![1]}` });
};
tooDeep('create nested 10001 deep', CM, `{"metadata":{"name":"n1"},"data":{"a":${nested(9999)}}}`);
tooDeep('create nested 100000 deep', CM, `{"metadata":{"name":"n2"},"x":${nested(100000)}}`);
tooDeep('managedFields fieldsV1 nested 100000 deep', CM, `{"metadata":{"name":"n3","managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":${nested(100000)}}]}}`);
{
  const body = `{"metadata":{"name":"base"},"x":${nested(10000)}}`;
  cases.push({ name: 'update nested 10001 deep', method: 'PUT', path: `${CM}/base`, body, status: 400, reason: 'BadRequest',
    message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth (${summary(body)})`, unchanged: `${CM}/base` });
}
{
  const body = `metadata: {name: n4}\nx: ${nested(10001)}\n`;
  cases.push({ name: 'YAML nested 10001 flow levels', method: 'POST', path: CM, body, contentType: 'application/yaml', status: 400, reason: 'BadRequest',
    message: `the object provided is unrecognized (must be of type ConfigMap): yaml: exceeded max depth of 10000 (${summary(body)})`, absent: `${CM}/n4` });
}
for (const [type, query, message] of [
  ['application/merge-patch+json', '', "error decoding patch: invalid character '[' exceeded max depth"],
  ['application/merge-patch+json', '?fieldValidation=Ignore', 'Invalid JSON Patch'],
  ['application/strategic-merge-patch+json', '', "invalid character '[' exceeded max depth"],
  ['application/json-patch+json', '', "error decoding patch: invalid character '[' exceeded max depth"],
  ['application/json-patch+json', '?fieldValidation=Ignore', "invalid character '[' exceeded max depth"],
] as const) {
  for (const depth of [10001, 100000]) {
    const body = type === 'application/json-patch+json' ? `[{"op":"add","path":"/x","value":${nested(depth - 1)}}]` : `{"x":${nested(depth - 1)}}`;
    cases.push({ name: `${type}${query} nested ${depth} deep`, method: 'PATCH', path: `${CM}/base${query}`, body, contentType: type,
      status: 400, reason: 'BadRequest', message, unchanged: `${CM}/base` });
  }
}

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));

test('a create nested 10000 deep in an unknown field is accepted and the field dropped', async () => {
  const r = await raw(cluster, 'POST', CM, { body: `{"metadata":{"name":"deep-ok"},"x":${nested(9999)}}`, headers: { 'Content-Type': 'application/json' } });
  if (r.status !== 201) throw new Error(`status ${r.status}: ${r.body.slice(0, 300)}`);
  const got = await rawJSON(cluster, 'GET', `${CM}/deep-ok`);
  if ('x' in got.body) throw new Error('the unknown field was stored');
});

test('YAML !!binary in a string field is the string of its bytes, as yaml.v2 decodes it', async () => {
  const r = await raw(cluster, 'POST', CM, { body: 'metadata: {name: binary}\ndata: {a: !!binary aGVsbG8=}\n', headers: { 'Content-Type': 'application/yaml' } });
  if (r.status !== 201) throw new Error(`status ${r.status}: ${r.body.slice(0, 300)}`);
  const got = await rawJSON(cluster, 'GET', `${CM}/binary`);
  if (got.body.data?.a !== 'hello') throw new Error(JSON.stringify(got.body.data));
});

for (const [type, body] of [
  ['application/merge-patch+json', `{"x":${nested(9999)}}`],
  ['application/strategic-merge-patch+json', `{"x":${nested(9999)}}`],
  ['application/json-patch+json', `[{"op":"add","path":"/x","value":${nested(9998)}}]`],
] as const) {
  test(`${type} nested 10000 deep in an unknown field is applied, the field warned about and dropped`, async () => {
    const r = await raw(cluster, 'PATCH', `${CM}/base`, { body, headers: { 'Content-Type': type } });
    if (r.status !== 200) throw new Error(`status ${r.status}: ${r.body.slice(0, 300)}`);
    if (r.headers.warning !== '299 - "unknown field \\"x\\""') throw new Error(`warning ${String(r.headers.warning)}`);
    const got = await rawJSON(cluster, 'GET', `${CM}/base`);
    if ('x' in got.body) throw new Error('the unknown field was stored');
  });
}
