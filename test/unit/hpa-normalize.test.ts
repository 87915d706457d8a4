/**
 * How the HPA normalizes a proposal: upstream's horizontal_test.go cases
 * (TestNormalizeDesiredReplicas, TestScalingWithRules,
 * TestStoreScaleEvents) with their numbers, on an exact clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';
import { normalizeDesiredReplicas, normalizeWithBehaviors, ScaleHistory } from '../../src/controllers/podautoscaler/normalize.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const MIN = 60_000;

/** generateScalingRules: a Pods and/or a Percent policy, selectPolicy Max. */
function rules(pods: number, podsPeriod: number, percent: number, percentPeriod: number, window: number): HPAScalingRules {
  const policies = [];
  if (pods !== 0) policies.push({ type: 'Pods', value: pods, periodSeconds: podsPeriod });
  if (percent !== 0) policies.push({ type: 'Percent', value: percent, periodSeconds: percentPeriod });
  return { stabilizationWindowSeconds: window, selectPolicy: 'Max', policies };
}
// GenerateHPAScaleUpRules / GenerateHPAScaleDownRules for an unset direction: the API server's defaults.
const DEFAULT_UP: HPAScalingRules = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };
const DEFAULT_DOWN: HPAScalingRules = { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** generateEventsUniformDistribution: the changes spread over the last `period` seconds, each in the middle of its segment (whole seconds). */
function spread(changes: number[], period: number): { atMs: number; change: number }[] {
  const segment = period / changes.length;
  return changes.map((change, i) => ({ atMs: NOW - Math.trunc(period - segment * (i + 1) + segment / 2) * 1000, change }));
}

test('without behavior: stabilizeRecommendation keeps the highest recommendation of the last 5 minutes (TestNormalizeDesiredReplicas)', () => {
  const cases: [string, [number, number][], number, number][] = [
    ['empty log', [], 5, 5],
    ['stabilize', [[4, 2], [5, 1]], 3, 5],
    ['no stabilize', [[1, 2], [2, 1]], 3, 3],
    ['no stabilize - old recommendations', [[10, 10], [9, 9]], 3, 3],
    ['stabilize - old recommendations', [[10, 10], [4, 1], [5, 2], [9, 9]], 3, 5],
  ];
  for (const [name, recs, desired, expected] of cases) {
    const h = new ScaleHistory();
    h.recommendations = recs.map(([replicas, minutesAgo]) => ({ atMs: NOW - minutesAgo * MIN, replicas }));
    // Current 5, min 1, max 100: nothing but the stabilization limits these.
    assert.equal(normalizeDesiredReplicas(h, 5, desired, 1, 100, 5 * MIN, NOW).replicas, expected, name);
  }
});

test('behavior rates: the policies over their periods, both directions counted (TestScalingWithRules)', () => {
  type Case = { name: string; up?: HPAScalingRules; down?: HPAScalingRules; upEvents?: { atMs: number; change: number }[];
    downEvents?: { atMs: number; change: number }[]; min: number; max: number; current: number; desired: number; replicas: number; condition: string };
  const cases: Case[] = [
    { name: 'prenormalized desired replicas within range', current: 5, desired: 7, min: 3, max: 8, replicas: 7, condition: 'DesiredWithinRange' },
    { name: 'prenormalized desired replicas < minReplicas', current: 3, desired: 1, min: 2, max: 8, replicas: 2, condition: 'TooFewReplicas' },
    { name: 'prenormalized desired replicas within range when minReplicas is 0', current: 1, desired: 0, min: 0, max: 10, replicas: 0, condition: 'DesiredWithinRange' },
    { name: 'maxReplicas is the limit because maxReplicas < scaleUpLimit', current: 20, desired: 1000, min: 1, max: 10, replicas: 10, condition: 'TooManyReplicas' },
    { name: 'desired replica count is more than the maximum replica count', current: 100, desired: 1000, min: 100, max: 150, replicas: 150, condition: 'TooManyReplicas' },
    { name: 'scaleUpLimit is the limit because scaleUpLimit < maxReplicas with user policies', current: 3, desired: 1000, min: 1, max: 2000, up: rules(0, 0, 1, 60, 0), replicas: 4, condition: 'ScaleUpLimit' },
    { name: 'scaleUp with default behavior', current: 10, desired: 50, min: 1, max: 1000, replicas: 20, condition: 'ScaleUpLimit' },
    { name: 'scaleUp with pods policy larger than percent policy', up: rules(100, 60, 100, 60, 0), current: 10, desired: 500, min: 1, max: 1000, replicas: 110, condition: 'ScaleUpLimit' },
    { name: 'scaleUp with percent policy larger than pods policy', up: rules(2, 60, 100, 60, 0), current: 10, desired: 500, min: 1, max: 1000, replicas: 20, condition: 'ScaleUpLimit' },
    { name: 'scaleUp with pod policy limitation', up: rules(30, 60, 0, 0, 0), current: 10, desired: 50, min: 1, max: 1000, replicas: 40, condition: 'ScaleUpLimit' },
    { name: 'scaleUp with percent policy limitation', up: rules(0, 0, 200, 60, 0), current: 10, desired: 50, min: 1, max: 1000, replicas: 30, condition: 'ScaleUpLimit' },
    { name: 'scaleDown with percent policy larger than pod policy', down: rules(20, 60, 1, 60, 300), current: 100, desired: 2, min: 1, max: 1000, replicas: 80, condition: 'ScaleDownLimit' },
    { name: 'scaleDown with pod policy larger than percent policy', down: rules(2, 60, 1, 60, 300), current: 100, desired: 2, min: 1, max: 1000, replicas: 98, condition: 'ScaleDownLimit' },
    { name: 'scaleDown with spec MinReplicas limitation with large percent policy', down: rules(0, 0, 100, 60, 300), current: 10, desired: 2, min: 5, max: 1000, replicas: 5, condition: 'TooFewReplicas' },
    { name: 'scaleDown with pod policy limitation', down: rules(5, 60, 0, 0, 300), current: 10, desired: 2, min: 1, max: 1000, replicas: 5, condition: 'ScaleDownLimit' },
    { name: 'scaleDown with percent policy limitation', down: rules(0, 0, 50, 60, 300), current: 10, desired: 5, min: 1, max: 1000, replicas: 5, condition: 'DesiredWithinRange' },
    { name: 'scaleUp with spec MaxReplicas limitation with large pod policy and events', upEvents: spread([1, 5, 9], 120), up: rules(300, 60, 0, 0, 0), current: 100, desired: 500, min: 1, max: 200, replicas: 200, condition: 'TooManyReplicas' },
    { name: 'scaleUp with currentReplicas limitation with rate.PeriodSeconds with a lot of recent scale up events', upEvents: spread([1, 5, 9], 120), up: rules(5, 120, 0, 0, 0), current: 100, desired: 500, min: 1, max: 1000, replicas: 100, condition: 'ScaleUpLimit' },
    { name: 'scaleUp with pod policy and previous scale up events', upEvents: spread([1, 5, 9], 120), up: rules(150, 120, 0, 0, 0), current: 100, desired: 500, min: 1, max: 1000, replicas: 235, condition: 'ScaleUpLimit' },
    { name: 'scaleUp with percent policy and previous scale up events', upEvents: spread([1, 5, 9], 120), up: rules(0, 0, 200, 120, 0), current: 100, desired: 500, min: 1, max: 1000, replicas: 255, condition: 'ScaleUpLimit' },
    { name: 'scaleUp with percent policy and previous scale up and down events', upEvents: spread([4], 120), downEvents: spread([2], 120), up: rules(0, 0, 300, 300, 0), current: 6, desired: 24, min: 1, max: 1000, replicas: 16, condition: 'ScaleUpLimit' },
    { name: 'scaleDown with default policy and previous events', downEvents: spread([1, 5, 9], 120), current: 10, desired: 5, min: 1, max: 1000, replicas: 5, condition: 'DesiredWithinRange' },
    { name: 'scaleDown with spec MinReplicas limitation with large pod policy and previous events', downEvents: spread([1, 5, 9], 120), down: rules(130, 120, 0, 0, 300), current: 100, desired: 0, min: 5, max: 1000, replicas: 5, condition: 'TooFewReplicas' },
    { name: 'scaleDown with pod policy limitation and previous events', downEvents: spread([1, 5, 9], 120), down: rules(5, 120, 0, 0, 300), current: 100, desired: 2, min: 1, max: 1000, replicas: 100, condition: 'ScaleDownLimit' },
    { name: 'scaleDown with percent policy limitation and previous events', downEvents: spread([2, 4, 6], 120), down: rules(0, 0, 50, 120, 300), current: 100, desired: 0, min: 1, max: 1000, replicas: 56, condition: 'ScaleDownLimit' },
    { name: 'scaleDown with percent policy and previous scale up and down events', upEvents: spread([2], 120), downEvents: spread([4], 120), down: rules(0, 0, 50, 180, 0), current: 10, desired: 1, min: 1, max: 1000, replicas: 6, condition: 'ScaleDownLimit' },
    { name: 'scaleDown with previous events preventing further scale down', downEvents: spread([10, 10, 10], 120), down: rules(0, 0, 10, 120, 300), current: 100, desired: 0, min: 1, max: 1000, replicas: 100, condition: 'ScaleDownLimit' },
    { name: 'scaleDown with with previous events still allowing more scale down', downEvents: spread([10, 10, 10], 120), down: rules(0, 0, 1000, 120, 300), current: 10, desired: 5, min: 1, max: 1000, replicas: 5, condition: 'DesiredWithinRange' },
    { name: "check that events were marked 'outdated' for two different policies in the behavior for up", upEvents: spread([8, 12, 9, 11], 120), up: rules(1000, 30, 100, 60, 0), current: 100, desired: 200, min: 1, max: 1000, replicas: 200, condition: 'DesiredWithinRange' },
  ];
  for (const c of cases) {
    const h = new ScaleHistory();
    h.scaleUpEvents = c.upEvents ?? [];
    h.scaleDownEvents = c.downEvents ?? [];
    // No earlier recommendations: the stabilized count is the proposal, only the rate limits it.
    const n = normalizeWithBehaviors(h, { scaleUp: c.up ?? DEFAULT_UP, scaleDown: c.down ?? DEFAULT_DOWN }, c.current, c.desired, c.min, c.max, 5 * MIN, NOW);
    assert.deepEqual([n.replicas, n.conditions[1]?.reason], [c.replicas, c.condition], c.name);
    assert.equal(n.conditions[1]?.status, n.replicas === c.desired ? 'False' : 'True', c.name);
  }
});

test('behavior stabilization: the lowest recent recommendation up, the highest down, within each window', () => {
  const h = new ScaleHistory();
  const behavior = { scaleUp: { ...DEFAULT_UP, stabilizationWindowSeconds: 60 }, scaleDown: DEFAULT_DOWN };
  h.recommendations = [{ atMs: NOW - 30_000, replicas: 4 }, { atMs: NOW - 90_000, replicas: 2 }];
  // Up: 4 is the lowest within 60 s (2 is older); 6 is proposed from 3.
  const up = normalizeWithBehaviors(h, behavior, 3, 6, 1, 10, 5 * MIN, NOW);
  assert.deepEqual([up.replicas, up.conditions[0]], [4, { type: 'AbleToScale', status: 'True', reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }]);
  // Down: within 300 s the highest is 6 (just recorded); proposing 1 from 5 keeps 5.
  const down = normalizeWithBehaviors(h, behavior, 5, 1, 1, 10, 5 * MIN, NOW + 1000);
  assert.deepEqual([down.replicas, down.conditions[0]?.reason], [5, 'ScaleDownStabilized']);
  // An unset scale-down window is the controller's --horizontal-pod-autoscaler-downscale-stabilization.
  const h2 = new ScaleHistory();
  h2.recommendations = [{ atMs: NOW - 20_000, replicas: 5 }];
  const unset = { scaleUp: DEFAULT_UP, scaleDown: { selectPolicy: 'Max', policies: DEFAULT_DOWN.policies } };
  assert.equal(normalizeWithBehaviors(h2, unset, 5, 1, 1, 10, 10_000, NOW).replicas, 1);
  h2.recommendations = [{ atMs: NOW - 20_000, replicas: 5 }];
  assert.equal(normalizeWithBehaviors(h2, unset, 5, 1, 1, 10, 30_000, NOW).replicas, 5);
});

test('scale events: kept for the longest period of their direction, only with a behavior (TestStoreScaleEvents)', () => {
  // No behavior: nothing is stored.
  const none = new ScaleHistory();
  none.recordScaleEvent(undefined, 10, 15, NOW);
  assert.deepEqual(none.scaleUpEvents, []);
  // One outdated entry (61 s, longest period 60 s) is dropped; one of 58 s stays.
  const h = new ScaleHistory();
  h.scaleUpEvents = [{ atMs: NOW - 61_000, change: 7 }, { atMs: NOW - 58_000, change: 6 }];
  h.recordScaleEvent({ scaleUp: rules(10, 60, 100, 60, 0) }, 10, 15, NOW);
  assert.deepEqual(h.scaleUpEvents.map((e) => e.change), [6, 5]);
  // Two policies of 120 s and 30 s: an event of 61 s still counts for the longer one.
  const two = new ScaleHistory();
  two.scaleUpEvents = [{ atMs: NOW - 58_000, change: 7 }, { atMs: NOW - 61_000, change: 6 }];
  two.recordScaleEvent({ scaleUp: rules(10, 120, 100, 30, 0) }, 10, 15, NOW);
  assert.deepEqual(two.scaleUpEvents.map((e) => e.change), [7, 6, 5]);
  // A scale-down is stored as the count removed, with the scale-down policies' periods.
  two.recordScaleEvent({ scaleDown: rules(1, 60, 0, 0, 0) }, 15, 12, NOW);
  assert.deepEqual(two.scaleDownEvents, [{ atMs: NOW, change: 3 }]);
});

test('recordInitialRecommendation: a new HPA holds its current count for the downscale window', () => {
  const h = new ScaleHistory();
  h.recordInitialRecommendation(4, NOW);
  h.recordInitialRecommendation(9, NOW + 1000);
  assert.deepEqual(h.recommendations, [{ atMs: NOW, replicas: 4 }]);
  assert.equal(normalizeDesiredReplicas(h, 4, 1, 1, 10, 5 * MIN, NOW + 15_000).replicas, 4);
  assert.equal(normalizeDesiredReplicas(h, 4, 1, 1, 10, 5 * MIN, NOW + 5 * MIN + 1000).replicas, 1);
});
