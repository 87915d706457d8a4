/**
 * The Job controller against a real Store: pods up to parallelism with the
 * tracking finalizer, counting through uncountedTerminatedPods, the interim
 * and final conditions, back-off, deadline, suspend, Indexed mode and
 * podFailurePolicy. The test plays the kubelet by writing pod phases.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { loopback } from '../helpers/loopback.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { JobController, JOB_TRACKING_FINALIZER } from '../../src/controllers/job/job-controller.js';
import { formatIndexes, parseIndexes } from '../../src/controllers/job/indexes.js';
import { storedEventsWhen } from './stored-events.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { newControllerContext } from '../../src/controllers/runtime/controller-context.js';

const NS = 'work';

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'job-test-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  const store = new Store(storage, allResources());
  const ctx = { ...inProcessWriteContext('test'), namespace: NS };
  await store.create(store.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, inProcessWriteContext('test'));
  await store.create(store.find('', 'v1', 'serviceaccounts')!, NS, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, ctx);
  let now = Date.now();
  const clock = { now: () => new Date(now), advance: (ms: number) => { now += ms; } };
  const events = new EventRecorder(loopback(store));
  const controllers = newControllerContext({ client: loopback(store), events });
  const ctrl = new JobController(controllers, { now: clock.now });
  const pods = store.find('', 'v1', 'pods')!;
  // The controller reads pods from its informer: a pod written here is synced once the informer has it.
  const seen = async (o: KObject) => {
    const informer = controllers.informers.forResource(pods);
    await informer.start();
    await informer.waitFor(Number(o.metadata.resourceVersion));
  };
  return {
    store, ctrl, clock,
    async createJob(name: string, spec: any): Promise<KObject> {
      return store.create(store.find('batch', 'v1', 'jobs')!, NS, {
        apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } }, ...spec },
      }, ctx);
    },
    job: async (name: string) => (await store.get('batch', 'jobs', NS, name)) as any,
    async podsOf(name: string): Promise<any[]> {
      const job = await store.get('batch', 'jobs', NS, name);
      return (await store.list(pods, NS)).items.filter((p) => p.metadata.ownerReferences?.[0]?.uid === job?.metadata.uid)
        .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    },
    /** What the kubelet writes when a pod's container exits. */
    async finish(pod: KObject, phase: 'Succeeded' | 'Failed', exitCode = phase === 'Succeeded' ? 0 : 1) {
      const at = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
      await seen(await store.update(pods, NS, pod.metadata.name!, (cur) => ({
        ...cur, status: { ...(cur.status as object), phase, containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0,
          state: { terminated: { exitCode, reason: phase === 'Succeeded' ? 'Completed' : 'Error', startedAt: at, finishedAt: at } } }] },
      }), ctx, 'status'));
    },
    /** The job's events once `done` holds of them. */
    events: (name: string, done: (events: string[]) => boolean) => storedEventsWhen(store, NS, name, done),
    async close() { await storage.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

const count = (events: string[], re: RegExp) => events.filter((e) => re.test(e)).length;

test('completedIndexes intervals', () => {
  assert.equal(formatIndexes([0, 1, 2, 4, 6, 7]), '0-2,4,6-7');
  assert.equal(formatIndexes([]), '');
  assert.deepEqual([...parseIndexes('0-2,4,9', 5)].sort(), [0, 1, 2, 4]);
});

test('completions 5 / parallelism 2: pods up to parallelism, counted through the finalizer, SuccessCriteriaMet then Complete', async () => {
  const t = await setup();
  await t.createJob('pi', { completions: 5, parallelism: 2 });
  await t.ctrl.sync(`${NS}/pi`);
  let pods = await t.podsOf('pi');
  assert.equal(pods.length, 2);
  for (const p of pods) {
    assert.match(p.metadata.name, /^pi-[a-z0-9]{5}$/);
    assert.deepEqual(p.metadata.finalizers, [JOB_TRACKING_FINALIZER]);
    assert.equal(p.metadata.labels['job-name'], 'pi');
    assert.equal(p.metadata.labels['batch.kubernetes.io/job-name'], 'pi');
    assert.deepEqual({ ...p.metadata.ownerReferences[0], uid: undefined },
      { apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: undefined, controller: true, blockOwnerDeletion: true });
  }
  let job = await t.job('pi');
  assert.equal(job.status.active, 2);
  assert.equal(job.status.ready, 0);
  assert.equal(job.status.terminating, 0);
  assert.deepEqual(job.status.uncountedTerminatedPods, {});
  assert.match(job.status.startTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  for (let round = 0; round < 5; round++) {
    pods = (await t.podsOf('pi')).filter((p) => !p.status.phase || p.status.phase === 'Pending');
    if (!pods.length) break;
    for (const p of pods) await t.finish(p, 'Succeeded');
    await t.ctrl.sync(`${NS}/pi`);
    job = await t.job('pi');
    if (!job.status.conditions) {
      assert.ok(job.status.active <= 2, `active ${job.status.active} exceeds parallelism`);
    }
  }
  job = await t.job('pi');
  // Every tracking finalizer was removed, each pod counted once.
  assert.equal(job.status.succeeded, 5);
  assert.equal(job.status.active, undefined);
  assert.ok((await t.podsOf('pi')).every((p) => !p.metadata.finalizers));
  assert.equal((await t.podsOf('pi')).length, 5);
  assert.deepEqual(job.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]),
    [['SuccessCriteriaMet', 'True', undefined, undefined], ['Complete', 'True', undefined, undefined]]);
  assert.equal(job.status.completionTime, job.status.conditions[1].lastTransitionTime);
  const created = /^Normal SuccessfulCreate Created pod: pi-[a-z0-9]{5}$/;
  const events = await t.events('pi', (e) => e.includes('Normal Completed Job completed') && count(e, created) >= 5);
  assert.equal(count(events, created), 5);
  await t.close();
});

