/** HorizontalPodAutoscalers (autoscaling v1 and v2): printHorizontalPodAutoscaler. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, int, nameOf } from './cells.js';
import { isV1, v1Metrics } from './hpa-v1.js';
import { quantityString } from './quantity.js';

/** Quantity.String() of a *Quantity, which prints "<nil>" when unset. */
function q(v: unknown): string {
  return v === undefined || v === null ? '<nil>' : quantityString(v);
}

function pct(v: unknown): string | undefined {
  return typeof v === 'number' ? `${int(v)}%` : undefined;
}

/** One metric as "current/target", with "<unknown>" where no status has been read yet. */
function formatMetric(spec: any, status: any): string {
  switch (spec?.type) {
    case 'External': {
      const avg = spec.external?.target?.averageValue;
      if (avg !== undefined && avg !== null) {
        const cur = status?.external && status.external.current?.averageValue != null ? q(status.external.current.averageValue) : '<unknown>';
        return `${cur}/${q(avg)} (avg)`;
      }
      const cur = status?.external ? q(status.external.current?.value) : '<unknown>';
      return `${cur}/${q(spec.external?.target?.value)}`;
    }
    case 'Pods': {
      const cur = status?.pods ? q(status.pods.current?.averageValue) : '<unknown>';
      return `${cur}/${q(spec.pods?.target?.averageValue)}`;
    }
    case 'Object': {
      const avg = spec.object?.target?.averageValue;
      if (avg !== undefined && avg !== null) {
        const cur = status?.object && status.object.current?.averageValue != null ? q(status.object.current.averageValue) : '<unknown>';
        return `${cur}/${q(avg)} (avg)`;
      }
      const cur = status?.object ? q(status.object.current?.value) : '<unknown>';
      return `${cur}/${q(spec.object?.target?.value)}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const source = spec[key];
      const current = status?.[key];
      const avg = source?.target?.averageValue;
      if (avg !== undefined && avg !== null) {
        const cur = current ? q(current.current?.averageValue) : '<unknown>';
        return `${source?.name ?? ''}: ${cur}/${q(avg)}`;
      }
      const cur = (current && pct(current.current?.averageUtilization)) ?? '<unknown>';
      return `${source?.name ?? ''}: ${cur}/${pct(source?.target?.averageUtilization) ?? '<auto>'}`;
    }
    default:
      return '<unknown type>';
  }
}

/** formatHPAMetrics: the first two metrics, "+ N more..." beyond. */
function formatMetrics(specs: any[], statuses: any[]): string {
  if (specs.length === 0) return '<none>';
  const max = 2;
  const list = specs.map((s, i) => formatMetric(s, statuses[i]));
  const ret = list.slice(0, max).join(', ');
  return list.length > max ? `${ret} + ${list.length - max} more...` : ret;
}

export const hpaPrinter: Printer = {
  columns: [
    nameColumn,
    column('Reference', 'string', 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.'),
    column('Targets', 'string', 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.'),
    column('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.'),
    column('MaxPods', 'string', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.'),
    column('Replicas', 'string', 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    const ref = obj?.spec?.scaleTargetRef ?? {};
    const { metrics, current } = isV1(obj)
      ? v1Metrics(obj)
      : { metrics: obj?.spec?.metrics ?? [], current: obj?.status?.currentMetrics ?? [] };
    const min = obj?.spec?.minReplicas;
    return [
      nameOf(obj), `${ref.kind ?? ''}/${ref.name ?? ''}`, formatMetrics(metrics, current),
      typeof min === 'number' ? String(int(min)) : '<unset>', int(obj?.spec?.maxReplicas), int(obj?.status?.currentReplicas),
      ageOf(obj, now),
    ];
  },
};
