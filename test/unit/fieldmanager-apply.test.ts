/**
 * Ownership as upstream records it (managedFields on create, update, patch)
 * and server-side apply through the store: merging by list type, pruning
 * what a manager stopped applying, conflicts and force.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import { checkPatchOptions } from '../../src/meta/write-options.js';
import { managerOrUserAgent } from '../../src/fieldmanager/request.js';
import { serveApplyPatch } from '../../src/api/apply-patch.js';
import { join } from 'node:path';
import { GOLDEN_DIR } from '../helpers/golden.js';

const NS = 'ns';

async function fixture() {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  const def = (resource: string, group = ''): ResourceDef => store.defs.find((d) => d.resource === resource && d.group === group)!;
  const ctx = (fieldManager: string, now = new Date('2024-05-01T10:00:00Z')): WriteContext =>
    ({ namespace: NS, now, dryRun: false, fieldManager, warn: () => {} });
  await store.create(def('namespaces'), '', { metadata: { name: NS } }, { ...ctx('test'), namespace: '' });
  await store.create(def('serviceaccounts'), NS, { metadata: { name: 'default' } }, ctx('test'));
  const apply = async (resource: string, group: string, name: string, config: object, manager: string,
    opts: { force?: boolean; now?: Date } = {}) => {
    const q = new URLSearchParams({ fieldManager: manager });
    if (opts.force) q.set('force', 'true');
    return serveApplyPatch(store, def(resource, group), NS, name, JSON.stringify(config), q, ctx(manager, opts.now));
  };
  const deployments = def('deployments', 'apps');
  const applyDeployment = (config: object, manager: string, opts?: { force?: boolean; now?: Date }) =>
    apply('deployments', 'apps', 'web', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, ...config }, manager, opts);
  const read = (resource: string, group: string, name: string) => store.read(def(resource, group), NS, name);
  return { storage, store, def, ctx, apply, applyDeployment, deployments, read };
}

/** manager/operation → FieldsV1, for compact assertions. */
function owners(obj: KObject): Record<string, unknown> {
  return Object.fromEntries((obj.metadata.managedFields ?? []).map((e) =>
    [`${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`, e.fieldsV1]));
}

async function status(p: Promise<unknown>): Promise<StatusError['status']> {
  try { await p; } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return e.status;
  }
  assert.fail('expected an error');
}

const template = (containers: object[], extra: object = {}) => ({
  selector: { matchLabels: { app: 'web' } },
  template: { metadata: { labels: { app: 'web' } }, spec: { containers, ...extra } },
});

test('a create records an Update entry of the defaulted object, as the golden pod shows', async () => {
  const { store, def, ctx, storage } = await fixture();
  const golden = JSON.parse(readFileSync(join(GOLDEN_DIR, 'cases', 'gen-default-pod-minimal.json'), 'utf8'));
  const now = new Date('2026-11-22T17:27:37Z');
  const pod = await store.create(def('pods'), NS, structuredClone(golden.request.body), ctx(managerOrUserAgent(null, undefined), now));
  assert.deepEqual(pod.metadata.managedFields, golden.response.body.metadata.managedFields);
  // Nothing set beyond the name: no entry at all.
  const cm = await store.create(def('configmaps'), NS, { metadata: { name: 'empty' } }, ctx('kubectl-create'));
  assert.equal(cm.metadata.managedFields, undefined);
  await storage.close();
});

