/**
 * pkg/controller/deployment/util/deployment_util.go (v1.32) as pure
 * functions over ReplicaSets and Deployments: revisions and their
 * annotations, the rolling-update fenceposts (maxSurge/maxUnavailable with
 * upstream's rounding), conditions, and the status predicates.
 */
import type { KObject } from '../../apimachinery/object.js';
import { canonicalJSON } from '../controller-utils.js';

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const POD_TEMPLATE_HASH = 'pod-template-hash';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';

/** Condition reasons (deployment_util.go). */
export const Reasons = {
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  FailedRSCreate: 'ReplicaSetCreateError',
  NewReplicaSet: 'NewReplicaSetCreated',
  FoundNewRS: 'FoundNewReplicaSet',
  NewRSAvailable: 'NewReplicaSetAvailable',
  TimedOut: 'ProgressDeadlineExceeded',
  PausedDeploy: 'DeploymentPaused',
  ResumedDeploy: 'DeploymentResumed',
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** maxRevHistoryLengthInChars. */
export const MAX_REV_HISTORY_CHARS = 2000;

/** What is never copied from a Deployment to its ReplicaSets (annotationsToSkip). */
const SKIPPED = new Set([LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, ROLLBACK_TO]);

export interface Condition {
  type: string; status: string; lastUpdateTime?: string; lastTransitionTime?: string; reason?: string; message?: string;
}

export interface DeploymentStatus {
  observedGeneration?: number; replicas?: number; updatedReplicas?: number; readyReplicas?: number;
  availableReplicas?: number; unavailableReplicas?: number; conditions?: Condition[]; collisionCount?: number;
}

const spec = (o: KObject) => (o.spec ?? {}) as any;
export const replicasOf = (o: KObject | undefined): number => (o ? (spec(o).replicas ?? 1) : 0);
const rsStatus = (o: KObject) => (o.status ?? {}) as any;

/** metav1.Time as upstream serializes it: RFC 3339 in seconds. */
export const timeNow = (now = new Date()): string => now.toISOString().replace(/\.\d{3}Z$/, 'Z');

// ---------------------------------------------------------------- int-or-percent

/**
 * intstr.GetScaledValueFromIntOrPercent: an int as is, "N%" of total rounded
 * up or down; anything else is an error.
 */
export function scaledValue(v: number | string | undefined | null, total: number, roundUp: boolean): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const m = /^(-?\d+)%$/.exec(v);
  if (!m) throw new Error(`invalid value for IntOrString: invalid value "${v}": ${/^\d+$/.test(v) ? 'must be an integer or percentage' : `strconv.Atoi: parsing "${v.replace(/%$/, '')}": invalid syntax`}`);
  const value = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(value) : Math.floor(value);
}