test('backoffLimit: a failed pod is replaced only after the back-off, then BackoffLimitExceeded fails the job', async () => {
  const t = await setup();
  await t.createJob('flaky', { backoffLimit: 1 });
  await t.ctrl.sync(`${NS}/flaky`);
  let [pod] = await t.podsOf('flaky');
  await t.finish(pod, 'Failed');
  await t.ctrl.sync(`${NS}/flaky`);
  let job = await t.job('flaky');
  assert.equal(job.status.failed, 1);
  // Within the 10s back-off no replacement exists.
  assert.equal((await t.podsOf('flaky')).length, 1);
  assert.equal(job.status.active, undefined);
  assert.equal(t.ctrl.remainingBackoff({ failuresAfterLastSuccess: 1, lastFailureTime: t.clock.now().getTime() }), 10_000);
  assert.equal(t.ctrl.remainingBackoff({ failuresAfterLastSuccess: 3, lastFailureTime: t.clock.now().getTime() }), 40_000);
  assert.equal(t.ctrl.remainingBackoff({ failuresAfterLastSuccess: 9, lastFailureTime: t.clock.now().getTime() }), 600_000);
  t.clock.advance(10_001);
  await t.ctrl.sync(`${NS}/flaky`);
  const pods = await t.podsOf('flaky');
  assert.equal(pods.length, 2);
  pod = pods.find((p) => !p.status.phase || p.status.phase === 'Pending');
  await t.finish(pod, 'Failed');
  await t.ctrl.sync(`${NS}/flaky`);
  job = await t.job('flaky');
  assert.equal(job.status.failed, 2);
  const cond = (type: string) => job.status.conditions.find((c: any) => c.type === type);
  assert.deepEqual([cond('FailureTarget').reason, cond('FailureTarget').message], ['BackoffLimitExceeded', 'Job has reached the specified backoff limit']);
  assert.deepEqual([cond('Failed').status, cond('Failed').reason, cond('Failed').message], ['True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit']);
  assert.equal(job.status.completionTime, undefined);
  await t.events('flaky', (e) => e.includes('Warning BackoffLimitExceeded Job has reached the specified backoff limit'));
  await t.close();
});