test('updates: one entry per manager and version, merged over time; taken fields move; empty managers go', async () => {
  const { store, def, ctx, storage } = await fixture();
  const cms = def('configmaps');
  await store.create(cms, NS, { metadata: { name: 'c', labels: { a: '1' } }, data: { x: '1' } }, ctx('creator', new Date('2024-05-01T10:00:00Z')));
  let cm = await store.update(cms, NS, 'c', (o) => ({ ...o, data: { ...(o.data as object), y: '2' } }), ctx('creator', new Date('2024-05-01T10:00:05Z')));
  assert.deepEqual(owners(cm), { 'creator/Update': { 'f:data': { '.': {}, 'f:x': {}, 'f:y': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } } });
  assert.equal(cm.metadata.managedFields?.[0]?.time, '2024-05-01T10:00:05Z');
  cm = await store.update(cms, NS, 'c', (o) => ({ ...o, data: { x: '9', y: '2' }, metadata: { ...o.metadata, labels: { a: '2' } } }), ctx('editor'));
  assert.deepEqual(owners(cm), {
    'creator/Update': { 'f:data': { '.': {}, 'f:y': {} }, 'f:metadata': { 'f:labels': {} } },
    'editor/Update': { 'f:data': { 'f:x': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } },
  });
  // Removing what a manager owned takes it from the manager; a manager left with nothing disappears.
  cm = await store.update(cms, NS, 'c', (o) => ({ ...o, data: { y: '2' } }), ctx('janitor'));
  assert.deepEqual(owners(cm), {
    'creator/Update': { 'f:data': { '.': {}, 'f:y': {} }, 'f:metadata': { 'f:labels': {} } },
    'editor/Update': { 'f:metadata': { 'f:labels': { 'f:a': {} } } },
  });
  // An update that changes nothing leaves managedFields (and the object) alone.
  const same = await store.update(cms, NS, 'c', (o) => o, ctx('idle'));
  assert.equal(same.metadata.resourceVersion, cm.metadata.resourceVersion);
  await storage.close();
});

test('client-written managedFields are kept, [] clears them; status writes record the subresource', async () => {
  const { store, def, ctx, storage } = await fixture();
  const cms = def('configmaps');
  const cm = await store.create(cms, NS, { metadata: { name: 'c' }, data: { x: '1' } }, ctx('creator'));
  const written = [{ manager: 'someone', operation: 'Apply', apiVersion: 'v1', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {} } } }];
  let next = await store.update(cms, NS, 'c', (o) => ({ ...o, metadata: { ...o.metadata, resourceVersion: cm.metadata.resourceVersion, managedFields: written as never } }), ctx('kubectl'));
  assert.deepEqual(next.metadata.managedFields, written);
  next = await store.update(cms, NS, 'c', (o) => ({ ...o, metadata: { ...o.metadata, managedFields: [] } }), ctx('kubectl'));
  assert.equal(next.metadata.managedFields, undefined);

  const deps = def('deployments', 'apps');
  await store.create(deps, NS, { metadata: { name: 'd' }, spec: { ...template([{ name: 'web', image: 'nginx' }]) } }, ctx('kubectl-create'));
  const d = await store.update(deps, NS, 'd', (o: any) => ({ ...o, status: { replicas: 3 }, metadata: { ...o.metadata, managedFields: [] } }), ctx('kube-controller-manager'), 'status');
  assert.deepEqual(owners(d)['kube-controller-manager/Update/status'], { 'f:status': { 'f:replicas': {} } });
  assert.ok(owners(d)['kubectl-create/Update'], 'a status write does not take the request\'s managedFields');
  await storage.close();
});

test('apply: creates (201), merges by list type, prunes what the manager stopped applying, reorders', async () => {
  const { applyDeployment, read, storage } = await fixture();
  const v1 = { spec: { replicas: 2, ...template([
    { name: 'web', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80 }] },
    { name: 'sidecar', image: 'busybox', command: ['sleep', '1d'] },
  ]) } };
  const created = await applyDeployment(v1, 'deployer');
  assert.equal(created.code, 201);
  assert.deepEqual(Object.keys(owners(created.obj)), ['deployer/Apply']);
  const v2 = { spec: { replicas: 3, ...template([
    { name: 'sidecar', image: 'busybox', command: ['sleep', '2d'] },
    { name: 'web', image: 'nginx:1.25', env: [{ name: 'B', value: '2' }], ports: [{ containerPort: 80 }] },
  ]) } };
  const updated = await applyDeployment(v2, 'deployer');
  assert.equal(updated.code, 200);
  const d: any = await read('deployments', 'apps', 'web');
  assert.equal(d.spec.replicas, 3);
  assert.deepEqual(d.spec.template.spec.containers.map((c: any) => c.name), ['sidecar', 'web']);
  assert.deepEqual(d.spec.template.spec.containers[1].env, [{ name: 'B', value: '2' }]);
  assert.deepEqual(d.spec.template.spec.containers[0].command, ['sleep', '2d']);
  assert.deepEqual(d.spec.template.spec.containers[1].ports, [{ containerPort: 80, protocol: 'TCP' }]);
  // Defaults the server added are nobody's and stay.
  assert.equal(d.spec.template.spec.containers[1].imagePullPolicy, 'IfNotPresent');
  // Stopping to apply replicas removes it, and defaulting puts 1 back.
  const { spec: { replicas: _r, ...rest } } = v2;
  await applyDeployment({ spec: rest }, 'deployer');
  assert.equal(((await read('deployments', 'apps', 'web')) as any).spec.replicas, 1);
  // Applying the same again writes nothing.
  const before = await read('deployments', 'apps', 'web');
  const again = await applyDeployment({ spec: rest }, 'deployer');
  assert.equal(again.obj.metadata.resourceVersion, before.metadata.resourceVersion);
  await storage.close();
});

