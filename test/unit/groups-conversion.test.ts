/** Conversions between served and stored versions: autoscaling v1 <-> v2, events.k8s.io <-> core events. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION, METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, hpaV1ToV2, hpaV2ToV1,
} from '../../src/registry/groups/autoscaling/convert.js';
import { defaultHpaV2, horizontalpodautoscalersV1, horizontalpodautoscalersV2 } from '../../src/registry/groups/autoscaling/horizontalpodautoscalers.js';
import { coreToEventsV1, eventsV1ToCore } from '../../src/registry/groups/events/convert.js';
import { events } from '../../src/registry/groups/events/events.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { Event } from 'kubernetes-types/events/v1.js';
import type { Stored } from '../../src/registry/types.js';
import type { WriteContext } from '../../src/apimachinery/write-context.js';

const ctx: WriteContext = { namespace: 'ns', now: new Date('2026-01-01T00:00:00Z'), dryRun: false, fieldManager: 'test', warn: () => {} };
const json = (o: unknown) => JSON.parse(JSON.stringify(o));

const ref = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };

/** A v2 HPA with every kind of metric, a behavior, current metrics and conditions. */
function richV2(): KObject {
  const hpa: KObject = {
    kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v2',
    metadata: { name: 'web', namespace: 'ns', annotations: { keep: 'me' } },
    spec: {
      scaleTargetRef: ref, minReplicas: 2, maxReplicas: 10,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
        { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1k' } } },
        { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' },
          metric: { name: 'rps', selector: { matchLabels: { a: 'b' } } }, target: { type: 'Value', value: '10k' } } },
        { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
        { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 50 } } },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] } },
    },
    status: {
      currentReplicas: 3, desiredReplicas: 4,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 70 } } },
        { type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '900' } } },
      ],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'ReadyForNewScale', message: 'ok' }],
    },
  };
  defaultHpaV2(hpa);
  return hpa;
}

test('autoscaling v2 -> v1 -> v2 keeps everything, through the round-trip annotations', () => {
  const v2 = richV2();
  const v1 = hpaV2ToV1(structuredClone(v2));
  assert.equal(v1.apiVersion, 'autoscaling/v1');
  assert.deepEqual(v1.spec, { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 60 });
  assert.deepEqual(v1.status, { currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 70 });
  const ann = v1.metadata.annotations!;
  assert.equal(ann.keep, 'me');
  assert.deepEqual(JSON.parse(ann[METRIC_SPECS_ANNOTATION] ?? 'null'), [
    { type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } },
    { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '1k' } },
    { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metricName: 'rps',
      targetValue: '10k', selector: { matchLabels: { a: 'b' } } } },
    { type: 'External', external: { metricName: 'queue', targetAverageValue: '30' } },
    { type: 'ContainerResource', containerResource: { name: 'cpu', targetAverageUtilization: 50, container: 'app' } },
  ]);
  // The behavior annotation holds upstream's internal type: Go field names, nulls for unset pointers.
  assert.equal(ann[BEHAVIOR_ANNOTATION],
    '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},' +
    '{"Type":"Percent","Value":100,"PeriodSeconds":15}]},"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max",' +
    '"Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":30}]}}');
  assert.ok(ann[METRIC_STATUSES_ANNOTATION]);
  assert.ok(ann[CONDITIONS_ANNOTATION]);

  const back = hpaV1ToV2(v1);
  defaultHpaV2(back);
  // v1 puts the CPU target last; otherwise nothing is lost.
  const want = structuredClone(v2);
  const metrics = (want.spec as any).metrics;
  (want.spec as any).metrics = [...metrics.slice(1), metrics[0]];
  assert.deepEqual(json(back), json(want));
});

test('autoscaling v1 -> v2: targetCPUUtilizationPercentage, and the implicit 80% default', () => {
  const v1: KObject = { kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1', metadata: { name: 'h' },
    spec: { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 55 }, status: { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 20 } };
  const v2 = hpaV1ToV2(v1);
  assert.deepEqual((v2.spec as any).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 55 } } }]);
  assert.deepEqual((v2.status as any).currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 20 } } }]);
  // Back in v1 the CPU status is also kept raw, in the current-metrics annotation, as upstream does.
  const back = hpaV2ToV1(v2);
  assert.deepEqual(json(back), json({ ...v1, metadata: { name: 'h', annotations: {
    [METRIC_STATUSES_ANNOTATION]: '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":20,"currentAverageValue":"0"}}]',
  } } }));

  const bare = hpaV1ToV2({ kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1', metadata: { name: 'h' }, spec: { scaleTargetRef: ref, maxReplicas: 5 } });
  assert.equal((bare.spec as any).metrics[0].resource.target.averageUtilization, 80);
  assert.deepEqual(bare.status, { desiredReplicas: 0, currentMetrics: null });
});

