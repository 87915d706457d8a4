/**
 * The core/v1 create pipeline (defaults, prepareForCreate, admitCreate) on
 * the golden requests gives upstream's answers, compared as the golden
 * README says: volatile keys dropped, generated name suffixes masked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KObject } from '../../src/apimachinery/object.js';
import type { Lookup } from '../../src/admission/lookup.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { coreResources } from '../../src/registry/core/index.js';
import { defaultPodTemplateSpec } from '../../src/component-helpers/pod-defaults.js';
import { serviceAccountLookup } from '../../src/registry/core/pod-admission.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { GOLDEN_DIR } from '../helpers/golden.js';

const CASES = process.env.GOLDEN_CASES ?? join(GOLDEN_DIR, 'cases');
const VOLATILE = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'time', 'clusterIP', 'clusterIPs', 'nodePort',
  'continue', 'selfLink', 'generation', 'managedFields', 'deletionTimestamp', 'startTime', 'lastTransitionTime',
  'lastProbeTime', 'lastHeartbeatTime', 'lastUpdateTime', 'firstTimestamp', 'lastTimestamp', 'eventTime', 'renewTime',
  'acquireTime', 'remainingItemCount', 'podIP', 'podIPs', 'hostIP', 'hostIPs', 'buildDate', 'gitCommit', 'gitVersion',
  'goVersion', 'minor', 'age']);

/** The comparable form: volatile keys gone, kube-api-access-xxxxx and default-token-xxxxx masked. */
function comparable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(comparable);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([k]) => !VOLATILE.has(k)).map(([k, x]) => [k, comparable(x)]));
  }
  if (typeof v === 'string') return v.replace(/^(kube-api-access-|default-token-)[a-z0-9]{5}$/, '$1xxxxx');
  return v;
}

interface GoldenCase {
  name: string;
  request: { method: string; path: string; body?: any };
  response: { status: number; body: any };
}

function loadCases(): GoldenCase[] {
  if (!existsSync(CASES)) return [];
  return readdirSync(CASES).filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(CASES, f), 'utf8')) as GoldenCase);
}

/** A lookup holding the "default" service account of every namespace and nothing else. */
const fakeLookup: Lookup & { listAll(): Promise<KObject[]> } = {
  async get(group, resource, namespace, name) {
    if (group === '' && resource === 'serviceaccounts' && name === 'default') {
      return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } };
    }
    return undefined;
  },
  async listAll() { return []; },
};

function defFor(resource: string): ResourceDef {
  const def = coreResources.find((d) => d.resource === resource);
  assert.ok(def, resource);
  return def;
}

/** What the store does on create, short of storage. */
async function createPipeline(def: ResourceDef, namespace: string, body: any): Promise<KObject> {
  const obj = structuredClone(body);
  obj.metadata ??= {};
  if (def.namespaced) obj.metadata.namespace = namespace;
  const ctx: WriteContext = { namespace, now: new Date('2026-01-01T00:00:00Z'), dryRun: false, fieldManager: 'test', warn: () => {} };
  def.defaults?.(obj);
  def.prepareForCreate?.(obj, ctx);
  await def.admitCreate?.(obj, ctx, fakeLookup);
  // What the create allocates (a Service's cluster IP and node ports) is given back: nothing is stored here.
  (await def.beginCreate?.(obj, ctx, fakeLookup))?.(false);
  const errs = def.validate?.(obj) ?? [];
  assert.deepEqual(errs, []);
  return obj;
}

serviceAccountLookup.defaultAttempts = 1;

const cases = loadCases();
const coreCreates = cases.filter((c) => c.request.method === 'POST' && c.response.status === 201 &&
  /^\/api\/v1\/namespaces\/[^/]+\/(pods|services|secrets)(\?.*)?$/.test(c.request.path));

test('golden cases are present', { skip: !existsSync(CASES) && 'no golden cases' }, () => {
  assert.ok(coreCreates.length >= 10, `found ${coreCreates.length}`);
});

for (const c of coreCreates) {
  test(`golden ${c.name}`, async () => {
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/([a-z]+)/.exec(c.request.path)!;
    const got = await createPipeline(defFor(m[2] ?? ''), m[1] ?? '', c.request.body);
    assert.deepEqual(comparable(got), comparable(c.response.body));
  });
}

/** Workload golden cases: their pod templates get the same defaults from defaultPodTemplateSpec. */
const workloadCases = cases.filter((c) => c.request.method === 'POST' && c.response.status === 201 &&
  c.request.body?.spec?.template?.spec && c.response.body?.spec?.template);