test('apply: conflicts with appliers and updaters, the exact messages, force takes ownership', async () => {
  const { applyDeployment, store, deployments, ctx, read, storage } = await fixture();
  await applyDeployment({ spec: { replicas: 2, ...template([{ name: 'web', image: 'nginx:1.25' }]) } }, 'deployer');
  let s = await status(applyDeployment({ spec: { replicas: 5 } }, 'scaler'));
  assert.equal(s.code, 409);
  assert.equal(s.reason, 'Conflict');
  assert.equal(s.message, 'Apply failed with 1 conflict: conflict with "deployer": .spec.replicas');
  assert.deepEqual(s.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "deployer"', field: '.spec.replicas' }] });

  // An Update manager is named with its API version.
  await store.update(deployments, NS, 'web', (o: any) => ({ ...o, metadata: { ...o.metadata, labels: { team: 'a' } } }), ctx('kubectl-label'));
  s = await status(applyDeployment({ metadata: { name: 'web', labels: { team: 'b' } }, spec: { replicas: 4, ...template([{ name: 'web', image: 'nginx:1.26' }]) } }, 'scaler'));
  assert.equal(s.message, 'Apply failed with 3 conflicts: conflicts with "deployer":\n- .spec.replicas\n- .spec.template.spec.containers[name="web"].image\n' +
    'conflicts with "kubectl-label" using apps/v1:\n- .metadata.labels.team');
  assert.deepEqual(s.details!.causes!.map((c) => c.message), ['conflict with "deployer"', 'conflict with "deployer"', 'conflict with "kubectl-label" using apps/v1']);
  // Same values are no conflict: co-ownership.
  const co = await applyDeployment({ spec: { replicas: 2 } }, 'scaler');
  assert.equal(co.code, 200);
  assert.deepEqual(owners(co.obj)['scaler/Apply'], { 'f:spec': { 'f:replicas': {} } });
  assert.ok(JSON.stringify(owners(co.obj)['deployer/Apply']).includes('f:replicas'));

  const forced = await applyDeployment({ spec: { replicas: 7 } }, 'scaler', { force: true });
  assert.equal((forced.obj as any).spec.replicas, 7);
  assert.ok(!JSON.stringify(owners(forced.obj)['deployer/Apply']).includes('f:replicas'));
  // The former owner no longer applies replicas: dropping it from its configuration leaves the value.
  await applyDeployment({ spec: { ...template([{ name: 'web', image: 'nginx:1.25' }]) } }, 'deployer');
  assert.equal(((await read('deployments', 'apps', 'web')) as any).spec.replicas, 7);
  await storage.close();
});

test('apply: sets, granular and atomic maps, atomic lists', async () => {
  const { apply, applyDeployment, read, storage } = await fixture();
  const cm = (manager: string, data: object, finalizers?: string[], labels?: object) =>
    apply('configmaps', '', 'c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(finalizers ? { finalizers } : {}), ...(labels ? { labels } : {}) }, data }, manager);
  await cm('a', { x: '1' }, ['example.com/a'], { a: '1' });
  await cm('b', { y: '1' }, ['example.com/b'], { b: '1' });
  let c: any = await read('configmaps', '', 'c');
  assert.deepEqual(c.data, { x: '1', y: '1' });
  assert.deepEqual(c.metadata.finalizers, ['example.com/a', 'example.com/b']);
  assert.deepEqual(c.metadata.labels, { a: '1', b: '1' });
  // Each manager removes only its own set item and map entries.
  await cm('a', {}, [], {});
  c = await read('configmaps', '', 'c');
  assert.deepEqual(c.data, { y: '1' });
  assert.deepEqual(c.metadata.finalizers, ['example.com/b']);
  assert.deepEqual(c.metadata.labels, { b: '1' });
  assert.equal((await status(cm('a', { y: '2' }))).message, 'Apply failed with 1 conflict: conflict with "b": .data.y');

  // nodeSelector is an atomic map, tolerations an atomic list: owned whole.
  await applyDeployment({ spec: template([{ name: 'web', image: 'x' }], { nodeSelector: { os: 'linux' }, tolerations: [{ key: 'a', operator: 'Exists' }] }) }, 'one');
  const s = await status(applyDeployment({ spec: template([{ name: 'web', image: 'x' }], { nodeSelector: { os: 'linux', zone: 'a' }, tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }] }) }, 'two'));
  assert.equal(s.message, 'Apply failed with 2 conflicts: conflicts with "one":\n- .spec.template.spec.nodeSelector\n- .spec.template.spec.tolerations');
  await storage.close();
});

