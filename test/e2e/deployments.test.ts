import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl as run, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/** The oldest and newest kubectl we support, each driving the same scenarios in its own namespace. */
const VERSIONS = ['1.27', '1.33'];

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

async function until<T>(what: string, f: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

for (const version of VERSIONS) {
  describe(`kubectl ${version} workloads`, () => {
    const ns = `deploy-${version.replace('.', '')}`;
    const ok = async (args: string[], input?: string) => {
      const r = await run(cluster, [...args, '-n', ns], { version, input });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    const json = async (args: string[]) => JSON.parse(await ok([...args, '-o', 'json']));
    const replicaSets = async () => (await json(['get', 'rs', '-l', 'app=web'])).items as any[];
    const pods = async (selector: string) => (await json(['get', 'pods', '-l', selector])).items as any[];
    const events = async (name: string) => ((await json(['get', 'events', '--field-selector', `involvedObject.name=${name}`])).items as any[])
      .map((e) => `${e.reason} ${e.source.component}: ${e.message}`);

    before(async () => {
      await run(cluster, ['create', 'namespace', ns], { version });
      await until('the default service account', async () => (await run(cluster, ['get', 'sa', 'default', '-n', ns], { version })).code === 0);
    });

    test('create deployment: ReplicaSet web-<hash> with 3 pods owned by it, revision 1', async () => {
      await ok(['create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=3']);
      const [rs] = await until('a replica set', async () => { const l = await replicaSets(); return l.length === 1 && l; });
      const hash = rs.metadata.labels['pod-template-hash'];
      assert.match(hash, /^[456789bcdf]{1,10}$/);
      assert.equal(rs.metadata.name, `web-${hash}`);
      assert.equal(rs.metadata.annotations['deployment.kubernetes.io/revision'], '1');
      assert.equal(rs.metadata.annotations['deployment.kubernetes.io/desired-replicas'], '3');
      assert.equal(rs.metadata.annotations['deployment.kubernetes.io/max-replicas'], '4');
      const deploy = await json(['get', 'deployment', 'web']);
      assert.deepEqual(rs.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: deploy.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      const ps = await until('3 pods', async () => { const p = await pods('app=web'); return p.length === 3 && p; });
      for (const p of ps) {
        assert.equal(p.metadata.generateName, `web-${hash}-`);
        assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      }
      const rsGet = await until('rs status', async () => {
        const out = await ok(['get', 'rs', rs.metadata.name, '--no-headers']);
        return /^web-\w+\s+3\s+3\s+0\s/.test(out) && out;
      });
      assert.ok(rsGet);
      const d = await until('deployment status', async () => { const x = await json(['get', 'deployment', 'web']); return x.status.updatedReplicas === 3 && x; });
      assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '1');
      assert.equal(d.status.observedGeneration, d.metadata.generation);
      assert.deepEqual(d.status.conditions.map((c: any) => `${c.type}/${c.status}/${c.reason}: ${c.message}`), [
        'Available/False/MinimumReplicasUnavailable: Deployment does not have minimum availability.',
        `Progressing/True/ReplicaSetUpdated: ReplicaSet "web-${hash}" is progressing.`,
      ]);
      assert.deepEqual(await events('web'), [`ScalingReplicaSet deployment-controller: Scaled up replica set web-${hash} from 0 to 3`]);
      const rsEvents = await events(rs.metadata.name);
      assert.deepEqual(rsEvents.map((e) => e.replace(/-\w{5}$/, '')).sort(), Array(3).fill(`SuccessfulCreate replicaset-controller: Created pod: web-${hash}`));
      const history = await ok(['rollout', 'history', 'deployment/web']);
      assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n/m);
    });

    test('scale: the ReplicaSet follows and the event says from 3 to 5; back to 2 deletes the surplus', async () => {
      await ok(['scale', 'deployment', 'web', '--replicas=5']);
      const [rs] = await replicaSets();
      await until('5 pods', async () => (await pods('app=web')).length === 5);
      await until('event', async () => (await events('web')).includes(`ScalingReplicaSet deployment-controller: Scaled up replica set ${rs.metadata.name} from 3 to 5`));
      await ok(['scale', 'deployment', 'web', '--replicas=2']);
      await until('2 pods', async () => (await pods('app=web')).length === 2);
      const deletes = await until('deletions', async () => {
        const e = (await events(rs.metadata.name)).filter((x) => x.startsWith('SuccessfulDelete'));
        return e.length === 3 && e;
      });
      for (const e of deletes) assert.match(e, new RegExp(`^SuccessfulDelete replicaset-controller: Deleted pod: ${rs.metadata.name}-\\w{5}$`));
      const [after] = await replicaSets();
      assert.equal(after.metadata.annotations['deployment.kubernetes.io/desired-replicas'], '2');
      assert.equal(after.metadata.annotations['deployment.kubernetes.io/max-replicas'], '3');
    });

    test('set image: a second ReplicaSet at revision 2, rollout history lists both and shows the template', async () => {
      await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.26']);
      const sets = await until('2 replica sets', async () => { const l = await replicaSets(); return l.length === 2 && l; });
      const rev2 = sets.find((rs) => rs.metadata.annotations['deployment.kubernetes.io/revision'] === '2');
      assert.ok(rev2, 'a revision 2 replica set');
      assert.equal(rev2.spec.template.spec.containers[0].image, 'nginx:1.26');
      // maxSurge 25% of 2 rounds up to 1: the new set starts with one pod; nothing is available, so nothing goes.
      assert.equal(rev2.spec.replicas, 1);
      const history = await until('history', async () => {
        const h = await ok(['rollout', 'history', 'deployment/web']);
        return /\n2\s+<none>/.test(h) && h;
      });
      assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/m);
      const rev = await ok(['rollout', 'history', 'deployment/web', '--revision=2']);
      assert.match(rev, /with revision #2\nPod Template:\n\s+Labels:\s+app=web\n\s+pod-template-hash=\w+\n/);
      assert.match(rev, /Image:\s+nginx:1\.26/);
      const status = await run(cluster, ['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=1s'], { version });
      assert.notEqual(status.code, 0);
      assert.match(status.stdout, /Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated\.\.\./);
    });

    test('pause and resume: Progressing Unknown DeploymentPaused, then DeploymentResumed', async () => {
      await ok(['rollout', 'pause', 'deployment/web']);
      const paused = await until('paused', async () => {
        const d = await json(['get', 'deployment', 'web']);
        return d.status.conditions.find((c: any) => c.type === 'Progressing' && c.reason === 'DeploymentPaused');
      });
      assert.equal(paused.status, 'Unknown');
      assert.equal(paused.message, 'Deployment is paused');
      // A template change while paused makes no new ReplicaSet.
      await ok(['set', 'env', 'deployment/web', 'A=1']);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal((await replicaSets()).length, 2);
      const undo = await run(cluster, ['rollout', 'undo', 'deployment/web', '-n', ns], { version });
      assert.notEqual(undo.code, 0);
      assert.match(undo.stderr, /you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again/);
      await ok(['rollout', 'resume', 'deployment/web']);
      const resumed = await until('resumed', async () => {
        const d = await json(['get', 'deployment', 'web']);
        return d.status.conditions.find((c: any) => c.type === 'Progressing' && c.reason !== 'DeploymentPaused') && d;
      });
      assert.ok(resumed);
      const sets = await until('3 replica sets', async () => { const l = await replicaSets(); return l.length === 3 && l; });
      assert.deepEqual(sets.map((rs) => rs.metadata.annotations['deployment.kubernetes.io/revision']).sort(), ['1', '2', '3']);
    });

    test('rollout undo restores the previous template in its own ReplicaSet, with revision-history', async () => {
      const sets = await replicaSets();
      const rev2 = sets.find((rs) => rs.metadata.annotations['deployment.kubernetes.io/revision'] === '2');
      const out = await ok(['rollout', 'undo', 'deployment/web']);
      assert.equal(out, 'deployment.apps/web rolled back\n');
      const back = await until('revision 4', async () => {
        const l = await replicaSets();
        const rs = l.find((x) => x.metadata.uid === rev2.metadata.uid);
        return rs?.metadata.annotations['deployment.kubernetes.io/revision'] === '4' && rs;
      });
      assert.equal(back.metadata.annotations['deployment.kubernetes.io/revision-history'], '2');
      assert.equal((await replicaSets()).length, 3, 'no new ReplicaSet for a template seen before');
      const d = await json(['get', 'deployment', 'web']);
      assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.26');
      assert.equal(d.spec.template.spec.containers[0].env, undefined);
      await until('deployment revision 4', async () => (await json(['get', 'deployment', 'web'])).metadata.annotations['deployment.kubernetes.io/revision'] === '4');
      const history = await ok(['rollout', 'history', 'deployment/web']);
      assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n3\s+<none>\n4\s+<none>\n/m);
    });

    test('rollout restart: a new ReplicaSet whose template carries restartedAt', async () => {
      await ok(['rollout', 'restart', 'deployment/web']);
      const sets = await until('4 replica sets', async () => { const l = await replicaSets(); return l.length === 4 && l; });
      const rev5 = sets.find((rs) => rs.metadata.annotations['deployment.kubernetes.io/revision'] === '5');
      assert.ok(rev5);
      assert.match(rev5.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'], /^\d{4}-\d\d-\d\dT/);
    });

    test('ReplicaSet adopts a matching orphan pod and releases a pod relabelled out of its selector', async () => {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', labels: { tier: 'cache' } }, spec: { containers: [{ name: 'c', image: 'redis:7' }] } };
      await ok(['create', '-f', '-'], JSON.stringify(pod));
      const rs = {
        apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'cache' },
        spec: { replicas: 2, selector: { matchLabels: { tier: 'cache' } }, template: { metadata: { labels: { tier: 'cache' } }, spec: { containers: [{ name: 'c', image: 'redis:7' }] } } },
      };
      await ok(['create', '-f', '-'], JSON.stringify(rs));
      const ps = await until('2 pods', async () => { const p = await pods('tier=cache'); return p.length === 2 && p; });
      const created = await json(['get', 'rs', 'cache']);
      const orphan = ps.find((p) => p.metadata.name === 'orphan');
      assert.equal(orphan.metadata.ownerReferences[0].uid, created.metadata.uid, 'the orphan was adopted');
      assert.equal(ps.filter((p) => p.metadata.name.startsWith('cache-')).length, 1, 'only one pod was created');
      await ok(['label', 'pod', 'orphan', 'tier=other', '--overwrite']);
      const released = await until('released', async () => { const p = await json(['get', 'pod', 'orphan']); return !p.metadata.ownerReferences && p; });
      assert.ok(released);
      await until('a replacement', async () => (await pods('tier=cache')).length === 2);
      const st = await until('status', async () => { const x = await json(['get', 'rs', 'cache']); return x.status.fullyLabeledReplicas === 2 && x.status; });
      assert.deepEqual(st, { replicas: 2, fullyLabeledReplicas: 2, observedGeneration: 1 });
    });

    test('ReplicationController: pods owned by it, events from replication-controller, scale down', async () => {
      const rc = {
        apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy' },
        spec: { replicas: 3, selector: { app: 'legacy' }, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
      };
      await ok(['create', '-f', '-'], JSON.stringify(rc));
      const ps = await until('3 pods', async () => { const p = await pods('app=legacy'); return p.length === 3 && p; });
      const obj = await json(['get', 'rc', 'legacy']);
      for (const p of ps) {
        assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'legacy', uid: obj.metadata.uid, controller: true, blockOwnerDeletion: true }]);
        assert.equal(p.metadata.generateName, 'legacy-');
      }
      const ev = await until('events', async () => { const e = await events('legacy'); return e.length === 3 && e; });
      for (const e of ev) assert.match(e, /^SuccessfulCreate replication-controller: Created pod: legacy-\w{5}$/);
      await ok(['scale', 'rc', 'legacy', '--replicas=1']);
      await until('1 pod', async () => (await pods('app=legacy')).length === 1);
      const st = await until('status', async () => { const x = await json(['get', 'rc', 'legacy']); return x.status.replicas === 1 && x.status.observedGeneration === 2 && x.status; });
      assert.deepEqual(st, { replicas: 1, fullyLabeledReplicas: 1, observedGeneration: 2 });
    });
  });
}
