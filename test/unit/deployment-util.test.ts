import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeHash, safeEncodeString } from '../../src/controllers/controller-utils.js';
import {
  equalIgnoreHash, maxSurge, maxUnavailable, newRSNewReplicas, replicaSetProportion, resolveFenceposts, scaledValue,
  maxRevision, revisionOf, setCondition, setNewReplicaSetAnnotations, deploymentTimedOut, type DeploymentStatus,
} from '../../src/controllers/deployment/util.js';
import { rolloutStatus, serializeStatus } from '../../src/controllers/deployment/status.js';
import type { KObject } from '../../src/apimachinery/object.js';

const deploy = (replicas: number, strategy: any = {}, extra: any = {}): KObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name: 'd', namespace: 'ns', uid: 'u', generation: 1, annotations: extra.annotations },
  spec: { replicas, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, ...strategy }, progressDeadlineSeconds: 600, template: { metadata: { labels: { app: 'd' } } } },
  status: extra.status,
});
const rs = (name: string, replicas: number, status: any = {}, annotations: Record<string, string> = {}): KObject => ({
  metadata: { name, uid: name, creationTimestamp: '2024-01-01T00:00:00Z', annotations }, spec: { replicas }, status,
});

test('SafeEncodeString and ComputeHash: the alphabet without vowels and 0/1/3, one character per decimal digit', () => {
  // rand.SafeEncodeString maps each byte modulo 27 into "bcdfghjklmnpqrstvwxz2456789".
  assert.equal(safeEncodeString('0123456789'), '456789bcdf');
  const h = computeHash({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  assert.match(h, /^[456789bcdf]{1,10}$/, 'decimal digits map to 4-9 and b, c, d, f (as in upstream hashes like 7d4bcbbf5b)');
  // Stable under key order, changed by content and by the collision count.
  assert.equal(computeHash({ spec: { containers: [{ image: 'nginx', name: 'c' }] }, metadata: { labels: { app: 'web' } } }), h);
  assert.notEqual(computeHash({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }), h);
  assert.notEqual(computeHash({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, 1), h);
  assert.notEqual(computeHash({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, 0), h,
    'a collision count of 0 is hashed in (a pointer to 0 is not nil)');
});

test('EqualIgnoreHash: the hash label and empty maps do not matter, anything else does', () => {
  const a = { metadata: { labels: { app: 'x', 'pod-template-hash': 'abc' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
  const b = { metadata: { labels: { app: 'x' }, annotations: {} }, spec: { containers: [{ name: 'c', image: 'i' }] } };
  assert.ok(equalIgnoreHash(a, b));
  assert.ok(!equalIgnoreHash(a, { ...b, spec: { containers: [{ name: 'c', image: 'j' }] } }));
  assert.ok(!equalIgnoreHash(a, { metadata: { labels: { app: 'x' }, annotations: { 'kubectl.kubernetes.io/restartedAt': 't' } }, spec: b.spec }));
});

test('int-or-percent: maxSurge rounds up, maxUnavailable rounds down, both zero gives one unavailable', () => {
  assert.equal(scaledValue('25%', 3, true), 1);
  assert.equal(scaledValue('25%', 3, false), 0);
  assert.equal(scaledValue('25%', 10, true), 3);
  assert.equal(scaledValue('25%', 10, false), 2);
  assert.equal(scaledValue(4, 10, false), 4);
  assert.deepEqual(resolveFenceposts('25%', '25%', 3), { surge: 1, unavailable: 0 });
  assert.deepEqual(resolveFenceposts('10%', '10%', 3), { surge: 1, unavailable: 0 });
  assert.deepEqual(resolveFenceposts(0, '10%', 3), { surge: 0, unavailable: 1 });
  assert.equal(maxUnavailable(deploy(3, { rollingUpdate: { maxSurge: 0, maxUnavailable: 5 } })), 3, 'never more than the replicas');
  assert.equal(maxUnavailable(deploy(0)), 0);
  assert.equal(maxSurge(deploy(3, { type: 'Recreate', rollingUpdate: undefined })), 0);
  assert.equal(maxUnavailable(deploy(3, { type: 'Recreate', rollingUpdate: undefined })), 0);
});

test('NewRSNewReplicas: up to replicas + maxSurge in all, never past the desired replicas; Recreate: all at once', () => {
  const d = deploy(10, { rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } });
  const newRS = rs('new', 0);
  assert.equal(newRSNewReplicas(d, [rs('old', 10), newRS], newRS), 3);
  assert.equal(newRSNewReplicas(d, [rs('old', 8), rs('new', 5)], rs('new', 5)), 5);
  assert.equal(newRSNewReplicas(d, [rs('old', 1), rs('new', 8)], rs('new', 8)), 10);
  assert.equal(newRSNewReplicas(deploy(4, { type: 'Recreate', rollingUpdate: undefined }), [rs('old', 4), newRS], newRS), 4);
});

test('proportional scaling: fractions of max-replicas, rounded half away from zero, capped by what is left', () => {
  const d = deploy(20, { rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } });
  const old = rs('old', 8, {}, { 'deployment.kubernetes.io/max-replicas': '13' });
  const nu = rs('new', 5, {}, { 'deployment.kubernetes.io/max-replicas': '13' });
  // 8*23/13 = 14.15 -> 14; 5*23/13 = 8.85 -> 9.
  assert.equal(replicaSetProportion(old, d, 10, 0), 6);
  assert.equal(replicaSetProportion(nu, d, 10, 6), 4);
  assert.equal(replicaSetProportion(nu, d, 10, 10), 0);
  // Scaling down to zero removes everything.
  assert.equal(replicaSetProportion(old, deploy(0), -13, 0), -8);
});

test('revision annotations: raised only, a rollback keeps the former revision in revision-history', () => {
  const d = deploy(3, {}, { annotations: { team: 'a', 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'deployment.kubernetes.io/revision': '7' } });
  const fresh = rs('new', 0);
  fresh.metadata.annotations = undefined;
  assert.ok(setNewReplicaSetAnnotations(d, fresh, 1n, false));
  assert.deepEqual(fresh.metadata.annotations, {
    team: 'a', 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4',
  });
  const back = rs('old', 0, {}, { 'deployment.kubernetes.io/revision': '2', 'deployment.kubernetes.io/revision-history': '1' });
  assert.ok(setNewReplicaSetAnnotations(d, back, 5n, true));
  assert.equal(back.metadata.annotations!['deployment.kubernetes.io/revision'], '5');
  assert.equal(back.metadata.annotations!['deployment.kubernetes.io/revision-history'], '1,2');
  // Never lowered.
  assert.ok(!setNewReplicaSetAnnotations(d, back, 3n, true));
  assert.equal(back.metadata.annotations!['deployment.kubernetes.io/revision'], '5');
});

test('revisions are int64: the next one after a large adopted revision is exact, and a value beyond int64 counts as none', () => {
  const adopted = rs('adopted', 1, {}, { 'deployment.kubernetes.io/revision': '3546343826724305832' });
  const other = rs('other', 0, {}, { 'deployment.kubernetes.io/revision': '12' });
  assert.equal(String(maxRevision([other, adopted]) + 1n), '3546343826724305833');
  assert.equal(revisionOf(rs('huge', 0, {}, { 'deployment.kubernetes.io/revision': '9223372036854775808' })), 0n);
  assert.equal(revisionOf(rs('max', 0, {}, { 'deployment.kubernetes.io/revision': '9223372036854775807' })), 9223372036854775807n);
  assert.equal(revisionOf(rs('word', 0, {}, { 'deployment.kubernetes.io/revision': 'abc' })), 0n);
  const d = deploy(1);
  assert.ok(setNewReplicaSetAnnotations(d, adopted, 3546343826724305833n, true));
  assert.equal(adopted.metadata.annotations!['deployment.kubernetes.io/revision'], '3546343826724305833');
  assert.equal(adopted.metadata.annotations!['deployment.kubernetes.io/revision-history'], '3546343826724305832');
});

test('conditions: same status and reason is no change; a new reason keeps the transition time and moves to the end', () => {
  const s: DeploymentStatus = { conditions: [
    { type: 'Progressing', status: 'True', lastUpdateTime: 't0', lastTransitionTime: 't0', reason: 'NewReplicaSetCreated', message: 'm' },
    { type: 'Available', status: 'False', lastUpdateTime: 't0', lastTransitionTime: 't0', reason: 'MinimumReplicasUnavailable', message: 'x' },
  ] };
  setCondition(s, { type: 'Available', status: 'False', lastUpdateTime: 't1', lastTransitionTime: 't1', reason: 'MinimumReplicasUnavailable', message: 'y' });
  assert.equal(s.conditions?.[1]?.message, 'x');
  setCondition(s, { type: 'Progressing', status: 'True', lastUpdateTime: 't2', lastTransitionTime: 't2', reason: 'ReplicaSetUpdated', message: 'p' });
  assert.deepEqual(s.conditions!.map((c) => [c.type, c.reason, c.lastUpdateTime, c.lastTransitionTime]), [
    ['Available', 'MinimumReplicasUnavailable', 't0', 't0'], ['Progressing', 'ReplicaSetUpdated', 't2', 't0'],
  ]);
});

test('progress deadline: no progress for progressDeadlineSeconds is ProgressDeadlineExceeded with upstream message', () => {
  const old = new Date(Date.now() - 700_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const status = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, unavailableReplicas: 3, conditions: [
    { type: 'Available', status: 'False', lastUpdateTime: old, lastTransitionTime: old, reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
    { type: 'Progressing', status: 'True', lastUpdateTime: old, lastTransitionTime: old, reason: 'ReplicaSetUpdated', message: 'ReplicaSet "d-abc" is progressing.' },
  ] };
  const d = deploy(3, {}, { status });
  const newRS = { ...rs('d-abc', 3, { replicas: 3 }), metadata: { ...rs('d-abc', 3).metadata, name: 'd-abc' } };
  assert.ok(deploymentTimedOut(d, status as DeploymentStatus));
  const next = serializeStatus(rolloutStatus([newRS], newRS, d)) as any;
  const p = next.conditions.find((c: any) => c.type === 'Progressing');
  assert.deepEqual([p.status, p.reason, p.message], ['False', 'ProgressDeadlineExceeded', 'ReplicaSet "d-abc" has timed out progressing.']);
  assert.notEqual(p.lastTransitionTime, old);
  // Within the deadline nothing changes.
  const recent = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const st2 = { ...status, conditions: status.conditions.map((c) => ({ ...c, lastUpdateTime: recent })) };
  assert.ok(!deploymentTimedOut(deploy(3, {}, { status: st2 }), st2 as DeploymentStatus));
});
