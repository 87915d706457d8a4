/**
 * autoscaling/v1 HorizontalPodAutoscalers in the v2 shape the printer reads, as upstream's
 * conversion to the internal type builds it: the CPU target and the metrics v1 keeps in
 * annotations become spec.metrics and status.currentMetrics.
 */

const METRIC_SPECS = 'autoscaling.alpha.kubernetes.io/metrics';
const METRIC_STATUSES = 'autoscaling.alpha.kubernetes.io/current-metrics';

function parseList(s: unknown): any[] | undefined {
  if (typeof s !== 'string') return undefined;
  try {
    const v = JSON.parse(s);
    return Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** A v1 (v2beta1-shaped) MetricSpec as v2's. */
function metricSpec(m: any): any {
  const out: any = { type: m?.type };
  if (m?.resource) out.resource = { name: m.resource.name, target: { averageUtilization: m.resource.targetAverageUtilization, averageValue: m.resource.targetAverageValue } };
  if (m?.containerResource) out.containerResource = { name: m.containerResource.name, target: { averageUtilization: m.containerResource.targetAverageUtilization, averageValue: m.containerResource.targetAverageValue } };
  if (m?.pods) out.pods = { target: { averageValue: m.pods.targetAverageValue ?? '0' } };
  if (m?.object) out.object = { target: { value: m.object.targetValue ?? '0', averageValue: m.object.averageValue } };
  if (m?.external) out.external = { target: { value: m.external.targetValue, averageValue: m.external.targetAverageValue } };
  return out;
}

/** A v1 (v2beta1-shaped) MetricStatus as v2's. */
function metricStatus(m: any): any {
  const out: any = { type: m?.type };
  if (m?.resource) out.resource = { name: m.resource.name, current: { averageUtilization: m.resource.currentAverageUtilization, averageValue: m.resource.currentAverageValue ?? '0' } };
  if (m?.containerResource) out.containerResource = { name: m.containerResource.name, current: { averageUtilization: m.containerResource.currentAverageUtilization, averageValue: m.containerResource.currentAverageValue ?? '0' } };
  if (m?.pods) out.pods = { current: { averageValue: m.pods.currentAverageValue ?? '0' } };
  if (m?.object) out.object = { current: { value: m.object.currentValue ?? '0', averageValue: m.object.averageValue } };
  if (m?.external) out.external = { current: { value: m.external.currentValue ?? '0', averageValue: m.external.currentAverageValue } };
  return out;
}

/** Whether the object is autoscaling/v1-shaped (v2 objects carry spec.metrics instead). */
export function isV1(hpa: any): boolean {
  if (typeof hpa?.apiVersion === 'string') return hpa.apiVersion === 'autoscaling/v1';
  return hpa?.spec?.targetCPUUtilizationPercentage !== undefined || hpa?.status?.currentCPUUtilizationPercentage !== undefined;
}

/** The metrics and current metrics an autoscaling/v1 object converts to. */
export function v1Metrics(hpa: any): { metrics: any[]; current: any[] } {
  const annotations = hpa?.metadata?.annotations ?? {};
  const metrics: any[] = (parseList(annotations[METRIC_SPECS]) ?? []).map(metricSpec);
  const cpu = hpa?.spec?.targetCPUUtilizationPercentage;
  // The CPU target follows the annotated metrics.
  if (typeof cpu === 'number') metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { averageUtilization: cpu } } });

  const annotated = parseList(annotations[METRIC_STATUSES]);
  let current: any[];
  if (annotated) current = annotated.map(metricStatus);
  else {
    const pct = hpa?.status?.currentCPUUtilizationPercentage;
    current = typeof pct === 'number' ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: pct } } }] : [];
  }
  return { metrics, current };
}
