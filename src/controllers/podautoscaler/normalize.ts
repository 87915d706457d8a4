/**
 * How the HPA turns a metric's proposal into the count it sets
 * (horizontal.go's normalizeDesiredReplicas and
 * normalizeDesiredReplicasWithBehaviors, v1.32), with the conditions each
 * step sets. Without spec.behavior: the highest recommendation of the
 * downscale stabilization window (5 min), then at most double (or 4) per
 * sync and within min/max. With it: recommendations stabilized per
 * direction, then limited by the scaling policies over their periods.
 * Recommendations and scale events are the controller's memory per HPA;
 * the time is passed in.
 */
import type { HorizontalPodAutoscalerBehavior, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';

export interface Condition { type: 'AbleToScale' | 'ScalingActive' | 'ScalingLimited'; status: 'True' | 'False'; reason: string; message: string }

interface Recommendation { atMs: number; replicas: number }
interface ScaleEvent { atMs: number; change: number; outdated: boolean }

/** The controller's memory of one HPA (its key's recommendations and scale events). */
export class ScaleHistory {
  recommendations: Recommendation[] = [];
  scaleUpEvents: ScaleEvent[] = [];
  scaleDownEvents: ScaleEvent[] = [];

  /** storeScaleEvent: with a behavior, the change is kept for the policies' periods (the longest). */
  record(behavior: HorizontalPodAutoscalerBehavior | undefined, prev: number, next: number, nowMs: number): void {
    if (!behavior) return;
    const up = next > prev;
    const rules = up ? behavior.scaleUp : behavior.scaleDown;
    const longest = Math.max(0, ...(rules?.policies ?? []).map((p) => p.periodSeconds)) * 1000;
    const events = up ? this.scaleUpEvents : this.scaleDownEvents;
    const kept = events.filter((e) => !e.outdated && e.atMs + longest > nowMs);
    kept.push({ atMs: nowMs, change: Math.abs(next - prev), outdated: false });
    if (up) this.scaleUpEvents = kept; else this.scaleDownEvents = kept;
  }
}

const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

export interface Normalized { replicas: number; conditions: Condition[] }

const READY_FOR_NEW_SCALE: Condition = { type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const SCALE_DOWN_STABILIZED: Condition = { type: 'AbleToScale', status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };

/** The most replicas allowed, and why when it binds: the scale-up rate, or maxReplicas when that is lower. */
function upperBound(maxReplicas: number, rateLimit: number): [number, string, string] {
  return maxReplicas > rateLimit
    ? [rateLimit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate']
    : [maxReplicas, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
}

/** normalizeDesiredReplicas: no spec.behavior. */
export function normalizeDesiredReplicas(h: ScaleHistory, currentReplicas: number, desired: number, minReplicas: number, maxReplicas: number,
  downscaleStabilizationMs: number, nowMs: number): Normalized {
  // stabilizeRecommendation: the highest recommendation within the window, this one included.
  const cutoff = nowMs - downscaleStabilizationMs;
  let stabilized = desired;
  for (const r of h.recommendations) if (r.atMs >= cutoff && r.replicas > stabilized) stabilized = r.replicas;
  h.recommendations = [...h.recommendations.filter((r) => r.atMs >= cutoff), { atMs: nowMs, replicas: desired }];
  const conditions: Condition[] = [stabilized !== desired
    ? SCALE_DOWN_STABILIZED
    : READY_FOR_NEW_SCALE];
  // convertDesiredReplicasWithRules.
  const scaleUpLimit = Math.max(SCALE_UP_LIMIT_FACTOR * currentReplicas, SCALE_UP_LIMIT_MINIMUM);
  const [maxAllowed, limitReason, limitMessage] = upperBound(maxReplicas, scaleUpLimit);
  const minAllowed = minReplicas === 0 ? 1 : minReplicas;
  let replicas = stabilized; let reason = 'DesiredWithinRange'; let message = 'the desired count is within the acceptable range';
  if (stabilized < minAllowed) { replicas = minAllowed; reason = 'TooFewReplicas'; message = 'the desired replica count is less than the minimum replica count'; }
  else if (stabilized > maxAllowed) { replicas = maxAllowed; reason = limitReason; message = limitMessage; }
  conditions.push({ type: 'ScalingLimited', status: replicas === stabilized ? 'False' : 'True', reason, message });
  return { replicas, conditions };
}

/** getReplicasChangePerPeriod. */
function changeInPeriod(periodSeconds: number, events: readonly ScaleEvent[], nowMs: number): number {
  const start = nowMs - periodSeconds * 1000;
  return events.reduce((sum, e) => (e.atMs > start && !e.outdated ? sum + e.change : sum), 0);
}

function scaleUpLimit(current: number, events: readonly ScaleEvent[], rules: HPAScalingRules | undefined, nowMs: number): number {
  if (rules?.selectPolicy === 'Disabled') return current;
  const pick = rules?.selectPolicy === 'Min' ? Math.min : Math.max;
  let result = rules?.selectPolicy === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  for (const p of rules?.policies ?? []) {
    const periodStart = current - changeInPeriod(p.periodSeconds, events, nowMs);
    result = pick(result, p.type === 'Pods' ? periodStart + p.value : Math.ceil(periodStart * (1 + p.value / 100)));
  }
  return result;
}

function scaleDownLimit(current: number, events: readonly ScaleEvent[], rules: HPAScalingRules | undefined, nowMs: number): number {
  if (rules?.selectPolicy === 'Disabled') return current;
  const pick = rules?.selectPolicy === 'Min' ? Math.max : Math.min;
  let result = rules?.selectPolicy === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  for (const p of rules?.policies ?? []) {
    const periodStart = current + changeInPeriod(p.periodSeconds, events, nowMs);
    result = pick(result, p.type === 'Pods' ? periodStart - p.value : Math.trunc(periodStart * (1 - p.value / 100)));
  }
  return result;
}

/** normalizeDesiredReplicasWithBehaviors: `behavior` as the API server defaulted it; a scale-down window it leaves unset is the controller's. */
export function normalizeWithBehaviors(h: ScaleHistory, behavior: HorizontalPodAutoscalerBehavior, currentReplicas: number, desired: number,
  minReplicas: number, maxReplicas: number, downscaleStabilizationMs: number, nowMs: number): Normalized {
  const upCutoff = nowMs - (behavior.scaleUp?.stabilizationWindowSeconds ?? 0) * 1000;
  const downCutoff = nowMs - (behavior.scaleDown?.stabilizationWindowSeconds !== undefined ? behavior.scaleDown.stabilizationWindowSeconds * 1000 : downscaleStabilizationMs);
  let up = desired; let down = desired;
  for (const r of h.recommendations) {
    if (r.atMs > upCutoff) up = Math.min(r.replicas, up);
    if (r.atMs > downCutoff) down = Math.max(r.replicas, down);
  }
  let stabilized = currentReplicas;
  if (stabilized < up) stabilized = up;
  if (stabilized > down) stabilized = down;
  h.recommendations = [...h.recommendations.filter((r) => r.atMs >= upCutoff || r.atMs >= downCutoff), { atMs: nowMs, replicas: desired }];
  const conditions: Condition[] = [stabilized !== desired
    ? desired >= currentReplicas
      ? { type: 'AbleToScale', status: 'True', reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
      : SCALE_DOWN_STABILIZED
    : READY_FOR_NEW_SCALE];
  // convertDesiredReplicasWithBehaviorRate.
  let replicas = stabilized; let reason = 'DesiredWithinRange'; let message = 'the desired count is within the acceptable range';
  if (stabilized > currentReplicas) {
    const limit = Math.max(scaleUpLimit(currentReplicas, h.scaleUpEvents, behavior.scaleUp, nowMs), currentReplicas);
    const [allowed, r, m] = upperBound(maxReplicas, limit);
    if (stabilized > allowed) { replicas = allowed; reason = r; message = m; }
  } else if (stabilized < currentReplicas) {
    const limit = Math.min(scaleDownLimit(currentReplicas, h.scaleDownEvents, behavior.scaleDown, nowMs), currentReplicas);
    const [allowed, r, m] = minReplicas < limit
      ? [limit, 'ScaleDownLimit', 'the desired replica count is decreasing faster than the maximum scale rate']
      : [minReplicas, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
    if (stabilized < allowed) { replicas = allowed; reason = r; message = m; }
  }
  conditions.push({ type: 'ScalingLimited', status: replicas === stabilized ? 'False' : 'True', reason, message });
  return { replicas, conditions };
}
