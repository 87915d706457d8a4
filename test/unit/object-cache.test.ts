import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectCache } from '../../src/client/object-cache.js';
import type { KObject } from '../../src/apimachinery/object.js';

function pod(rv: string, owner?: string, labels?: Record<string, string>): KObject {
  return {
    metadata: {
      name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: rv, labels,
      ownerReferences: owner ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: owner, controller: true }] : undefined,
    },
  };
}

test('an update keeps the object in its indexes and holds the new version', () => {
  const c = new ObjectCache();
  c.upsert(pod('1', 'rs1'));
  const next = pod('2', 'rs1', { a: 'b' });
  assert.deepEqual(c.upsert(next).applied, true);
  assert.equal(c.get('ns', 'p'), next);
  assert.deepEqual(c.list('ns'), [next]);
  assert.deepEqual(c.controlledBy('rs1'), [next]);
  assert.deepEqual(c.orphans('ns'), []);
});

test('an update that changes the controller moves the object between the indexes', () => {
  const c = new ObjectCache();
  c.upsert(pod('1', 'rs1'));
  const orphaned = pod('2');
  c.upsert(orphaned);
  assert.deepEqual(c.controlledBy('rs1'), []);
  assert.deepEqual(c.orphans('ns'), [orphaned]);
  const adopted = pod('3', 'rs2');
  c.upsert(adopted);
  assert.deepEqual(c.orphans('ns'), []);
  assert.deepEqual(c.controlledBy('rs2'), [adopted]);
  assert.deepEqual(c.list('*'), [adopted]);
});

test('an older version of the same object is not applied', () => {
  const c = new ObjectCache();
  const newer = pod('5');
  c.upsert(newer);
  assert.deepEqual(c.upsert(pod('4')), { old: newer, applied: false });
  assert.equal(c.get('ns', 'p'), newer);
});
