/**
 * The Job controller (pkg/controller/job/job_controller.go, v1.32 with
 * JobPodReplacementPolicy and JobManagedBy on): pods up to parallelism,
 * the `batch.kubernetes.io/job-tracking` finalizer and
 * status.uncountedTerminatedPods for exact counting, back-off after
 * failures, activeDeadlineSeconds, podFailurePolicy, suspend, Indexed
 * completion, and the interim SuccessCriteriaMet / FailureTarget conditions
 * before Complete / Failed.
 *
 * Each sync reads the Job from the API server and its pods from the shared pod
 * informer once that has seen the controller's own pod writes (OwnWrites),
 * so no expectations cache is needed; syncs of one Job never overlap (the
 * work queue's processing set).
 */
import { plain } from '../../client/plain.js';
import { StatusError, asError } from '../../apimachinery/errors.js';
import { referenceTo, type EventRecorder } from '../../events/recorder.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import { OwnWrites } from '../../client/own-writes.js';
import { jobs, pods } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import type { KObject } from '../../apimachinery/object.js';
import { fromLabelSelector } from '../../selectors/labels.js';
import { claimObjects, SMP } from '../controller-utils.js';
import { PodControl } from '../pod-control.js';
import { addIndexEnv, COMPLETION_INDEX, completionIndex, formatIndexes, generateNameWithIndex, parseIndexes } from './indexes.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { controllerOf, isActive, isReady, phaseOf } from './pod-state.js';
import { jobsToSyncForPod } from './pod-event-jobs.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { keyOf, splitKey } from '../../client/queue-keys.js';

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** batch.JobIndexFailureCountAnnotation and JobIndexIgnoredFailureCountAnnotation. */
export const INDEX_FAILURE_COUNT = 'batch.kubernetes.io/job-index-failure-count';
export const INDEX_IGNORED_FAILURE_COUNT = 'batch.kubernetes.io/job-index-ignored-failure-count';
const COMPONENT = 'job-controller';
/** DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

type Obj = KObject & { spec?: any; status?: any };

interface Condition { type: string; status: string; lastProbeTime: string; lastTransitionTime: string; reason?: string; message?: string }

interface BackoffRecord { failuresAfterLastSuccess: number; lastFailureTime?: number }

export interface JobControllerOptions {
  /** The clock (tests inject one). */
  now?: () => Date;
  log?: (m: string) => void;
}

