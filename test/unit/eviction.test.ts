import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { expandPools, type NodePool } from '../../src/node/pool.js';
import { buildSummary, type PodStats } from '../../src/node/kubelet-server/stats-summary.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { memoryAvailableObservation } from '../../src/node/kubelet/eviction/memory-signal.js';
import { binaryQuantity, memoryThreshold, thresholdMet, thresholdQuantity } from '../../src/node/kubelet/eviction/thresholds.js';
import { rankMemoryPressure, isCriticalPod } from '../../src/node/kubelet/eviction/ranking.js';
import { evictionMessage } from '../../src/node/kubelet/eviction/message.js';
import { observePressure } from '../../src/node/kubelet/eviction/pressure.js';
import { evictionTimingsFromEnv } from '../../src/node/kubelet/eviction/timings.js';
import { EvictionManager, type ActivePod } from '../../src/node/kubelet/eviction/eviction-manager.js';
import { FakeClock } from '../../src/node/kubelet/clock.js';
import { evictionAdmission } from '../../src/node/kubelet/eviction/admission.js';
import { conditionEvents, healthyConditions } from '../../src/node/conditions.js';

const Mi = 1024 * 1024;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function nodeOf(os: 'linux' | 'windows', memory: string) {
  const pool: NodePool = { name: `small-${os}`, os, count: 1, memory, cpu: '2' };
  return expandPools([pool])[0]!;
}

/** A running pod of one container scripted to use `memory`, requesting `request`. */
function pod(name: string, memory: string, request?: string, priority?: number): Pod {
  const started = new Date(T0 - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations: { 'winkube.io/script': JSON.stringify({ app: { memory } }) } },
    spec: {
      ...(priority !== undefined ? { priority } : {}),
      containers: [{ name: 'app', image: 'busybox', ...(request ? { resources: { requests: { memory: request } } } : {}) }],
    },
    status: { phase: 'Running', startTime: started, containerStatuses: [{ name: 'app', image: 'busybox', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: started } } }] },
  };
}

function summaryOf(os: 'linux' | 'windows', memory: string, pods: Pod[], now = T0) {
  const cfg = nodeOf(os, memory);
  return buildSummary({ cfg, bootTime: new Date(T0 - 3600_000), kubeletStartTime: new Date(T0 - 3600_000), now: new Date(now), pods: pods as unknown as KObject[], imageBytes: 0, cpuAndMemoryOnly: true });
}

test('memory.available: the kubelet default per OS, quantities printed as resource.Quantity prints them', () => {
  assert.equal(memoryThreshold(nodeOf('linux', '2Gi').evictionHard), '100Mi');
  assert.equal(memoryThreshold(nodeOf('windows', '4Gi').evictionHard), '500Mi');
  assert.equal(memoryThreshold({ 'memory.available': '0%' }), undefined);
  assert.equal(memoryThreshold({ 'nodefs.available': '10%' }), undefined);
  assert.deepEqual(thresholdQuantity('100Mi', 2048 * Mi), { bytes: 100 * Mi, text: '100Mi' });
  // A percentage is of the observed capacity (float32 percentage × float64 capacity, as upstream), printed BinarySI.
  assert.deepEqual(thresholdQuantity('5%', 2048 * Mi), { bytes: 107374184, text: '107374184' });
  assert.equal(binaryQuantity(28 * Mi), '28Mi');
  assert.equal(binaryQuantity(1500000), '1500000');
  assert.equal(binaryQuantity(512), '512');
  assert.equal(binaryQuantity(0), '0');
});

test('Linux: memory.available is capacity − working set of the node (its own 420Mi and its pods), met below 100Mi', () => {
  const calm = memoryAvailableObservation('linux', summaryOf('linux', '2Gi', [pod('a', '1000Mi')]))!;
  assert.deepEqual(calm, { availableBytes: (2048 - 420 - 1000) * Mi, capacityBytes: 2048 * Mi, time: '2026-01-01T00:00:00Z' });
  assert.equal(thresholdMet('100Mi', calm), false);
  const tight = memoryAvailableObservation('linux', summaryOf('linux', '2Gi', [pod('a', '1000Mi'), pod('b', '600Mi')]))!;
  assert.equal(tight.availableBytes, 28 * Mi);
  assert.equal(thresholdMet('100Mi', tight), true);
  // Exactly the threshold available is not below it.
  assert.equal(thresholdMet('100Mi', { ...tight, availableBytes: 100 * Mi }), false);
});

