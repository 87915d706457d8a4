import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ControllerExpectations, podsToDelete, slowStartBatch } from '../../src/controllers/controller-utils.js';
import { calculateStatus } from '../../src/controllers/replicaset.js';
import type { KObject } from '../../src/apimachinery/object.js';

const NOW = Date.parse('2024-06-01T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function pod(name: string, o: { node?: string; phase?: string; ready?: number; created?: number; restarts?: number; cost?: string; labels?: Record<string, string> } = {}): KObject {
  return {
    metadata: {
      name, uid: name, namespace: 'ns', creationTimestamp: ago(o.created ?? 1000), labels: o.labels ?? { app: 'a' },
      ...(o.cost ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': o.cost } } : {}),
    },
    spec: o.node ? { nodeName: o.node } : {},
    status: {
      phase: o.phase ?? 'Running',
      conditions: o.ready !== undefined ? [{ type: 'Ready', status: 'True', lastTransitionTime: ago(o.ready) }] : [],
      containerStatuses: [{ name: 'c', restartCount: o.restarts ?? 0 }],
    },
  };
}

const names = (pods: KObject[]) => pods.map((p) => p.metadata.name);

test('deletion ranking: unassigned, then pending < unknown < running, then not ready, then deletion cost', () => {
  const pods = [
    pod('ready', { node: 'n1', ready: 500 }),
    pod('running-not-ready', { node: 'n1' }),
    pod('unknown', { node: 'n1', phase: 'Unknown' }),
    pod('pending', { node: 'n1', phase: 'Pending' }),
    pod('unassigned', { phase: 'Pending' }),
  ];
  assert.deepEqual(names(podsToDelete(pods, pods, 4, NOW)), ['unassigned', 'pending', 'unknown', 'running-not-ready']);
  const costly = [pod('expensive', { node: 'n1', ready: 500, cost: '100' }), pod('cheap', { node: 'n1', ready: 500, cost: '-5' })];
  assert.deepEqual(names(podsToDelete(costly, costly, 1, NOW)), ['cheap']);
});

test('deletion ranking: doubled-up nodes first, then ready for less time (log buckets), restarts, then newer', () => {
  const a = pod('alone', { node: 'n1', ready: 500 });
  const d1 = pod('doubled', { node: 'n2', ready: 500 });
  const d2 = pod('related', { node: 'n2', ready: 500 });
  // The related pod (another ReplicaSet's) counts towards n2 but is not a candidate.
  assert.deepEqual(names(podsToDelete([a, d1], [a, d1, d2], 1, NOW)), ['doubled']);
  // Ready 10 s vs 5000 s: different powers of two, the more recently ready goes first.
  const young = pod('young', { node: 'n1', ready: 10 });
  const old = pod('old', { node: 'n3', ready: 5000 });
  assert.deepEqual(names(podsToDelete([old, young], [old, young], 1, NOW)), ['young']);
  // Same bucket of readiness: more restarts go first.
  const r1 = pod('restarts', { node: 'n1', ready: 1000, restarts: 4 });
  const r0 = pod('stable', { node: 'n3', ready: 1001 });
  assert.deepEqual(names(podsToDelete([r0, r1], [r0, r1], 1, NOW)), ['restarts']);
  // Not ready, same everything: newer creation goes first.
  const n1 = pod('newer', { node: 'n1', created: 20 });
  const n2 = pod('older', { node: 'n3', created: 90000 });
  assert.deepEqual(names(podsToDelete([n2, n1], [n2, n1], 1, NOW)), ['newer']);
  // All of them: no ranking needed.
  assert.deepEqual(names(podsToDelete([n2, n1], [n2, n1], 2, NOW)), ['older', 'newer']);
});

test('slowStartBatch: batches of 1, 2, 4 ...; stops after the batch with a failure', async () => {
  // Record how many calls are in flight together: each batch starts together and is awaited before the next.
  const batches: number[] = [];
  let current = 0;
  let calls = 0;
  const r = await slowStartBatch(10, 1, async () => {
    calls++;
    current++;
    await new Promise((res) => setImmediate(res));
    if (current > 0) { batches.push(current); current = 0; }
  });
  assert.deepEqual(r, { successes: 10 });
  assert.equal(calls, 10);
  assert.deepEqual(batches, [1, 2, 4, 3]);
  let n = 0;
  const failing = await slowStartBatch(10, 1, async () => { n++; if (n === 3) throw new Error('quota'); });
  assert.equal(failing.successes, 2);
  assert.equal((failing.error as Error).message, 'quota');
  assert.equal(n, 3, 'batches 1 then 2; the failure in the second stops the rest');
});

test('expectations: satisfied once every creation and the expected deletions are observed', () => {
  const e = new ControllerExpectations();
  assert.ok(e.satisfied('ns/rs'));
  e.expectCreations('ns/rs', 2);
  assert.ok(!e.satisfied('ns/rs'));
  e.creationObserved('ns/rs');
  e.creationObserved('ns/rs');
  assert.ok(e.satisfied('ns/rs'));
  e.expectDeletions('ns/rs', ['ns/a', 'ns/b']);
  e.deletionObserved('ns/rs', 'ns/a');
  e.deletionObserved('ns/rs', 'ns/a');
  assert.ok(!e.satisfied('ns/rs'), 'the same pod seen twice counts once');
  e.deletionObserved('ns/rs', 'ns/b');
  assert.ok(e.satisfied('ns/rs'));
  e.expectCreations('ns/x', 1);
  assert.ok(e.satisfied('ns/x', Date.now() + 5 * 60 * 1000 + 1), 'expectations expire after five minutes');
});

test('ReplicaSet status: fully labeled, ready, available after minReadySeconds; ReplicaFailure from a create error', () => {
  const rs: KObject = {
    metadata: { name: 'rs', generation: 2 },
    spec: { replicas: 3, minReadySeconds: 30, template: { metadata: { labels: { app: 'a', tier: 'web' } } } },
    status: { replicas: 0, observedGeneration: 1 },
  };
  const pods = [
    pod('a', { labels: { app: 'a', tier: 'web' }, ready: 60 }),
    pod('b', { labels: { app: 'a', tier: 'web', extra: 'x' }, ready: 10 }),
  ];
  const now = Date.now();
  const [first, second] = pods;
  assert.ok(first && second);
  first.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(now - 60_000).toISOString() }] };
  second.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(now - 10_000).toISOString() }] };
  const partial = pod('c', { labels: { app: 'a' } });
  const err = Object.assign(new Error('pods "rs-x" is forbidden: exceeded quota: q'), {});
  const s = calculateStatus(rs, [...pods, partial], err, now);
  assert.equal(s.replicas, 3);
  assert.equal(s.fullyLabeledReplicas, 2);
  assert.equal(s.readyReplicas, 2);
  assert.equal(s.availableReplicas, 1);
  const short = calculateStatus(rs, pods, err, now);
  assert.deepEqual(short.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]),
    [['ReplicaFailure', 'True', 'FailedCreate', 'pods "rs-x" is forbidden: exceeded quota: q']]);
  const recovered = calculateStatus({ ...rs, status: short }, pods, undefined, now);
  assert.equal(recovered.conditions, undefined);
});
