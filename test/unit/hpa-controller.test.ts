/**
 * The HPA controller's sync against a real store (HPAs, pods, events), with
 * its scale subresource and PodMetrics given, on a fake clock: when it looks
 * (one sync period after an HPA appears, then every period), what it
 * writes to the scale, the status and conditions it records, and the
 * events, with upstream's words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import { FakeClock } from '../../src/apimachinery/clock.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';
import { HorizontalPodAutoscalerController } from '../../src/controllers/podautoscaler/controller.js';
import { DEFAULT_CALCULATOR } from '../../src/controllers/podautoscaler/replica-calculator.js';
import type { ScaleClient } from '../../src/controllers/podautoscaler/scale-client.js';
import { loopback } from '../helpers/loopback.js';
import { eventually, fixture, type Fixture } from './service-fixture.js';

const START = Date.parse('2026-11-28T12:00:00Z');
const LONG_AGO = '2026-11-28T11:00:00Z';

/** The target's scale as the API would serve it; its writes recorded, or refused while `refuse` is set. */
class FakeScales implements ScaleClient {
  replicas = 1;
  writes: number[] = [];
  refuse?: string;
  get(): Promise<Scale> {
    return Promise.resolve({ metadata: { name: 'web', namespace: 'ns' }, spec: { replicas: this.replicas }, status: { replicas: this.replicas, selector: 'app=web' } });
  }
  update(_t: unknown, _ns: string, scale: Scale): Promise<Scale> {
    if (this.refuse) return Promise.reject(new StatusError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: this.refuse, reason: 'Conflict', code: 409 }));
    this.replicas = scale.spec?.replicas ?? 0;
    this.writes.push(this.replicas);
    return this.get();
  }
}

async function pod(f: Fixture, name: string): Promise<void> {
  await f.store.create(f.def('', 'pods'), 'ns', {
    metadata: { name, labels: { app: 'web' } },
    spec: { nodeName: 'n', containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '1' } } }] },
  }, f.ctx('ns'));
  await f.setPodStatus('ns', name, (s) => {
    s.phase = 'Running'; s.startTime = LONG_AGO;
    s.conditions = [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: LONG_AGO }];
  });
}