test('Windows: memory.available is read from windows-global-commit-memory, as helpers_windows.go does', () => {
  const s = summaryOf('windows', '4Gi', [pod('a', '2000Mi')]);
  const o = memoryAvailableObservation('windows', s)!;
  assert.deepEqual(o, { availableBytes: (4096 - 1400 - 2000) * Mi, capacityBytes: 4096 * Mi, time: '2026-01-01T00:00:00Z' });
  assert.equal(thresholdMet('500Mi', o), false);
  const full = memoryAvailableObservation('windows', summaryOf('windows', '4Gi', [pod('a', '2000Mi'), pod('b', '300Mi')]))!;
  assert.equal(full.availableBytes, 396 * Mi);
  assert.equal(thresholdMet('500Mi', full), true);
  // Without the commit container there is no signal (and no eviction).
  assert.equal(memoryAvailableObservation('windows', { ...s, node: { ...s.node, systemContainers: [] } }), undefined);
});

test('ranking: over requests first, then lower priority, then more memory above requests; no stats first of all', () => {
  const usage: Record<string, number | undefined> = { within: 100 * Mi, over: 300 * Mi, bigOver: 900 * Mi, highPrio: 2000 * Mi, nostats: undefined };
  const pods = [
    pod('within', '', '512Mi'), pod('highPrio', '', '64Mi', 1000), pod('over', '', '64Mi'), pod('bigOver', '', '64Mi'), pod('nostats', '', '64Mi'),
  ];
  const ranked = rankMemoryPressure(pods, (p) => usage[p.metadata!.name!]);
  assert.deepEqual(ranked.map((p) => p.metadata!.name), ['nostats', 'bigOver', 'over', 'highPrio', 'within']);
  assert.equal(isCriticalPod(pod('x', '', undefined, 2000000000)), true);
  assert.equal(isCriticalPod(pod('x', '', undefined, 1000000000)), false);
  assert.equal(isCriticalPod({ ...pod('x', ''), metadata: { annotations: { 'kubernetes.io/config.source': 'file' } } }), true);
});

