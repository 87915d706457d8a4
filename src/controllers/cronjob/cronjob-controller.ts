/**
 * The CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go):
 * one Job per scheduled time named `<cronjob>-<minutes since the epoch>`,
 * concurrencyPolicy Allow/Forbid/Replace, suspend,
 * startingDeadlineSeconds, history limits, status active /
 * lastScheduleTime / lastSuccessfulTime, with upstream's events. The clock
 * is injectable so tests need not wait for the minute.
 */
import { plain } from '../../client/plain.js';
import { StatusError, isAlreadyExists } from '../../apimachinery/errors.js';
import { referenceTo, type EventRecorder } from '../../events/recorder.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import { OwnWrites } from '../../client/own-writes.js';
import { cronjobs, jobs } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import type { KObject } from '../../apimachinery/object.js';
import { controllerRef } from '../pod-control.js';
import { controllerOf } from '../job/pod-state.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { keyOf, splitKey } from '../../client/queue-keys.js';
import { formatSchedule, rfc3339InZone } from './schedule.js';
import { isKnownTimeZone, parseCronSchedule, type CronSchedule } from '../../apimachinery/cron-schedule.js';

const COMPONENT = 'cronjob-controller';
/** batchv1.CronJobScheduledTimestampAnnotation. */
export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** nextScheduleDelta: re-sync a little after the scheduled time. */
const NEXT_SCHEDULE_DELTA_MS = 100;

type Obj = KObject & { spec?: any; status?: any };

export interface CronJobControllerOptions {
  now?: () => Date;
  log?: (m: string) => void;
}

