/**
 * The CronJob controller with an injected clock against a real Store: job
 * names and annotation, status, concurrency policies, suspend, starting
 * deadline, history limits; schedule parsing and time zones.
 */
import { loopback } from '../helpers/loopback.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { CronJobController, mostRecentScheduleTime } from '../../src/controllers/cronjob/cronjob-controller.js';
import { rfc3339InZone } from '../../src/controllers/cronjob/schedule.js';
import { parseCronSchedule as parseSchedule } from '../../src/apimachinery/cron-schedule.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

const NS = 'cron';

async function setup(start: string) {
  const dir = mkdtempSync(join(tmpdir(), 'cronjob-test-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  const store = new Store(storage, allResources());
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, inProcessWriteContext('test'));
  let now = Date.parse(start);
  const clock = { now: () => new Date(now), set: (iso: string) => { now = Date.parse(iso); } };
  const ctrl = new CronJobController(newControllerContext({ client: loopback(store) }), { now: clock.now });
  const cronjobs = store.find('batch', 'v1', 'cronjobs')!;
  const jobs = store.find('batch', 'v1', 'jobs')!;
  return {
    store, ctrl, clock,
    /** Creates the CronJob as if at `created` (its creationTimestamp is what the schedule counts from). */
    async create(name: string, spec: any, created: string) {
      await store.create(cronjobs, NS, {
        apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name, labels: { app: name } },
        spec: { jobTemplate: { metadata: { labels: { from: name } }, spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } }, ...spec },
      }, { ...ctx, now: new Date(created) });
    },
    cj: async (name: string) => (await store.get('batch', 'cronjobs', NS, name)) as any,
    jobNames: async () => (await store.list(jobs, NS)).items.map((j) => j.metadata.name!).sort(),
    job: async (name: string) => (await store.get('batch', 'jobs', NS, name)) as any,
    async finishJob(name: string, type: 'Complete' | 'Failed', at: string) {
      await store.update(jobs, NS, name, (cur: any) => ({
        ...cur, status: {
          ...cur.status, startTime: cur.status?.startTime ?? at,
          conditions: [{ type: type === 'Complete' ? 'SuccessCriteriaMet' : 'FailureTarget', status: 'True', lastProbeTime: at, lastTransitionTime: at }, { type, status: 'True', lastProbeTime: at, lastTransitionTime: at }],
          ...(type === 'Complete' ? { completionTime: at, succeeded: 1 } : { failed: 1 }),
        },
      }), ctx, 'status');
    },
    async events(name: string): Promise<string[]> {
      await new Promise((r) => setTimeout(r, 20));
      return (await store.listAll('', 'events', NS)).filter((e: any) => e.involvedObject.name === name)
        .sort((a: any, b: any) => (a.metadata.name < b.metadata.name ? -1 : 1)).map((e: any) => `${e.type} ${e.reason} ${e.message}`);
    },
    async close() { ctrl.stop(); await storage.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

test('schedules: descriptors, steps, @every, time zones', () => {
  const at = new Date('2026-03-08T00:07:30Z');
  assert.equal(parseSchedule('*/15 * * * *').next(at).toISOString(), '2026-03-08T00:15:00.000Z');
  assert.equal(parseSchedule('@hourly').next(at).toISOString(), '2026-03-08T01:00:00.000Z');
  assert.equal(parseSchedule('@daily').next(at).toISOString(), '2026-03-09T00:00:00.000Z');
  assert.equal(parseSchedule('@every 90s').next(at).toISOString(), '2026-03-08T00:09:00.000Z');
  // 09:00 in New York on the day daylight saving starts is 13:00 UTC.
  assert.equal(parseSchedule('TZ=America/New_York 0 9 * * *').next(at).toISOString(), '2026-03-08T13:00:00.000Z');
  assert.equal(parseSchedule('CRON_TZ=Asia/Tokyo 0 9 * * *').next(at).toISOString(), '2026-03-09T00:00:00.000Z');
  assert.throws(() => parseSchedule('* * * *'), /expected exactly 5 fields, found 4/);
  assert.equal(rfc3339InZone(new Date('2026-03-08T13:00:00Z'), 'America/New_York'), '2026-03-08T09:00:00-04:00');
  assert.equal(rfc3339InZone(new Date('2026-03-08T13:00:00Z'), undefined), '2026-03-08T13:00:00Z');
});

test('mostRecentScheduleTime counts missed schedules', () => {
  const cj: any = { metadata: { creationTimestamp: '2026-01-01T00:00:30Z' }, spec: {}, status: {} };
  const sched = parseSchedule('* * * * *');
  assert.equal(mostRecentScheduleTime(cj, new Date('2026-01-01T00:00:59Z'), sched, true).mostRecent, undefined);
  const r = mostRecentScheduleTime(cj, new Date('2026-01-01T00:05:10Z'), sched, true);
  assert.equal(r.mostRecent!.toISOString(), '2026-01-01T00:05:00.000Z');
  assert.equal(r.missed, 'few');
  assert.equal(mostRecentScheduleTime(cj, new Date('2026-01-01T03:00:10Z'), sched, true).missed, 'many');
  cj.spec.startingDeadlineSeconds = 30;
  assert.equal(mostRecentScheduleTime(cj, new Date('2026-01-01T03:00:10Z'), sched, true).missed, 'none');
  // robfig's Next answers Go's zero time for a day that never comes (February 31st): both "next"
  // times are equal, which upstream reports as an invalid schedule.
  assert.throws(() => mostRecentScheduleTime(cj, new Date('2026-01-01T03:00:10Z'), parseSchedule('59 23 31 2 *'), true),
    /^Error: time difference between two schedules is less than 1 second$/);
});

test('a job per scheduled minute named <cronjob>-<minutes>, annotation, active and lastScheduleTime; SawCompletedJob', async () => {
  const t = await setup('2026-01-01T00:00:59Z');
  await t.create('tick', { schedule: '* * * * *' }, '2026-01-01T00:00:10Z');
  // Nothing is due before the first minute; the re-sync comes 100ms after it.
  assert.equal(await t.ctrl.sync(`${NS}/tick`), 1100);
  assert.deepEqual(await t.jobNames(), []);
  t.clock.set('2026-01-01T00:01:00.100Z');
  await t.ctrl.sync(`${NS}/tick`);
  const minutes = Date.parse('2026-01-01T00:01:00Z') / 60000;
  assert.deepEqual(await t.jobNames(), [`tick-${minutes}`]);
  const job = await t.job(`tick-${minutes}`);
  assert.equal(job.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2026-01-01T00:01:00Z');
  assert.equal(job.metadata.labels.from, 'tick');
  assert.deepEqual({ ...job.metadata.ownerReferences[0], uid: undefined }, { apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: undefined, controller: true, blockOwnerDeletion: true });
  let cj = await t.cj('tick');
  assert.equal(cj.status.lastScheduleTime, '2026-01-01T00:01:00Z');
  assert.deepEqual(cj.status.active.map((r: any) => [r.kind, r.name, r.apiVersion, r.uid === job.metadata.uid]), [['Job', `tick-${minutes}`, 'batch/v1', true]]);
  // The same minute again creates nothing.
  await t.ctrl.sync(`${NS}/tick`);
  assert.equal((await t.jobNames()).length, 1);
  await t.finishJob(`tick-${minutes}`, 'Complete', '2026-01-01T00:01:30Z');
  await t.ctrl.sync(`${NS}/tick`);
  cj = await t.cj('tick');
  assert.equal(cj.status.active, undefined);
  assert.equal(cj.status.lastSuccessfulTime, undefined, 'the job was in the active list: only SawCompletedJob this time');
  await t.ctrl.sync(`${NS}/tick`);
  assert.equal((await t.cj('tick')).status.lastSuccessfulTime, '2026-01-01T00:01:30Z');
  assert.deepEqual(await t.events('tick'), [`Normal SuccessfulCreate Created job tick-${minutes}`, `Normal SawCompletedJob Saw completed job: tick-${minutes}, status: Complete`]);
  await t.close();
});

test('concurrencyPolicy Forbid skips, Replace deletes the running job', async () => {
  const t = await setup('2026-01-01T00:01:01Z');
  await t.create('forbid', { schedule: '* * * * *', concurrencyPolicy: 'Forbid' }, '2026-01-01T00:00:10Z');
  await t.create('replace', { schedule: '* * * * *', concurrencyPolicy: 'Replace' }, '2026-01-01T00:00:10Z');
  await t.ctrl.sync(`${NS}/forbid`);
  await t.ctrl.sync(`${NS}/replace`);
  t.clock.set('2026-01-01T00:02:01Z');
  await t.ctrl.sync(`${NS}/forbid`);
  await t.ctrl.sync(`${NS}/replace`);
  const m1 = Date.parse('2026-01-01T00:01:00Z') / 60000;
  assert.deepEqual(await t.jobNames(), [`forbid-${m1}`, `replace-${m1 + 1}`]);
  assert.deepEqual((await t.events('forbid')).slice(1), ['Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid']);
  assert.deepEqual((await t.events('replace')).slice(1), [`Normal SuccessfulDelete Deleted job replace-${m1}`, `Normal SuccessfulCreate Created job replace-${m1 + 1}`]);
  assert.deepEqual((await t.cj('replace')).status.active.map((r: any) => r.name), [`replace-${m1 + 1}`]);
  await t.close();
});

test('suspend, startingDeadlineSeconds, timeZone, history limits', async () => {
  const t = await setup('2026-01-01T00:01:01Z');
  await t.create('paused', { schedule: '* * * * *', suspend: true }, '2026-01-01T00:00:10Z');
  await t.ctrl.sync(`${NS}/paused`);
  assert.deepEqual(await t.jobNames(), []);

  await t.create('late', { schedule: '0 * * * *', startingDeadlineSeconds: 10 }, '2025-12-31T23:30:00Z');
  await t.ctrl.sync(`${NS}/late`);
  assert.deepEqual(await t.jobNames(), []);
  assert.deepEqual(await t.events('late'), []);

  await t.create('tokyo', { schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' }, '2025-12-31T23:30:00Z');
  await t.ctrl.sync(`${NS}/tokyo`);
  const job = await t.job(`tokyo-${Date.parse('2026-01-01T00:00:00Z') / 60000}`);
  assert.equal(job.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2026-01-01T09:00:00+09:00');

  await t.create('hist', { schedule: '* * * * *', successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0 }, '2026-01-01T00:00:10Z');
  const names: string[] = [];
  for (let m = 1; m <= 3; m++) {
    t.clock.set(`2026-01-01T00:0${m}:01Z`);
    await t.ctrl.sync(`${NS}/hist`);
    const name = `hist-${Date.parse(`2026-01-01T00:0${m}:00Z`) / 60000}`;
    names.push(name);
    await t.finishJob(name, m === 2 ? 'Failed' : 'Complete', `2026-01-01T00:0${m}:30Z`);
  }
  await t.ctrl.sync(`${NS}/hist`);
  assert.deepEqual((await t.jobNames()).filter((n) => n.startsWith('hist-')), [names[2]]);
  const events = await t.events('hist');
  assert.ok(events.includes(`Normal SuccessfulDelete Deleted job ${names[0]}`));
  assert.ok(events.includes(`Normal SuccessfulDelete Deleted job ${names[1]}`));
  await t.close();
});