test('apply: kubectl\'s first server-side apply over a client-side apply is not a conflict on its own fields', async () => {
  const { store, def, ctx, apply, read, storage } = await fixture();
  const cms = def('configmaps');
  const last = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: NS }, data: { a: '1', b: '2' } };
  await store.create(cms, NS, { metadata: { name: 'c', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(last)}\n` } }, data: { a: '1', b: '2' } }, ctx('kubectl-client-side-apply'));
  const config = { ...last, data: { a: '1', b: '3' } };
  assert.match((await status(apply('configmaps', '', 'c', config, 'someone-else'))).message ?? '', /^Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: \.data\.b$/);
  const r = await apply('configmaps', '', 'c', config, 'kubectl');
  assert.equal(r.code, 200);
  const c: any = await read('configmaps', '', 'c');
  assert.deepEqual(c.data, { a: '1', b: '3' });
  // The annotation follows what kubectl applied.
  assert.equal(c.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'],
    '{"apiVersion":"v1","data":{"a":"1","b":"3"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"}}\n');
  await storage.close();
});

test('apply: errors as upstream words them', async () => {
  const { apply, storage } = await fixture();
  const bad = (p: Promise<unknown>) => status(p);
  let s = await bad(apply('configmaps', '', 'c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, ''));
  assert.equal(s.code, 422);
  assert.equal(s.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  assert.deepEqual(s.details, { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }] });
  assert.throws(() => checkPatchOptions('application/merge-patch+json', new URLSearchParams({ force: 'true' })),
    (e: unknown) => e instanceof StatusError && e.status.message === 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  s = await bad(apply('configmaps', '', 'c', { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'c' } }, 'm'));
  assert.deepEqual([s.code, s.message], [400, 'invalid object type: apps/v1, Kind=ConfigMap']);
  s = await bad(apply('configmaps', '', 'c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', managedFields: [] } }, 'm'));
  assert.deepEqual([s.code, s.message], [400, 'metadata.managedFields must be nil']);
  s = await bad(apply('configmaps', '', 'c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: NS }, dta: {} }, 'm'));
  assert.deepEqual([s.code, s.reason, s.message], [500, undefined, `failed to create typed patch object (${NS}/c; /v1, Kind=ConfigMap): .dta: field not declared in schema`]);
  s = await bad(apply('configmaps', '', 'c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } }, 'm'));
  assert.deepEqual([s.code, s.message], [400, 'the name of the object (other) does not match the name on the URL (c)']);
  await storage.close();
});

test('the manager of a request without fieldManager comes from its User-Agent', () => {
  assert.equal(managerOrUserAgent(null, 'kubectl.1.33/v1.33.1 (linux/amd64) kubernetes/8adc0f0'), 'kubectl.1.33');
  assert.equal(managerOrUserAgent('', 'Go-http-client/1.1'), 'Go-http-client');
  assert.equal(managerOrUserAgent(null, undefined), 'unknown');
  assert.equal(managerOrUserAgent('mine', 'kubectl/v1'), 'mine');
  assert.equal(managerOrUserAgent(null, 'x'.repeat(200)).length, 128);
});
