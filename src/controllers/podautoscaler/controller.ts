/**
 * The horizontal pod autoscaler controller (pkg/controller/podautoscaler/
 * horizontal.go, v1.32) for Resource and ContainerResource metrics: every
 * sync period each HPA reads its target's scale, the metrics of the
 * target's pods from metrics.k8s.io, proposes a count
 * (replica-calculator.ts), normalizes it (normalize.ts), writes the
 * target's scale subresource when it changes, and records the status, the
 * conditions and the events with upstream's words. Targets: Deployments,
 * ReplicaSets, StatefulSets and ReplicationControllers, read through the
 * shared informers (custom resources with a scale subresource are not yet
 * supported: FailedGetScale). Object and External metrics are out of scope
 * (no custom metrics adapter): they are invalid metrics here.
 */
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import { formatQuantity, parseQuantity } from '../../apimachinery/quantity.js';
import { milliValue } from '../../meta/resource-lists.js';
import { keyOf, splitKey } from '../../client/queue-keys.js';
import { deployments, horizontalpodautoscalers, pods, replicasets, replicationcontrollers, statefulsets } from '../../client/resources.js';
import type { ResourceRef } from '../../client/types.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import type { SharedInformer } from '../../client/shared-informer.js';
import { referenceTo } from '../../events/recorder.js';
import { parseLabelSelector, selectorString } from '../../selectors/labels.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import type { ResourceMetricsClient } from './metrics-client.js';
import { normalizeDesiredReplicas, normalizeWithBehaviors, ScaleHistory, type Condition } from './normalize.js';
import { DEFAULT_CALCULATOR, rawResourceReplicas, resourceReplicas, type CalculatorSettings } from './replica-calculator.js';

const COMPONENT = 'horizontal-pod-autoscaler';

export interface HPAControllerSettings {
  /** --horizontal-pod-autoscaler-sync-period (15 s). */
  syncPeriodMs: number;
  /** --horizontal-pod-autoscaler-downscale-stabilization (5 min). */
  downscaleStabilizationMs: number;
  calculator: CalculatorSettings;
}

export const DEFAULT_HPA_SETTINGS: HPAControllerSettings = { syncPeriodMs: 15_000, downscaleStabilizationMs: 5 * 60_000, calculator: DEFAULT_CALCULATOR };

const TARGETS: Record<string, ResourceRef<KObject>> = {
  'apps/Deployment': deployments as ResourceRef<KObject>, 'apps/ReplicaSet': replicasets as ResourceRef<KObject>,
  'apps/StatefulSet': statefulsets as ResourceRef<KObject>, '/ReplicationController': replicationcontrollers as ResourceRef<KObject>,
};

interface Scale { replicas: number; selector: string }

type HPA = HorizontalPodAutoscaler & { spec: NonNullable<HorizontalPodAutoscaler['spec']> };

class MetricError extends Error {
  constructor(message: string, readonly condition: Condition) { super(message); }
}

export class HorizontalPodAutoscalerController {
  private readonly loop: RateLimitingQueue;
  private readonly history = new Map<string, ScaleHistory>();
  private readonly informers = new Map<string, SharedInformer>();
  private hpas?: SharedInformer;
  private podCache?: SharedInformer;

  constructor(private readonly ctx: ControllerContext, private readonly metrics: ResourceMetricsClient,
    private readonly settings: HPAControllerSettings = DEFAULT_HPA_SETTINGS) {
    this.loop = newQueue(ctx);
  }

  async start(): Promise<void> {
    this.podCache = await this.ctx.informers.inform(pods, () => {});
    for (const [k, ref] of Object.entries(TARGETS)) this.informers.set(k, await this.ctx.informers.inform(ref, () => {}));
    this.hpas = await this.ctx.informers.inform(horizontalpodautoscalers, (type, hpa) => {
      const key = keyOf(hpa);
      if (type === 'DELETED') this.history.delete(key);
      else if (type === 'ADDED') this.loop.add(key);
    });
    this.loop.run(5, (k) => this.sync(k), (k, e) => this.ctx.log(`${COMPONENT}: ${k}: ${(e as Error).message}`));
  }

  stop(): void { this.loop.shutDown(); }

