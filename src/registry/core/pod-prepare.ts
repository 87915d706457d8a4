/**
 * The pod strategy's PrepareForCreate/PrepareForUpdate (pkg/registry/core/pod
 * /strategy.go, v1.32): status reset to Pending with the QoS class, disabled
 * fields dropped, the SchedulingGated condition, matchLabelKeys merged into
 * pod (anti-)affinity selectors, and AppArmor field/annotation sync.
 */
import { rfc3339 } from '../../apimachinery/time.js';
import type { KObject } from '../../apimachinery/object.js';
import type { WriteContext } from '../../apimachinery/write-context.js';
import { isObject } from './decode.js';
import { admitDefaultTolerations } from './pod-admission.js';
import { dropDisabledPodSpecFields } from './pod-drop-fields.js';
import { getPodQOS } from '../../meta/pod-qos.js';

const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

/** applySchedulingGatedCondition: a gated pod starts with PodScheduled=False. */
function applySchedulingGatedCondition(pod: Record<string, any>, now: Date): void {
  if (!(pod.spec.schedulingGates ?? []).length) return;
  const conditions: any[] = (pod.status.conditions ??= []);
  if (conditions.some((c) => c?.type === 'PodScheduled')) return;
  conditions.push({
    type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: rfc3339(now),
    reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates',
  });
}

/** applyMatchLabelKeysAndMismatchLabelKeys for one PodAffinityTerm (MatchLabelKeysInPodAffinity is beta, on). */
function applyLabelKeys(term: any, labels: Record<string, string>): void {
  if (!isObject(term) || !isObject(term.labelSelector)) return;
  const add = (keys: string[] | undefined, operator: string) => {
    for (const key of keys ?? []) {
      if (!(key in labels)) continue;
      (term.labelSelector.matchExpressions ??= []).push({ key, operator, values: [labels[key]] });
    }
  };
  add(term.matchLabelKeys, 'In');
  add(term.mismatchLabelKeys, 'NotIn');
}

function mutatePodAffinity(pod: Record<string, any>): void {
  const affinity = pod.spec.affinity;
  if (!isObject(affinity)) return;
  const labels = pod.metadata?.labels ?? {};
  for (const a of [affinity.podAffinity, affinity.podAntiAffinity]) {
    if (!isObject(a)) continue;
    for (const w of a.preferredDuringSchedulingIgnoredDuringExecution ?? []) applyLabelKeys(w?.podAffinityTerm, labels);
    for (const t of a.requiredDuringSchedulingIgnoredDuringExecution ?? []) applyLabelKeys(t, labels);
  }
}

interface AppArmorProfile { type: string; localhostProfile?: string }

function annotationForField(p: AppArmorProfile): string {
  switch (p.type) {
    case 'Unconfined': return 'unconfined';
    case 'RuntimeDefault': return 'runtime/default';
    case 'Localhost': return p.localhostProfile != null ? `localhost/${p.localhostProfile}` : '';
    default: return '';
  }
}

/** ApparmorFieldForAnnotation, keeping only values ValidateAppArmorProfileField accepts. */
function fieldForAnnotation(a: string): AppArmorProfile | undefined {
  if (a === 'unconfined') return { type: 'Unconfined' };
  if (a === 'runtime/default') return { type: 'RuntimeDefault' };
  if (a.startsWith('localhost/')) {
    const profile = a.slice('localhost/'.length);
    if (profile && profile.trim() === profile && Buffer.byteLength(profile) <= 4095) {
      return { type: 'Localhost', localhostProfile: profile };
    }
  }
  return undefined;
}

const sameProfile = (a: AppArmorProfile | undefined, b: AppArmorProfile | undefined) =>
  !!a && !!b && a.type === b.type && (a.localhostProfile ?? undefined) === (b.localhostProfile ?? undefined);

/**
 * applyAppArmorVersionSkew (v1.32 still syncs both ways): a container field
 * without an annotation gets one; an annotation without a field sets the
 * field unless it equals the pod-level profile. Windows pods are skipped.
 */
function applyAppArmorVersionSkew(pod: Record<string, any>): void {
  if (pod.spec.os?.name === 'windows') return;
  const podProfile: AppArmorProfile | undefined = pod.spec.securityContext?.appArmorProfile ?? undefined;
  const containers = [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? []), ...(pod.spec.ephemeralContainers ?? [])];
  for (const c of containers) {
    if (!isObject(c)) continue;
    const key = APPARMOR_PREFIX + c.name;
    const annotations = pod.metadata.annotations ?? {};
    const has = Object.prototype.hasOwnProperty.call(annotations, key);
    const ctrProfile: AppArmorProfile | undefined = c.securityContext?.appArmorProfile ?? undefined;
    if (!has) {
      const value = ctrProfile ? annotationForField(ctrProfile) : podProfile ? annotationForField(podProfile) : '';
      if (value) (pod.metadata.annotations ??= {})[key] = value;
    } else if (!ctrProfile) {
      const f = fieldForAnnotation(annotations[key]);
      if (f && !sameProfile(f, podProfile)) (c.securityContext ??= {}).appArmorProfile = f;
    }
  }
}

/** PrepareForCreate. */
export function preparePodForCreate(pod: Record<string, any>, ctx: Pick<WriteContext, 'now'>): void {
  pod.metadata ??= {};
  pod.spec ??= {};
  // QoS is read before the status is replaced: a class the client sent wins (GetPodQOS).
  pod.status = { phase: 'Pending', qosClass: getPodQOS(pod) };
  dropDisabledPodSpecFields(pod.spec);
  applySchedulingGatedCondition(pod, ctx.now);
  mutatePodAffinity(pod);
  applyAppArmorVersionSkew(pod);
}

/**
 * An update: first what the admission plugins do to updates (Priority keeps
 * the priority and preemptionPolicy set at create when the client leaves them
 * out; DefaultTolerationSeconds re-adds its tolerations), then the strategy's
 * PrepareForUpdate (status kept, newly disabled fields dropped).
 */
export function preparePodForUpdate(pod: Record<string, any>, old: Record<string, any>): void {
  if (!isObject(pod.spec)) pod.spec = {};
  for (const k of ['priority', 'preemptionPolicy']) {
    if (pod.spec[k] == null && old.spec?.[k] != null) pod.spec[k] = old.spec[k];
  }
  admitDefaultTolerations(pod as KObject);
  if (old.status === undefined) delete pod.status; else pod.status = old.status;
  dropDisabledPodSpecFields(pod.spec, old.spec);
}
