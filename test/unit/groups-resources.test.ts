/** The non-core ResourceDefs: discovery facts, strategies and metadata validation. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupResources, systemPriorityClasses } from '../../src/registry/groups/index.js';
import { jobs } from '../../src/registry/groups/batch/jobs.js';
import { daemonsets, TEMPLATE_GENERATION } from '../../src/registry/groups/apps/daemonsets.js';
import { statefulsets } from '../../src/registry/groups/apps/statefulsets.js';
import { deployments } from '../../src/registry/groups/apps/deployments.js';
import { cronjobs } from '../../src/registry/groups/batch/cronjobs.js';
import { priorityclasses } from '../../src/registry/groups/scheduling/priorityclasses.js';
import { poddisruptionbudgets } from '../../src/registry/groups/policy/poddisruptionbudgets.js';
import { endpointslices } from '../../src/registry/groups/discovery/endpointslices.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { goldenDiscovery } from '../helpers/golden.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';

const ctx: WriteContext = { namespace: 'ns', now: new Date('2026-01-01T00:00:00Z'), dryRun: false, fieldManager: 'test', warn: () => {} };

function created(def: ResourceDef, body: any): any {
  const obj = structuredClone(body);
  obj.metadata ??= {};
  if (def.namespaced) obj.metadata.namespace = 'ns';
  obj.metadata.uid = 'u-1';
  if (def.hasGeneration) obj.metadata.generation = 1;
  def.defaults?.(obj);
  def.prepareForCreate?.(obj, ctx);
  return obj;
}

/**
 * The recording predates flowcontrol.apiserver.k8s.io/v1 (GA in 1.29): its resources are
 * compared with their v1beta3 twins, except for the storage version hash, v1's in v1.32.
 */
const RECORDED_AS: Record<string, string> = { 'flowcontrol.apiserver.k8s.io/v1': 'v1beta3' };
const V1_STORAGE_HASHES: Record<string, string> = { flowschemas: 'GJVAJZSZBIw=', prioritylevelconfigurations: 'Kir5PVfvNeI=' };

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * Resources GA since the recording (ValidatingAdmissionPolicy and its binding, v1.30), with the
 * entries v1.32's discovery has for them (their REST storage's Categories: api-extensions; the
 * storage version hashes of v1).
 */
const SINCE_RECORDING: Record<string, any[]> = {
  'admissionregistration.k8s.io/v1': [
    { name: 'validatingadmissionpolicies', singularName: 'validatingadmissionpolicy', namespaced: false, kind: 'ValidatingAdmissionPolicy',
      verbs: ALL, categories: ['api-extensions'], storageVersionHash: '6OxvlMmQ6is=' },
    { name: 'validatingadmissionpolicies/status', singularName: '', namespaced: false, kind: 'ValidatingAdmissionPolicy', verbs: ['get', 'patch', 'update'] },
    { name: 'validatingadmissionpolicybindings', singularName: 'validatingadmissionpolicybinding', namespaced: false,
      kind: 'ValidatingAdmissionPolicyBinding', verbs: ALL, categories: ['api-extensions'], storageVersionHash: 'v9715VZqakg=' },
  ],
};

/** Subresources the recording lists that v1.32 no longer serves (NetworkPolicy's status, removed in v1.28). */
const REMOVED_SINCE_RECORDING = new Set(['networking.k8s.io/v1 networkpolicies/status']);

test('discovery facts match upstream discovery documents', () => {
  const apis = goldenDiscovery('apis.json');
  const order = apis.groups.flatMap((g: any) => g.versions.map((v: any) => `${g.name}/${v.version}`));
  const seen: string[] = [];
  for (const d of groupResources) {
    const recorded = RECORDED_AS[`${d.group}/${d.version}`];
    const gv = `${d.group}/${recorded ?? d.version}`;
    if (!seen.includes(gv)) seen.push(gv);
    const doc = goldenDiscovery(`apis_${d.group}_${recorded ?? d.version}.json`);
    if (recorded) for (const r of doc.resources) if (V1_STORAGE_HASHES[r.name]) r.storageVersionHash = V1_STORAGE_HASHES[r.name];
    const resources: any[] = [...doc.resources, ...(SINCE_RECORDING[gv] ?? [])].filter((x: any) => !REMOVED_SINCE_RECORDING.has(`${gv} ${x.name}`));
    const r = resources.find((x: any) => x.name === d.resource);
    assert.ok(r, `${gv} ${d.resource}`);
    assert.equal(d.singular, r.singularName);
    assert.equal(d.kind, r.kind);
    assert.equal(d.namespaced, r.namespaced);
    assert.deepEqual(d.verbs, r.verbs);
    assert.deepEqual(d.shortNames, r.shortNames);
    assert.deepEqual(d.categories, r.categories);
    assert.equal(d.storageVersionHash, r.storageVersionHash);
    const subs = resources.filter((x: any) => x.name.startsWith(`${d.resource}/`));
    assert.deepEqual((d.subresources ?? []).map((s) => s.name).sort(), subs.map((x: any) => x.name.split('/')[1]).sort());
    for (const s of subs) {
      const mine = d.subresources!.find((x) => x.name === s.name.split('/')[1])!;
      assert.equal(mine.kind, s.kind);
      assert.deepEqual(mine.verbs, s.verbs);
      assert.equal(mine.group, s.group);
      assert.equal(mine.version, s.version);
    }
  }
  // Groups in /apis order.
  assert.deepEqual(seen, order.filter((gv: string) => seen.includes(gv)));
});