  private now(): number { return this.ctx.clock.now(); }

  /** reconcileKey: one pass, then again after the sync period while the HPA exists. */
  async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const hpa = this.hpas?.cache.get(ns, name) as HPA | undefined;
    if (!hpa?.spec) return;
    // Failed or not, the HPA is looked at again after the sync period, never sooner (upstream's
    // FixedItemIntervalRateLimiter): the error is only logged.
    try {
      await this.reconcile(key, structuredClone(hpa));
    } catch (e) {
      this.ctx.log(`${COMPONENT}: ${key}: ${(e as Error).message}`);
    } finally {
      this.loop.addAfter(key, this.settings.syncPeriodMs);
    }
  }

  private async reconcile(key: string, hpa: HPA): Promise<void> {
    const original = structuredClone(hpa.status);
    const ns = hpa.metadata?.namespace ?? '';
    const ref = hpa.spec.scaleTargetRef;
    const reference = `${ref.kind}/${ref.name}`;
    const history = this.history.get(key) ?? new ScaleHistory();
    this.history.set(key, history);
    let scale: Scale;
    try {
      scale = this.scaleOf(ns, ref.apiVersion ?? '', ref.kind, ref.name);
    } catch (e) {
      const message = (e as Error).message;
      await this.event(hpa, 'Warning', 'FailedGetScale', message);
      setCondition(hpa, { type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message: `the HPA controller was unable to get the target's current scale: ${message}` }, this.now());
      await this.writeStatus(hpa, original);
      return;
    }
    setCondition(hpa, { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" }, this.now());
    const current = scale.replicas;
    const minReplicas = hpa.spec.minReplicas ?? 1;
    let desired = 0;
    let reason = '';
    let statuses: MetricStatus[] = hpa.status?.currentMetrics ?? [];
    let rescale = true;
    if (current === 0 && minReplicas !== 0) {
      rescale = false;
      setCondition(hpa, { type: 'ScalingActive', status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' }, this.now());
    } else if (current > hpa.spec.maxReplicas) {
      reason = 'Current number of replicas above Spec.MaxReplicas';
      desired = hpa.spec.maxReplicas;
    } else if (current < minReplicas) {
      reason = 'Current number of replicas below Spec.MinReplicas';
      desired = minReplicas;
    } else {
      const computed = await this.computeReplicasForMetrics(hpa, scale);
      statuses = computed.statuses;
      if (computed.error && computed.replicas === -1) {
        hpa.status = { ...hpa.status, currentReplicas: current, desiredReplicas: hpa.status?.desiredReplicas ?? 0, currentMetrics: statuses.length ? statuses : undefined };
        await this.writeStatus(hpa, original);
        await this.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error);
        throw new Error(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${computed.error}`);
      }
      if (computed.error) await this.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error);
      let rescaleMetric = '';
      if (computed.replicas > desired) { desired = computed.replicas; rescaleMetric = computed.metricName; }
      if (desired > current) reason = `${rescaleMetric} above target`;
      if (desired < current) reason = 'All metrics below target';
      const n = hpa.spec.behavior
        ? normalizeWithBehaviors(history, hpa.spec.behavior, current, desired, minReplicas, hpa.spec.maxReplicas, this.settings.downscaleStabilizationMs, this.now())
        : normalizeDesiredReplicas(history, current, desired, minReplicas, hpa.spec.maxReplicas, this.settings.downscaleStabilizationMs, this.now());
      for (const c of n.conditions) setCondition(hpa, c, this.now());
      desired = n.replicas;
      rescale = desired !== current;
    }
    if (rescale) {
      try {
        await this.writeScale(ns, ref.apiVersion ?? '', ref.kind, ref.name, desired);
      } catch (e) {
        const message = (e as Error).message;
        await this.event(hpa, 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${message}`);
        setCondition(hpa, { type: 'AbleToScale', status: 'False', reason: 'FailedUpdateScale', message: `the HPA controller was unable to update the target scale: ${message}` }, this.now());
        hpa.status = { ...hpa.status, currentReplicas: current, desiredReplicas: hpa.status?.desiredReplicas ?? 0 };
        await this.writeStatus(hpa, original);
        throw e;
      }
      setCondition(hpa, { type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desired}` }, this.now());
      await this.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
      history.record(hpa.spec.behavior, current, desired, this.now());
    } else {
      desired = current;
    }
    hpa.status = {
      ...hpa.status, currentReplicas: current, desiredReplicas: desired,
      ...(rescale ? { lastScaleTime: new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z') } : {}),
      currentMetrics: statuses.length ? statuses : undefined,
    };
    await this.writeStatus(hpa, original);
  }

  /** computeReplicasForMetrics: the highest proposal of the valid metrics. */
  private async computeReplicasForMetrics(hpa: HPA, scale: Scale):
    Promise<{ replicas: number; metricName: string; statuses: MetricStatus[]; error?: string }> {
    const specs = hpa.spec.metrics ?? [];
    const statuses: MetricStatus[] = specs.map(() => ({ type: '' }));
    let replicas = 0; let metricName = ''; let invalid = 0; let firstError: string | undefined; let invalidCondition: Condition | undefined;
    for (const [i, spec] of specs.entries()) {
      try {
        const r = await this.computeForMetric(hpa, spec, scale);
        statuses[i] = r.status;
        if (replicas === 0 || r.replicas > replicas) { replicas = r.replicas; metricName = r.metricName; }
      } catch (e) {
        invalid++;
        firstError ??= (e as Error).message;
        if (e instanceof MetricError) invalidCondition ??= e.condition;
      }
    }
    if (invalid >= specs.length || (invalid > 0 && replicas < scale.replicas)) {
      if (invalidCondition) setCondition(hpa, invalidCondition, this.now());
      return { replicas: -1, metricName: '', statuses, error: `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError}` };
    }
    setCondition(hpa, { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: `the HPA was able to successfully calculate a replica count from ${metricName}` }, this.now());
    return { replicas, metricName, statuses, ...(firstError ? { error: `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError}` } : {}) };
  }

  private async computeForMetric(hpa: HorizontalPodAutoscaler, spec: MetricSpec, scale: Scale): Promise<{ replicas: number; metricName: string; status: MetricStatus }> {
    const source = spec.type === 'Resource' ? spec.resource : spec.type === 'ContainerResource' ? spec.containerResource : undefined;
    if (!source) {
      const message = `unable to get metric ${spec.type}: the HPA controller has no custom or external metrics adapter`;
      throw new MetricError(message, { type: 'ScalingActive', status: 'False', reason: 'InvalidMetricSourceType', message: `the HPA was unable to compute the replica count: ${message}` });
    }
    const container = spec.type === 'ContainerResource' ? spec.containerResource?.container : undefined;
    const name = source.name;
    const fail = async (e: unknown, what: string): Promise<never> => {
      const err = `failed to get ${name} ${what}: ${(e as Error).message}`;
      const reason = spec.type === 'ContainerResource' ? 'FailedGetContainerResourceMetric' : 'FailedGetResourceMetric';
      await this.event(hpa, 'Warning', reason, (e as Error).message);
      throw new MetricError(err, { type: 'ScalingActive', status: 'False', reason, message: `the HPA was unable to compute the replica count: ${(e as Error).message}` });
    };
    const ns = hpa.metadata?.namespace ?? '';
    const podList = (this.podCache?.cache.list(ns) ?? []).filter((p) => parseLabelSelector(scale.selector).matches(p.metadata.labels)) as unknown as Pod[];
    const now = this.now();
    const wrap = (status: MetricStatus['resource']): MetricStatus => (spec.type === 'ContainerResource'
      ? { type: 'ContainerResource', containerResource: { name, container: container ?? '', current: status!.current } }
      : { type: 'Resource', resource: status });
    const byValue = source.target.averageValue !== undefined;
    const utilizationTarget = source.target.averageUtilization;
    if (!byValue && utilizationTarget === undefined) {
      const message = 'invalid resource metric source: neither an average utilization target nor an average value (usage) target was set';
      throw new MetricError(message, { type: 'ScalingActive', status: 'False', reason: 'InvalidMetricSourceType', message: `the HPA was unable to compute the replica count: ${message}` });
    }
    try {
      const sample = await this.metrics.resourceMetric(name, ns, scale.selector, container)
        .catch((e: Error) => { throw new Error(`unable to get metrics for resource ${name}: ${e.message}`); });
      if (byValue) {
        const p = rawResourceReplicas(scale.replicas, Number(milli(source.target.averageValue!)), name, podList, sample, this.settings.calculator, now);
        return { replicas: p.replicas, metricName: `${name} resource`, status: wrap({ name, current: { averageValue: fromMilli(p.rawAverage) } }) };
      }
      const p = resourceReplicas(scale.replicas, utilizationTarget!, name, podList, sample, container, this.settings.calculator, now);
      const metricName = spec.type === 'ContainerResource' ? `${name} container resource utilization (percentage of request)` : `${name} resource utilization (percentage of request)`;
      return { replicas: p.replicas, metricName, status: wrap({ name, current: { averageUtilization: p.utilization, averageValue: fromMilli(p.rawAverage) } }) };
    } catch (e) {
      return await fail(e, byValue ? 'usage' : 'utilization');
    }
  }

  private targetRef(apiVersion: string, kind: string): ResourceRef<KObject> {
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
    const ref = TARGETS[`${group}/${kind}`];
    if (!ref) throw new Error(`unable to determine resource for scale target reference: no matches for kind "${kind}" in group "${group}"`);
    return ref;
  }

  private scaleOf(ns: string, apiVersion: string, kind: string, name: string): Scale {
    const ref = this.targetRef(apiVersion, kind);
    const obj = this.informers.get(`${ref.group}/${ref.kind}`)?.cache.get(ns, name) as (KObject & { spec?: { replicas?: number; selector?: unknown } }) | undefined;
    if (!obj) throw new Error(`${ref.resource}${ref.group ? `.${ref.group}` : ''} "${name}" not found`);
    const sel = obj.spec?.selector as Record<string, unknown> | undefined;
    const selector = sel && ('matchLabels' in sel || 'matchExpressions' in sel) ? selectorString(sel) : selectorString({ matchLabels: sel ?? {} });
    return { replicas: obj.spec?.replicas ?? 1, selector: selector ?? '' };
  }

  private async writeScale(ns: string, apiVersion: string, kind: string, name: string, replicas: number): Promise<void> {
    const ref = this.targetRef(apiVersion, kind);
    await this.ctx.client.resource(ref).update(ns, name, (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas } }), { subresource: 'scale', fieldManager: 'kube-controller-manager' });
  }

  /** updateStatusIfNeeded. */
  private async writeStatus(hpa: HorizontalPodAutoscaler, original: HorizontalPodAutoscaler['status']): Promise<void> {
    if (JSON.stringify(original) === JSON.stringify(hpa.status)) return;
    const status = hpa.status;
    await this.ctx.client.resource(horizontalpodautoscalers).updateStatus(hpa.metadata?.namespace ?? '', hpa.metadata?.name ?? '', (cur) => ({ ...cur, status }));
  }

  private async event(hpa: HorizontalPodAutoscaler, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    await this.ctx.events.record(referenceTo(hpa as unknown as KObject), type, reason, message, COMPONENT);
  }
}

const milli = (q: string | number): bigint => milliValue(parseQuantity(q));

/** resource.NewMilliQuantity(v, DecimalSI).String(). */
function fromMilli(v: number): string {
  return formatQuantity(parseQuantity(v % 1000 === 0 ? String(v / 1000) : `${v}m`));
}

/** setCondition: the lastTransitionTime changes only when the status does. */
function setCondition(hpa: HorizontalPodAutoscaler, c: Condition, nowMs: number): void {
  const conditions: HorizontalPodAutoscalerCondition[] = [...(hpa.status?.conditions ?? [])];
  const i = conditions.findIndex((x) => x.type === c.type);
  const now = new Date(nowMs).toISOString().replace(/\.\d+Z$/, 'Z');
  const next: HorizontalPodAutoscalerCondition = { type: c.type, status: c.status, lastTransitionTime: i >= 0 && conditions[i]!.status === c.status ? conditions[i]!.lastTransitionTime : now, reason: c.reason, message: c.message };
  if (i >= 0) conditions[i] = next; else conditions.push(next);
  hpa.status = { ...(hpa.status ?? { currentReplicas: 0, desiredReplicas: 0 }), conditions };
}
