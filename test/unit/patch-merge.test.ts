import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch, decodeMergePatch } from '../../src/patch/merge-patch.js';
import { applyPatch, PatchError, patchErrorStatus } from '../../src/patch/index.js';
import type { Json } from '../../src/patch/json.js';

test('merge patch: RFC 7386 appendix A examples', () => {
  const cases: [Json, Json, Json][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ a: 'b' }, ['c'], ['c']],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [doc, patch, want] of cases) {
    const before = JSON.stringify(doc);
    assert.deepEqual(applyMergePatch(doc, patch), want, JSON.stringify([doc, patch]));
    assert.equal(JSON.stringify(doc), before, 'input is not mutated');
  }
});

test('merge patch: lists are replaced wholesale (kubectl patch --type merge on containers)', () => {
  const dep = {
    spec: { template: { spec: { containers: [{ name: 'patch-demo-ctr', image: 'nginx' }, { name: 'patch-demo-ctr-2', image: 'redis' }] } } },
  };
  const patch = { spec: { template: { spec: { containers: [{ name: 'patch-demo-ctr-3', image: 'gcr.io/google-samples/hello-app:2.0' }] } } } };
  assert.deepEqual(applyMergePatch(dep, patch), patch);
});

test('merge patch: like evanphx, nulls are pruned from inserted values, arrays included', () => {
  assert.deepEqual(applyMergePatch({}, { a: [1, null, { b: null, c: 1 }] }), { a: [1, { c: 1 }] });
  assert.deepEqual(applyMergePatch({ a: 'x' }, { a: { b: null, c: 1 } }), { a: { c: 1 } });
  assert.deepEqual(applyMergePatch({ a: {} }, { a: [null] }), { a: [null] });
});

test('merge patch: bodies that are not objects or arrays are 400 "Invalid JSON Patch"', () => {
  for (const body of ['null', '"bar"', '42', '{"a":', 'nope']) {
    try {
      applyMergePatch({ a: 1 }, decodeMergePatch(body));
      assert.fail(`${body} should fail`);
    } catch (e) {
      assert.ok(e instanceof PatchError);
      assert.deepEqual(patchErrorStatus(e), { code: 400, reason: 'BadRequest', message: 'Invalid JSON Patch' });
    }
  }
});

test('merge patch: dispatched by content type, charset parameter ignored', () => {
  const out = applyPatch('application/merge-patch+json; charset=utf-8', { metadata: { labels: { a: '1', b: '2' } } },
    '{"metadata":{"labels":{"a":null,"c":"3"}}}', { group: '', version: 'v1', kind: 'ConfigMap' });
  assert.deepEqual(out, { metadata: { labels: { b: '2', c: '3' } } });
});
