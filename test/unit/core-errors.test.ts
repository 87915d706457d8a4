/**
 * Golden refusals the core resources produce themselves: ObjectMeta
 * validation, decode errors (bad quantity, bad base64) and service node port
 * allocation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errors, StatusError } from '../../src/apimachinery/errors.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { ResourceDef } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';
import { coreResources } from '../../src/registry/core/index.js';
import { serviceAccountLookup } from '../../src/registry/core/pod-admission.js';
import { GOLDEN_DIR } from '../helpers/golden.js';

const CASES = process.env.GOLDEN_CASES ?? join(GOLDEN_DIR, 'cases');
const skip = !existsSync(CASES) && 'no golden cases';
serviceAccountLookup.defaultAttempts = 1;

function golden(name: string): any {
  return JSON.parse(readFileSync(join(CASES, `${name}.json`), 'utf8'));
}

const def = (resource: string): ResourceDef => coreResources.find((d) => d.resource === resource)!;

/** The store's create path, ending in the 422 it would answer; returns the Status body. */
async function create(resource: string, namespace: string, body: any, existing: KObject[] = []): Promise<any> {
  const d = def(resource);
  const obj = structuredClone(body);
  obj.metadata ??= {};
  if (d.namespaced) obj.metadata.namespace = namespace;
  const ctx: WriteContext = { namespace, now: new Date(), dryRun: false, fieldManager: 't', warn: () => {} };
  const lookup = {
    async get(_g: string, r: string, ns: string, name: string) {
      return r === 'serviceaccounts' && name === 'default' ? { metadata: { name, namespace: ns } } : undefined;
    },
    async listAll(_g: string, r: string) { return r === d.resource ? existing : []; },
  };
  try {
    d.defaults?.(obj);
    d.prepareForCreate?.(obj, ctx);
    await d.admitCreate?.(obj, ctx, lookup);
    (await d.beginCreate?.(obj, ctx, lookup))?.(false);
    const errs = d.validate?.(obj) ?? [];
    if (errs.length) throw errors.invalid(d, obj.metadata.name ?? '', errs);
    return obj;
  } catch (e) {
    if (e instanceof StatusError) return e.status;
    throw e;
  }
}

for (const name of ['gen-podval-name-uppercase', 'gen-podval-name-too-long', 'gen-podval-label-key-invalid',
  'gen-podval-label-value-invalid', 'gen-secretval-data-not-base64', 'gen-podval-quantity-unparseable',
  'gen-svcval-nodeport-out-of-range']) {
  test(`golden ${name}`, { skip }, async () => {
    const c = golden(name);
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/([a-z]+)/.exec(c.request.path)!;
    assert.deepEqual(await create(m[2] ?? '', m[1] ?? '', c.request.body), c.response.body);
  });
}

test('golden gen-svcval-nodeport-conflict', { skip }, async () => {
  const c = golden('gen-svcval-nodeport-conflict');
  const first = await create('services', 'golden-gen', c.setup[1].body);
  assert.equal(first.spec.ports[0].nodePort, 31080);
  assert.deepEqual(await create('services', 'golden-gen', c.request.body, [first]), c.response.body);
});

test('service names are DNS-1035 labels', async () => {
  const st = await create('services', 'ns', { metadata: { name: '1abc' }, spec: { ports: [{ port: 80 }] } });
  assert.equal(st.code, 422);
  assert.match(st.message, /a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character/);
});