const isRolling = (d: KObject) => (spec(d).strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/** ResolveFenceposts: maxSurge rounded up, maxUnavailable down; both zero makes maxUnavailable 1. */
export function resolveFenceposts(maxSurge: number | string | undefined, maxUnavailable: number | string | undefined, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** MaxUnavailable: 0 unless rolling with replicas; never more than the replicas. */
export function maxUnavailable(d: KObject): number {
  const replicas = replicasOf(d);
  if (!isRolling(d) || replicas === 0) return 0;
  const ru = spec(d).strategy?.rollingUpdate ?? {};
  const { unavailable } = resolveFenceposts(ru.maxSurge, ru.maxUnavailable, replicas);
  return Math.min(unavailable, replicas);
}

/** MaxSurge: 0 unless rolling. */
export function maxSurge(d: KObject): number {
  if (!isRolling(d)) return 0;
  const ru = spec(d).strategy?.rollingUpdate ?? {};
  return resolveFenceposts(ru.maxSurge, ru.maxUnavailable, replicasOf(d)).surge;
}

// ---------------------------------------------------------------- replica counts

export const replicaCount = (sets: (KObject | undefined)[]) => sets.reduce((n, rs) => n + (rs ? replicasOf(rs) : 0), 0);
export const actualReplicaCount = (sets: (KObject | undefined)[]) => sets.reduce((n, rs) => n + (rs ? rsStatus(rs).replicas ?? 0 : 0), 0);
export const readyReplicaCount = (sets: (KObject | undefined)[]) => sets.reduce((n, rs) => n + (rs ? rsStatus(rs).readyReplicas ?? 0 : 0), 0);
export const availableReplicaCount = (sets: (KObject | undefined)[]) => sets.reduce((n, rs) => n + (rs ? rsStatus(rs).availableReplicas ?? 0 : 0), 0);

/** controller.FilterActiveReplicaSets: those with replicas wanted. */
export const activeReplicaSets = (sets: (KObject | undefined)[]) => sets.filter((rs): rs is KObject => !!rs && replicasOf(rs) > 0);

/**
 * NewRSNewReplicas: how far the new ReplicaSet may grow now. Rolling: up
 * to replicas+maxSurge pods in all, never past the desired replicas.
 * Recreate: the desired replicas.
 */
export function newRSNewReplicas(d: KObject, all: (KObject | undefined)[], newRS: KObject): number {
  if (!isRolling(d)) return replicasOf(d);
  const surge = scaledValue(spec(d).strategy?.rollingUpdate?.maxSurge ?? 0, replicasOf(d), true);
  const current = replicaCount(all);
  const maxTotal = replicasOf(d) + surge;
  if (current >= maxTotal) return replicasOf(newRS);
  const up = Math.min(maxTotal - current, replicasOf(d) - replicasOf(newRS));
  return replicasOf(newRS) + up;
}

// ---------------------------------------------------------------- ordering

const createdAt = (o: KObject) => (o.metadata.creationTimestamp ? Date.parse(o.metadata.creationTimestamp) : 0);

/** ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreation(a: KObject, b: KObject): number {
  const d = createdAt(a) - createdAt(b);
  if (d !== 0) return d;
  return a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0;
}

/** ReplicaSetsBySizeOlder: larger first, ties oldest first. */
export const bySizeOlder = (a: KObject, b: KObject) => (replicasOf(a) === replicasOf(b) ? byCreation(a, b) : replicasOf(b) - replicasOf(a));
/** ReplicaSetsBySizeNewer: larger first, ties newest first. */
export const bySizeNewer = (a: KObject, b: KObject) => (replicasOf(a) === replicasOf(b) ? byCreation(b, a) : replicasOf(b) - replicasOf(a));

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * strconv.ParseInt(v, 10, 64): revisions are int64, beyond a double's exact range (an adopted
 * ReplicaSet may carry any value), so they are bigints; undefined where ParseInt fails.
 */
export function parseRevision(v: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(v)) return undefined;
  const n = BigInt(v);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Revision: the revision annotation (0 when absent or not an int64). */
export function revisionOf(o: KObject): bigint {
  const v = o.metadata.annotations?.[REVISION];
  return (v === undefined ? undefined : parseRevision(v)) ?? 0n;
}

/** ReplicaSetsByRevision: by revision, then by creation. */
export const byRevision = (a: KObject, b: KObject) => {
  const ra = revisionOf(a);
  const rb = revisionOf(b);
  return ra === rb ? byCreation(a, b) : ra < rb ? -1 : 1;
};

export const maxRevision = (sets: KObject[]) => sets.reduce((m, rs) => { const r = revisionOf(rs); return r > m ? r : m; }, 0n);

// ---------------------------------------------------------------- templates

/** JSON without nulls and empty maps and lists, which Semantic.DeepEqual does not tell from absent ones. */
function withoutEmpties(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? v.map(withoutEmpties) : undefined;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const y = withoutEmpties(x);
      if (y !== undefined) out[k] = y;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v === null ? undefined : v;
}

/** Templates are compared often (several times per sync): their comparison keys are kept per template object. */
const templateKeys = new WeakMap<object, string>();

/** The template without its pod-template-hash label, as a canonical string. */
export function templateKey(t: any): string {
  if (t && typeof t === 'object') {
    const known = templateKeys.get(t);
    if (known !== undefined) return known;
  }
  const labels = t?.metadata?.labels;
  let stripped = t ?? {};
  if (labels && POD_TEMPLATE_HASH in labels) {
    const { [POD_TEMPLATE_HASH]: _h, ...rest } = labels;
    stripped = { ...t, metadata: { ...t.metadata, labels: rest } };
  }
  const key = canonicalJSON(withoutEmpties(stripped) ?? {});
  if (t && typeof t === 'object') templateKeys.set(t, key);
  return key;
}

/** EqualIgnoreHash: the templates are semantically equal once the pod-template-hash label is removed. */
export function equalIgnoreHash(t1: any, t2: any): boolean {
  return templateKey(t1) === templateKey(t2);
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's. */
export function findNewReplicaSet(d: KObject, sets: KObject[]): KObject | undefined {
  return [...sets].sort(byCreation).find((rs) => equalIgnoreHash(spec(rs).template, spec(d).template));
}

/** FindOldReplicaSets: every other ReplicaSet. */
export function findOldReplicaSets(d: KObject, sets: KObject[], newRS?: KObject): KObject[] {
  return sets.filter((rs) => rs.metadata.uid !== newRS?.metadata.uid);
}

/** FindActiveOrLatest: the one active ReplicaSet, or the newest when none is active; none when several are. */
export function findActiveOrLatest(newRS: KObject | undefined, oldRSs: KObject[]): KObject | undefined {
  if (!newRS && !oldRSs.length) return undefined;
  const olds = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = activeReplicaSets([...olds, newRS]);
  if (active.length === 0) return newRS ?? olds[0];
  if (active.length === 1) return active[0];
  return undefined;
}

// ---------------------------------------------------------------- annotations

/** copyDeploymentAnnotationsToReplicaSet. */
function copyAnnotations(d: KObject, rs: KObject): boolean {
  let changed = false;
  rs.metadata.annotations ??= {};
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (SKIPPED.has(k) || rs.metadata.annotations[k] === v) continue;
    rs.metadata.annotations[k] = v;
    changed = true;
  }
  return changed;
}

/** SetReplicasAnnotations: desired-replicas and max-replicas; whether either changed. */
export function setReplicasAnnotations(rs: KObject, desired: number, max: number): boolean {
  const a = (rs.metadata.annotations ??= {});
  let changed = false;
  if (a[DESIRED_REPLICAS] !== String(desired)) { a[DESIRED_REPLICAS] = String(desired); changed = true; }
  if (a[MAX_REPLICAS] !== String(max)) { a[MAX_REPLICAS] = String(max); changed = true; }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: KObject, desired: number, max: number): boolean {
  const a = rs.metadata.annotations ?? {};
  return a[DESIRED_REPLICAS] !== String(desired) || a[MAX_REPLICAS] !== String(max);
}

/**
 * SetNewReplicaSetAnnotations: the Deployment's annotations, the revision
 * (only ever raised; a raised revision of an existing one is a rollback,
 * whose former revision goes into revision-history), and for a ReplicaSet
 * about to be created the replica annotations.
 */
export function setNewReplicaSetAnnotations(d: KObject, rs: KObject, newRevision: bigint, exists: boolean, limit = MAX_REV_HISTORY_CHARS): boolean {
  let changed = copyAnnotations(d, rs);
  const a = (rs.metadata.annotations ??= {});
  const oldRevision = a[REVISION];
  let oldInt = 0n;
  if (oldRevision !== undefined && oldRevision !== '') {
    const parsed = parseRevision(oldRevision);
    if (parsed === undefined) return false;
    oldInt = parsed;
  }
  if (oldInt < newRevision) {
    a[REVISION] = String(newRevision);
    changed = true;
  }
  if (oldRevision !== undefined && oldInt < newRevision) {
    const history = a[REVISION_HISTORY] ?? '';
    let olds = history.split(',');
    if (!olds[0]) a[REVISION_HISTORY] = oldRevision;
    else {
      let total = history.length + oldRevision.length + 1;
      let start = 0;
      for (const old of olds) {
        if (total <= limit) break;
        total -= old.length + 1;
        start++;
      }
      if (total <= limit) {
        olds = [...olds.slice(start), oldRevision];
        a[REVISION_HISTORY] = olds.join(',');
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

/** SetDeploymentRevision: whether the Deployment's revision annotation changed. */
export function setDeploymentRevision(d: KObject, revision: string): boolean {
  const a = (d.metadata.annotations ??= {});
  if (a[REVISION] === revision) return false;
  a[REVISION] = revision;
  return true;
}

/** GetDesiredReplicasAnnotation. */
export function desiredReplicasAnnotation(rs: KObject): number | undefined {
  const v = rs.metadata.annotations?.[DESIRED_REPLICAS];
  return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined;
}

function maxReplicasAnnotation(rs: KObject): number | undefined {
  const v = rs.metadata.annotations?.[MAX_REPLICAS];
  return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined;
}

/** IsSaturated: the new ReplicaSet has, wants and makes available all the replicas. */
export function isSaturated(d: KObject, newRS: KObject | undefined): boolean {
  if (!newRS) return false;
  const desired = desiredReplicasAnnotation(newRS);
  return replicasOf(newRS) === replicasOf(d) && desired === replicasOf(d) && (rsStatus(newRS).availableReplicas ?? 0) === replicasOf(d);
}

/** math.Round for RoundToInt32: halves away from zero. */
const roundHalfAway = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

/** getReplicaSetFraction: this set's share of a proportional scale. */
function replicaSetFraction(rs: KObject, d: KObject): number {
  if (replicasOf(d) === 0) return -replicasOf(rs);
  const maxNow = replicasOf(d) + maxSurge(d);
  let before = maxReplicasAnnotation(rs);
  if (before === undefined || before === 0) {
    before = ((d.status ?? {}) as any).replicas ?? 0;
    if (!before) return 0;
  }
  return roundHalfAway((replicasOf(rs) * maxNow) / before!) - replicasOf(rs);
}

/** GetReplicaSetProportion. */
export function replicaSetProportion(rs: KObject, d: KObject, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

// ---------------------------------------------------------------- conditions

export function getCondition(status: DeploymentStatus, type: string): Condition | undefined {
  return status.conditions?.find((c) => c.type === type);
}

/** NewDeploymentCondition, in the field order of DeploymentCondition. */
export function newCondition(type: string, status: string, reason: string, message: string, now = timeNow()): Condition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/**
 * SetDeploymentCondition: nothing when status and reason are unchanged;
 * the transition time kept when only the reason changes; the condition
 * moved to the end.
 */
export function setCondition(status: DeploymentStatus, c: Condition): void {
  const cur = getCondition(status, c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return;
  if (cur && cur.status === c.status) c = { ...c, lastTransitionTime: cur.lastTransitionTime };
  status.conditions = [...(status.conditions ?? []).filter((x) => x.type !== c.type), c];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
  if (!status.conditions.length) delete status.conditions;
}

/** HasProgressDeadline: set and not MaxInt32. */
export function hasProgressDeadline(d: KObject): boolean {
  const p = spec(d).progressDeadlineSeconds;
  return typeof p === 'number' && p !== 2147483647;
}

/** DeploymentComplete: everything updated and available, the latest generation observed. */
export function deploymentComplete(d: KObject, s: DeploymentStatus): boolean {
  const r = replicasOf(d);
  return (s.updatedReplicas ?? 0) === r && (s.replicas ?? 0) === r && (s.availableReplicas ?? 0) === r &&
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available pods than last time. */
export function deploymentProgressing(d: KObject, s: DeploymentStatus): boolean {
  const o = (d.status ?? {}) as DeploymentStatus;
  const oldOld = (o.replicas ?? 0) - (o.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (s.updatedReplicas ?? 0) > (o.updatedReplicas ?? 0) || newOld < oldOld ||
    (s.readyReplicas ?? 0) > (o.readyReplicas ?? 0) || (s.availableReplicas ?? 0) > (o.availableReplicas ?? 0);
}

/** DeploymentTimedOut: the Progressing condition was last updated more than progressDeadlineSeconds ago. */
export function deploymentTimedOut(d: KObject, s: DeploymentStatus, now = Date.now()): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, 'Progressing');
  if (!c) return false;
  if (c.reason === Reasons.NewRSAvailable) return false;
  if (c.reason === Reasons.TimedOut) return true;
  const from = c.lastUpdateTime ? Date.parse(c.lastUpdateTime) : NaN;
  return !Number.isNaN(from) && from + spec(d).progressDeadlineSeconds * 1000 < now;
}