/** getFinishedStatus: Complete or Failed, True. */
function finishedStatus(job: Obj): string | undefined {
  return (job.status?.conditions ?? []).find((c: any) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;
}

/** time.RFC1123Z of a UTC instant: "Mon, 02 Jan 2006 15:04:05 +0000". */
function rfc1123z(d: Date): string {
  return d.toUTCString().replace('GMT', '+0000');
}

type Missed = 'none' | 'few' | 'many';

/** mostRecentScheduleTime. */
export function mostRecentScheduleTime(cj: Obj, now: Date, sched: CronSchedule, includeDeadline: boolean):
{ earliest: Date; mostRecent?: Date; missed: Missed } {
  let earliest = new Date(cj.status?.lastScheduleTime ?? cj.metadata.creationTimestamp!);
  if (includeDeadline && cj.spec?.startingDeadlineSeconds != null) {
    const deadline = new Date(now.getTime() - cj.spec.startingDeadlineSeconds * 1000);
    if (deadline > earliest) earliest = deadline;
  }
  const t1 = sched.next(earliest);
  const t2 = sched.next(t1);
  if (now < t1) return { earliest, missed: 'none' };
  if (now < t2) return { earliest, mostRecent: t1, missed: 'none' };
  const between = Math.round((t2.getTime() - t1.getTime()) / 1000);
  if (between < 1) throw new Error('time difference between two schedules is less than 1 second');
  const elapsed = Math.floor((now.getTime() - t1.getTime()) / 1000);
  const missedCount = Math.floor(elapsed / between) + 1;
  let mostRecent: Date | undefined;
  const potentialEarliest = new Date(t1.getTime() + (missedCount - 2) * between * 1000);
  for (let t = sched.next(potentialEarliest); t <= now; t = sched.next(t)) mostRecent = t;
  const missed: Missed = missedCount > 100 ? 'many' : missedCount > 0 ? 'few' : 'none';
  return { earliest, mostRecent, missed };
}

/** nextScheduleTimeDuration: how long until the sync after the next activation. */
export function nextScheduleDelay(cj: Obj, now: Date, sched: CronSchedule): number {
  let r;
  try { r = mostRecentScheduleTime(cj, now, sched, false); } catch { return NEXT_SCHEDULE_DELTA_MS; }
  const from = r.mostRecent ?? (r.missed === 'none' ? r.earliest : now);
  return sched.next(from).getTime() + NEXT_SCHEDULE_DELTA_MS - now.getTime();
}

export class CronJobController {
  private readonly cronjobs: ResourceClient<KObject>;
  /** Job writes go through jobWrites.resource, so syncs read back their own Job writes from the informer. */
  private readonly jobs: ResourceClient<KObject>;
  private readonly loop: RateLimitingQueue;
  private readonly now: () => Date;

  private readonly jobWrites: OwnWrites;
  private readonly events: EventRecorder;

  constructor(private readonly ctx: ControllerContext, opts: CronJobControllerOptions = {}) {
    const client = ctx.client;
    this.jobWrites = new OwnWrites(client.resource(plain(jobs)), ctx.informers.forResource(jobs));
    this.jobs = this.jobWrites.resource;
    this.events = ctx.events;
    this.cronjobs = client.resource(plain(cronjobs));
    this.now = opts.now ?? (() => new Date(ctx.clock.now()));
    this.loop = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(cronjobs, (_t, cj) => this.loop.add(keyOf(cj)));
    await this.ctx.informers.inform(jobs, (_t, job) => {
      const ref = controllerOf(job);
      if (ref?.kind === 'CronJob' && ref.apiVersion.startsWith('batch/')) this.loop.add(`${job.metadata.namespace}/${ref.name}`);
    });
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.loop.run(5, (k) => this.sync(k).then(() => undefined), (k, e) => this.ctx.log(`${COMPONENT}: ${k}: ${(e as Error).message}`));
  }

  stop(): void {
    this.loop.shutDown();
  }

  private event(cj: Obj, type: 'Normal' | 'Warning', reason: string, message: string): void {
    void this.events.record(referenceTo(cj), type, reason, message, COMPONENT);
  }

  /** sync: cleanupFinishedJobs, syncCronJob, one status write; returns the re-sync delay it scheduled. */
  async sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    const stored = await this.cronjobs.find(ns, name) as Obj | undefined;
    if (!stored) return undefined;
    const cj = structuredClone(stored);
    cj.status ??= {};
    const jobs = ((await this.jobWrites.list(ns)) as Obj[]).filter((j) => controllerOf(j)?.uid === cj.metadata.uid);
    const cleaned = await this.cleanupFinishedJobs(cj, jobs);
    const { requeue, update } = await this.syncCronJob(cj, jobs);
    if (cleaned || update) {
      const status = cj.status;
      if (!status.active?.length) delete status.active;
      await this.cronjobs.updateStatus(ns, name, (cur) => ({ ...cur, status }));
    }
    if (requeue !== undefined) this.loop.addAfter(key, requeue);
    return requeue;
  }

  private inActive(cj: Obj, uid: string): boolean {
    return (cj.status.active ?? []).some((r: any) => r.uid === uid);
  }

  private removeActive(cj: Obj, uid: string): void {
    cj.status.active = (cj.status.active ?? []).filter((r: any) => r.uid !== uid);
  }

  private async deleteJob(cj: Obj, job: Obj): Promise<boolean> {
    const ns = job.metadata.namespace!;
    try {
      await this.jobs.delete(ns, job.metadata.name!, { propagationPolicy: 'Background' });
    } catch (e) {
      this.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${e instanceof StatusError ? e.status.message : (e as Error).message}`);
      return false;
    }
    this.removeActive(cj, job.metadata.uid!);
    this.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
    return true;
  }

  /** cleanupFinishedJobs / removeOldestJobs: history limits, oldest start time first. */
  private async cleanupFinishedJobs(cj: Obj, jobs: Obj[]): Promise<boolean> {
    const s = cj.spec;
    if (s.failedJobsHistoryLimit == null && s.successfulJobsHistoryLimit == null) return false;
    const byStart = (a: Obj, b: Obj) => {
      const sa = a.status?.startTime; const sb = b.status?.startTime;
      if (!sa && sb) return 1;
      if (sa && !sb) return -1;
      if (sa === sb || (!sa && !sb)) return a.metadata.name! < b.metadata.name! ? -1 : 1;
      return Date.parse(sa) - Date.parse(sb);
    };
    let update = false;
    for (const [kind, limit] of [['Complete', s.successfulJobsHistoryLimit], ['Failed', s.failedJobsHistoryLimit]] as const) {
      if (limit == null) continue;
      const list = jobs.filter((j) => finishedStatus(j) === kind).sort(byStart);
      for (const job of list.slice(0, Math.max(0, list.length - limit))) if (await this.deleteJob(cj, job)) update = true;
    }
    return update;
  }

  /** syncCronJob. */
  private async syncCronJob(cj: Obj, jobs: Obj[]): Promise<{ requeue?: number; update: boolean }> {
    const now = this.now();
    let update = false;
    const children = new Set<string>();
    for (const j of jobs) {
      children.add(j.metadata.uid!);
      const found = this.inActive(cj, j.metadata.uid!);
      const done = finishedStatus(j);
      if (!found && !done) {
        this.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${j.metadata.name}`);
      } else if (found && done) {
        this.removeActive(cj, j.metadata.uid!);
        this.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata.name}, status: ${done}`);
        update = true;
      } else if (done === 'Complete') {
        const ct = j.status?.completionTime;
        if (ct && (!cj.status.lastSuccessfulTime || Date.parse(ct) > Date.parse(cj.status.lastSuccessfulTime))) {
          cj.status.lastSuccessfulTime = ct;
          update = true;
        }
      }
    }
    for (const ref of [...(cj.status.active ?? [])]) {
      if (children.has(ref.uid)) continue;
      const live = await this.jobs.find(ref.namespace ?? cj.metadata.namespace, ref.name);
      if (!live) {
        this.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        this.removeActive(cj, ref.uid);
        update = true;
      }
    }
    if (cj.metadata.deletionTimestamp) return { update };
    const tz = cj.spec.timeZone;
    if (tz != null && !isKnownTimeZone(tz)) {
      this.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${tz}": unknown time zone ${tz}`);
      return { update };
    }
    if (cj.spec.suspend) return { update };
    const spec = formatSchedule(cj);
    if ((cj.spec.schedule ?? '').includes('TZ')) {
      this.event(cj, 'Warning', 'UnsupportedSchedule',
        `CRON_TZ or TZ used in schedule "${cj.spec.schedule}" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
    }
    let sched: CronSchedule;
    try {
      sched = parseCronSchedule(spec);
    } catch (e) {
      this.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${cj.spec.schedule}" : ${(e as Error).message}`);
      return { update };
    }
    let scheduled: Date | undefined;
    try {
      const r = mostRecentScheduleTime(cj, now, sched, true);
      if (r.mostRecent && r.mostRecent <= now) {
        scheduled = r.mostRecent;
        if (r.missed === 'many') {
          this.event(cj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
        }
      }
    } catch (e) {
      this.event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${cj.spec.schedule} : ${(e as Error).message}`);
      return { update };
    }
    const next = () => nextScheduleDelay(cj, now, sched);
    if (!scheduled) return { requeue: next(), update };
    const deadline = cj.spec.startingDeadlineSeconds;
    if (deadline != null && scheduled.getTime() + deadline * 1000 < now.getTime()) {
      this.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return { requeue: next(), update };
    }
    const jobName = `${cj.metadata.name}-${Math.floor(scheduled.getTime() / 60_000)}`;
    const lastSchedule = cj.status.lastScheduleTime ? Date.parse(cj.status.lastScheduleTime) : NaN;
    if ((cj.status.active ?? []).some((r: any) => r.name === jobName) || lastSchedule === Math.floor(scheduled.getTime() / 1000) * 1000) {
      return { requeue: next(), update };
    }
    if (cj.spec.concurrencyPolicy === 'Forbid' && (cj.status.active ?? []).length > 0) {
      this.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { requeue: next(), update };
    }
    if (cj.spec.concurrencyPolicy === 'Replace') {
      for (const ref of [...(cj.status.active ?? [])]) {
        const job = await this.jobs.find(ref.namespace ?? cj.metadata.namespace, ref.name) as Obj | undefined;
        if (!job) {
          this.event(cj, 'Warning', 'FailedGet', `Get job: jobs.batch "${ref.name}" not found`);
          throw new Error(`jobs.batch "${ref.name}" not found`);
        }
        if (!(await this.deleteJob(cj, job))) throw new Error(`could not replace job ${job.metadata.namespace}/${job.metadata.name}`);
        update = true;
      }
    }
    const ns = cj.metadata.namespace!;
    const template = cj.spec.jobTemplate ?? {};
    const annotations = { ...(template.metadata?.annotations ?? {}), [SCHEDULED_TIMESTAMP_ANNOTATION]: rfc3339InZone(scheduled, tz) };
    const jobReq: KObject = {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: {
        name: jobName, namespace: ns, labels: { ...(template.metadata?.labels ?? {}) }, annotations,
        ownerReferences: [controllerRef(cj) as any],
      },
      spec: structuredClone(template.spec ?? {}),
    };
    if (!Object.keys(jobReq.metadata.labels!).length) delete jobReq.metadata.labels;
    let job: Obj;
    try {
      job = await this.jobs.create(ns, jobReq) as Obj;
      this.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${job.metadata.name}`);
    } catch (e) {
      if (isAlreadyExists(e)) {
        const existing = await this.jobs.find(ns, jobName) as Obj | undefined;
        if (!existing || controllerOf(existing)?.uid !== cj.metadata.uid || this.inActive(cj, existing.metadata.uid!)) return { update };
        job = existing;
      } else {
        if (e instanceof StatusError && (e.status.details as any)?.causes?.some((c: any) => c.type === 'NamespaceTerminating')) throw e;
        this.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${e instanceof StatusError ? e.status.message : (e as Error).message}`);
        throw e;
      }
    }
    (cj.status.active ??= []).push({
      kind: 'Job', namespace: ns, name: job.metadata.name, uid: job.metadata.uid, apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion,
    });
    cj.status.lastScheduleTime = rfc3339(scheduled);
    return { requeue: next(), update: true };
  }
}
