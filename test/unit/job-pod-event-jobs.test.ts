/** Which Jobs a pod event wakes: its controller, and for an orphan the Jobs whose selector matches it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { jobsToSyncForPod } from '../../src/controllers/job/pod-event-jobs.js';

const job = (name: string, uid: string, matchLabels: Record<string, string>): KObject =>
  ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'ns', uid }, spec: { selector: { matchLabels } } });
const pod = (labels: Record<string, string>, owner?: { name: string; uid: string }): KObject => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: {
    name: 'p', namespace: 'ns', labels,
    ...(owner ? { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: owner.name, uid: owner.uid, controller: true }] } : {}),
  },
}) as KObject;

const JOBS = [job('adopt-release', 'u1', { job: 'adopt-release' }), job('other', 'u2', { job: 'other' })];

test('a pod with a Job controller wakes that Job only', () => {
  assert.deepEqual(jobsToSyncForPod('MODIFIED', pod({ job: 'adopt-release' }, { name: 'adopt-release', uid: 'u1' }),
    pod({ job: 'adopt-release' }, { name: 'adopt-release', uid: 'u1' }), JOBS), ['ns/adopt-release']);
});

test('a pod orphaned by removing its controllerRef wakes its old Job and the Jobs that match it, to be adopted again', () => {
  assert.deepEqual(jobsToSyncForPod('MODIFIED', pod({ job: 'adopt-release' }), pod({ job: 'adopt-release' }, { name: 'adopt-release', uid: 'u1' }), JOBS),
    ['ns/adopt-release']);
  assert.deepEqual(jobsToSyncForPod('ADDED', pod({ job: 'other' }), undefined, JOBS), ['ns/other']);
});

test('an orphan whose labels and controllerRef did not change wakes nothing; a deleting orphan wakes nothing', () => {
  assert.deepEqual(jobsToSyncForPod('MODIFIED', pod({ job: 'other' }), pod({ job: 'other' }), JOBS), []);
  const deleting = pod({ job: 'other' });
  deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  assert.deepEqual(jobsToSyncForPod('MODIFIED', deleting, pod({ job: 'x' }), JOBS), []);
});

test('an orphan relabelled to match another Job wakes that one', () => {
  assert.deepEqual(jobsToSyncForPod('MODIFIED', pod({ job: 'other' }), pod({ job: 'none' }), JOBS), ['ns/other']);
});
