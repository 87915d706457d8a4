/**
 * autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler, as upstream
 * converts through the internal type (pkg/apis/autoscaling/v1/conversion.go).
 * Storage holds v2, which is the internal shape with JSON names. v1 carries
 * what it cannot express in annotations: other metrics, current metrics,
 * conditions and the scaling behavior.
 */
import type { KObject } from '../../../apimachinery/object.js';

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP = [METRIC_SPECS_ANNOTATION, BEHAVIOR_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION];

/** autoscaling.DefaultCPUUtilization */
export const DEFAULT_CPU_UTILIZATION = 80;

type J = Record<string, any>;

/** Drops undefined members, so objects keep Go's omitempty look. */
function compact<T extends J>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** DropRoundTripHorizontalPodAutoscalerAnnotations, on a copy of the metadata. */
function dropRoundTrip(meta: J): J {
  const out = { ...meta };
  if (!out.annotations || !ROUND_TRIP.some((k) => k in out.annotations)) return out;
  const ann = { ...out.annotations };
  for (const k of ROUND_TRIP) delete ann[k];
  if (Object.keys(ann).length) out.annotations = ann; else delete out.annotations;
  return out;
}

function parse(s: string | undefined): any {
  if (s === undefined) return undefined;
  try { return JSON.parse(s); } catch { return undefined; } // upstream ignores an unparseable annotation
}

const ref = (r: J | undefined): J => compact({ kind: r?.kind ?? '', name: r?.name ?? '', apiVersion: r?.apiVersion || undefined });
const cpuUtilizationMetric = (u: number): J =>
  ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: u } } });

// ---- metric specs: v1 (v2beta1-like) <-> v2 ----

function specToV1(m: J): J {
  const out: J = { type: m.type ?? '' };
  if (m.object) {
    const t = m.object.target ?? {};
    out.object = compact({
      target: ref(m.object.describedObject), metricName: m.object.metric?.name ?? '', targetValue: t.value ?? '0',
      selector: m.object.metric?.selector, averageValue: t.averageValue,
    });
  }
  if (m.pods) {
    out.pods = compact({ metricName: m.pods.metric?.name ?? '', targetAverageValue: m.pods.target?.averageValue ?? '0', selector: m.pods.metric?.selector });
  }
  if (m.resource) {
    const t = m.resource.target ?? {};
    out.resource = compact({ name: m.resource.name ?? '', targetAverageUtilization: t.averageUtilization, targetAverageValue: t.averageValue });
  }
  if (m.containerResource) {
    const t = m.containerResource.target ?? {};
    out.containerResource = compact({
      name: m.containerResource.name ?? '', targetAverageUtilization: t.averageUtilization,
      targetAverageValue: t.averageValue, container: m.containerResource.container ?? '',
    });
  }
  if (m.external) {
    const t = m.external.target ?? {};
    out.external = compact({
      metricName: m.external.metric?.name ?? '', metricSelector: m.external.metric?.selector,
      targetValue: t.value, targetAverageValue: t.averageValue,
    });
  }
  return out;
}

/** Resource and container metrics: a utilization makes it a Utilization target, else an AverageValue one. */
function resourceTarget(r: J): J {
  return compact({
    type: r.targetAverageUtilization == null ? 'AverageValue' : 'Utilization',
    averageValue: r.targetAverageValue, averageUtilization: r.targetAverageUtilization,
  });
}

function specToV2(m: J): J {
  const out: J = { type: m.type ?? '' };
  if (m.object) {
    const o = m.object;
    out.object = {
      describedObject: ref(o.target),
      target: compact({ type: o.averageValue == null ? 'Value' : 'AverageValue', value: o.targetValue ?? '0', averageValue: o.averageValue }),
      metric: compact({ name: o.metricName ?? '', selector: o.selector }),
    };
  }
  if (m.pods) {
    out.pods = {
      metric: compact({ name: m.pods.metricName ?? '', selector: m.pods.selector }),
      target: { type: 'AverageValue', averageValue: m.pods.targetAverageValue ?? '0' },
    };
  }
  if (m.resource) out.resource = { name: m.resource.name ?? '', target: resourceTarget(m.resource) };
  if (m.containerResource) {
    out.containerResource = { name: m.containerResource.name ?? '', target: resourceTarget(m.containerResource), container: m.containerResource.container ?? '' };
  }
  if (m.external) {
    const e = m.external;
    out.external = {
      metric: compact({ name: e.metricName ?? '', selector: e.metricSelector }),
      target: compact({ type: e.targetValue == null ? 'AverageValue' : 'Value', value: e.targetValue, averageValue: e.targetAverageValue }),
    };
  }
  return out;
}