test('job create generates the selector and labels, and the job inherits them', () => {
  const job = created(jobs, {
    metadata: { name: 'pi' },
    spec: { template: { spec: { containers: [{ name: 'pi', image: 'perl' }], restartPolicy: 'Never' } } },
  });
  const want = { 'batch.kubernetes.io/controller-uid': 'u-1', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': 'u-1', 'job-name': 'pi' };
  assert.deepEqual(job.spec.template.metadata.labels, want);
  assert.deepEqual(job.metadata.labels, want);
  assert.deepEqual(job.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } });
  assert.equal(job.spec.backoffLimit, 6);
  assert.equal(job.spec.completions, 1);
  assert.equal(job.spec.parallelism, 1);
  assert.equal(job.spec.completionMode, 'NonIndexed');
  assert.equal(job.spec.suspend, false);
  assert.equal(job.spec.podReplacementPolicy, 'TerminatingOrFailed');
  assert.equal(job.spec.manualSelector, false);
  assert.deepEqual(job.status, {});
  assert.equal(jobs.fieldSelectors?.['status.successful']?.(job), '0');
  // apps/v1 has no field label conversion for ReplicaSet: only metadata fields select.
  assert.equal(groupResources.find((d) => d.resource === 'replicasets')!.fieldSelectors, undefined);
});

test('job with labels of its own keeps them; manual selectors are left alone', () => {
  const job = created(jobs, {
    metadata: { name: 'j', labels: { team: 'a' } },
    spec: { manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: {} } },
  });
  assert.deepEqual(job.metadata.labels, { team: 'a' });
  assert.deepEqual(job.spec.template.metadata.labels, { app: 'x' });
  assert.deepEqual(job.spec.selector, { matchLabels: { app: 'x' } });
});

test('daemonset template generation follows template changes', () => {
  const ds = created(daemonsets, { metadata: { name: 'd' }, spec: { template: { spec: {} } } });
  assert.equal(ds.metadata.annotations[TEMPLATE_GENERATION], '1');
  const same = structuredClone(ds);
  same.metadata.annotations[TEMPLATE_GENERATION] = '7'; // clients may not set it
  daemonsets.defaults!(same);
  daemonsets.prepareForUpdate!(same, ds, ctx);
  assert.equal(same.metadata.annotations[TEMPLATE_GENERATION], '1');
  const changed = structuredClone(ds);
  changed.spec.template.metadata.labels = { v: '2' };
  daemonsets.defaults!(changed);
  daemonsets.prepareForUpdate!(changed, ds, ctx);
  assert.equal(changed.metadata.annotations[TEMPLATE_GENERATION], '2');
});

test('statefulset volume claim templates get claim defaults and v1 type meta', () => {
  const sts = created(statefulsets, {
    metadata: { name: 'db' },
    spec: { template: { spec: {} }, updateStrategy: { rollingUpdate: { maxUnavailable: 2 } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] },
  });
  assert.deepEqual(sts.spec.volumeClaimTemplates, [{
    kind: 'PersistentVolumeClaim', apiVersion: 'v1',
    metadata: { name: 'data', creationTimestamp: null },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
    status: { phase: 'Pending' },
  }]);
  // MaxUnavailableStatefulSet is off in v1.32; a type given without rollingUpdate defaults no partition.
  assert.deepEqual(sts.spec.updateStrategy, { rollingUpdate: { partition: 0 }, type: 'RollingUpdate' });
  assert.deepEqual(sts.status, { replicas: 0, availableReplicas: 0 });
});