test('activeDeadlineSeconds: active pods are deleted and the job fails with DeadlineExceeded', async () => {
  const t = await setup();
  await t.createJob('slow', { activeDeadlineSeconds: 30, parallelism: 2, completions: 4 });
  await t.ctrl.sync(`${NS}/slow`);
  assert.equal((await t.podsOf('slow')).length, 2);
  t.clock.advance(30_000);
  await t.ctrl.sync(`${NS}/slow`);
  let job = await t.job('slow');
  // Deleted pods are terminating until their finalizer goes: Failed waits for the next sync.
  assert.deepEqual(job.status.conditions.map((c: any) => [c.type, c.reason]), [['FailureTarget', 'DeadlineExceeded']]);
  assert.equal(job.status.terminating, 2);
  await t.ctrl.sync(`${NS}/slow`);
  job = await t.job('slow');
  assert.deepEqual(job.status.conditions.map((c: any) => [c.type, c.reason]), [['FailureTarget', 'DeadlineExceeded'], ['Failed', 'DeadlineExceeded']]);
  assert.equal(job.status.conditions[1].message, 'Job was active longer than specified deadline');
  assert.equal(job.status.failed, 2);
  assert.equal((await t.podsOf('slow')).length, 0);
  const deleted = /^Normal SuccessfulDelete Deleted pod: slow-/;
  const events = await t.events('slow', (e) => e.includes('Warning DeadlineExceeded Job was active longer than specified deadline') && count(e, deleted) >= 2);
  assert.equal(count(events, deleted), 2);
  await t.close();
});

test('suspend: no pods, Suspended condition and event; resume creates them', async () => {
  const t = await setup();
  await t.createJob('later', { suspend: true });
  await t.ctrl.sync(`${NS}/later`);
  let job = await t.job('later');
  assert.equal((await t.podsOf('later')).length, 0);
  assert.equal(job.status.startTime, undefined);
  assert.deepEqual(job.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [['Suspended', 'True', 'JobSuspended', 'Job suspended']]);
  await t.store.update(t.store.find('batch', 'v1', 'jobs')!, NS, 'later', (cur: any) => ({ ...cur, spec: { ...cur.spec, suspend: false } }), { ...inProcessWriteContext('test'), namespace: NS });
  await t.ctrl.sync(`${NS}/later`);
  job = await t.job('later');
  assert.equal((await t.podsOf('later')).length, 1);
  assert.deepEqual(job.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [['Suspended', 'False', 'JobResumed', 'Job resumed']]);
  await t.events('later', (e) => e.includes('Normal Suspended Job suspended') && e.includes('Normal Resumed Job resumed'));
  await t.close();
});

test('Indexed: index annotation, label, hostname, JOB_COMPLETION_INDEX, generateName, completedIndexes', async () => {
  const t = await setup();
  await t.createJob('idx', { completions: 3, parallelism: 2, completionMode: 'Indexed' });
  await t.ctrl.sync(`${NS}/idx`);
  let pods = await t.podsOf('idx');
  assert.deepEqual(pods.map((p) => p.metadata.annotations['batch.kubernetes.io/job-completion-index']).sort(), ['0', '1']);
  for (const p of pods) {
    const ix = p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
    assert.equal(p.metadata.labels['batch.kubernetes.io/job-completion-index'], ix);
    assert.equal(p.spec.hostname, `idx-${ix}`);
    assert.equal(p.metadata.generateName, `idx-${ix}-`);
    assert.deepEqual(p.spec.containers[0].env, [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } } }]);
  }
  await t.finish(pods.find((p) => p.metadata.annotations['batch.kubernetes.io/job-completion-index'] === '1'), 'Succeeded');
  await t.ctrl.sync(`${NS}/idx`);
  let job = await t.job('idx');
  assert.equal(job.status.completedIndexes, '1');
  assert.equal(job.status.succeeded, 1);
  pods = await t.podsOf('idx');
  assert.deepEqual(pods.map((p) => p.metadata.annotations['batch.kubernetes.io/job-completion-index']).sort(), ['0', '1', '2']);
  for (const p of pods.filter((p) => !p.status.phase || p.status.phase === 'Pending')) await t.finish(p, 'Succeeded');
  await t.ctrl.sync(`${NS}/idx`);
  job = await t.job('idx');
  assert.equal(job.status.completedIndexes, '0-2');
  assert.equal(job.status.succeeded, 3);
  assert.ok(job.status.conditions.some((c: any) => c.type === 'Complete' && c.status === 'True'));
  await t.close();
});