// ---- metric statuses ----

function statusToV1(m: J): J {
  const out: J = { type: m.type ?? '' };
  if (m.object) {
    const c = m.object.current ?? {};
    out.object = compact({
      target: ref(m.object.describedObject), metricName: m.object.metric?.name ?? '', currentValue: c.value ?? '0',
      selector: m.object.metric?.selector, averageValue: c.averageValue,
    });
  }
  if (m.pods) {
    out.pods = compact({ metricName: m.pods.metric?.name ?? '', currentAverageValue: m.pods.current?.averageValue ?? '0', selector: m.pods.metric?.selector });
  }
  if (m.resource) {
    const c = m.resource.current ?? {};
    out.resource = compact({ name: m.resource.name ?? '', currentAverageUtilization: c.averageUtilization, currentAverageValue: c.averageValue ?? '0' });
  }
  if (m.containerResource) {
    const c = m.containerResource.current ?? {};
    out.containerResource = compact({
      name: m.containerResource.name ?? '', currentAverageUtilization: c.averageUtilization,
      currentAverageValue: c.averageValue ?? '0', container: m.containerResource.container ?? '',
    });
  }
  if (m.external) {
    const c = m.external.current ?? {};
    out.external = compact({
      metricName: m.external.metric?.name ?? '', metricSelector: m.external.metric?.selector,
      currentValue: c.value ?? '0', currentAverageValue: c.averageValue,
    });
  }
  return out;
}

function statusToV2(m: J): J {
  const out: J = { type: m.type ?? '' };
  if (m.object) {
    const o = m.object;
    out.object = {
      metric: compact({ name: o.metricName ?? '', selector: o.selector }),
      current: compact({ value: o.currentValue ?? '0', averageValue: o.averageValue }),
      describedObject: ref(o.target),
    };
  }
  if (m.pods) {
    out.pods = { metric: compact({ name: m.pods.metricName ?? '', selector: m.pods.selector }), current: { averageValue: m.pods.currentAverageValue ?? '0' } };
  }
  if (m.resource) {
    const r = m.resource;
    out.resource = { name: r.name ?? '', current: compact({ averageValue: r.currentAverageValue ?? '0', averageUtilization: r.currentAverageUtilization }) };
  }
  if (m.containerResource) {
    const r = m.containerResource;
    out.containerResource = {
      name: r.name ?? '', current: compact({ averageValue: r.currentAverageValue ?? '0', averageUtilization: r.currentAverageUtilization }),
      container: r.container ?? '',
    };
  }
  if (m.external) {
    const e = m.external;
    out.external = {
      metric: compact({ name: e.metricName ?? '', selector: e.metricSelector }),
      current: compact({ value: e.currentValue ?? '0', averageValue: e.currentAverageValue }),
    };
  }
  return out;
}

// ---- behavior: the annotation holds the *internal* Go type, so Go field names and nulls ----

function rulesToInternal(r: J | undefined): J | null {
  if (!r) return null;
  return {
    StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null,
    SelectPolicy: r.selectPolicy ?? null,
    Policies: r.policies ? r.policies.map((p: J) => ({ Type: p.type ?? '', Value: p.value ?? 0, PeriodSeconds: p.periodSeconds ?? 0 })) : null,
  };
}

/** encoding/json matches field names case-insensitively, as this does. */
function pick(o: J, name: string): any {
  const k = Object.keys(o).find((x) => x.toLowerCase() === name.toLowerCase());
  return k === undefined ? undefined : o[k];
}

function rulesFromInternal(r: unknown): J | undefined {
  if (!r || typeof r !== 'object') return undefined;
  const policies = pick(r as J, 'policies');
  return compact({
    stabilizationWindowSeconds: pick(r as J, 'stabilizationWindowSeconds') ?? undefined,
    selectPolicy: pick(r as J, 'selectPolicy') ?? undefined,
    policies: Array.isArray(policies)
      ? policies.map((p: J) => ({ type: pick(p, 'type') ?? '', value: pick(p, 'value') ?? 0, periodSeconds: pick(p, 'periodSeconds') ?? 0 }))
      : undefined,
  });
}

// ---- whole objects ----

/** Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler, from the stored v2 shape. */
export function hpaV2ToV1(v2: KObject): KObject {
  const spec: J = v2.spec ?? {};
  const status: J = v2.status ?? {};
  const metadata = dropRoundTrip(v2.metadata ?? {});
  const annotations: Record<string, string> = {};

  const metrics: J[] = spec.metrics ?? [];
  const isCpuUtilization = (m: J) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource?.target?.averageUtilization != null;
  const others = metrics.filter((m) => !isCpuUtilization(m)).map(specToV1);
  const currentMetrics: J[] = status.currentMetrics ?? [];
  const conditions: J[] = status.conditions ?? [];
  if (others.length) annotations[METRIC_SPECS_ANNOTATION] = JSON.stringify(others);
  if (currentMetrics.length) annotations[METRIC_STATUSES_ANNOTATION] = JSON.stringify(currentMetrics.map(statusToV1));
  if (spec.behavior) {
    annotations[BEHAVIOR_ANNOTATION] = JSON.stringify({
      ScaleUp: rulesToInternal(spec.behavior.scaleUp), ScaleDown: rulesToInternal(spec.behavior.scaleDown),
    });
  }
  if (conditions.length) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions);
  if (Object.keys(annotations).length) metadata.annotations = { ...(metadata.annotations ?? {}), ...annotations };

  // The first CPU resource metric gives the v1 target, whatever its kind of target.
  const cpu = metrics.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
  const v1Spec = compact({
    scaleTargetRef: ref(spec.scaleTargetRef),
    minReplicas: spec.minReplicas,
    maxReplicas: spec.maxReplicas ?? 0,
    targetCPUUtilizationPercentage: cpu?.resource?.target?.averageUtilization ?? undefined,
  });
  // Every CPU utilization status is looked at; the last one wins.
  let currentCPU: number | undefined;
  for (const m of currentMetrics) {
    if (m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.current?.averageUtilization != null) currentCPU = m.resource.current.averageUtilization;
  }
  const v1Status = compact({
    observedGeneration: status.observedGeneration, lastScaleTime: status.lastScaleTime,
    currentReplicas: status.currentReplicas ?? 0, desiredReplicas: status.desiredReplicas ?? 0,
    currentCPUUtilizationPercentage: currentCPU,
  });
  return { kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1', metadata, spec: v1Spec, status: v1Status };
}

/** Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler, to the v2 shape. */
export function hpaV1ToV2(v1: KObject): KObject {
  const spec: J = v1.spec ?? {};
  const status: J = v1.status ?? {};
  const ann: Record<string, string> = v1.metadata?.annotations ?? {};

  let metrics: J[] = spec.targetCPUUtilizationPercentage != null ? [cpuUtilizationMetric(spec.targetCPUUtilizationPercentage)] : [];
  const others = parse(ann[METRIC_SPECS_ANNOTATION]);
  // The annotation's metrics come first, the CPU target after them.
  if (Array.isArray(others)) metrics = [...others.map(specToV2), ...metrics];
  let behavior: J | undefined;
  const b = parse(ann[BEHAVIOR_ANNOTATION]);
  if (b && typeof b === 'object') {
    const scaleUp = rulesFromInternal(pick(b, 'scaleUp'));
    const scaleDown = rulesFromInternal(pick(b, 'scaleDown'));
    if (scaleUp || scaleDown) behavior = compact({ scaleUp, scaleDown });
  }
  let currentMetrics: J[] | null = status.currentCPUUtilizationPercentage != null
    ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }]
    : null;
  const cm = parse(ann[METRIC_STATUSES_ANNOTATION]);
  if (Array.isArray(cm)) currentMetrics = cm.map(statusToV2); // these carry more than the CPU percentage
  // autoscaling/v1's implicit default, made explicit where all metrics are known.
  if (!metrics.length) metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  let conditions: J[] | undefined;
  const c = parse(ann[CONDITIONS_ANNOTATION]);
  if (Array.isArray(c)) conditions = c;

  const v2Spec = compact({
    scaleTargetRef: ref(spec.scaleTargetRef), minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas ?? 0,
    metrics, behavior,
  });
  const v2Status = compact({
    observedGeneration: status.observedGeneration, lastScaleTime: status.lastScaleTime,
    currentReplicas: status.currentReplicas || undefined, desiredReplicas: status.desiredReplicas ?? 0,
    currentMetrics, conditions: conditions?.length ? conditions : undefined,
  });
  return { kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v2', metadata: dropRoundTrip(v1.metadata ?? {}), spec: v2Spec, status: v2Status };
}
