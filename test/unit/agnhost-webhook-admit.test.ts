/**
 * agnhost webhook's handlers (test/images/agnhost/webhook): the answers the conformance tests
 * read, as encoding/json writes them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveAdmission, type WEBHOOK_PATHS } from '../../src/node/apps/agnhost-webhook-admit.js';

type Path = (typeof WEBHOOK_PATHS)[number];

function review(request: Record<string, unknown>, apiVersion = 'admission.k8s.io/v1'): string {
  return JSON.stringify({ kind: 'AdmissionReview', apiVersion, request: { uid: 'u-1', ...request } });
}

/** The response object of a JSON answer, and its delay. */
function answer(path: Path, request: Record<string, unknown>, opts: { apiVersion?: string; sidecar?: string } = {}): { body: unknown; delayMs?: number } {
  const a = serveAdmission(path, 'application/json', review(request, opts.apiVersion), opts.sidecar ?? '');
  assert.equal(a.kind, 'json', JSON.stringify(a));
  if (a.kind !== 'json') throw new Error('unreachable');
  return { body: JSON.parse(a.body), ...(a.delayMs ? { delayMs: a.delayMs } : {}) };
}

const pods = { group: '', version: 'v1', resource: 'pods' };
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

test('always-deny denies with its message; the review comes back in the request\'s version', () => {
  assert.deepEqual(answer('/always-deny', {}, { apiVersion: 'admission.k8s.io/v1beta1' }).body, {
    kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1beta1',
    response: { uid: 'u-1', allowed: false, status: { metadata: {}, message: 'this webhook denies all requests' } },
  });
});

test('always-allow-delay-5s answers after five seconds', () => {
  const a = answer('/always-allow-delay-5s', {});
  assert.equal(a.delayMs, 5000);
  assert.deepEqual((a.body as { response: unknown }).response, { uid: 'u-1', allowed: true, status: { metadata: {}, message: 'this webhook allows all requests' } });
});

test('pods: an unwanted label and container name are both named, trimmed', () => {
  const r = answer('/pods', { resource: pods, object: { metadata: { labels: { 'webhook-e2e-test': 'webhook-disallow' } }, spec: { containers: [{ name: 'webhook-disallow' }] } } });
  assert.deepEqual((r.body as { response: unknown }).response, {
    uid: 'u-1', allowed: false, status: { metadata: {}, message: 'the pod contains unwanted label; the pod contains unwanted container name;' },
  });
  const ok = answer('/pods', { resource: pods, object: { metadata: {}, spec: { containers: [{ name: 'c' }] } } });
  assert.deepEqual((ok.body as { response: unknown }).response, { uid: 'u-1', allowed: true });
});

test('pods: wait-forever never answers; another resource is an error response', () => {
  const a = serveAdmission('/pods', 'application/json', review({ resource: pods, object: { metadata: { labels: { 'webhook-e2e-test': 'wait-forever' } } } }), '');
  assert.equal(a.kind, 'never');
  assert.deepEqual((answer('/pods', { resource: configmaps, object: {} }).body as { response: unknown }).response, {
    uid: 'u-1', allowed: false, status: { metadata: {}, message: 'expect resource to be { v1 pods}' },
  });
});

test('pods/attach denies stdin attach to container1 of to-be-attached-pod only', () => {
  const deny = answer('/pods/attach', { name: 'to-be-attached-pod', resource: pods, subResource: 'attach', object: { kind: 'PodAttachOptions', stdin: true, container: 'container1' } });
  assert.deepEqual((deny.body as { response: unknown }).response, {
    uid: 'u-1', allowed: false, status: { metadata: {}, message: "attaching to pod 'to-be-attached-pod' is not allowed" },
  });
  const other = answer('/pods/attach', { name: 'to-be-attached-pod', resource: pods, subResource: 'attach', object: { stdin: false, container: 'container1' } });
  assert.deepEqual((other.body as { response: unknown }).response, { uid: 'u-1', allowed: true });
  const wrong = answer('/pods/attach', { name: 'to-be-attached-pod', resource: pods, subResource: 'exec', object: {} });
  assert.deepEqual((wrong.body as { response: unknown }).response, { uid: 'u-1', allowed: false, status: { metadata: {}, message: 'expect subresource to be attach, got exec' } });
});

test('configmaps: denial by reason on writes and on deletes (the old object)', () => {
  const w = answer('/configmaps', { resource: configmaps, operation: 'CREATE', object: { data: { 'webhook-e2e-test': 'webhook-disallow' } } });
  assert.deepEqual((w.body as { response: unknown }).response, { uid: 'u-1', allowed: false, status: { metadata: {}, reason: 'the configmap contains unwanted key and value' } });
  const d = answer('/configmaps', { resource: configmaps, operation: 'DELETE', oldObject: { data: { 'webhook-e2e-test': 'webhook-nondeletable' } } });
  assert.deepEqual((d.body as { response: unknown }).response, {
    uid: 'u-1', allowed: false, status: { metadata: {}, reason: 'the configmap cannot be deleted because it contains unwanted key and value' },
  });
  // Another resource: the handler returns nil and serve panics.
  assert.equal(serveAdmission('/configmaps', 'application/json', review({ resource: pods, object: {} }), '').kind, 'reset');
});

