/**
 * The horizontal pod autoscaler controller (pkg/controller/podautoscaler/
 * horizontal.go, v1.32) for Resource and ContainerResource metrics: every
 * sync period each HPA reads its target's `scale` subresource, the metrics
 * of the pods the scale's selector picks from metrics.k8s.io, proposes a
 * count (replica-calculator.ts), normalizes it (normalize.ts), writes the
 * scale when it changes, and records the status, the conditions and the
 * events with upstream's words. Any kind with a scale subresource is a
 * target (scale-client.ts). Object, Pods and External metrics need a
 * custom or external metrics adapter, which the cluster has not: they are
 * invalid metrics here.
 */
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import { formatQuantity, parseQuantity } from '../../apimachinery/quantity.js';
import { milliValue } from '../../meta/resource-lists.js';
import { keyOf, splitKey } from '../../client/queue-keys.js';
import { horizontalpodautoscalers, pods } from '../../client/resources.js';
import type { ResourceRef } from '../../client/types.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import type { SharedInformer } from '../../client/shared-informer.js';
import { referenceTo } from '../../events/recorder.js';
import { parseLabelSelector, type LabelSelector } from '../../selectors/labels.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import type { ResourceMetricsClient } from './metrics-client.js';
import { normalizeDesiredReplicas, normalizeWithBehaviors, ScaleHistory, type Condition } from './normalize.js';
import { DEFAULT_CALCULATOR, rawResourceReplicas, resourceReplicas, type CalculatorSettings } from './replica-calculator.js';
import { restMappings, type ScaleClient } from './scale-client.js';

const COMPONENT = 'horizontal-pod-autoscaler';

export interface HPAControllerSettings {
  /** --horizontal-pod-autoscaler-sync-period (15 s). */
  syncPeriodMs: number;
  /** --horizontal-pod-autoscaler-downscale-stabilization (5 min). */
  downscaleStabilizationMs: number;
  calculator: CalculatorSettings;
}

export const DEFAULT_HPA_SETTINGS: HPAControllerSettings = { syncPeriodMs: 15_000, downscaleStabilizationMs: 5 * 60_000, calculator: DEFAULT_CALCULATOR };

/** What the controller reads and writes over the API besides its informers: PodMetrics and scale subresources. */
export interface HPAApi { metrics: ResourceMetricsClient; scales: ScaleClient }

type HPA = HorizontalPodAutoscaler & { spec: NonNullable<HorizontalPodAutoscaler['spec']> };

/** A metric that could not be computed, with the condition upstream proposes for it. */
class MetricError extends Error {
  constructor(message: string, readonly condition: Condition) { super(message); }
}

interface Computed { replicas: number; metricName: string; statuses: MetricStatus[]; error?: string }

export class HorizontalPodAutoscalerController {
  private readonly loop: RateLimitingQueue;
  private readonly history = new Map<string, ScaleHistory>();
  /** hpaSelectors: each HPA's selector once it has been read, to find pods two HPAs would both scale. */
  private readonly selectors = new Map<string, { namespace: string; selector: LabelSelector }>();
  private hpas?: SharedInformer;
  private podCache?: SharedInformer;

  constructor(private readonly ctx: ControllerContext, private readonly api: HPAApi,
    private readonly settings: HPAControllerSettings = DEFAULT_HPA_SETTINGS) {
    this.loop = newQueue(ctx);
  }

  async start(): Promise<void> {
    this.podCache = await this.ctx.informers.inform(pods, () => {});
    // enqueueHPA: always after the sync period (upstream's FixedItemIntervalRateLimiter); one pending request per HPA.
    this.hpas = await this.ctx.informers.inform(horizontalpodautoscalers, (type, hpa) => {
      if (type === 'DELETED') this.selectors.delete(keyOf(hpa));
      else this.loop.addAfter(keyOf(hpa), this.settings.syncPeriodMs);
    });
    this.loop.run(1, (k) => this.sync(k), (k, e) => this.ctx.log(`${COMPONENT}: ${k}: ${(e as Error).message}`));
  }

  stop(): void { this.loop.shutDown(); }

  private now(): number { return this.ctx.clock.now(); }