test('autoscaling/v1 create answers as upstream: defaults through v2, status reset, stored as v2', () => {
  const def = horizontalpodautoscalersV1;
  const obj: any = { kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1',
    metadata: { name: 'h', namespace: 'ns', annotations: { [METRIC_STATUSES_ANNOTATION]: '[]' } },
    spec: { scaleTargetRef: ref, maxReplicas: 5 }, status: { currentReplicas: 9, desiredReplicas: 9 } };
  def.defaults!(obj);
  def.prepareForCreate!(obj, ctx);
  assert.deepEqual(json(obj), {
    kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1', metadata: { name: 'h', namespace: 'ns' },
    spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
    status: { currentReplicas: 0, desiredReplicas: 0 },
  });
  const stored = def.toStorage!(obj);
  assert.equal(stored.apiVersion, 'autoscaling/v2');
  assert.equal(def.storagePrefix, horizontalpodautoscalersV2.storagePrefix);
  assert.deepEqual(json(def.fromStorage!(stored)), json(obj));

  // An update through v1 keeps the stored status whole, annotation-carried parts included.
  const old = def.fromStorage!(richV2());
  const next: any = structuredClone(old);
  next.status = { currentReplicas: 0, desiredReplicas: 0 };
  delete next.metadata.annotations[METRIC_STATUSES_ANNOTATION];
  def.defaults!(next);
  def.prepareForUpdate!(next, old, ctx);
  assert.deepEqual(json(next.status), json(old.status));
  assert.equal(next.metadata.annotations[METRIC_STATUSES_ANNOTATION], old.metadata.annotations![METRIC_STATUSES_ANNOTATION]);
});

test('autoscaling/v2 create: defaults and empty status as Go writes it', () => {
  const obj: any = { metadata: { name: 'h' }, spec: { scaleTargetRef: ref, maxReplicas: 3, behavior: {} } };
  horizontalpodautoscalersV2.defaults!(obj);
  horizontalpodautoscalersV2.prepareForCreate!(obj, ctx);
  assert.equal(obj.spec.minReplicas, 1);
  assert.deepEqual(obj.spec.behavior.scaleDown, { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });
  assert.equal(obj.spec.behavior.scaleUp.stabilizationWindowSeconds, 0);
  assert.deepEqual(obj.status, { desiredReplicas: 0, currentMetrics: null });
});

test('events.k8s.io/v1 <-> core/v1 events round trip', () => {
  const ev: KObject = {
    kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: { name: 'e1', namespace: 'ns' },
    eventTime: '2026-01-01T00:00:00.000000Z', series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000000Z' },
    reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Scale', reason: 'Scaled',
    regarding: { kind: 'Deployment', namespace: 'ns', name: 'web', apiVersion: 'apps/v1' },
    related: { kind: 'ReplicaSet', namespace: 'ns', name: 'web-1' }, note: 'scaled up', type: 'Normal',
    deprecatedSource: { component: 'ctl' }, deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
    deprecatedLastTimestamp: '2026-01-01T00:01:00Z', deprecatedCount: 2,
  };
  const core = eventsV1ToCore(structuredClone(ev));
  assert.deepEqual(json(core), {
    kind: 'Event', apiVersion: 'v1', metadata: { name: 'e1', namespace: 'ns' },
    involvedObject: { kind: 'Deployment', namespace: 'ns', name: 'web', apiVersion: 'apps/v1' },
    reason: 'Scaled', message: 'scaled up', source: { component: 'ctl' },
    firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:01:00Z', count: 2, type: 'Normal',
    eventTime: '2026-01-01T00:00:00.000000Z', series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000000Z' },
    action: 'Scale', related: { kind: 'ReplicaSet', namespace: 'ns', name: 'web-1' },
    reportingComponent: 'example.com/ctl', reportingInstance: 'ctl-1',
  });
  assert.deepEqual(json(coreToEventsV1(core)), json(ev));
});

test('events: a legacy core event reads with Go zero values; field selectors use events.k8s.io names', () => {
  const legacy: KObject = { kind: 'Event', apiVersion: 'v1', metadata: { name: 'p.1', namespace: 'ns' },
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns' }, reason: 'Pulled', message: 'pulled', source: { component: 'kubelet', host: 'n1' },
    firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:00Z', count: 1, type: 'Normal',
    eventTime: null, reportingComponent: '', reportingInstance: '' };
  // What the store hands the field selectors: the stored object in this version.
  const ev = events.fromStorage!(legacy) as Stored<Event>;
  assert.deepEqual(json(ev), {
    kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: { name: 'p.1', namespace: 'ns' }, eventTime: null,
    reason: 'Pulled', regarding: { kind: 'Pod', name: 'p', namespace: 'ns' }, note: 'pulled', type: 'Normal',
    deprecatedSource: { component: 'kubelet', host: 'n1' }, deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
    deprecatedLastTimestamp: '2026-01-01T00:00:00Z', deprecatedCount: 1,
  });
  assert.deepEqual(json(events.toStorage!(ev)), json(legacy));
  const f = events.fieldSelectors!;
  assert.equal(f['regarding.name']?.(ev), 'p');
  assert.equal(f['source']?.(ev), 'kubelet');
  assert.equal(f['source']?.({ metadata: {}, eventTime: '', reportingController: 'x/y', deprecatedSource: {} }), 'x/y');
  assert.equal(events.storagePrefix, '/core/events');

  const minimal: any = { metadata: { name: 'm', namespace: 'ns' }, note: 'hi' };
  events.defaults!(minimal);
  assert.deepEqual(json(minimal), { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: { name: 'm', namespace: 'ns' },
    eventTime: null, regarding: {}, note: 'hi', deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null });
});