/** IsJobFinished: a Complete or Failed condition that is True. */
export function jobFinished(job: Obj): 'Complete' | 'Failed' | undefined {
  const c = (job.status?.conditions ?? []).find((c: any) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  return c?.type;
}

/** An integer annotation of a pod, 0 when absent or malformed. */
function annotationCount(p: Obj, key: string): number {
  const v = p.metadata.annotations?.[key];
  return v !== undefined && /^\d+$/.test(v) && Number(v) <= 2147483647 ? Number(v) : 0;
}
/** getIndexAbsoluteFailureCount: counted and ignored failures of the index so far. */
const absoluteFailures = (p: Obj) => annotationCount(p, INDEX_FAILURE_COUNT) + annotationCount(p, INDEX_IGNORED_FAILURE_COUNT);
const hasFinalizer = (p: Obj) => (p.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);

/** When a pod finished: its last container termination, else now (getFinishedTime). */
function finishedTime(p: Obj, now: number): number {
  let t = 0;
  for (const cs of [...(p.status?.containerStatuses ?? []), ...(p.status?.initContainerStatuses ?? [])]) {
    const f = cs?.state?.terminated?.finishedAt;
    if (f) t = Math.max(t, Date.parse(f));
  }
  if (t) return t;
  if (p.metadata.deletionTimestamp) return Date.parse(p.metadata.deletionTimestamp);
  return now;
}

/** controller.ActivePods ordering: not-ready < ready, unscheduled < scheduled, pending < running, ... */
function removalOrder(a: Obj, b: Obj): number {
  const sched = (p: Obj) => (p.spec?.nodeName ? 1 : 0);
  if (sched(a) !== sched(b)) return sched(a) - sched(b);
  const rank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
  const pa = rank[phaseOf(a)] ?? 0; const pb = rank[phaseOf(b)] ?? 0;
  if (pa !== pb) return pa - pb;
  const ra = isReady(a) ? 1 : 0; const rb = isReady(b) ? 1 : 0;
  if (ra !== rb) return ra - rb;
  // Newer pods first.
  const ca = Date.parse(a.metadata.creationTimestamp ?? '') || 0; const cb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  return cb - ca;
}

export class JobController {
  private readonly jobs: ResourceClient<KObject>;
  /** Pod writes go through podWrites.resource, so syncs read back their own pod writes from the informer. */
  private readonly pods: ResourceClient<KObject>;
  private readonly podControl: PodControl;
  private readonly backoff = new Map<string, BackoffRecord>();
  private readonly loop: RateLimitingQueue;
  private readonly orphans: RateLimitingQueue;
  private readonly now: () => Date;

  private readonly podWrites: OwnWrites;
  private readonly events: EventRecorder;

  constructor(private readonly ctx: ControllerContext, opts: JobControllerOptions = {}) {
    const client = ctx.client;
    this.podWrites = new OwnWrites(client.resource(plain(pods)), ctx.informers.forResource(pods));
    this.pods = this.podWrites.resource;
    const events = this.events = ctx.events;
    this.jobs = client.resource(plain(jobs));
    this.podControl = new PodControl(this.pods, events, COMPONENT);
    this.now = opts.now ?? (() => new Date(ctx.clock.now()));
    this.loop = newQueue(ctx);
    this.orphans = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(jobs, (_t, job) => this.loop.add(keyOf(job)));
    await this.ctx.informers.inform(pods, (type, pod, old) => {
      const ref = controllerOf(pod);
      const isJob = ref?.kind === 'Job' && ref.apiVersion === 'batch/v1';
      const inNamespace = this.ctx.informers.forResource(jobs).cache.list(pod.metadata.namespace ?? '');
      for (const key of jobsToSyncForPod(type, pod, old, inNamespace)) this.loop.add(key);
      // A pod no running Job will count (no controller, or one deleted or finished) must not keep the finalizer.
      if (type !== 'DELETED' && hasFinalizer(pod) && (!isJob || pod.metadata.deletionTimestamp)) this.orphans.add(keyOf(pod));
    });
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.loop.run(5, (k) => this.sync(k), (k, e) => this.ctx.log(`${COMPONENT}: ${k}: ${(e as Error).message}`));
    this.orphans.run(5, (k) => this.handleOrphanPod(k), (k, e) => this.ctx.log(`${COMPONENT} orphan pods: ${k}: ${(e as Error).message}`));
  }

  stop(): void {
    this.loop.shutDown();
    this.orphans.shutDown();
  }

  /** handleOrphanPod: drops the tracking finalizer unless the pod's Job exists and is unfinished. */
  async handleOrphanPod(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    // From the informer's cache, as upstream's podStore: the job controller's role may not get pods.
    const pod = this.ctx.informers.forResource(pods).cache.get(ns, name) as Obj | undefined;
    if (!pod || !hasFinalizer(pod)) return;
    const ref = controllerOf(pod);
    if (ref?.kind === 'Job' && ref.apiVersion === 'batch/v1') {
      const job = await this.jobs.find(ns, ref.name) as Obj | undefined;
      if (job && job.metadata.uid === ref.uid) {
        const managedBy = job.spec?.managedBy;
        if (managedBy && managedBy !== 'kubernetes.io/job-controller') return;
        if (!jobFinished(job)) return;
      }
    }
    await this.removeFinalizer(pod);
  }

  /** syncJob. */
  async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const stored = await this.jobs.find(ns, name) as Obj | undefined;
    if (!stored || jobFinished(stored)) {
      this.backoff.delete(key);
      return;
    }
    // JobManagedBy: a Job managed by another controller is left alone.
    const managedBy = stored.spec?.managedBy;
    if (managedBy && managedBy !== 'kubernetes.io/job-controller') return;
    const job = structuredClone(stored);
    const spec = job.spec ?? {};
    const mode = spec.completionMode ?? 'NonIndexed';
    if (mode !== 'NonIndexed' && mode !== 'Indexed') {
      void this.events.record(referenceTo(job), 'Warning', 'UnknownCompletionMode', 'Skipped Job sync because completion mode is unknown', COMPONENT);
      return;
    }
    const indexed = mode === 'Indexed';
    const status = (job.status ??= {});
    status.uncountedTerminatedPods ??= {};
    const uncounted = { succeeded: new Set<string>(status.uncountedTerminatedPods.succeeded ?? []), failed: new Set<string>(status.uncountedTerminatedPods.failed ?? []) };
    const now = this.now();

    const pods = await this.claimPods(job);
    const perIndex = indexed && spec.backoffLimitPerIndex != null;
    const activePods = pods.filter(isActive);
    let ready = activePods.filter(isReady).length;
    let terminating = pods.filter((p) => p.metadata.deletionTimestamp && phaseOf(p) !== 'Failed' && phaseOf(p) !== 'Succeeded').length;
    let active = activePods.length;
    const onlyReplaceFailed = spec.podReplacementPolicy === 'Failed' || !!spec.podFailurePolicy;
    const isFailed = (p: Obj) => {
      if (spec.podFailurePolicy) return phaseOf(p) === 'Failed';
      if (phaseOf(p) === 'Failed') return true;
      if (onlyReplaceFailed) return false;
      // Deleted pods count as failures: orphans never reach the Failed phase.
      return !!p.metadata.deletionTimestamp && phaseOf(p) !== 'Succeeded';
    };
    const validIndex = (p: Obj) => !indexed || (completionIndex(p) >= 0 && completionIndex(p) < spec.completions);
    const newSucceeded = pods.filter((p) => hasFinalizer(p) && !uncounted.succeeded.has(p.metadata.uid!) && validIndex(p) && phaseOf(p) === 'Succeeded');
    const newFailed = pods.filter((p) => hasFinalizer(p) && !uncounted.failed.has(p.metadata.uid!) && validIndex(p) && isFailed(p));
    let succeeded = (status.succeeded ?? 0) + newSucceeded.length + uncounted.succeeded.size;
    const counted = newFailed.filter((p) => matchPodFailurePolicy(spec.podFailurePolicy, p).countFailed).length;
    const failed = (status.failed ?? 0) + counted + uncounted.failed.size;
    const suspended = spec.suspend === true;

    if (!status.startTime && !suspended) status.startTime = rfc3339(now);
    const backoff = this.newBackoffRecord(key, newSucceeded, newFailed, now.getTime());

    let finished: Condition | undefined = (status.conditions ?? []).find((c: Condition) => c.type === 'SuccessCriteriaMet' && c.status === 'True');
    if (!finished) {
      const target = (status.conditions ?? []).find((c: Condition) => c.type === 'FailureTarget' && c.status === 'True');
      if (target) finished = this.condition('Failed', 'True', target.reason, target.message);
      else {
        const message = spec.podFailurePolicy ? pods.filter(isFailed).map((p) => matchPodFailurePolicy(spec.podFailurePolicy, p).failJobMessage).find((m) => m) : undefined;
        if (message) finished = this.condition('FailureTarget', 'True', 'PodFailurePolicy', message);
      }
    }
    if (!finished) {
      if (failed > spec.backoffLimit || this.pastBackoffLimitOnFailure(job, pods)) {
        finished = this.condition('FailureTarget', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');
      } else if (this.pastActiveDeadline(job)) {
        finished = this.condition('FailureTarget', 'True', 'DeadlineExceeded', 'Job was active longer than specified deadline');
      } else if (spec.activeDeadlineSeconds != null && !suspended) {
        this.loop.addAfter(key, Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000 - now.getTime());
      }
    }

    let failedIndexes: Set<number> | undefined;
    let delayed = new Map<number, Obj>();
    let prevSucceededIndexes = new Set<number>();
    let succeededIndexes = new Set<number>();
    if (indexed) {
      prevSucceededIndexes = parseIndexes(status.completedIndexes, spec.completions);
      succeededIndexes = new Set(prevSucceededIndexes);
      for (const p of pods) if (phaseOf(p) === 'Succeeded' && hasFinalizer(p) && validIndex(p)) succeededIndexes.add(completionIndex(p));
      succeeded = succeededIndexes.size;
      if (perIndex) {
        failedIndexes = parseIndexes(status.failedIndexes, spec.completions);
        for (const p of pods) if (validIndex(p) && hasFinalizer(p) && this.isIndexFailed(spec, p, isFailed)) failedIndexes.add(completionIndex(p));
        if (!finished) {
          if (spec.maxFailedIndexes != null && failedIndexes.size > spec.maxFailedIndexes) {
            finished = this.condition('FailureTarget', 'True', 'MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes');
          } else if (failedIndexes.size > 0 && failedIndexes.size + succeededIndexes.size >= spec.completions) {
            finished = this.condition('FailureTarget', 'True', 'FailedIndexes', 'Job has failed indexes');
          }
        }
        delayed = this.podsWithDelayedDeletion(pods, activePods, succeededIndexes, failedIndexes, validIndex, isFailed, now.getTime());
      }
      if (!finished) {
        const met = this.matchSuccessPolicy(spec, succeededIndexes);
        if (met) finished = this.condition('SuccessCriteriaMet', 'True', 'SuccessPolicy', met);
      }
    }

    let suspendChanged = false;
    if (finished) {
      const deleted = await this.deleteActivePods(job, activePods);
      if (deleted.count !== active) finished = undefined;
      active -= deleted.count;
      terminating += deleted.count;
      ready -= deleted.ready;
    } else {
      let manageCalled = false;
      if (!job.metadata.deletionTimestamp) {
        const r = await this.manageJob(key, job, { activePods, succeeded, succeededIndexes, failedIndexes, delayed, backoff, terminating });
        active = r.active; ready -= r.removedReady; terminating += r.removed;
        manageCalled = true;
      }
      const complete = spec.completions == null ? succeeded > 0 && active === 0 : succeeded >= spec.completions && active === 0;
      if (complete) {
        finished = this.condition('SuccessCriteriaMet', 'True', '', '');
      } else if (manageCalled) {
        if (suspended) {
          if (this.ensureCondition(status, 'Suspended', 'True', 'JobSuspended', 'Job suspended')) {
            suspendChanged = true;
            void this.events.record(referenceTo(stored), 'Normal', 'Suspended', 'Job suspended', COMPONENT);
          }
        } else if (this.ensureCondition(status, 'Suspended', 'False', 'JobResumed', 'Job resumed')) {
          suspendChanged = true;
          void this.events.record(referenceTo(stored), 'Normal', 'Resumed', 'Job resumed', COMPONENT);
          // ActiveDeadlineSeconds counts continuous activity: resuming restarts the clock.
          status.startTime = rfc3339(this.now());
        }
      }
    }

    const needsUpdate = suspendChanged || active !== (stored.status?.active ?? 0) || ready !== stored.status?.ready ||
      terminating !== stored.status?.terminating || status.startTime !== stored.status?.startTime;
    if (active) status.active = active; else delete status.active;
    status.ready = ready;
    status.terminating = terminating;
    await this.trackStatus(job, pods, { finished, uncounted, indexed, prevSucceededIndexes, succeededIndexes, failedIndexes, delayed, terminating, backoff, key, isFailed }, needsUpdate);
  }

  /**
   * getPodsForJob: ClaimPods by the job's selector; an adopted pod gets the
   * tracking finalizer with its controller reference.
   */
  private async claimPods(job: Obj): Promise<Obj[]> {
    const ns = job.metadata.namespace!;
    const all = (await this.podWrites.list(ns)) as Obj[];
    const selector = fromLabelSelector(job.spec?.selector);
    if (!selector) return all.filter((p) => controllerOf(p)?.uid === job.metadata.uid);
    // Adopted pods get the tracking finalizer with their owner reference (JobPodControllerRefManager).
    const { claimed, errors } = await claimObjects({ objects: this.pods, owners: this.jobs }, job, selector, all, undefined, [JOB_TRACKING_FINALIZER]);
    if (errors.length) throw errors[0];
    return claimed as Obj[];
  }

  private condition(type: string, status: string, reason = '', message = ''): Condition {
    const t = rfc3339(this.now());
    const c: Condition = { type, status, lastProbeTime: t, lastTransitionTime: t };
    if (reason) c.reason = reason;
    if (message) c.message = message;
    return c;
  }

  /** ensureJobConditionStatus: appends or updates a condition; never appends a False one. */
  private ensureCondition(status: any, type: string, value: string, reason: string, message: string): boolean {
    const list: Condition[] = (status.conditions ??= []);
    const i = list.findIndex((c) => c.type === type);
    const c = list[i];
    if (c) {
      if (c.status !== value || (c.reason ?? '') !== reason || (c.message ?? '') !== message) {
        list[i] = this.condition(type, value, reason, message);
        return true;
      }
      return false;
    }
    if (value !== 'False') {
      list.push(this.condition(type, value, reason, message));
      return true;
    }
    if (!list.length) delete status.conditions;
    return false;
  }

  /** isIndexFailed: a FailJob-less FailIndex match, or counted failures reaching backoffLimitPerIndex. */
  private isIndexFailed(spec: any, p: Obj, isFailed: (p: Obj) => boolean): boolean {
    if (!isFailed(p)) return false;
    let counted = true;
    if (spec.podFailurePolicy) {
      const m = matchPodFailurePolicy(spec.podFailurePolicy, p);
      if (m.action === 'FailIndex') return true;
      counted = m.countFailed;
    }
    return counted && annotationCount(p, INDEX_FAILURE_COUNT) >= spec.backoffLimitPerIndex;
  }

  /**
   * getPodsWithDelayedDeletionPerIndex: the latest failed pod of each index
   * still to be retried keeps its finalizer until its replacement exists,
   * which carries the failure count on.
   */
  private podsWithDelayedDeletion(pods: Obj[], active: Obj[], succeeded: Set<number>, failed: Set<number>,
    validIndex: (p: Obj) => boolean, isFailed: (p: Obj) => boolean, now: number): Map<number, Obj> {
    const activeIndexes = new Set(active.map(completionIndex));
    const out = new Map<number, Obj>();
    for (const p of pods) {
      if (!hasFinalizer(p) || !validIndex(p) || !isFailed(p)) continue;
      const ix = completionIndex(p);
      if (succeeded.has(ix) || failed.has(ix) || activeIndexes.has(ix)) continue;
      const last = out.get(ix);
      if (!last || (absoluteFailures(last) <= absoluteFailures(p) && finishedTime(p, now) >= finishedTime(last, now))) out.set(ix, p);
    }
    return out;
  }

  /** pastBackoffLimitOnFailure: container restarts of running pods count for restartPolicy OnFailure. */
  private pastBackoffLimitOnFailure(job: Obj, pods: Obj[]): boolean {
    if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
    let restarts = 0;
    for (const p of pods) {
      if (phaseOf(p) !== 'Running' && phaseOf(p) !== 'Pending') continue;
      for (const cs of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) restarts += cs.restartCount ?? 0;
    }
    return job.spec.backoffLimit === 0 ? restarts > 0 : restarts >= job.spec.backoffLimit;
  }

  private pastActiveDeadline(job: Obj): boolean {
    const s = job.spec;
    if (s.activeDeadlineSeconds == null || !job.status?.startTime || s.suspend) return false;
    return this.now().getTime() - Date.parse(job.status.startTime) >= s.activeDeadlineSeconds * 1000;
  }

  /** matchSuccessPolicy: the first rule whose succeeded indexes / count are reached. */
  private matchSuccessPolicy(spec: any, succeeded: Set<number>): string | undefined {
    if (!spec.successPolicy || !succeeded.size) return undefined;
    for (const [index, rule] of (spec.successPolicy.rules ?? []).entries()) {
      if (rule.succeededIndexes != null) {
        const wanted = parseIndexes(rule.succeededIndexes, spec.completions);
        if (!wanted.size) continue;
        const have = [...wanted].filter((i) => succeeded.has(i)).length;
        if (rule.succeededCount == null ? have === wanted.size : have >= rule.succeededCount) return `Matched rules at index ${index}`;
      } else if (rule.succeededCount != null && succeeded.size >= rule.succeededCount) {
        return `Matched rules at index ${index}`;
      }
    }
    return undefined;
  }

  /** backoffStore.newBackoffRecord: failures since the last success, and when the last one happened. */
  private newBackoffRecord(key: string, newSucceeded: Obj[], newFailed: Obj[], now: number): BackoffRecord {
    const rec: BackoffRecord = { ...(this.backoff.get(key) ?? { failuresAfterLastSuccess: 0 }) };
    const failedTimes = newFailed.map((p) => finishedTime(p, now)).sort((a, b) => a - b);
    if (!newSucceeded.length) {
      if (!failedTimes.length) return rec;
      rec.failuresAfterLastSuccess += failedTimes.length;
      rec.lastFailureTime = failedTimes[failedTimes.length - 1];
      return rec;
    }
    const lastSuccess = Math.max(...newSucceeded.map((p) => finishedTime(p, now)));
    rec.failuresAfterLastSuccess = 0;
    delete rec.lastFailureTime;
    for (const t of [...failedTimes].reverse()) {
      if (t <= lastSuccess) break;
      rec.lastFailureTime ??= t;
      rec.failuresAfterLastSuccess++;
    }
    return rec;
  }

  /** getRemainingTimeForFailuresCount: 10s doubling per failure, capped at 10 minutes. */
  remainingBackoff(rec: BackoffRecord): number {
    if (!rec.failuresAfterLastSuccess || rec.lastFailureTime === undefined) return 0;
    let d = POD_FAILURE_BACKOFF_MS;
    for (let i = 1; i < rec.failuresAfterLastSuccess; i++) {
      d *= 2;
      if (d >= MAX_POD_FAILURE_BACKOFF_MS) { d = MAX_POD_FAILURE_BACKOFF_MS; break; }
    }
    const elapsed = this.now().getTime() - rec.lastFailureTime;
    return d < elapsed ? 0 : d - elapsed;
  }

  /** getRemainingTimePerIndex. */
  private remainingBackoffForIndex(lastFailed: Obj | undefined): number {
    if (!lastFailed) return 0;
    const now = this.now().getTime();
    return this.remainingBackoff({ failuresAfterLastSuccess: absoluteFailures(lastFailed) + 1, lastFailureTime: finishedTime(lastFailed, now) });
  }

  /** getNewIndexFailureCounts. */
  private newIndexFailureCounts(spec: any, replaced: Obj | undefined): [number, number] {
    if (!replaced) return [0, 0];
    let failures = annotationCount(replaced, INDEX_FAILURE_COUNT);
    let ignored = annotationCount(replaced, INDEX_IGNORED_FAILURE_COUNT);
    if (spec.podFailurePolicy && !matchPodFailurePolicy(spec.podFailurePolicy, replaced).countFailed) ignored++; else failures++;
    return [failures, ignored];
  }

  /** deleteActivePods: DELETE calls that keep the finalizers (trackStatus removes them). */
  private async deleteActivePods(job: Obj, pods: Obj[]): Promise<{ count: number; ready: number }> {
    let count = 0; let ready = 0;
    for (const p of pods) {
      try {
        await this.podControl.delete(job, p);
        count++;
        if (isReady(p)) ready++;
      } catch { /* counted as not deleted; the next sync retries */ }
    }
    return { count, ready };
  }

  /** deleteJobPods: drop the finalizer first (the pod will not be counted), then delete. */
  private async deleteJobPods(job: Obj, pods: Obj[]): Promise<{ removed: number; removedReady: number }> {
    let removed = 0; let removedReady = 0;
    for (const p of pods) {
      try {
        if (hasFinalizer(p)) await this.removeFinalizer(p);
        await this.podControl.delete(job, p);
        removed++;
        if (isReady(p)) removedReady++;
      } catch { /* retried by the next sync */ }
    }
    return { removed, removedReady };
  }

  private async removeFinalizer(p: Obj): Promise<void> {
    const ns = p.metadata.namespace!;
    try {
      // removeTrackingFinalizerPatch.
      await this.pods.patch(ns, p.metadata.name!, SMP,
        { metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] } });
    } catch (e) {
      if (!(e instanceof StatusError && e.status.code === 404)) throw e;
    }
  }

  /** manageJob: deletes surplus pods or creates missing ones (after the failure back-off). */
  private async manageJob(key: string, job: Obj, c: {
    activePods: Obj[]; succeeded: number; succeededIndexes: Set<number>; failedIndexes?: Set<number>; delayed: Map<number, Obj>;
    backoff: BackoffRecord; terminating: number;
  }):
  Promise<{ active: number; removed: number; removedReady: number; activePods: Obj[] }> {
    const spec = job.spec;
    const indexed = spec.completionMode === 'Indexed';
    let active = c.activePods.length;
    if (spec.suspend) {
      const r = await this.deleteJobPods(job, [...c.activePods].sort(removalOrder));
      return { active: active - r.removed, removed: r.removed, removedReady: r.removedReady, activePods: c.activePods };
    }
    let wantActive: number;
    if (spec.completions == null) wantActive = c.succeeded > 0 ? active : spec.parallelism;
    else wantActive = Math.max(0, Math.min(spec.completions - c.succeeded, spec.parallelism));

    // activePodsForRemoval: duplicate and out-of-range indexes first, then by removal order.
    const rmAtLeast = Math.max(0, active - wantActive);
    const rm: Obj[] = [];
    let left = [...c.activePods];
    if (indexed) {
      const seen = new Set<number>();
      const sorted = [...c.activePods].sort((a, b) => completionIndex(a) - completionIndex(b));
      left = [];
      for (const p of sorted) {
        const ix = completionIndex(p);
        if (ix < 0 || ix >= spec.completions || seen.has(ix)) rm.push(p); else { seen.add(ix); left.push(p); }
      }
    }
    if (rm.length < rmAtLeast) rm.push(...left.sort(removalOrder).slice(0, rmAtLeast - rm.length));
    if (rm.length) {
      const r = await this.deleteJobPods(job, rm);
      return { active: active - r.removed, removed: r.removed, removedReady: r.removedReady, activePods: c.activePods };
    }

    const terminating = spec.podReplacementPolicy === 'Failed' || spec.podFailurePolicy ? c.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return { active, removed: 0, removedReady: 0, activePods: c.activePods };
    const perIndex = c.failedIndexes !== undefined;
    const wait = perIndex ? 0 : this.remainingBackoff(c.backoff);
    if (wait > 0) {
      this.loop.addAfter(key, wait);
      // Upstream reports 0 active while it waits out the back-off.
      return { active: 0, removed: 0, removedReady: 0, activePods: c.activePods };
    }
    diff = Math.min(diff, 500);
    let indexes: number[] = [];
    if (indexed) {
      const busy = new Set(c.activePods.map(completionIndex));
      for (let i = 0; i < spec.completions && indexes.length < diff; i++) {
        if (!c.succeededIndexes.has(i) && !c.failedIndexes?.has(i) && !busy.has(i)) indexes.push(i);
      }
      if (perIndex) {
        // getPodCreationInfoForIndependentIndexes: each index backs off on its own failures.
        const waits = indexes.map((ix) => this.remainingBackoffForIndex(c.delayed.get(ix)));
        const now = indexes.filter((_, i) => waits[i] === 0);
        if (indexes.length && !now.length) {
          this.loop.addAfter(key, Math.min(...waits));
          return { active: 0, removed: 0, removedReady: 0, activePods: c.activePods };
        }
        indexes = now;
      }
      diff = indexes.length;
    }
    const template = structuredClone(spec.template ?? {});
    template.metadata ??= {};
    if (indexed) addIndexEnv((template.spec ??= {}));
    const fins: string[] = template.metadata.finalizers ?? [];
    if (!fins.includes(JOB_TRACKING_FINALIZER)) template.metadata.finalizers = [...fins, JOB_TRACKING_FINALIZER];
    const created: Obj[] = [];
    // Slow start: batches of 1, 2, 4, ... stop at the first failing batch.
    for (let batch = Math.min(diff, 1); diff > 0; batch = Math.min(2 * batch, diff)) {
      const results = await Promise.allSettled(Array.from({ length: batch }, () => {
        const ix = indexes.shift();
        return this.podControl.create({
          template, owner: job,
          mutate: ix === undefined ? undefined : (pod) => {
            pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [COMPLETION_INDEX]: String(ix) };
            pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [COMPLETION_INDEX]: String(ix) };
            pod.spec.hostname = `${job.metadata.name}-${ix}`;
            pod.metadata.generateName = generateNameWithIndex(job.metadata.name!, ix);
            if (perIndex) {
              // addIndexFailureCountAnnotation: the replaced pod's failure counts, plus its own failure.
              const [failures, ignored] = this.newIndexFailureCounts(spec, c.delayed.get(ix));
              pod.metadata.annotations[INDEX_FAILURE_COUNT] = String(failures);
              if (ignored > 0) pod.metadata.annotations[INDEX_IGNORED_FAILURE_COUNT] = String(ignored);
            }
          },
        });
      }));
      for (const r of results) if (r.status === 'fulfilled') created.push(r.value as Obj);
      diff -= batch;
      if (results.some((r) => r.status === 'rejected')) {
        const err = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason;
        if (!(err instanceof StatusError && (err.status.details as any)?.causes?.some((c: any) => c.type === 'NamespaceTerminating'))) {
          throw err;
        }
        break;
      }
    }
    active += created.length;
    return { active, removed: 0, removedReady: 0, activePods: [...c.activePods, ...created] };
  }

  private async writeStatus(job: Obj): Promise<Obj> {
    const ns = job.metadata.namespace!;
    return await this.jobs.updateStatus(ns, job.metadata.name!, (cur) => ({ ...cur, status: job.status })) as Obj;
  }

  /** trackJobStatusAndRemoveFinalizers. */
  private async trackStatus(job: Obj, pods: Obj[], c: {
    finished?: Condition; uncounted: { succeeded: Set<string>; failed: Set<string> }; indexed: boolean;
    prevSucceededIndexes: Set<number>; succeededIndexes: Set<number>; failedIndexes?: Set<number>; delayed: Map<number, Obj>;
    terminating: number; backoff: BackoffRecord; key: string;
    isFailed: (p: Obj) => boolean;
  }, needsFlushIn: boolean): Promise<void> {
    let needsFlush = needsFlushIn;
    const status = job.status;
    const spec = job.spec;
    const u = status.uncountedTerminatedPods;
    u.succeeded = [...(u.succeeded ?? [])]; u.failed = [...(u.failed ?? [])];
    const withFinalizer = new Set(pods.filter(hasFinalizer).map((p) => p.metadata.uid!));
    if (this.cleanUncounted(status, withFinalizer)) needsFlush = true;
    const toRemove: Obj[] = [];
    const newIndexes: number[] = [];
    const ordered = c.indexed ? [...pods].sort((a, b) => completionIndex(a) - completionIndex(b)) : pods;
    let finished = c.finished;
    for (const p of ordered) {
      if (!hasFinalizer(p)) continue;
      const failed = c.isFailed(p);
      if (!(job.metadata.deletionTimestamp || finished || phaseOf(p) === 'Succeeded' || failed)) continue;
      // canRemoveFinalizer: a failed pod awaiting its index's replacement keeps the finalizer.
      if (!job.metadata.deletionTimestamp && !finished && phaseOf(p) !== 'Succeeded' && c.delayed.get(completionIndex(p))?.metadata.uid === p.metadata.uid) continue;
      toRemove.push(p);
      const uid = p.metadata.uid!;
      const ix = completionIndex(p);
      if (phaseOf(p) === 'Succeeded' && !c.uncounted.failed.has(uid)) {
        if (c.indexed) {
          if (ix >= 0 && ix < spec.completions && !c.prevSucceededIndexes.has(ix)) { newIndexes.push(ix); needsFlush = true; }
        } else if (!c.uncounted.succeeded.has(uid)) {
          needsFlush = true;
          u.succeeded.push(uid);
        }
      } else if (failed || (finished && finished.type !== 'SuccessCriteriaMet')) {
        // When the job is finished, every pod not yet terminated counts as failed.
        if (!c.uncounted.failed.has(uid) && (!c.indexed || (ix >= 0 && ix < spec.completions))) {
          if (matchPodFailurePolicy(spec.podFailurePolicy, p).countFailed) {
            needsFlush = true;
            u.failed.push(uid);
          }
        }
      }
      if (newIndexes.length + u.succeeded.length + u.failed.length >= 500) break;
    }
    if (c.indexed) {
      const all = new Set([...c.prevSucceededIndexes, ...newIndexes]);
      const str = formatIndexes(all);
      if (str !== (status.completedIndexes ?? '')) needsFlush = true;
      if (all.size) status.succeeded = all.size; else delete status.succeeded;
      status.completedIndexes = str;
      if (c.failedIndexes) {
        const failedStr = formatIndexes(c.failedIndexes);
        if (failedStr !== status.failedIndexes) { status.failedIndexes = failedStr; needsFlush = true; }
      }
    }
    if (finished?.type === 'FailureTarget') {
      (status.conditions ??= []).push(finished);
      needsFlush = true;
      finished = this.condition('Failed', 'True', finished.reason, finished.message);
    } else if (finished?.type === 'SuccessCriteriaMet') {
      if (!(status.conditions ?? []).some((x: Condition) => x.type === 'SuccessCriteriaMet' && x.status === 'True')) {
        (status.conditions ??= []).push(finished);
        needsFlush = true;
      }
      finished = this.condition('Complete', 'True', finished.reason, finished.message);
    }
    // flushUncountedAndRemoveFinalizers
    let current = job;
    if (needsFlush) {
      this.tidy(status);
      current = await this.writeStatus(job);
      this.backoff.set(c.key, c.backoff);
      needsFlush = false;
    }
    const status2 = structuredClone(current.status ?? {});
    status2.uncountedTerminatedPods ??= {};
    status2.uncountedTerminatedPods.succeeded = [...(status2.uncountedTerminatedPods.succeeded ?? [])];
    status2.uncountedTerminatedPods.failed = [...(status2.uncountedTerminatedPods.failed ?? [])];
    let rmErr: Error | undefined;
    for (const p of toRemove) {
      try {
        await this.removeFinalizer(p);
        withFinalizer.delete(p.metadata.uid!);
      } catch (e) { rmErr = asError(e); }
    }
    if (this.cleanUncounted(status2, withFinalizer)) needsFlush = true;
    const out: Obj = { ...current, status: status2 };
    // enactJobFinished
    let jobDone = false;
    const remaining = status2.uncountedTerminatedPods.succeeded.length + status2.uncountedTerminatedPods.failed.length;
    if (finished && !rmErr && remaining === 0 && c.terminating === 0) {
      this.ensureCondition(status2, finished.type, finished.status, finished.reason ?? '', finished.message ?? '');
      if (finished.type === 'Complete') status2.completionTime = (status2.conditions as Condition[]).find((x) => x.type === 'Complete')!.lastTransitionTime;
      jobDone = true;
      needsFlush = true;
    }
    if (needsFlush) {
      this.tidy(status2);
      await this.writeStatus(out);
      if (jobDone) this.recordFinished(out, finished!);
    }
    if (rmErr) throw rmErr;
  }

  /** cleanUncountedPodsWithoutFinalizers: UIDs whose pods lost the finalizer move into the counters. */
  private cleanUncounted(status: any, withFinalizer: Set<string>): boolean {
    const u = status.uncountedTerminatedPods;
    let changed = false;
    for (const field of ['succeeded', 'failed'] as const) {
      const list: string[] = u[field] ?? [];
      const keep = list.filter((uid) => withFinalizer.has(uid));
      if (keep.length !== list.length) {
        changed = true;
        status[field] = (status[field] ?? 0) + list.length - keep.length;
        u[field] = keep;
      }
    }
    return changed;
  }

  /** JSON as the API writes JobStatus: empty UID lists and zero counters are omitted. */
  private tidy(status: any): void {
    const u = status.uncountedTerminatedPods ?? {};
    if (!u.succeeded?.length) delete u.succeeded;
    if (!u.failed?.length) delete u.failed;
    status.uncountedTerminatedPods = u;
    if (!status.succeeded) delete status.succeeded;
    if (!status.failed) delete status.failed;
    if (!status.active) delete status.active;
    if (status.completedIndexes === '') delete status.completedIndexes;
  }

  /** recordJobFinished. */
  private recordFinished(job: Obj, cond: Condition): void {
    const ref = referenceTo(job);
    if (cond.type === 'Complete') {
      if (job.spec.completions != null && (job.status.succeeded ?? 0) > job.spec.completions) {
        void this.events.record(ref, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached', COMPONENT);
      }
      void this.events.record(ref, 'Normal', 'Completed', 'Job completed', COMPONENT);
    } else {
      void this.events.record(ref, 'Warning', cond.reason ?? '', cond.message ?? '', COMPONENT);
    }
  }
}
