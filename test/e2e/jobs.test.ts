/**
 * Jobs and CronJobs through kubectl 1.27 and 1.33, with the scheduler and
 * the emulated kubelets running the pods: completions 5 / parallelism 2
 * runs to Complete never more than two at a time; a failing pod with
 * backoffLimit 0 fails the Job with BackoffLimitExceeded and its TTL
 * deletes it; `kubectl create job --from=cronjob/x` (client-side); a
 * CronJob fires once, for its most recent missed time, once its
 * lastScheduleTime says hours have passed (instead of waiting); deleting a Job
 * deletes its running pods.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl as run, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const VERSIONS = ['1.27', '1.33'];

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The CronJob runs hourly at the minute half an hour from now (the controller's zone is UTC), so no
 * scheduled time falls while the tests run: the only Job it creates is the one the tests provoke by
 * moving lastScheduleTime back, whose name and time are then known exactly.
 */
const QUIET_MINUTE = (new Date().getUTCMinutes() + 30) % 60;
const QUIET_SCHEDULE = `${QUIET_MINUTE} * * * *`;

/** The most recent QUIET_MINUTE of an hour at or before `now`. */
function latestQuietTime(now: Date): Date {
  const t = new Date(now);
  t.setUTCMinutes(QUIET_MINUTE, 0, 0);
  if (t > now) t.setUTCHours(t.getUTCHours() - 1);
  return t;
}

async function until<T>(what: string, f: () => Promise<T | undefined>, tries = 300): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const job = (ns: string, name: string, spec: string, script: string, grace = 30) => `
apiVersion: batch/v1
kind: Job
metadata: {name: ${name}, namespace: ${ns}}
spec:
${spec}
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: ${grace}
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - name: main
        image: busybox:1.36
        command: [sh, -c, "${script}"]
`;