test('the HPA controller: scale out, stabilized scale in, limits, a refused write, a target at zero, two HPAs over the same pods', async () => {
  const f = await fixture();
  const clock = new FakeClock(START);
  const scales = new FakeScales();
  const levels = new Map<string, number>([['web-1', 1500]]);
  const metrics = {
    resourceMetric: () => Promise.resolve({ timestampMs: clock.now() - 1000,
      metrics: new Map([...levels].map(([n, v]) => [n, { timestampMs: clock.now() - 1000, windowMs: 15_000, value: v }])) }),
  };
  await pod(f, 'web-1');
  const c = new HorizontalPodAutoscalerController(newControllerContext({ client: loopback(f.store), clock }), { metrics, scales },
    { syncPeriodMs: 15_000, downscaleStabilizationMs: 300_000, calculator: DEFAULT_CALCULATOR });
  await c.start();
  await f.store.create(f.def('autoscaling', 'horizontalpodautoscalers'), 'ns', {
    metadata: { name: 'web' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
  }, f.ctx('ns'));
  const hpa = async () => (await f.store.get('autoscaling', 'horizontalpodautoscalers', 'ns', 'web')) as HorizontalPodAutoscaler;
  const events = async () => ((await f.store.list(f.def('', 'events'), 'ns')).items as { reason?: string; message?: string; type?: string }[])
    .map((e) => `${e.type} ${e.reason}: ${e.message}`);
  // The recorder writes events after the sync that made them: wait for one rather than read at once.
  const hasEvent = (text: string) => eventually(async () => ((await events()).includes(text) ? true : undefined), text);
  const conditions = async () => (await hpa()).status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]);
  const sync = async (ms: number, done: (h: HorizontalPodAutoscaler) => boolean) => {
    clock.step(ms);
    return eventually(async () => { const h = await hpa(); return done(h) ? h : undefined; }, `sync at +${(clock.now() - START) / 1000}s`);
  };
  // Created, not yet looked at: the first sync is one period later.
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((await hpa()).status?.conditions, undefined);

  // 1500m of 1 CPU is 150 % against 50 %: three times the one pod.
  const first = await sync(15_000, (h) => h.status?.desiredReplicas === 3);
  assert.deepEqual(scales.writes, [3]);
  assert.deepEqual(first.status, {
    currentReplicas: 1, desiredReplicas: 3, lastScaleTime: '2026-11-28T12:00:15Z',
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 150, averageValue: '1500m' } } }],
    conditions: [
      { type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-11-28T12:00:15Z', reason: 'SucceededRescale', message: 'the HPA controller was able to update the target scale to 3' },
      { type: 'ScalingActive', status: 'True', lastTransitionTime: '2026-11-28T12:00:15Z', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' },
      { type: 'ScalingLimited', status: 'False', lastTransitionTime: '2026-11-28T12:00:15Z', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' },
    ],
  });
  await hasEvent('Normal SuccessfulRescale: New size: 3; reason: cpu resource utilization (percentage of request) above target');
  assert.deepEqual(await events(), ['Normal SuccessfulRescale: New size: 3; reason: cpu resource utilization (percentage of request) above target']);

  // Three pods at 100m (10 %): one would do, but 3 was recommended within the window.
  await pod(f, 'web-2'); await pod(f, 'web-3');
  for (const p of ['web-1', 'web-2', 'web-3']) levels.set(p, 100);
  const held = await sync(15_000, (h) => h.status?.currentReplicas === 3);
  assert.deepEqual([held.status?.desiredReplicas, held.status?.lastScaleTime], [3, '2026-11-28T12:00:15Z']);
  assert.deepEqual((await conditions())?.[0], ['AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation']);
  // Five minutes after the recommendation of 3, the window holds only 1s.
  await sync(300_000, (h) => h.status?.desiredReplicas === 1);
  assert.deepEqual(scales.writes, [3, 1]);
  await hasEvent('Normal SuccessfulRescale: New size: 1; reason: All metrics below target');

  // Someone sets 9: above maxReplicas, it is brought back to 5, and a refused write is reported.
  scales.replicas = 9;
  scales.refuse = 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again';
  await sync(15_000, (h) => h.status?.conditions?.[0]?.reason === 'FailedUpdateScale');
  assert.deepEqual((await conditions())?.[0], ['AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${scales.refuse}`]);
  await hasEvent(`Warning FailedRescale: New size: 5; reason: Current number of replicas above Spec.MaxReplicas; error: ${scales.refuse}`);
  assert.equal((await hpa()).status?.currentReplicas, 9);
  scales.refuse = undefined;
  await sync(15_000, (h) => h.status?.desiredReplicas === 5 && h.status.conditions?.[0]?.reason === 'SucceededRescale');
  assert.equal(scales.replicas, 5);
  await hasEvent('Normal SuccessfulRescale: New size: 5; reason: Current number of replicas above Spec.MaxReplicas');

  // Scaled to zero by hand: the HPA leaves it alone.
  scales.replicas = 0;
  const off = await sync(15_000, (h) => h.status?.currentReplicas === 0);
  // No metrics were read: currentMetrics is null, as Go writes a nil slice without omitempty.
  assert.deepEqual([off.status?.desiredReplicas, off.status?.currentMetrics], [0, null]);
  assert.deepEqual((await conditions())?.[1], ['ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero']);

  // A second HPA over the same pods: once it has read its selector, neither scales.
  scales.replicas = 3;
  const hpas = f.def('autoscaling', 'horizontalpodautoscalers');
  const spec = (await hpa()).spec;
  await f.store.create(hpas, 'ns', { metadata: { name: 'web2' }, spec }, f.ctx('ns'));
  const ambiguous = 'pods by selector app=web are controlled by multiple HPAs: [ns/web ns/web2]';
  clock.step(15_000);
  const web2 = await eventually(async () => {
    const h = (await f.store.get('autoscaling', 'horizontalpodautoscalers', 'ns', 'web2')) as HorizontalPodAutoscaler;
    return h.status?.conditions?.find((x) => x.type === 'ScalingActive') ? h : undefined;
  }, 'web2 synced');
  assert.deepEqual(web2.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]), [
    ['AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale"],
    ['ScalingActive', 'False', 'AmbiguousSelector', ambiguous],
  ]);
  await hasEvent(`Warning AmbiguousSelector: ${ambiguous}`);
  await hasEvent(`Warning FailedComputeMetricsReplicas: ${ambiguous}`);
  await sync(15_000, (h) => h.status?.conditions?.[1]?.reason === 'AmbiguousSelector');
  // Gone again: the first one scales on its own.
  await f.store.delete(hpas, 'ns', 'web2', {}, f.ctx('ns'));
  await sync(15_000, (h) => h.status?.conditions?.[1]?.reason === 'ValidMetricFound');
  c.stop();
  await f.close();
});
