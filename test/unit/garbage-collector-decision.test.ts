/** attemptToDeleteItem's decision for a dependent, from its owners' states. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attemptToDeleteAction } from '../../src/controllers/garbage-collector-decision.js';

test('a dependent with a solid owner stays, and drops its references to an owner waiting for dependents and a dangling one', () => {
  assert.deepEqual(attemptToDeleteAction([{ uid: 'rc1', state: 'waiting' }, { uid: 'rc2', state: 'solid' }], false, []),
    { kind: 'removeOwnerReferences', uids: ['rc1'] });
  assert.deepEqual(attemptToDeleteAction([{ uid: 'gone', state: 'dangling' }, { uid: 'rc2', state: 'solid' }, { uid: 'rc1', state: 'waiting' }], false, []),
    { kind: 'removeOwnerReferences', uids: ['gone', 'rc1'] });
  assert.deepEqual(attemptToDeleteAction([{ uid: 'rc2', state: 'solid' }], false, []), { kind: 'keep' });
});

test('a dependent whose owners are all gone or waiting is deleted: in the foreground when it has dependents of its own and an owner waits', () => {
  assert.deepEqual(attemptToDeleteAction([{ uid: 'd', state: 'waiting' }], true, []), { kind: 'delete', propagationPolicy: 'Foreground' });
  assert.deepEqual(attemptToDeleteAction([{ uid: 'd', state: 'waiting' }], false, []), { kind: 'delete', propagationPolicy: 'Background' });
  assert.deepEqual(attemptToDeleteAction([{ uid: 'd', state: 'dangling' }], true, []), { kind: 'delete', propagationPolicy: 'Background' });
});

test('without a solid owner the dependent\'s own finalizers choose the policy', () => {
  assert.deepEqual(attemptToDeleteAction([{ uid: 'd', state: 'dangling' }], false, ['orphan']), { kind: 'delete', propagationPolicy: 'Orphan' });
  assert.deepEqual(attemptToDeleteAction([{ uid: 'd', state: 'dangling' }], false, ['foregroundDeletion']), { kind: 'delete', propagationPolicy: 'Foreground' });
});

test('an object without owners is never collected', () => {
  assert.deepEqual(attemptToDeleteAction([], true, []), { kind: 'keep' });
});

test('circle detection: when one of the dependent\'s own dependents is already deleting its dependents, its blocking references are unblocked first', () => {
  assert.deepEqual(attemptToDeleteAction([{ uid: 'd', state: 'waiting' }], true, [], true),
    { kind: 'delete', propagationPolicy: 'Foreground', unblockOwnerReferences: true });
  assert.deepEqual(attemptToDeleteAction([{ uid: 'd', state: 'waiting' }], true, [], false), { kind: 'delete', propagationPolicy: 'Foreground' });
  // Without a waiting owner there is no wait to break.
  assert.deepEqual(attemptToDeleteAction([{ uid: 'd', state: 'dangling' }], true, [], true), { kind: 'delete', propagationPolicy: 'Background' });
});