test('podFailurePolicy: FailJob on an exit code; Ignore does not count', async () => {
  const t = await setup();
  await t.createJob('pfp', {
    backoffLimit: 6,
    podFailurePolicy: { rules: [
      { action: 'Ignore', onExitCodes: { operator: 'In', values: [3] } },
      { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
    ] },
  });
  await t.ctrl.sync(`${NS}/pfp`);
  let [pod] = await t.podsOf('pfp');
  await t.finish(pod, 'Failed', 3);
  await t.ctrl.sync(`${NS}/pfp`);
  let job = await t.job('pfp');
  assert.equal(job.status.failed, undefined, 'an ignored failure is not counted');
  // Ignored failures still back off before the replacement.
  assert.equal((await t.podsOf('pfp')).length, 1);
  t.clock.advance(10_001);
  await t.ctrl.sync(`${NS}/pfp`);
  const pods = await t.podsOf('pfp');
  assert.equal(pods.length, 2);
  pod = pods.find((p) => p.metadata.name !== pod.metadata.name)!;
  await t.finish(pod, 'Failed', 42);
  await t.ctrl.sync(`${NS}/pfp`);
  job = await t.job('pfp');
  const failed = job.status.conditions.find((c: any) => c.type === 'Failed');
  assert.equal(failed.reason, 'PodFailurePolicy');
  assert.equal(failed.message, `Container main for pod ${NS}/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 1`);
  await t.close();
});

test('pods of a deleted job lose the tracking finalizer (orphan handling)', async () => {
  const t = await setup();
  await t.createJob('gone', { parallelism: 2, completions: 2 });
  await t.ctrl.sync(`${NS}/gone`);
  const pods = await t.podsOf('gone');
  assert.equal(pods.length, 2);
  await t.store.delete(t.store.find('batch', 'v1', 'jobs')!, NS, 'gone', {}, { ...inProcessWriteContext('test'), namespace: NS });
  for (const p of pods) await t.ctrl.handleOrphanPod(`${NS}/${p.metadata.name}`);
  for (const p of pods) assert.equal((await t.store.get('', 'pods', NS, p.metadata.name))!.metadata.finalizers, undefined);
  await t.close();
});

test('backoffLimitPerIndex: failure counts carried by replacements, failedIndexes, FailedIndexes', async () => {
  const t = await setup();
  await t.createJob('per', { completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 1 });
  const job0 = await t.job('per');
  assert.equal(job0.spec.backoffLimit, 2147483647);
  await t.ctrl.sync(`${NS}/per`);
  let pods = await t.podsOf('per');
  const ix = (p: any) => p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
  assert.deepEqual(pods.map((p) => p.metadata.annotations['batch.kubernetes.io/job-index-failure-count']), ['0', '0']);
  const first0 = pods.find((p) => ix(p) === '0');
  await t.finish(first0, 'Failed');
  await t.ctrl.sync(`${NS}/per`);
  let job = await t.job('per');
  assert.equal(job.status.failedIndexes, '');
  // The failed pod waits for its replacement with its finalizer; the index backs off 10s.
  assert.deepEqual((await t.store.get('', 'pods', NS, first0.metadata.name))!.metadata.finalizers, [JOB_TRACKING_FINALIZER]);
  assert.equal((await t.podsOf('per')).length, 2);
  t.clock.advance(10_001);
  await t.ctrl.sync(`${NS}/per`);
  pods = await t.podsOf('per');
  const second0 = pods.find((p) => ix(p) === '0' && p.metadata.name !== first0.metadata.name);
  assert.equal(second0.metadata.annotations['batch.kubernetes.io/job-index-failure-count'], '1');
  await t.ctrl.sync(`${NS}/per`);
  assert.equal((await t.store.get('', 'pods', NS, first0.metadata.name))!.metadata.finalizers, undefined, 'released once replaced');
  await t.finish(second0, 'Failed');
  await t.ctrl.sync(`${NS}/per`);
  job = await t.job('per');
  assert.equal(job.status.failedIndexes, '0');
  await t.finish(pods.find((p) => ix(p) === '1'), 'Succeeded');
  await t.ctrl.sync(`${NS}/per`);
  await t.ctrl.sync(`${NS}/per`);
  job = await t.job('per');
  assert.equal(job.status.completedIndexes, '1');
  const failed = job.status.conditions.find((c: any) => c.type === 'Failed');
  assert.deepEqual([failed?.reason, failed?.message], ['FailedIndexes', 'Job has failed indexes']);
  await t.close();
});