test('mutating-configmaps: stage 1 from mutation-start, stage 2 once stage 1 is there (the raw patch text)', () => {
  const s1 = answer('/mutating-configmaps', { resource: configmaps, object: { data: { 'mutation-start': 'yes' } } });
  assert.deepEqual((s1.body as { response: unknown }).response, {
    uid: 'u-1', allowed: true, patchType: 'JSONPatch',
    patch: b64('[\n         { "op": "add", "path": "/data/mutation-stage-1", "value": "yes" }\n     ]'),
  });
  const s2 = answer('/mutating-configmaps', { resource: configmaps, object: { data: { 'mutation-start': 'yes', 'mutation-stage-1': 'yes' } } });
  assert.equal(Buffer.from((s2.body as { response: { patch: string } }).response.patch, 'base64').toString(),
    '[\n         { "op": "add", "path": "/data/mutation-stage-2", "value": "yes" }\n     ]');
});

test('add-label: first label, an additional one, a replaced value, nothing when set', () => {
  const patchOf = (labels?: Record<string, string>) =>
    (answer('/add-label', { object: { metadata: labels ? { labels } : {} } }).body as { response: { patch?: string } }).response.patch;
  assert.equal(Buffer.from(patchOf()!, 'base64').toString(), '[\n         { "op": "add", "path": "/metadata/labels", "value": {"added-label": "yes"}}\n     ]');
  assert.match(Buffer.from(patchOf({ a: 'b' })!, 'base64').toString(), /"op": "add", "path": "\/metadata\/labels\/added-label"/);
  assert.match(Buffer.from(patchOf({ 'added-label': 'no' })!, 'base64').toString(), /"op": "replace"/);
  assert.equal(patchOf({ 'added-label': 'yes' }), undefined);
  // A DELETE has no object: json.Unmarshal of no bytes.
  assert.deepEqual((answer('/add-label', {}).body as { response: unknown }).response, { uid: 'u-1', allowed: false, status: { metadata: {}, message: 'unexpected end of JSON input' } });
});

test('mutating-pods adds the init container to webhook-to-be-mutated once; sidecar needs its image', () => {
  const m = answer('/mutating-pods', { resource: pods, object: { metadata: { name: 'webhook-to-be-mutated' }, spec: { containers: [] } } });
  assert.match(Buffer.from((m.body as { response: { patch: string } }).response.patch, 'base64').toString(), /"name":"webhook-added-init-container"/);
  const done = answer('/mutating-pods', { resource: pods, object: { metadata: { name: 'webhook-to-be-mutated' }, spec: { initContainers: [{ name: 'webhook-added-init-container' }] } } });
  assert.deepEqual((done.body as { response: unknown }).response, { uid: 'u-1', allowed: true });
  const s = answer('/mutating-pods-sidecar', { resource: pods, object: {} });
  assert.deepEqual((s.body as { response: unknown }).response, {
    uid: 'u-1', allowed: false, status: { metadata: {}, status: 'Failure', message: 'No image specified by the sidecar-image parameter', code: 500 },
  });
});

test('custom-resource reads the data field in any case; crd denies the label', () => {
  const cr = answer('/custom-resource', { operation: 'UPDATE', object: { Data: { 'webhook-e2e-test': 'webhook-disallow' } } });
  assert.deepEqual((cr.body as { response: unknown }).response, { uid: 'u-1', allowed: false, status: { metadata: {}, reason: 'the custom resource contains unwanted data' } });
  const crd = answer('/crd', { resource: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, object: { metadata: { labels: { 'webhook-e2e-test': 'webhook-disallow' } } } });
  assert.deepEqual((crd.body as { response: unknown }).response, { uid: 'u-1', allowed: false, status: { metadata: {}, message: 'the crd contains unwanted label' } });
  const wrong = answer('/crd', { resource: pods, object: {} });
  assert.deepEqual((wrong.body as { response: unknown }).response, {
    uid: 'u-1', allowed: false,
    status: { metadata: {}, message: 'expect resource to be one of [{apiextensions.k8s.io v1beta1 customresourcedefinitions}, {apiextensions.k8s.io v1 customresourcedefinitions}] but got { v1 pods}' },
  });
});

test('serve: a wrong content type writes nothing; an undecodable body is a 400', () => {
  assert.deepEqual(serveAdmission('/always-deny', 'text/plain', '{}', ''), { kind: 'empty', errorLog: 'contentType=text/plain, expect application/json' });
  const bad = serveAdmission('/always-deny', 'application/json', JSON.stringify({ kind: 'Pod', apiVersion: 'v1' }), '');
  assert.equal(bad.kind, 'error');
  if (bad.kind === 'error') assert.deepEqual([bad.status, bad.message], [400, 'Unsupported group version kind: /v1, Kind=Pod']);
});
