/**
 * The HPA's replica calculation and normalization, with cases of upstream's
 * replica_calculator_test.go and horizontal_test.go (their numbers).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { DEFAULT_CALCULATOR, resourceReplicas, rawResourceReplicas, type PodMetrics } from '../../src/controllers/podautoscaler/replica-calculator.js';
import { normalizeDesiredReplicas, normalizeWithBehaviors, ScaleHistory } from '../../src/controllers/podautoscaler/normalize.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const LONG_AGO = new Date(NOW - 3600_000).toISOString();

function pod(name: string, request: string | undefined, ready: 'True' | 'False' = 'True', transition = LONG_AGO): Pod {
  return {
    metadata: { name },
    spec: { containers: [{ name: 'app', ...(request ? { resources: { requests: { cpu: request } } } : {}) }] },
    status: { phase: 'Running', startTime: LONG_AGO, conditions: [{ type: 'Ready', status: ready, lastTransitionTime: transition }] },
  };
}
const sample = (levels: Record<string, number>) => ({
  timestampMs: NOW - 1000,
  metrics: new Map(Object.entries(levels).map(([n, v]) => [n, { timestampMs: NOW - 1000, windowMs: 30_000, value: v }])) as PodMetrics,
});
const calc = (current: number, target: number, pods: Pod[], levels: Record<string, number>) =>
  resourceReplicas(current, target, 'cpu', pods, sample(levels), undefined, DEFAULT_CALCULATOR, NOW);

test('utilization: scale up, scale down, and no change within the tolerance', () => {
  const three = ['a', 'b', 'c'].map((n) => pod(n, '1'));
  // TestReplicaCalcScaleUp: 300m, 500m, 700m of 1 CPU against 30 %: 50 %, 5 replicas.
  assert.deepEqual(calc(3, 30, three, { a: 300, b: 500, c: 700 }), { replicas: 5, utilization: 50, rawAverage: 500, timestampMs: NOW - 1000 });
  // TestReplicaCalcScaleDown: 100m, 300m, 500m, 250m, 250m against 50 %: 28 %, 3 replicas.
  const five = ['a', 'b', 'c', 'd', 'e'].map((n) => pod(n, '1'));
  assert.equal(calc(5, 50, five, { a: 100, b: 300, c: 500, d: 250, e: 250 }).replicas, 3);
  // TestReplicaCalcTolerance: 102 % against 100 % is within 10 %.
  assert.equal(calc(3, 100, three, { a: 1010, b: 1030, c: 1020 }).replicas, 3);
});

test('missing and unready pods: counted against the direction of the change', () => {
  const four = ['a', 'b', 'c', 'd'].map((n) => pod(n, '1'));
  // d has no metrics yet: on a scale-down (30 %) it counts at its request: 1900m of 4 CPU is 47 %, within the tolerance of 50 %.
  assert.equal(calc(4, 50, four, { a: 100, b: 300, c: 500 }).replicas, 4);
  // On a scale-up it counts as nothing: 2100m of 3 CPU in metrics (70 %) becomes 2100m of 4 (52 %): 6 replicas.
  assert.equal(calc(4, 40, four, { a: 700, b: 700, c: 700 }).replicas, 6);
  // c has never been ready: left out (2000m of 2 CPU, 100 %), then on the scale-up counted as nothing (2000m of 3: 66 %): 4.
  const pods = [pod('a', '1'), pod('b', '1'), pod('c', '1', 'False', new Date(NOW - 3600_000 + 10_000).toISOString())];
  assert.equal(calc(3, 50, pods, { a: 1000, b: 1000, c: 1000 }).replicas, 4);
  assert.throws(() => calc(1, 50, [pod('a', undefined)], { a: 100 }), { message: 'missing request for cpu in container app of Pod a' });
  assert.throws(() => calc(1, 50, [pod('a', '1')], {}), { message: 'did not receive metrics for targeted pods (pods might be unready)' });
});

test('average value: the mean usage against the target per pod', () => {
  const three = ['a', 'b', 'c'].map((n) => pod(n, '1'));
  // 1500m average against 500m: 9 replicas.
  assert.equal(rawResourceReplicas(3, 500, 'cpu', three, sample({ a: 1000, b: 1500, c: 2000 }), DEFAULT_CALCULATOR, NOW).replicas, 9);
});

test('without behavior: the downscale stabilization window, then at most double (or 4) and within min/max', () => {
  const h = new ScaleHistory();
  assert.deepEqual(normalizeDesiredReplicas(h, 5, 5, 1, 10, 300_000, NOW).replicas, 5);
  const stabilized = normalizeDesiredReplicas(h, 5, 2, 1, 10, 300_000, NOW + 60_000);
  assert.deepEqual(stabilized.replicas, 5);
  assert.deepEqual(stabilized.conditions[0], { type: 'AbleToScale', status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
  assert.equal(normalizeDesiredReplicas(h, 5, 2, 1, 10, 300_000, NOW + 301_000).replicas, 2);
  const limited = normalizeDesiredReplicas(new ScaleHistory(), 1, 10, 1, 20, 300_000, NOW);
  assert.deepEqual([limited.replicas, limited.conditions[1]], [4, { type: 'ScalingLimited', status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' }]);
  assert.deepEqual(normalizeDesiredReplicas(new ScaleHistory(), 3, 0, 2, 20, 300_000, NOW).conditions[1]?.reason, 'TooFewReplicas');
});

test('with behavior: a Pods policy limits each period; Disabled stops a direction', () => {
  const h = new ScaleHistory();
  const behavior = { scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } };
  const first = normalizeWithBehaviors(h, behavior, 5, 1, 1, 10, 300_000, NOW);
  assert.deepEqual([first.replicas, first.conditions[1]?.reason], [4, 'ScaleDownLimit']);
  h.recordScaleEvent(behavior, 5, 4, NOW);
  // Within the same 60 s period the one pod allowed is spent.
  assert.equal(normalizeWithBehaviors(h, behavior, 4, 1, 1, 10, 300_000, NOW + 10_000).replicas, 4);
  assert.equal(normalizeWithBehaviors(h, behavior, 4, 1, 1, 10, 300_000, NOW + 61_000).replicas, 3);
  const disabled = normalizeWithBehaviors(new ScaleHistory(), { scaleUp: { selectPolicy: 'Disabled', policies: [] } }, 2, 6, 1, 10, 0, NOW);
  assert.deepEqual([disabled.replicas, disabled.conditions[1]?.reason], [2, 'ScaleUpLimit']);
});

test('upstream cases: unready, failed and deleted pods, superfluous metrics (replica_calculator_test.go)', () => {
  const neverReady = new Date(Date.parse(LONG_AGO) + 10_000).toISOString();
  // TestReplicaCalcScaleUpUnreadyLessScale: a never-ready pod left out (60 %), then counted as idle on the way up (40 %): 4.
  const unready = [pod('a', '1', 'False', neverReady), pod('b', '1'), pod('c', '1')];
  assert.deepEqual(calc(3, 30, unready, { a: 300, b: 500, c: 700 }), { replicas: 4, utilization: 60, rawAverage: 600, timestampMs: NOW - 1000 });
  // TestReplicaCalcScaleUpIgnoresFailedPods / ...DeletionPods: failed and deleting pods are not counted at all: 4.
  const failed = [pod('a', '1'), pod('b', '1'), { ...pod('c', '1'), status: { phase: 'Failed' } }, { ...pod('d', '1'), status: { phase: 'Failed' } }];
  assert.deepEqual(calc(2, 30, failed, { a: 500, b: 700, c: 1000, d: 1000 }), { replicas: 4, utilization: 60, rawAverage: 600, timestampMs: NOW - 1000 });
  const deleting = [pod('a', '1'), pod('b', '1'), { ...pod('c', '1'), metadata: { name: 'c', deletionTimestamp: LONG_AGO } }];
  assert.equal(calc(2, 30, deleting, { a: 500, b: 700, c: 1000 }).replicas, 4);
  // TestReplicaCalcSuperfluousMetrics: metrics of pods the selector does not pick are ignored: 587 % of 4 pods, 24.
  const four = ['a', 'b', 'c', 'd'].map((n) => pod(n, '1'));
  const superfluous = calc(4, 100, four, { a: 4000, b: 9500, c: 3000, d: 7000, e: 3200, f: 2000 });
  assert.deepEqual([superfluous.replicas, superfluous.utilization], [24, 587]);
});

test('a pending pod counts as unready; a pod still starting whose sample predates a whole window is unready', () => {
  const pending = { ...pod('c', '1'), status: { phase: 'Pending' } };
  // 2000m of 2 CPU in metrics (100 %), against 50 %: with c at 0, 2000m of 3 (66 %): 4.
  assert.equal(calc(3, 50, [pod('a', '1'), pod('b', '1'), pending], { a: 1000, b: 1000 }).replicas, 4);
  // Started 1 min ago, ready 10 s ago: its 30 s sample was not all taken while ready, so it is left out on the way up.
  const starting: Pod = {
    metadata: { name: 'c' }, spec: { containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }] },
    status: { phase: 'Running', startTime: new Date(NOW - 60_000).toISOString(), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(NOW - 10_000).toISOString() }] },
  };
  assert.equal(calc(3, 50, [pod('a', '1'), pod('b', '1'), starting], { a: 1000, b: 1000, c: 3000 }).replicas, 4);
});

test('a container resource: only the named container, sidecars counted in the request', () => {
  const p = (name: string): Pod => ({
    metadata: { name },
    spec: {
      initContainers: [{ name: 'proxy', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } }],
      containers: [{ name: 'app', resources: { requests: { cpu: '500m' } } }, { name: 'log', resources: { requests: { cpu: '100m' } } }],
    },
    status: { phase: 'Running', startTime: LONG_AGO, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: LONG_AGO }] },
  });
  // app uses 400m of its 500m (80 %) against 40 %: 2 × 2 = 4.
  assert.deepEqual(resourceReplicas(2, 40, 'cpu', [p('a'), p('b')], sample({ a: 400, b: 400 }), 'app', DEFAULT_CALCULATOR, NOW),
    { replicas: 4, utilization: 80, rawAverage: 400, timestampMs: NOW - 1000 });
  // The whole pod: 700m requested with the sidecar; 700m used is 100 %, against 50 %: 4.
  assert.equal(resourceReplicas(2, 50, 'cpu', [p('a'), p('b')], sample({ a: 700, b: 700 }), undefined, DEFAULT_CALCULATOR, NOW).utilization, 100);
});
