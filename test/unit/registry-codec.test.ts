import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cloneDecoded, decodedCopy, decodeValue, encode } from '../../src/registry/codec.js';
import { allResources } from '../../src/registry/resources.js';
import type { KObject } from '../../src/apimachinery/object.js';

const defs = allResources();
const deployments = defs.find((d) => d.group === 'apps' && d.resource === 'deployments')!;

/** An object as a write may hold it: key order, undefined members, -0, non-finite numbers, a "__proto__" key. */
function awkward(): KObject {
  const obj = JSON.parse('{"spec":{"__proto__":{"x":1}}}') as Record<string, any>;
  return {
    metadata: { name: 'd', namespace: 'ns', resourceVersion: '5', labels: { b: '2', a: '1' }, annotations: undefined },
    apiVersion: 'apps/v1', kind: 'Deployment',
    spec: { replicas: -0, paused: undefined, list: [1, undefined, NaN, Infinity, { z: 1, y: undefined }], ...obj.spec },
    status: {},
  } as unknown as KObject;
}

test('decodedCopy is what decoding the encoded text gives, key order included', () => {
  const obj = awkward();
  const viaText = decodeValue(deployments, encode(obj), 42);
  const copy = decodedCopy(deployments, obj, 42)!;
  assert.equal(JSON.stringify(copy), JSON.stringify(viaText));
  assert.deepEqual(copy, viaText);
  assert.deepEqual(Object.keys(copy.metadata), Object.keys(viaText.metadata));
  assert.equal(Object.getPrototypeOf((copy as any).spec), Object.prototype);
  assert.deepEqual(Object.keys((copy as any).spec), ['replicas', 'list', '__proto__']);
  // The copy shares nothing with the object written.
  (copy.metadata.labels as Record<string, string>).c = '3';
  assert.equal(obj.metadata.labels!.c, undefined);
});

test('decodedCopy declines what is not plain JSON data', () => {
  const obj = awkward();
  (obj as any).spec.when = new Date(0);
  assert.equal(decodedCopy(deployments, obj, 1), undefined);
});

test('cloneDecoded copies decoded objects deeply, own "__proto__" keys included', () => {
  const v = JSON.parse('{"a":[{"b":1}],"__proto__":{"c":2}}');
  const c = cloneDecoded(v);
  assert.deepEqual(c, v);
  assert.deepEqual(Object.keys(c), ['a', '__proto__']);
  assert.equal(Object.getPrototypeOf(c), Object.prototype);
  c.a[0].b = 2;
  assert.equal(v.a[0].b, 1);
});