test('namespace names are DNS-1123 labels; generateName may end in a dash', async () => {
  const st = await create('namespaces', '', { metadata: { name: 'a.b' } });
  assert.equal(st.message, 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label must ' +
    "consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character " +
    "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  const ok = await create('namespaces', '', { metadata: { generateName: 'team-', name: 'team-x7k2p' } });
  assert.equal(ok.code, undefined);
  assert.equal(ok.metadata.labels['kubernetes.io/metadata.name'], 'team-x7k2p');
});

test('annotations: qualified keys and a 256 KiB total', async () => {
  const big = 'x'.repeat(256 * 1024);
  const st = await create('configmaps', 'ns', { metadata: { name: 'c', annotations: { 'Bad Key': 'v', k: big } } });
  assert.equal(st.code, 422);
  assert.deepEqual(st.details.causes.map((c: any) => [c.field, c.reason]), [
    ['metadata.annotations', 'FieldValueInvalid'],
    ['metadata.annotations', 'FieldValueTooLong'],
  ]);
});

test('finalizers must be standard or qualified', async () => {
  const st = await create('configmaps', 'ns', { metadata: { name: 'c', finalizers: ['custom'] } });
  assert.equal(st.message, 'ConfigMap "c" is invalid: metadata.finalizers[0]: Invalid value: "custom": ' +
    'name is neither a standard finalizer name nor is it fully qualified');
});

test('owner references need apiVersion, kind, name and uid', async () => {
  const st = await create('configmaps', 'ns', { metadata: { name: 'c', ownerReferences: [{ kind: 'Pod' }] } });
  assert.deepEqual(st.details.causes.map((c: any) => c.field), [
    'metadata.ownerReferences.apiVersion', 'metadata.ownerReferences.name', 'metadata.ownerReferences.uid']);
});

test('update: no new finalizers while deleting, metadata checks again', () => {
  const d = def('configmaps');
  const old: KObject = { metadata: { name: 'c', namespace: 'ns', uid: 'u', deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['a/b'] } };
  const next: KObject = structuredClone(old);
  next.metadata.finalizers = ['a/b', 'c/d'];
  const errs = d.validateUpdate!(next, old);
  assert.deepEqual(errs.map((e) => [e.field, e.type, e.detail]), [['metadata.finalizers', 'FieldValueForbidden',
    'no new finalizers can be added if the object is being deleted, found new finalizers []string{"c/d"}']]);
});

test('events are not held to ObjectMeta rules (core/v1 legacy validation only)', async () => {
  const ok = await create('events', 'ns', { metadata: { name: 'Any_Name!' }, involvedObject: { namespace: 'ns' } });
  assert.equal(ok.kind, undefined);
  assert.equal(ok.metadata.name, 'Any_Name!');
  const bad = await create('events', 'ns', { metadata: { name: 'e' }, involvedObject: { namespace: 'other' } });
  assert.equal(bad.message, 'Event "e" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace');
});

test('a cluster IP outside the range or in use is refused like upstream', async () => {
  const out = await create('services', 'ns', { metadata: { name: 's' }, spec: { clusterIP: '10.0.0.1', ports: [{ port: 80 }] } });
  assert.equal(out.message, 'Service "s" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: failed to allocate IP ' +
    '10.0.0.1: the provided IP (10.0.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12');
  const kube = { metadata: { name: 'kubernetes', namespace: 'default', uid: 'k' }, spec: { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'] } };
  const used = await create('services', 'ns', { metadata: { name: 's' }, spec: { clusterIP: '10.96.0.1', ports: [{ port: 80 }] } }, [kube]);
  assert.equal(used.details.causes[0].message,
    'Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated');
  const six = await create('services', 'ns', { metadata: { name: 's' }, spec: { ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] } });
  assert.equal(six.message, 'Service "s" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": ' +
    'this cluster is not configured for dual-stack services');
});

test('NewInvalid of a kind left empty: the group alone qualifies it and details carry no kind (StatusDetails.Kind is omitempty)', () => {
  const err = errors.invalid({ group: 'authorization.k8s.io', kind: '' }, '', [
    { type: 'FieldValueInvalid', field: 'spec.user', value: '', detail: 'at least one of user or group must be specified' },
  ]);
  assert.equal(err.status.message, '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified');
  assert.deepEqual(Object.keys(err.status.details ?? {}), ['group', 'causes']);
});