test('status is reset on create and kept on update', () => {
  const d = created(deployments, { metadata: { name: 'w' }, spec: { template: { spec: {} } }, status: { replicas: 3 } });
  assert.deepEqual(d.status, {});
  const next = structuredClone(d);
  next.status = { replicas: 9 };
  const old = { ...d, status: { replicas: 2 } };
  deployments.prepareForUpdate!(next, old, ctx);
  assert.deepEqual(next.status, { replicas: 2 });
  const pdb = created(poddisruptionbudgets, { metadata: { name: 'p' }, spec: { minAvailable: 1 } });
  assert.deepEqual(pdb.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
});

test('names are validated with upstream rules and messages', () => {
  // These spec-less objects also get spec errors, after the metadata ones: only metadata is looked at here.
  const metaOnly = (errs: FieldError[]) => errs.filter((e) => e.field.startsWith('metadata.'));
  const bad = metaOnly(deployments.validate!({ metadata: { name: 'Web', namespace: 'ns', labels: { 'a b': 'x' } } }));
  assert.deepEqual(bad.map((e) => `${e.field}: ${errorBody(e)}`), [
    "metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    "metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  // StatefulSets take DNS labels: no dots.
  assert.equal(metaOnly(statefulsets.validate!({ metadata: { name: 'a.b', namespace: 'ns' } }))[0]?.field, 'metadata.name');
  assert.deepEqual(metaOnly(deployments.validate!({ metadata: { name: 'a.b', namespace: 'ns' } })), []);
  // generateName may end in '-'.
  assert.deepEqual(metaOnly(deployments.validate!({ metadata: { name: 'web-x1', generateName: 'web-', namespace: 'ns' } })), []);
  const long = 'c'.repeat(53);
  assert.deepEqual(metaOnly(cronjobs.validate!({ metadata: { name: long, namespace: 'ns' } })).map(errorBody),
    [`Invalid value: "${long}": must be no more than 52 characters`]);
  assert.deepEqual(poddisruptionbudgets.validate!({ metadata: { name: 'Upper_Case', namespace: 'ns' } }), []);
  assert.deepEqual(poddisruptionbudgets.validate!({ metadata: { name: 'a%b', namespace: 'ns' } }).map(errorBody),
    ['Invalid value: "a%b": may not contain \'%\'']);
  const annotations = metaOnly(deployments.validateUpdate!({ metadata: { name: 'w', annotations: { 'Example.com/Key': 'v', '-bad': 'v' } } }, { metadata: { name: 'w' } }));
  assert.deepEqual(annotations.map((e) => e.field), ['metadata.annotations']);
});

test('system priority classes: the two upstream objects, reserved names, not deletable', () => {
  const [node, cluster] = systemPriorityClasses();
  assert.equal(node?.metadata.name, 'system-node-critical');
  assert.equal(node?.value, 2000001000);
  assert.equal(cluster?.metadata.name, 'system-cluster-critical');
  assert.equal(cluster?.value, 2000000000);
  assert.equal(cluster?.description, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.');
  for (const spc of systemPriorityClasses()) {
    const obj = created(priorityclasses, spc);
    assert.deepEqual(priorityclasses.validate!(obj), []);
    assert.equal(obj.metadata.generation, 1);
    assert.throws(() => priorityclasses.admitDelete!(obj, inProcessWriteContext('test')), (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.status.code, 403);
      assert.equal(e.status.message,
        `priorityclasses.scheduling.k8s.io "${spc.metadata.name}" is forbidden: this is a system priority class and cannot be deleted`);
      return true;
    });
  }
  priorityclasses.admitDelete!({ metadata: { name: 'high' }, value: 1000 }, inProcessWriteContext('test'));
  const fake = created(priorityclasses, { metadata: { name: 'system-high' }, value: 5 });
  assert.equal(fake.preemptionPolicy, 'PreemptLowerPriority');
  assert.deepEqual(priorityclasses.validate!(fake).map(errorBody),
    ["Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-high is not a known system priority class"]);
  const wrong = created(priorityclasses, { metadata: { name: 'system-node-critical' }, value: 5 });
  const [err] = priorityclasses.validate!(wrong);
  assert.ok(err);
  assert.match(errorBody(err), /value of system-node-critical PriorityClass must be 2000001000$/);
});

test('endpointslice defaults ports and keeps Go zero values', () => {
  const eps = created(endpointslices, { metadata: { name: 's' }, addressType: 'IPv4', ports: [{ port: 80 }],
    endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { a: 'b' } }] });
  assert.deepEqual(eps.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
  assert.deepEqual(eps.endpoints, [{ addresses: ['10.0.0.1'], conditions: {} }]);
  const empty = created(endpointslices, { metadata: { name: 'e' }, addressType: 'IPv4' });
  assert.equal(empty.endpoints, null);
  assert.equal(empty.ports, null);
});

test('objects keep nothing undefined (no-op updates stay no-ops)', () => {
  for (const def of groupResources) {
    const obj = created(def, { metadata: { name: 'x' } } as KObject);
    assert.deepEqual(JSON.parse(JSON.stringify(obj)), obj, `${def.group}/${def.version}/${def.resource}`);
  }
});
