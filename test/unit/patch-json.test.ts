import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, decodeJsonPatch } from '../../src/patch/json-patch.js';
import { applyPatch, PatchError, patchErrorStatus } from '../../src/patch/index.js';
import type { Json, JsonObject } from '../../src/patch/json.js';

const deployment = (): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 1,
    template: { spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
  },
});

function failure(f: () => unknown): PatchError {
  try { f(); } catch (e) {
    assert.ok(e instanceof PatchError, `expected PatchError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the patch to fail');
}

const apply = (doc: Json, ops: Json[]) => applyJsonPatch(doc, ops);

test('json patch: add, remove, replace, move, copy and test', () => {
  const doc = deployment();
  const out = apply(doc, [
    { op: 'test', path: '/spec/replicas', value: 1 },
    { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
    { op: 'add', path: '/metadata/annotations', value: { 'a~b': 'x' } },
    { op: 'replace', path: '/spec/replicas', value: 3 },
    { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'sidecar', image: 'busybox' } },
    { op: 'copy', from: '/metadata/annotations/a~0b', path: '/metadata/labels/copied' },
    { op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/moved' },
    { op: 'remove', path: '/spec/template/spec/containers/0' },
    { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'sidecar' },
  ]);
  assert.deepEqual(out, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      labels: { 'app.kubernetes.io/name': 'web', copied: 'x', moved: 'web' },
      annotations: { 'a~b': 'x' },
    },
    spec: { replicas: 3, template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } },
  });
  assert.deepEqual(doc, deployment(), 'input is not mutated');
});

test('json patch: array indices insert, and negative indices count from the end', () => {
  const out = apply({ a: [1, 2, 3] }, [
    { op: 'add', path: '/a/0', value: 0 },
    { op: 'add', path: '/a/4', value: 4 },
    { op: 'remove', path: '/a/-1' },
    { op: 'replace', path: '/a/-1', value: 'last' },
  ]);
  assert.deepEqual(out, { a: [0, 1, 2, 'last'] });
});

test('json patch: a failed test op is a 422 with the generic message upstream sends', () => {
  const err = failure(() => apply(deployment(), [{ op: 'test', path: '/spec/replicas', value: 5 }]));
  assert.equal(err.message, 'testing value /spec/replicas failed: test failed');
  assert.deepEqual(patchErrorStatus(err), {
    code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {},
  });
});

test('json patch: upstream error text for missing paths, keys and indices', () => {
  const cases: [Json, string][] = [
    [{ op: 'replace', path: '/spec/missing/x', value: 1 }, 'replace operation does not apply: doc is missing path: /spec/missing/x: missing value'],
    [{ op: 'add', path: '/nope/x', value: 1 }, 'add operation does not apply: doc is missing path: "/nope/x": missing value'],
    [{ op: 'remove', path: '/metadata/nope' }, "error in remove for path: '/metadata/nope': Unable to remove nonexistent key: nope: missing value"],
    [{ op: 'add', path: '/spec/template/spec/containers/5', value: {} },
      "error in add for path: '/spec/template/spec/containers/5': Unable to access invalid index: 5: invalid index referenced"],
    [{ op: 'add', path: '/spec/template/spec/containers/x', value: {} },
      "error in add for path: '/spec/template/spec/containers/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax"],
    [{ op: 'replace', path: '/spec/template/spec/containers/3', value: {} },
      'replace operation does not apply: doc is missing key: /spec/template/spec/containers/3: missing value'],
    [{ op: 'move', from: '/metadata/nope', path: '/x' }, "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value"],
    [{ op: 'test', path: '/metadata/name/x', value: 1 }, 'test operation does not apply: is missing path: /metadata/name/x: missing value'],
    [{ op: 'add', value: 1 }, 'add operation failed to decode path: missing value'],
    [{ op: 'copy', path: '/x' }, 'copy operation failed to decode from: operation, missing from field: missing value'],
    [{ op: 'frobnicate', path: '/x' }, 'Unexpected kind: frobnicate'],
    [{ path: '/x' }, 'Unexpected kind: unknown'],
    [{ op: 'replace', path: '', value: 'x' }, 'replace operation value must be object or array: %!w(<nil>)'],
  ];
  for (const [op, message] of cases) {
    const err = failure(() => apply(deployment(), [op]));
    assert.equal(err.message, message);
    assert.equal(err.kind, 'Invalid');
  }
});

test('json patch: evanphx quirks are kept (replace adds a missing key, copy of a missing key copies null)', () => {
  assert.deepEqual(apply({ a: {} }, [{ op: 'replace', path: '/a/b', value: 1 }]), { a: { b: 1 } });
  assert.deepEqual(apply({ a: {} }, [{ op: 'copy', from: '/a/nope', path: '/a/c' }]), { a: { c: null } });
  assert.deepEqual(apply({ a: 1 }, [{ op: 'test', path: '/nope', value: null }]), { a: 1 });
  assert.deepEqual(apply({ a: 1 }, [{ op: 'add', path: '/b' }]), { a: 1, b: null });
});

test('json patch: malformed bodies are 400s with Go encoding/json text', () => {
  const cases: [string, string][] = [
    ['[', 'unexpected end of JSON input'],
    ['', 'unexpected end of JSON input'],
    ['[{"op":"add",}]', "invalid character '}' looking for beginning of object key string"],
    ['{"op":"add"}', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    ['["add"]', 'json: cannot unmarshal string into Go value of type jsonpatch.Operation'],
    ['[] x', "invalid character 'x' after top-level value"],
    ["[{'op':'add'}]", "invalid character '\\'' looking for beginning of object key string"],
    ['[tru]', "invalid character ']' in literal true (expecting 'e')"],
  ];
  for (const [body, message] of cases) {
    const err = failure(() => decodeJsonPatch(body));
    assert.deepEqual(patchErrorStatus(err), { code: 400, reason: 'BadRequest', message });
  }
  assert.deepEqual(decodeJsonPatch('null'), []);
});

test('json patch: more than 10000 operations is 413', () => {
  const body = JSON.stringify(Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'Deployment' })));
  const err = failure(() => applyPatch('application/json-patch+json', deployment(), body, { group: 'apps', version: 'v1', kind: 'Deployment' }));
  assert.deepEqual(patchErrorStatus(err), {
    code: 413, reason: 'RequestEntityTooLarge',
    message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
  });
});