for (const c of workloadCases) {
  test(`golden template ${c.name}`, () => {
    const template = structuredClone(c.request.body.spec.template);
    defaultPodTemplateSpec(template);
    assert.deepEqual(comparable(template), comparable(c.response.body.spec.template));
    // The zero creationTimestamp Go writes for a template.
    assert.equal(template.metadata.creationTimestamp, null);
  });
}

test('a pod without a service account is refused like upstream', async () => {
  const def = defFor('pods');
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' },
    spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'busybox' }] } };
  await assert.rejects(createPipeline(def, 'ns', pod), (e: any) => {
    assert.equal(e.status.code, 403);
    assert.equal(e.status.message,
      'pods "p" is forbidden: error looking up service account ns/robot: serviceaccount "robot" not found');
    return true;
  });
});

test('a missing PriorityClass is refused like upstream', async () => {
  const def = defFor('pods');
  const pod = { metadata: { name: 'p' }, spec: { priorityClassName: 'gold', containers: [{ name: 'c', image: 'x:1' }] } };
  await assert.rejects(createPipeline(def, 'ns', pod), (e: any) => {
    assert.equal(e.status.code, 403);
    assert.equal(e.status.message, 'pods "p" is forbidden: no PriorityClass with name gold was found');
    return true;
  });
});

test('priority comes from the named class, preemptionPolicy too', async () => {
  const def = defFor('pods');
  const lookup: Lookup = {
    async get(group, resource, ns, name) {
      if (resource === 'priorityclasses' && name === 'gold') {
        return { metadata: { name }, value: 1000, preemptionPolicy: 'Never' } as KObject;
      }
      return fakeLookup.get(group, resource, ns, name);
    },
    listAll: async () => [],
  };
  const pod: any = { metadata: { name: 'p', namespace: 'ns' }, spec: { priorityClassName: 'gold', containers: [{ name: 'c', image: 'x:1' }] } };
  const ctx: WriteContext = { namespace: 'ns', now: new Date(), dryRun: false, fieldManager: 't', warn: () => {} };
  def.defaults!(pod);
  await def.admitCreate!(pod, ctx, lookup);
  assert.equal(pod.spec.priority, 1000);
  assert.equal(pod.spec.preemptionPolicy, 'Never');
});

test('automountServiceAccountToken false mounts nothing; an existing mount at the path is kept', async () => {
  const def = defFor('pods');
  const off = await createPipeline(def, 'ns', { metadata: { name: 'a' },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'x:1' }] } });
  assert.equal((off as any).spec.volumes, undefined);
  const own = await createPipeline(def, 'ns', { metadata: { name: 'b' }, spec: {
    volumes: [{ name: 'tok', emptyDir: {} }],
    containers: [{ name: 'c', image: 'x:1', volumeMounts: [{ name: 'tok', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }],
  } });
  assert.equal((own as any).spec.volumes.length, 1);
  assert.equal((own as any).spec.containers[0].volumeMounts.length, 1);
});

test('tolerations already covering not-ready/unreachable are not duplicated', async () => {
  const pod: any = await createPipeline(defFor('pods'), 'ns', { metadata: { name: 'p' },
    spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'c', image: 'x:1' }] } });
  assert.deepEqual(pod.spec.tolerations, [{ operator: 'Exists' }]);
});

test('feature gates off in v1.32 drop their fields on pod create', async () => {
  const pod: any = await createPipeline(defFor('pods'), 'ns', { metadata: { name: 'p' }, spec: {
    hostUsers: false,
    resources: { limits: { cpu: '1' } },
    securityContext: { supplementalGroupsPolicy: 'Strict', seLinuxChangePolicy: 'Recursive' },
    containers: [{ name: 'c', image: 'x:1', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
      securityContext: { procMount: 'Unmasked' } }],
  } });
  assert.equal(pod.spec.hostUsers, undefined);
  assert.equal(pod.spec.resources, undefined);
  assert.deepEqual(pod.spec.securityContext, {});
  assert.equal(pod.spec.containers[0].resizePolicy, undefined);
  assert.equal(pod.spec.containers[0].securityContext.procMount, 'Default');
});