const eventsOf = async (ns: string, name: string) =>
  (await rawJSON(cluster, 'GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name=${name}`)).body.items
    .sort((a: any, b: any) => (a.metadata.name < b.metadata.name ? -1 : 1));

for (const version of VERSIONS) {
  describe(`kubectl ${version} jobs`, () => {
    const ns = `jobs-${version.replace('.', '')}`;
    const ok = async (args: string[], input?: string) => {
      const r = await run(cluster, args, { version, input });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    const get = async (args: string[]) => JSON.parse(await ok([...args, '-o', 'json']));

    test('completions 5 / parallelism 2 runs to Complete, never more than two pods at once', async () => {
      await ok(['create', 'namespace', ns]);
      assert.equal(await ok(['apply', '-f', '-'], job(ns, 'work', '  completions: 5\n  parallelism: 2', 'sleep 1; exit 0')), 'job.batch/work created\n');
      let most = 0;
      const j = await until('Complete', async () => {
        const pods = (await get(['get', 'pods', '-n', ns, '-l', 'job-name=work'])).items;
        most = Math.max(most, pods.filter((p: any) => !['Succeeded', 'Failed'].includes(p.status.phase)).length);
        const o = await get(['get', 'job', 'work', '-n', ns]);
        return o.status.conditions?.some((c: any) => c.type === 'Complete') ? o : undefined;
      });
      assert.ok(most >= 1 && most <= 2, `${most} pods ran at once`);
      assert.equal(await ok(['wait', '--for=condition=complete', 'job/work', '-n', ns, '--timeout=10s']), 'job.batch/work condition met\n');
      assert.equal(j.status.succeeded, 5);
      assert.equal(j.status.failed, undefined);
      assert.equal(j.status.active, undefined);
      assert.deepEqual(j.status.uncountedTerminatedPods, {});
      assert.deepEqual(j.status.conditions.map((c: any) => [c.type, c.status, c.reason]), [['SuccessCriteriaMet', 'True', undefined], ['Complete', 'True', undefined]]);
      assert.equal(j.status.completionTime, j.status.conditions[1].lastTransitionTime);
      const pods = (await get(['get', 'pods', '-n', ns, '-l', 'job-name=work'])).items;
      assert.equal(pods.length, 5);
      for (const p of pods) {
        assert.equal(p.status.phase, 'Succeeded');
        assert.equal(p.metadata.finalizers, undefined, 'the tracking finalizer is removed once counted');
        assert.equal(p.metadata.labels['batch.kubernetes.io/controller-uid'], j.metadata.uid);
      }
      // The controller records Completed beside the condition: wait for the event.
      const events = await until('the Completed event', async () => {
        const e = await eventsOf(ns, 'work');
        return e.some((x: any) => x.reason === 'Completed') ? e : undefined;
      });
      assert.deepEqual(events.filter((e: any) => e.reason === 'SuccessfulCreate').map((e: any) => e.message).sort(),
        pods.map((p: any) => `Created pod: ${p.metadata.name}`).sort());
      assert.deepEqual(events.filter((e: any) => e.reason === 'Completed').map((e: any) => [e.type, e.message, e.source.component]), [['Normal', 'Job completed', 'job-controller']]);
      const row = ((await ok(['get', 'job', 'work', '-n', ns])).trimEnd().split('\n')[1] ?? '').trim().split(/\s+/);
      assert.deepEqual(row.slice(0, 3), ['work', 'Complete', '5/5']);
    });

    test('backoffLimit 0: one failed pod fails the job with BackoffLimitExceeded; the TTL then deletes it', async () => {
      await ok(['apply', '-f', '-'], job(ns, 'broken', '  backoffLimit: 0\n  ttlSecondsAfterFinished: 4', 'exit 3'));
      assert.equal(await ok(['wait', '--for=condition=failed', 'job/broken', '-n', ns, '--timeout=60s']), 'job.batch/broken condition met\n');
      const j = await get(['get', 'job', 'broken', '-n', ns]);
      assert.equal(j.status.failed, 1);
      assert.deepEqual(j.status.conditions.map((c: any) => [c.type, c.reason, c.message]), [
        ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
        ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ]);
      // The controller records the failure beside the condition: wait for the event.
      await until('the BackoffLimitExceeded event', async () => ((await eventsOf(ns, 'broken'))
        .some((e: any) => e.type === 'Warning' && e.reason === 'BackoffLimitExceeded' && e.message === 'Job has reached the specified backoff limit') ? true : undefined));
      await until('the TTL deletion', async () => ((await run(cluster, ['get', 'job', 'broken', '-n', ns], { version })).code !== 0 ? true : undefined));
      await until('its pod to go', async () => ((await get(['get', 'pods', '-n', ns, '-l', 'job-name=broken'])).items.length === 0 ? true : undefined));
    });

    test('create job --from=cronjob: the Job is run by the controller', async () => {
      assert.equal(await ok(['create', 'cronjob', 'tick', '-n', ns, '--image=busybox:1.36', `--schedule=${QUIET_SCHEDULE}`, '--', 'sh', '-c', 'exit 0']), 'cronjob.batch/tick created\n');
      assert.equal(await ok(['create', 'job', 'manual', '-n', ns, '--from=cronjob/tick']), 'job.batch/manual created\n');
      const manual = await get(['get', 'job', 'manual', '-n', ns]);
      assert.equal(manual.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
      assert.equal(manual.metadata.ownerReferences[0].kind, 'CronJob');
      await until('the manual job pod', async () => {
        const items = (await get(['get', 'pods', '-n', ns, '-l', 'job-name=manual'])).items;
        return items.length === 1 ? items : undefined;
      });
    });

    test('a CronJob whose last schedule was hours ago fires once, for the latest scheduled time', async () => {
      const past = new Date(Date.now() - 3 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const patched = await rawJSON(cluster, 'PATCH', `/apis/batch/v1/namespaces/${ns}/cronjobs/tick/status`,
        { status: { lastScheduleTime: past } }, { 'Content-Type': 'application/merge-patch+json' });
      assert.equal(patched.status, 200);
      const cj = await until('the scheduled job', async () => {
        const o = await get(['get', 'cronjob', 'tick', '-n', ns]);
        return o.status.lastScheduleTime !== past ? o : undefined;
      });
      // Three scheduled times were missed; only the most recent one runs.
      const latest = latestQuietTime(new Date());
      assert.equal(cj.status.lastScheduleTime, latest.toISOString().replace(/\.\d+Z$/, 'Z'));
      const name = `tick-${latest.getTime() / 60_000}`;
      const scheduled = await get(['get', 'job', name, '-n', ns]);
      assert.equal(scheduled.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'], cj.status.lastScheduleTime);
      assert.equal(scheduled.metadata.ownerReferences[0].name, 'tick');
      const jobs = (await get(['get', 'jobs', '-n', ns])).items.filter((j: any) => j.metadata.ownerReferences?.[0]?.name === 'tick');
      assert.deepEqual(jobs.map((j: any) => j.metadata.name).sort(), ['manual', name].sort());
      // The controller records the creation beside the status it writes: wait for the event.
      const events = await until('the SuccessfulCreate event', async () => {
        const e = (await eventsOf(ns, 'tick')).filter((x: any) => x.reason === 'SuccessfulCreate');
        return e.length ? e : undefined;
      });
      assert.deepEqual(events.map((e: any) => e.message), [`Created job ${name}`]);
      const lines = (await ok(['get', 'cronjob', 'tick', '-n', ns])).trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));
      assert.deepEqual(lines[1]?.slice(0, 2), ['tick', QUIET_SCHEDULE]);
    });

    test('deleting a job deletes its running pods, whose tracking finalizer the controller drops', async () => {
      await ok(['apply', '-f', '-'], job(ns, 'long', '  parallelism: 2\n  completions: 2', 'sleep 3600', 1));
      await until('two running pods', async () => {
        const items = (await get(['get', 'pods', '-n', ns, '-l', 'job-name=long'])).items;
        return items.filter((p: any) => p.status.phase === 'Running').length === 2 ? true : undefined;
      });
      assert.equal(await ok(['delete', 'job', 'long', '-n', ns]), 'job.batch "long" deleted\n');
      await until('the pods to go', async () => ((await get(['get', 'pods', '-n', ns, '-l', 'job-name=long'])).items.length === 0 ? true : undefined));
    });
  });
}