test('the eviction message, byte for byte, with its trailing spaces', () => {
  const p: Pod = { metadata: { name: 'hog' }, spec: { containers: [
    { name: 'app', resources: { requests: { memory: '64Mi' } } }, { name: 'side' }, { name: 'calm', resources: { requests: { memory: '1Gi' } } },
  ] } };
  const stats = { containers: [
    { name: 'app', startTime: '', memory: { workingSetBytes: 1200 * Mi } },
    { name: 'side', startTime: '', memory: { workingSetBytes: 400 * 1024 } },
    { name: 'calm', startTime: '', memory: { workingSetBytes: 10 * Mi } },
  ] } as unknown as PodStats;
  assert.equal(evictionMessage(p, stats, { quantity: '100Mi', available: '28Mi' }),
    'The node was low on resource: memory. Threshold quantity: 100Mi, available: 28Mi. ' +
    'Container app was using 1200Mi, request is 64Mi, has larger consumption of memory. ' +
    'Container side was using 400Ki, request is 0, has larger consumption of memory. ');
  assert.equal(evictionMessage(p, undefined, { quantity: '100Mi', available: '28Mi' }), 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 28Mi. ');
});

test('MemoryPressure stays True for the transition period after the threshold was last met; eviction only on fresh stats', () => {
  const period = 5 * 60_000;
  let d = observePressure({}, true, '2026-01-01T00:00:00Z', T0, period);
  assert.deepEqual([d.underPressure, d.evict], [true, true]);
  // The same stats again: no second eviction from them.
  d = observePressure(d.state, true, '2026-01-01T00:00:00Z', T0 + 1000, period);
  assert.deepEqual([d.underPressure, d.evict], [true, false]);
  d = observePressure(d.state, false, '2026-01-01T00:00:10Z', T0 + 10_000, period);
  assert.deepEqual([d.underPressure, d.evict], [true, false]);
  d = observePressure(d.state, false, '2026-01-01T00:05:00Z', T0 + 1000 + period - 1, period);
  assert.equal(d.underPressure, true);
  d = observePressure(d.state, false, '2026-01-01T00:05:01Z', T0 + 1000 + period, period);
  assert.equal(d.underPressure, false);
});

test('timings: 10s and 5m0s by default, Go durations from the environment', () => {
  assert.deepEqual(evictionTimingsFromEnv({}), { monitoringPeriodMs: 10_000, pressureTransitionPeriodMs: 300_000 });
  assert.deepEqual(evictionTimingsFromEnv({ WINKUBE_EVICTION_MONITORING_PERIOD: '1s', WINKUBE_EVICTION_PRESSURE_TRANSITION_PERIOD: '30s' }),
    { monitoringPeriodMs: 1000, pressureTransitionPeriodMs: 30_000 });
  assert.deepEqual(evictionTimingsFromEnv({ WINKUBE_EVICTION_MONITORING_PERIOD: 'soon' }), { monitoringPeriodMs: 10_000, pressureTransitionPeriodMs: 300_000 });
});

test('the node conditions: MemoryPressure True with the setter\'s reason, message and event', () => {
  const before = healthyConditions('2026-01-01T00:00:00Z');
  const after = healthyConditions('2026-01-01T00:00:10Z', before, { memory: true });
  assert.deepEqual(after[0], {
    type: 'MemoryPressure', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:10Z', lastTransitionTime: '2026-01-01T00:00:10Z',
    reason: 'KubeletHasInsufficientMemory', message: 'kubelet has insufficient memory available',
  });
  assert.deepEqual(conditionEvents(before, after), ['NodeHasInsufficientMemory']);
  assert.deepEqual(conditionEvents(after, healthyConditions('2026-01-01T00:06:00Z', after)), ['NodeHasSufficientMemory']);
});

test('the manager: one pod per sync, events on the node and the pod, and it waits for the evicted pod to be cleaned up', () => {
  const clock = new FakeClock(T0);
  const running = [pod('steady', '580Mi', '1Gi'), pod('hog', '1000Mi', '64Mi'), pod('small', '20Mi', '16Mi')];
  const cfg = nodeOf('linux', '2Gi');
  const log: string[] = [];
  const pressure: boolean[] = [];
  const gone = new Set<string>();
  const manager = new EvictionManager({
    name: cfg.name, os: 'linux', evictionHard: cfg.evictionHard,
    summary: (now) => summaryOf('linux', '2Gi', running.filter((p) => !gone.has(p.metadata!.name!)), now.getTime()),
    activePods: () => running.filter((p) => !gone.has(p.metadata!.name!)).map((p): ActivePod => ({
      pod: p,
      evict: (reason, message, grace, condition) => { gone.add(p.metadata!.name!); log.push(`kill ${p.metadata!.name} ${reason} ${grace}s ${condition.type}/${condition.reason}`); return true; },
      cleanedUp: () => true,
    })),
    setMemoryPressure: (p) => pressure.push(p),
    nodeEvent: (type, reason, message) => log.push(`node ${type} ${reason} ${message}`),
    podEvent: (p, type, reason, message) => log.push(`pod ${p.metadata!.name} ${type} ${reason} ${message}`),
  }, clock, { monitoringPeriodMs: 10_000, pressureTransitionPeriodMs: 300_000 });
  manager.start();
  clock.step(10_000);
  assert.deepEqual(log, [
    'node Warning EvictionThresholdMet Attempting to reclaim memory',
    'pod hog Warning Evicted The node was low on resource: memory. Threshold quantity: 100Mi, available: 28Mi. Container app was using 1000Mi, request is 64Mi, has larger consumption of memory. ',
    'kill hog Evicted 1s DisruptionTarget/TerminationByKubelet',
  ]);
  assert.deepEqual(pressure, [true]);
  // Cleaned up: the next sync comes a second later, finds enough memory and evicts nothing more, but the pressure stays.
  clock.step(1000);
  clock.step(10_000);
  assert.equal(log.length, 3);
  assert.deepEqual(pressure, [true, true, true]);
  clock.step(300_000);
  assert.equal(pressure.at(-1), false);
  manager.stop();
});

test('admission under memory pressure: BestEffort pods are rejected unless critical or tolerating the memory-pressure taint', () => {
  const bestEffort: Pod = { metadata: { name: 'be' }, spec: { containers: [{ name: 'app' }] } };
  const burstable: Pod = { metadata: { name: 'b' }, spec: { containers: [{ name: 'app', resources: { requests: { memory: '64Mi' } } }] } };
  const tolerating: Pod = { metadata: { name: 't' }, spec: { containers: [{ name: 'app' }], tolerations: [{ key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }] } };
  const critical: Pod = { metadata: { name: 'c' }, spec: { containers: [{ name: 'app' }], priority: 2000001000 } };
  assert.equal(evictionAdmission(bestEffort, false), undefined);
  assert.deepEqual(evictionAdmission(bestEffort, true), { reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' });
  for (const p of [burstable, tolerating, critical]) assert.equal(evictionAdmission(p, true), undefined, p.metadata!.name);
});
