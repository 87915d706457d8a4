/**
 * Jobs and CronJobs through kubectl 1.27 and 1.33: a Job with completions 5
 * and parallelism 2 gets two pods carrying the tracking finalizer; `kubectl
 * create job --from=cronjob/x` (client-side) makes a Job the controller
 * runs; a CronJob fires for its most recent missed minute once its
 * lastScheduleTime says a minute has passed (instead of waiting a minute).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl as run, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const VERSIONS = ['1.27', '1.33'];

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, f: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const job = (ns: string) => `
apiVersion: batch/v1
kind: Job
metadata: {name: work, namespace: ${ns}}
spec:
  completions: 5
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
        command: [sh, -c, "sleep 2; exit 0"]
`;

for (const version of VERSIONS) {
  describe(`kubectl ${version} jobs`, () => {
    const ns = `jobs-${version.replace('.', '')}`;
    const ok = async (args: string[], input?: string) => {
      const r = await run(cluster, args, { version, input });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    const get = async (args: string[]) => JSON.parse(await ok([...args, '-o', 'json']));

    test('completions 5 / parallelism 2: two pods at a time, with the tracking finalizer', async () => {
      await ok(['create', 'namespace', ns]);
      assert.equal(await ok(['apply', '-f', '-'], job(ns)), 'job.batch/work created\n');
      const j = await until('two active pods', async () => {
        const o = await get(['get', 'job', 'work', '-n', ns]);
        return o.status.active === 2 ? o : undefined;
      });
      assert.equal(j.status.ready, 0);
      assert.equal(j.status.terminating, 0);
      assert.deepEqual(j.status.uncountedTerminatedPods, {});
      assert.match(j.status.startTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      await sleep(300);
      const pods = (await get(['get', 'pods', '-n', ns, '-l', 'job-name=work'])).items;
      assert.equal(pods.length, 2, 'no more pods than parallelism');
      for (const p of pods) {
        assert.match(p.metadata.name, /^work-[a-z0-9]{5}$/);
        assert.deepEqual(p.metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
        assert.equal(p.metadata.labels['batch.kubernetes.io/controller-uid'], j.metadata.uid);
        assert.equal(p.metadata.ownerReferences[0].name, 'work');
      }
      const events = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name=work`)).body.items;
      assert.deepEqual(events.map((e: any) => `${e.reason} ${e.source.component}`).sort(), ['SuccessfulCreate job-controller', 'SuccessfulCreate job-controller']);
      assert.deepEqual(events.map((e: any) => e.message).sort(), pods.map((p: any) => `Created pod: ${p.metadata.name}`).sort());
    });

    test('create job --from=cronjob: the Job is run by the controller', async () => {
      assert.equal(await ok(['create', 'cronjob', 'tick', '-n', ns, '--image=busybox:1.36', '--schedule=* * * * *', '--', 'sh', '-c', 'exit 0']), 'cronjob.batch/tick created\n');
      assert.equal(await ok(['create', 'job', 'manual', '-n', ns, '--from=cronjob/tick']), 'job.batch/manual created\n');
      const manual = await get(['get', 'job', 'manual', '-n', ns]);
      assert.equal(manual.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
      assert.equal(manual.metadata.ownerReferences[0].kind, 'CronJob');
      await until('the manual job pod', async () => {
        const items = (await get(['get', 'pods', '-n', ns, '-l', 'job-name=manual'])).items;
        return items.length === 1 ? items : undefined;
      });
    });

    test('a CronJob whose last schedule was minutes ago fires for the latest minute', async () => {
      const past = new Date(Date.now() - 3 * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const patched = await rawJSON(cluster, 'PATCH', `/apis/batch/v1/namespaces/${ns}/cronjobs/tick/status`,
        { status: { lastScheduleTime: past } }, { 'Content-Type': 'application/merge-patch+json' });
      assert.equal(patched.status, 200);
      const cj = await until('the scheduled job', async () => {
        const o = await get(['get', 'cronjob', 'tick', '-n', ns]);
        return o.status.active?.length && o.status.lastScheduleTime !== past ? o : undefined;
      });
      const minute = Math.floor(Date.parse(cj.status.lastScheduleTime) / 60_000);
      assert.ok(Date.now() - Date.parse(cj.status.lastScheduleTime) < 120_000, 'the most recent minute, not the missed ones');
      const name = `tick-${minute}`;
      assert.equal(cj.status.active[0].name, name);
      const scheduled = await get(['get', 'job', name, '-n', ns]);
      assert.equal(scheduled.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'], cj.status.lastScheduleTime);
      const events = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name=tick,reason=SuccessfulCreate`)).body.items;
      assert.deepEqual(events.map((e: any) => e.message), [`Created job ${name}`]);
      const lines = (await ok(['get', 'cronjob', 'tick', '-n', ns])).trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));
      assert.equal(lines[1][0], 'tick');
      assert.equal(lines[1][1], '* * * * *');
    });

    test('deleting a job deletes its pods, whose tracking finalizer the controller drops', async () => {
      assert.equal(await ok(['delete', 'job', 'work', '-n', ns]), 'job.batch "work" deleted\n');
      await until('the pods to go', async () => {
        const items = (await get(['get', 'pods', '-n', ns, '-l', 'job-name=work'])).items;
        return items.length === 0 ? true : undefined;
      });
    });
  });
}