  /** processNextWorkItem and reconcileKey: one pass, then again after the sync period while the HPA exists. */
  async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const hpa = this.hpas?.cache.get(ns, name) as HPA | undefined;
    if (!hpa?.spec) {
      this.history.delete(key);
      this.selectors.delete(key);
      return;
    }
    try {
      await this.reconcile(key, structuredClone(hpa));
    } catch (e) {
      this.ctx.log(`${COMPONENT}: ${key}: ${(e as Error).message}`);
    } finally {
      this.loop.addAfter(key, this.settings.syncPeriodMs);
    }
  }

  /** reconcileAutoscaler. Errors are logged by the caller; the HPA is looked at again after the sync period either way. */
  private async reconcile(key: string, hpa: HPA): Promise<void> {
    const original = structuredClone(hpa.status);
    const ns = hpa.metadata?.namespace ?? '';
    const ref = hpa.spec.scaleTargetRef;
    const reference = `${ref.kind}/${ns}/${ref.name}`;
    const cannotGetScale = async (err: string): Promise<void> => {
      await this.event(hpa, 'Warning', 'FailedGetScale', err);
      this.setCondition(hpa, { type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message: `the HPA controller was unable to get the target's current scale: ${err}` });
      await this.updateStatusIfNeeded(original, hpa);
    };
    const apiVersion = ref.apiVersion ?? '';
    if (apiVersion.split('/').length > 2) {
      const err = `unexpected GroupVersion string: ${apiVersion}`;
      await cannotGetScale(err);
      throw new Error(`invalid API version in scale target reference: ${err}`);
    }
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
    let mappings: ResourceRef[];
    try {
      mappings = restMappings(await this.ctx.client.resources(), group, ref.kind);
    } catch (e) {
      await cannotGetScale((e as Error).message);
      throw new Error(`unable to determine resource for scale target reference: ${(e as Error).message}`, { cause: e });
    }
    let scale: Scale; let target: ResourceRef;
    try {
      [scale, target] = await this.scaleForResourceMappings(ns, ref.name, mappings);
    } catch (e) {
      await cannotGetScale((e as Error).message);
      throw new Error(`failed to query scale subresource for ${reference}: ${(e as Error).message}`, { cause: e });
    }
    this.setCondition(hpa, { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" });
    const current = scale.spec?.replicas ?? 0;
    const history = this.history.get(key) ?? new ScaleHistory();
    this.history.set(key, history);
    history.recordInitialRecommendation(current, this.now());

    const minReplicas = hpa.spec.minReplicas ?? 1;
    let desired = 0;
    let reason = '';
    let statuses: MetricStatus[] | undefined;
    let rescale = true;
    let partialError: string | undefined;
    if (current === 0 && minReplicas !== 0) {
      rescale = false;
      this.setCondition(hpa, { type: 'ScalingActive', status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' });
    } else if (current > hpa.spec.maxReplicas) {
      reason = 'Current number of replicas above Spec.MaxReplicas';
      desired = hpa.spec.maxReplicas;
    } else if (current < minReplicas) {
      reason = 'Current number of replicas below Spec.MinReplicas';
      desired = minReplicas;
    } else {
      const computed = await this.computeReplicasForMetrics(hpa, scale);
      if (computed.error !== undefined && computed.replicas === -1) {
        // setCurrentReplicasInStatus: the last desired count and metrics stay.
        this.setStatus(hpa, current, hpa.status?.desiredReplicas ?? 0, hpa.status?.currentMetrics, false);
        await this.updateStatusIfNeeded(original, hpa);
        await this.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error);
        throw new Error(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${computed.error}`);
      }
      // Some metrics failed and the others still propose at least the current count: scale on those, report the error after.
      partialError = computed.error;
      statuses = computed.statuses;
      let rescaleMetric = '';
      if (computed.replicas > desired) { desired = computed.replicas; rescaleMetric = computed.metricName; }
      if (desired > current) reason = `${rescaleMetric} above target`;
      if (desired < current) reason = 'All metrics below target';
      const n = hpa.spec.behavior
        ? normalizeWithBehaviors(history, hpa.spec.behavior, current, desired, minReplicas, hpa.spec.maxReplicas, this.settings.downscaleStabilizationMs, this.now())
        : normalizeDesiredReplicas(history, current, desired, minReplicas, hpa.spec.maxReplicas, this.settings.downscaleStabilizationMs, this.now());
      for (const c of n.conditions) this.setCondition(hpa, c);
      desired = n.replicas;
      rescale = desired !== current;
    }
    if (rescale) {
      try {
        await this.api.scales.update(target, ns, { ...scale, spec: { ...scale.spec, replicas: desired } });
      } catch (e) {
        const message = (e as Error).message;
        await this.event(hpa, 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${message}`);
        this.setCondition(hpa, { type: 'AbleToScale', status: 'False', reason: 'FailedUpdateScale', message: `the HPA controller was unable to update the target scale: ${message}` });
        this.setStatus(hpa, current, hpa.status?.desiredReplicas ?? 0, hpa.status?.currentMetrics, false);
        await this.updateStatusIfNeeded(original, hpa);
        throw new Error(`failed to rescale ${reference}: ${message}`, { cause: e });
      }
      this.setCondition(hpa, { type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desired}` });
      await this.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
      history.recordScaleEvent(hpa.spec.behavior, current, desired, this.now());
    } else {
      desired = current;
    }
    this.setStatus(hpa, current, desired, statuses, rescale);
    await this.updateStatusIfNeeded(original, hpa);
    if (partialError !== undefined) throw new Error(partialError);
  }

  /** scaleForResourceMappings: the first mapping whose scale can be read; else the first mapping's error. */
  private async scaleForResourceMappings(ns: string, name: string, mappings: readonly ResourceRef[]): Promise<[Scale, ResourceRef]> {
    let first: Error | undefined;
    for (const [i, m] of mappings.entries()) {
      try {
        return [await this.api.scales.get(m, ns, name), m];
      } catch (e) {
        if (i === 0) first = e as Error;
      }
    }
    throw first ?? new Error('unrecognized resource');
  }

  /** validateAndParseSelector: the scale's selector, which must be there, parse, and pick pods no other HPA picks. */
  private async selectorOf(hpa: HPA, scale: Scale): Promise<Selector> {
    const selector = scale.status?.selector ?? '';
    if (selector === '') {
      await this.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      this.setCondition(hpa, { type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message: "the HPA target's scale is missing a selector" });
      throw new Error('selector is required');
    }
    let parsed: LabelSelector;
    try {
      parsed = parseLabelSelector(selector);
    } catch (e) {
      const message = `couldn't convert selector into a corresponding internal selector object: ${(e as Error).message}`;
      await this.event(hpa, 'Warning', 'InvalidSelector', message);
      this.setCondition(hpa, { type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message });
      throw new Error(message, { cause: e });
    }
    const namespace = hpa.metadata?.namespace ?? '';
    this.selectors.set(keyOf(hpa as unknown as KObject), { namespace, selector: parsed });
    const selecting = this.hpasControllingPods(namespace, parsed);
    if (selecting.length > 1) {
      // Go prints the keys as a slice ([ns/a ns/b]); upstream's order is a map's, here it is sorted.
      const message = `pods by selector ${selector} are controlled by multiple HPAs: [${selecting.join(' ')}]`;
      await this.event(hpa, 'Warning', 'AmbiguousSelector', message);
      this.setCondition(hpa, { type: 'ScalingActive', status: 'False', reason: 'AmbiguousSelector', message });
      throw new Error(message);
    }
    return { parsed, text: selector };
  }

  /** hpasControllingPodsUnderSelector: the HPAs (namespace/name) whose selectors pick any of the pods this one picks. */
  private hpasControllingPods(namespace: string, selector: LabelSelector): string[] {
    const podLabels = (this.podCache?.cache.list(namespace) ?? []).map((p) => p.metadata.labels).filter((l) => selector.matches(l));
    const keys = [...this.selectors].filter(([, s]) => s.namespace === namespace && podLabels.some((l) => s.selector.matches(l))).map(([k]) => k);
    return keys.sort();
  }

  /** computeReplicasForMetrics: the highest proposal of the valid metrics; replicas -1 when it must not scale. */
  private async computeReplicasForMetrics(hpa: HPA, scale: Scale): Promise<Computed> {
    let selector: Selector;
    try {
      selector = await this.selectorOf(hpa, scale);
    } catch (e) {
      return { replicas: -1, metricName: '', statuses: [], error: (e as Error).message };
    }
    const specReplicas = scale.spec?.replicas ?? 0;
    const specs = hpa.spec.metrics ?? [];
    const statuses: MetricStatus[] = specs.map(() => ({ type: '' }));
    let replicas = 0; let metricName = ''; let invalid = 0; let firstError: string | undefined; let invalidCondition: Condition | undefined;
    for (const [i, spec] of specs.entries()) {
      try {
        const r = await this.computeReplicasForMetric(hpa, spec, specReplicas, selector);
        statuses[i] = r.status;
        if (replicas === 0 || r.replicas > replicas) { replicas = r.replicas; metricName = r.metricName; }
      } catch (e) {
        if (invalid === 0) {
          firstError = (e as Error).message;
          if (e instanceof MetricError) invalidCondition = e.condition;
        }
        invalid++;
      }
    }
    const error = firstError === undefined ? undefined : `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError}`;
    if (invalid >= specs.length || (invalid > 0 && replicas < specReplicas)) {
      if (invalidCondition) this.setCondition(hpa, invalidCondition);
      return { replicas: -1, metricName: '', statuses, error: error ?? 'invalid metrics (0 invalid out of 0)' };
    }
    this.setCondition(hpa, { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: `the HPA was able to successfully calculate a replica count from ${metricName}` });
    return { replicas, metricName, statuses, ...(error ? { error } : {}) };
  }

  /** computeReplicasForMetric for the resource kinds; the others are invalid without a metrics adapter. */
  private async computeReplicasForMetric(hpa: HPA, spec: MetricSpec, specReplicas: number, selector: Selector):
    Promise<{ replicas: number; metricName: string; status: MetricStatus }> {
    const source = spec.type === 'Resource' ? spec.resource : spec.type === 'ContainerResource' ? spec.containerResource : undefined;
    if (!source) {
      const err = `unable to get metric ${spec.type}: the HPA controller has no custom or external metrics adapter`;
      throw new MetricError(err, await this.unableToCompute(hpa, 'InvalidMetricSourceType', err));
    }
    const container = spec.type === 'ContainerResource' ? spec.containerResource?.container : undefined;
    const reason = spec.type === 'ContainerResource' ? 'FailedGetContainerResourceMetric' : 'FailedGetResourceMetric';
    try {
      const r = await this.resourceMetricGeneric(hpa, source.name, source.target, container, selector, specReplicas);
      const metricName = r.utilization === undefined ? `${source.name} resource`
        : spec.type === 'ContainerResource' ? `${source.name} container resource utilization (percentage of request)`
          : `${source.name} resource utilization (percentage of request)`;
      const current = r.utilization === undefined ? { averageValue: fromMilli(r.rawAverage) } : { averageUtilization: r.utilization, averageValue: fromMilli(r.rawAverage) };
      const status: MetricStatus = spec.type === 'ContainerResource'
        ? { type: 'ContainerResource', containerResource: { name: source.name, container: container ?? '', current } }
        : { type: 'Resource', resource: { name: source.name, current } };
      return { replicas: r.replicas, metricName, status };
    } catch (e) {
      const err = (e as Error).message;
      const condition = await this.unableToCompute(hpa, reason, err);
      throw new MetricError(spec.type === 'ContainerResource'
        ? `failed to get ${container ?? ''} container metric value: ${err}`
        : `failed to get ${source.name} resource metric value: ${err}`, condition);
    }
  }

  /** computeStatusForResourceMetricGeneric: a target average value, or a target utilization of the request. */
  private async resourceMetricGeneric(hpa: HPA, resource: string, target: { averageValue?: string | number; averageUtilization?: number },
    container: string | undefined, selector: Selector, specReplicas: number): Promise<{ replicas: number; utilization?: number; rawAverage: number }> {
    const ns = hpa.metadata?.namespace ?? '';
    const now = this.now();
    const podsOf = (): Pod[] => (this.podCache?.cache.list(ns) ?? []).filter((p) => selector.parsed.matches(p.metadata.labels)) as unknown as Pod[];
    const sample = async (what: string) => {
      try {
        return await this.api.metrics.resourceMetric(resource, ns, selector.text, container);
      } catch (e) {
        throw new Error(`failed to get ${resource} ${what}: unable to get metrics for resource ${resource}: ${(e as Error).message}`, { cause: e });
      }
    };
    if (target.averageValue !== undefined) {
      const s = await sample('usage');
      try {
        const p = rawResourceReplicas(specReplicas, Number(milliValue(parseQuantity(target.averageValue))), resource, podsOf(), s, this.settings.calculator, now);
        return { replicas: p.replicas, rawAverage: p.rawAverage };
      } catch (e) {
        throw new Error(`failed to get ${resource} usage: ${(e as Error).message}`, { cause: e });
      }
    }
    if (target.averageUtilization === undefined) {
      throw new Error('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
    }
    const s = await sample('utilization');
    try {
      const p = resourceReplicas(specReplicas, target.averageUtilization, resource, podsOf(), s, container, this.settings.calculator, now);
      return { replicas: p.replicas, utilization: p.utilization, rawAverage: p.rawAverage };
    } catch (e) {
      throw new Error(`failed to get ${resource} utilization: ${(e as Error).message}`, { cause: e });
    }
  }

  /** getUnableComputeReplicaCountCondition: the event now, the condition for when this is the first invalid metric. */
  private async unableToCompute(hpa: HPA, reason: string, err: string): Promise<Condition> {
    await this.event(hpa, 'Warning', reason, err);
    return { type: 'ScalingActive', status: 'False', reason, message: `the HPA was unable to compute the replica count: ${err}` };
  }

  /** setStatus: observedGeneration is not written, as upstream does not. */
  private setStatus(hpa: HPA, current: number, desired: number, metrics: MetricStatus[] | undefined, rescale: boolean): void {
    const lastScaleTime = rescale ? rfc3339(this.now()) : hpa.status?.lastScaleTime;
    hpa.status = {
      currentReplicas: current, desiredReplicas: desired,
      ...(lastScaleTime ? { lastScaleTime } : {}),
      ...(metrics?.length ? { currentMetrics: metrics } : {}),
      ...(hpa.status?.conditions ? { conditions: hpa.status.conditions } : {}),
    };
  }

  /** updateStatusIfNeeded: no write when nothing changed. */
  private async updateStatusIfNeeded(original: HorizontalPodAutoscaler['status'], hpa: HPA): Promise<void> {
    if (JSON.stringify(original) === JSON.stringify(hpa.status)) return;
    const status = hpa.status;
    try {
      await this.ctx.client.resource(horizontalpodautoscalers).updateStatus(hpa.metadata?.namespace ?? '', hpa.metadata?.name ?? '', (cur) => ({ ...cur, status }));
    } catch (e) {
      await this.event(hpa, 'Warning', 'FailedUpdateStatus', (e as Error).message);
      throw new Error(`failed to update status for ${hpa.metadata?.name ?? ''}: ${(e as Error).message}`, { cause: e });
    }
  }

  /** setCondition: the lastTransitionTime changes only when the status does. */
  private setCondition(hpa: HPA, c: Condition): void {
    const conditions: HorizontalPodAutoscalerCondition[] = [...(hpa.status?.conditions ?? [])];
    const i = conditions.findIndex((x) => x.type === c.type);
    const lastTransitionTime = i >= 0 && conditions[i]!.status === c.status ? conditions[i]!.lastTransitionTime : rfc3339(this.now());
    const next: HorizontalPodAutoscalerCondition = { type: c.type, status: c.status, lastTransitionTime, reason: c.reason, message: c.message };
    if (i >= 0) conditions[i] = next; else conditions.push(next);
    hpa.status = { ...(hpa.status ?? { currentReplicas: 0, desiredReplicas: 0 }), conditions };
  }

  private async event(hpa: HorizontalPodAutoscaler, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    await this.ctx.events.record(referenceTo(hpa as unknown as KObject), type, reason, message, COMPONENT);
  }
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** resource.NewMilliQuantity(v, DecimalSI).String(). */
function fromMilli(v: number): string {
  return formatQuantity(parseQuantity(v % 1000 === 0 ? String(v / 1000) : `${v}m`));
}

/** A scale's selector: parsed, and as the scale wrote it (what the metrics API is asked with). */
interface Selector { parsed: LabelSelector; text: string }