test('scheduling gates add the SchedulingGated condition', async () => {
  const pod: any = await createPipeline(defFor('pods'), 'ns', { metadata: { name: 'p' },
    spec: { schedulingGates: [{ name: 'g' }], containers: [{ name: 'c', image: 'x:1' }] } });
  assert.deepEqual(pod.status.conditions, [{ type: 'PodScheduled', status: 'False', lastProbeTime: null,
    lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'SchedulingGated',
    message: 'Scheduling is blocked due to non-empty scheduling gates' }]);
});

test('AppArmor fields and annotations are synced (v1.32), not for Windows pods', async () => {
  const pod: any = await createPipeline(defFor('pods'), 'ns', { metadata: { name: 'p',
    annotations: { 'container.apparmor.security.beta.kubernetes.io/b': 'localhost/prof' } }, spec: {
    containers: [{ name: 'a', image: 'x:1', securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } },
      { name: 'b', image: 'x:1' }] } });
  assert.equal(pod.metadata.annotations['container.apparmor.security.beta.kubernetes.io/a'], 'runtime/default');
  assert.deepEqual(pod.spec.containers[1].securityContext.appArmorProfile, { type: 'Localhost', localhostProfile: 'prof' });
});

test('matchLabelKeys are merged into the pod affinity selector', async () => {
  const pod: any = await createPipeline(defFor('pods'), 'ns', { metadata: { name: 'p', labels: { app: 'w' } }, spec: {
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{
      topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { x: 'y' } }, matchLabelKeys: ['app'] }] } },
    containers: [{ name: 'c', image: 'x:1' }] } });
  assert.deepEqual(pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector,
    { matchLabels: { x: 'y' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['w'] }] });
});

test('namespace: finalizer, phase and the metadata.name label', async () => {
  const ns: any = await createPipeline(defFor('namespaces'), '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(ns.status, { phase: 'Active' });
  assert.deepEqual(ns.metadata.labels, { 'kubernetes.io/metadata.name': 'team-a' });
  // Updates keep the label in step with the name and cannot change finalizers or status.
  const next = structuredClone(ns);
  next.metadata.labels = {};
  next.spec.finalizers = [];
  next.status.phase = 'Terminating';
  const def = defFor('namespaces');
  def.defaults!(next);
  def.prepareForUpdate!(next, ns, { namespace: '', now: new Date(), dryRun: false, fieldManager: 't', warn: () => {} });
  assert.deepEqual(next.metadata.labels, { 'kubernetes.io/metadata.name': 'team-a' });
  assert.deepEqual(next.spec.finalizers, ['kubernetes']);
  assert.equal(next.status.phase, 'Active');
});

test('node: zero-valued status written out, allocatable from capacity, not-ready taint', async () => {
  const node: any = await createPipeline(defFor('nodes'), '', { metadata: { name: 'n1' },
    status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' } } });
  assert.deepEqual(node.status.allocatable, { cpu: '4', memory: '8Gi', pods: '110' });
  assert.deepEqual(node.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
  assert.equal(node.status.nodeInfo.kubeletVersion, '');
  assert.deepEqual(node.spec.taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
});

test('replication controller: selector and labels from the template, one replica, status.replicas 0', async () => {
  const rc: any = await createPipeline(defFor('replicationcontrollers'), 'ns', { metadata: { name: 'rc' }, spec: {
    template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } });
  assert.deepEqual(rc.spec.selector, { app: 'a' });
  assert.deepEqual(rc.metadata.labels, { app: 'a' });
  assert.equal(rc.spec.replicas, 1);
  assert.deepEqual(rc.status, { replicas: 0 });
  assert.equal(rc.spec.template.spec.containers[0].imagePullPolicy, 'Always');
  assert.equal(rc.spec.template.spec.enableServiceLinks, undefined);
});

test('PVC: Filesystem, Pending, protection finalizer; PV: Retain, Pending', async () => {
  const pvc: any = await createPipeline(defFor('persistentvolumeclaims'), 'ns', { metadata: { name: 'c' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  assert.equal(pvc.spec.volumeMode, 'Filesystem');
  assert.deepEqual(pvc.status, { phase: 'Pending' });
  assert.deepEqual(pvc.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  const pv: any = await createPipeline(defFor('persistentvolumes'), '', { metadata: { name: 'v' },
    spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1.5Gi' }, hostPath: { path: '/x' } } });
  assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(pv.spec.capacity.storage, '1536Mi');
  assert.deepEqual(pv.spec.hostPath, { path: '/x', type: '' });
  assert.equal(pv.status.phase, 'Pending');
  assert.deepEqual(pv.metadata.finalizers, ['kubernetes.io/pv-protection']);
});

test('limit range: container defaults from max and min', async () => {
  const lr: any = await createPipeline(defFor('limitranges'), 'ns', { metadata: { name: 'l' }, spec: { limits: [
    { type: 'Container', max: { cpu: '2' }, min: { memory: '100Mi' } }] } });
  assert.deepEqual(lr.spec.limits[0], { type: 'Container', max: { cpu: '2' }, min: { memory: '100Mi' },
    default: { cpu: '2' }, defaultRequest: { cpu: '2', memory: '100Mi' } });
});

test('event: Go zero values written out', async () => {
  const ev: any = await createPipeline(defFor('events'), 'ns', { metadata: { name: 'e' },
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns' }, reason: 'Started' });
  assert.deepEqual(ev.source, {});
  assert.equal(ev.firstTimestamp, null);
  assert.equal(ev.eventTime, null);
  assert.equal(ev.reportingComponent, '');
});

test('golden win-upd-patch-image: an update keeps what create set', { skip: !existsSync(CASES) && 'no golden cases' }, async () => {
  const c = JSON.parse(readFileSync(join(CASES, 'win-upd-patch-image.json'), 'utf8'));
  const def = defFor('pods');
  const created: any = await createPipeline(def, 'golden-win', c.setup[1].body);
  // The strategic merge patch replaces the image of the container named iis.
  const next = structuredClone(created);
  next.spec.containers[0].image = c.request.body.spec.containers[0].image;
  def.defaults!(next);
  def.prepareForUpdate!(next, created, { namespace: 'golden-win', now: new Date(), dryRun: false, fieldManager: 't', warn: () => {} });
  assert.deepEqual(def.validateUpdate!(next, created), []);
  assert.deepEqual(comparable(next), comparable(c.response.body));
});

test('namespace deletion: immortal namespaces refused, Terminating while finalizers remain, 409 meanwhile', () => {
  const def = defFor('namespaces');
  assert.throws(() => def.admitDelete!({ metadata: { name: 'kube-system' } }, inProcessWriteContext('test')),
    (e: any) => e.status.code === 403 && e.status.message === 'namespaces "kube-system" is forbidden: this namespace may not be deleted');
  const ns: any = { metadata: { name: 'team' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } };
  def.admitDelete!(ns, inProcessWriteContext('test'));
  assert.equal(def.prepareForDelete!(ns), true);
  assert.equal(ns.status.phase, 'Terminating');
  ns.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  assert.throws(() => def.admitDelete!(ns, inProcessWriteContext('test')), (e: any) => e.status.code === 409);
  ns.spec.finalizers = [];
  def.admitDelete!(ns, inProcessWriteContext('test'));
  assert.equal(def.prepareForDelete!(ns), false);
});

test('RuntimeClass admission: unknown class refused, overhead and scheduling merged', async () => {
  const def = defFor('pods');
  await assert.rejects(createPipeline(def, 'ns', { metadata: { name: 'p' },
    spec: { runtimeClassName: 'gvisor', containers: [{ name: 'c', image: 'x:1' }] } }),
  (e: any) => e.status.message === 'pods "p" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
  await assert.rejects(createPipeline(def, 'ns', { metadata: { name: 'p' },
    spec: { overhead: { cpu: '1' }, containers: [{ name: 'c', image: 'x:1' }] } }),
  (e: any) => e.status.message === 'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  const lookup: Lookup = {
    async get(group, resource, ns, name) {
      if (resource === 'runtimeclasses' && name === 'win') {
        return { metadata: { name }, handler: 'runhcs', overhead: { podFixed: { cpu: '100m' } },
          scheduling: { nodeSelector: { 'kubernetes.io/os': 'windows' }, tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }] } } as KObject;
      }
      return fakeLookup.get(group, resource, ns, name);
    },
    listAll: async () => [],
  };
  const pod: any = { metadata: { name: 'p', namespace: 'ns' }, spec: { runtimeClassName: 'win', containers: [{ name: 'c', image: 'x:1' }] } };
  const ctx: WriteContext = { namespace: 'ns', now: new Date(), dryRun: false, fieldManager: 't', warn: () => {} };
  def.defaults!(pod);
  await def.admitCreate!(pod, ctx, lookup);
  assert.deepEqual(pod.spec.overhead, { cpu: '100m' });
  assert.deepEqual(pod.spec.nodeSelector, { 'kubernetes.io/os': 'windows' });
  assert.equal(pod.spec.tolerations.length, 3);
});
