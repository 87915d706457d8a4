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

    const rolledOut = async (name: string) => {
      const out = await ok(['rollout', 'status', `deployment/${name}`, '--timeout=60s']);
      assert.match(out, new RegExp(`deployment "${name}" successfully rolled out\\n$`));
    };
    const live = (ps: any[]) => ps.filter((p) => !p.metadata.deletionTimestamp);
    const byRevision = (sets: any[], r: string) => sets.find((rs) => rs.metadata.annotations['deployment.kubernetes.io/revision'] === r);

    test('create deployment: ReplicaSet web-<hash> with 3 pods owned by it, rolled out, Available', async () => {
      // A Linux image: the default cluster has Windows nodes too, so the pods select Linux ones.
      const manifest = {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
        spec: {
          replicas: 3, selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'nginx', image: 'nginx:1.25' }] } },
        },
      };
      await ok(['create', '-f', '-'], JSON.stringify(manifest));
      await rolledOut('web');
      const [rs] = await replicaSets();
      const hash = rs.metadata.labels['pod-template-hash'];
      assert.match(hash, /^[456789bcdf]{1,10}$/);
      assert.equal(rs.metadata.name, `web-${hash}`);
      assert.deepEqual(rs.spec.selector, { matchLabels: { app: 'web', 'pod-template-hash': hash } });
      assert.equal(rs.metadata.annotations['deployment.kubernetes.io/revision'], '1');
      assert.equal(rs.metadata.annotations['deployment.kubernetes.io/desired-replicas'], '3');
      assert.equal(rs.metadata.annotations['deployment.kubernetes.io/max-replicas'], '4');
      const deploy = await json(['get', 'deployment', 'web']);
      assert.deepEqual(rs.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: deploy.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      const ps = await pods('app=web');
      assert.equal(ps.length, 3);
      for (const p of ps) {
        assert.equal(p.metadata.generateName, `web-${hash}-`);
        assert.equal(p.status.phase, 'Running');
        assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      }
      assert.match(await ok(['get', 'rs', rs.metadata.name, '--no-headers']), /^web-\w+\s+3\s+3\s+3\s/);
      assert.match(await ok(['get', 'deployment', 'web', '--no-headers']), /^web\s+3\/3\s+3\s+3\s/);
      const d = await until('deployment status', async () => {
        const x = await json(['get', 'deployment', 'web']);
        return x.status.conditions?.some((c: any) => c.reason === 'NewReplicaSetAvailable') && x;
      });
      assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '1');
      assert.deepEqual({ ...d.status, conditions: undefined }, { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, conditions: undefined });
      assert.deepEqual(d.status.conditions.map((c: any) => `${c.type}/${c.status}/${c.reason}: ${c.message}`), [
        'Available/True/MinimumReplicasAvailable: Deployment has minimum availability.',
        `Progressing/True/NewReplicaSetAvailable: ReplicaSet "web-${hash}" has successfully progressed.`,
      ]);
      assert.deepEqual(await events('web'), [`ScalingReplicaSet deployment-controller: Scaled up replica set web-${hash} from 0 to 3`]);
      const rsEvents = await events(rs.metadata.name);
      assert.deepEqual(rsEvents.map((e) => e.replace(/-\w{5}$/, '')).sort(), Array(3).fill(`SuccessfulCreate replicaset-controller: Created pod: web-${hash}`));
      const history = await ok(['rollout', 'history', 'deployment/web']);
      assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n/m);
    });

    test('scale: the ReplicaSet follows and the event says from 3 to 5; back to 2 deletes the surplus', async () => {
      await ok(['scale', 'deployment', 'web', '--replicas=5']);
      await rolledOut('web');
      const [rs] = await replicaSets();
      assert.equal(live(await pods('app=web')).length, 5);
      assert.ok((await events('web')).includes(`ScalingReplicaSet deployment-controller: Scaled up replica set ${rs.metadata.name} from 3 to 5`));
      await ok(['scale', 'deployment', 'web', '--replicas=2']);
      await until('2 pods', async () => live(await pods('app=web')).length === 2);
      const deletes = await until('deletions', async () => {
        const e = (await events(rs.metadata.name)).filter((x) => x.startsWith('SuccessfulDelete'));
        return e.length === 3 && e;
      });
      for (const e of deletes) assert.match(e, new RegExp(`^SuccessfulDelete replicaset-controller: Deleted pod: ${rs.metadata.name}-\\w{5}$`));
      assert.ok((await events('web')).includes(`ScalingReplicaSet deployment-controller: Scaled down replica set ${rs.metadata.name} from 5 to 2`));
      const [after] = await replicaSets();
      assert.equal(after.metadata.annotations['deployment.kubernetes.io/desired-replicas'], '2');
      assert.equal(after.metadata.annotations['deployment.kubernetes.io/max-replicas'], '3');
    });

    test('set image: a second ReplicaSet at revision 2 replaces the first; rollout history lists both', async () => {
      const [old] = await replicaSets();
      await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.26']);
      await rolledOut('web');
      const sets = await replicaSets();
      assert.equal(sets.length, 2);
      const rev2 = byRevision(sets, '2');
      assert.equal(rev2.spec.template.spec.containers[0].image, 'nginx:1.26');
      assert.equal(rev2.spec.replicas, 2);
      assert.equal(sets.find((x) => x.metadata.uid === old.metadata.uid).spec.replicas, 0);
      // maxSurge 25% of 2 rounds up to 1, maxUnavailable rounds down to 0: one pod more, then one less, in turn.
      // The last scale-down's event is written beside the ReplicaSet that ends the rollout: wait for it.
      const last = `ScalingReplicaSet deployment-controller: Scaled down replica set ${old.metadata.name} from 1 to 0`;
      const scaling = (await until('the last scale-down event', async () => { const e = await events('web'); return e.includes(last) && e; }))
        .filter((e) => e.includes(rev2.metadata.name) || e.includes(old.metadata.name)).slice(-4);
      assert.deepEqual(scaling, [
        `ScalingReplicaSet deployment-controller: Scaled up replica set ${rev2.metadata.name} from 0 to 1`,
        `ScalingReplicaSet deployment-controller: Scaled down replica set ${old.metadata.name} from 2 to 1`,
        `ScalingReplicaSet deployment-controller: Scaled up replica set ${rev2.metadata.name} from 1 to 2`,
        `ScalingReplicaSet deployment-controller: Scaled down replica set ${old.metadata.name} from 1 to 0`,
      ]);
      const history = await ok(['rollout', 'history', 'deployment/web']);
      assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/m);
      const rev = await ok(['rollout', 'history', 'deployment/web', '--revision=2']);
      assert.match(rev, /with revision #2\nPod Template:\n\s+Labels:\s+app=web\n\s+pod-template-hash=\w+\n/);
      assert.match(rev, /Image:\s+nginx:1\.26/);
    });

    test('pause and resume: Progressing Unknown DeploymentPaused, no rollout while paused, then it proceeds', async () => {
      await ok(['rollout', 'pause', 'deployment/web']);
      const paused = await until('paused', async () => {
        const d = await json(['get', 'deployment', 'web']);
        return d.status.conditions.find((c: any) => c.type === 'Progressing' && c.reason === 'DeploymentPaused');
      });
      assert.deepEqual([paused.status, paused.message], ['Unknown', 'Deployment is paused']);
      await ok(['set', 'env', 'deployment/web', 'A=1']);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal((await replicaSets()).length, 2, 'no new ReplicaSet while paused');
      const undo = await run(cluster, ['rollout', 'undo', 'deployment/web', '-n', ns], { version });
      assert.notEqual(undo.code, 0);
      assert.match(undo.stderr, /you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again/);
      await ok(['rollout', 'resume', 'deployment/web']);
      await rolledOut('web');
      const sets = await replicaSets();
      assert.deepEqual(sets.map((rs) => rs.metadata.annotations['deployment.kubernetes.io/revision']).sort(), ['1', '2', '3']);
      assert.deepEqual(byRevision(sets, '3').spec.template.spec.containers[0].env, [{ name: 'A', value: '1' }]);
    });

    test('rollout undo restores the previous template in its own ReplicaSet, with revision-history', async () => {
      const rev2 = byRevision(await replicaSets(), '2');
      const out = await ok(['rollout', 'undo', 'deployment/web']);
      assert.equal(out, 'deployment.apps/web rolled back\n');
      await rolledOut('web');
      const sets = await replicaSets();
      assert.equal(sets.length, 3, 'no new ReplicaSet for a template seen before');
      const back = sets.find((x) => x.metadata.uid === rev2.metadata.uid);
      assert.equal(back.metadata.annotations['deployment.kubernetes.io/revision'], '4');
      assert.equal(back.metadata.annotations['deployment.kubernetes.io/revision-history'], '2');
      assert.equal(back.spec.replicas, 2);
      const d = await json(['get', 'deployment', 'web']);
      assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.26');
      assert.equal(d.spec.template.spec.containers[0].env, undefined);
      assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '4');
      const history = await ok(['rollout', 'history', 'deployment/web']);
      assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n3\s+<none>\n4\s+<none>\n/m);
    });

    test('rollout restart: a new ReplicaSet whose template carries restartedAt', async () => {
      await ok(['rollout', 'restart', 'deployment/web']);
      await rolledOut('web');
      const sets = await replicaSets();
      assert.equal(sets.length, 4);
      const rev5 = byRevision(sets, '5');
      assert.match(rev5.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'], /^\d{4}-\d\d-\d\dT/);
      assert.equal(rev5.spec.replicas, 2);
    });

    test('ReplicaSet adopts a matching orphan pod and releases a pod relabelled out of its selector', async () => {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', labels: { tier: 'cache' } }, spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'redis:7' }] } };
      await ok(['create', '-f', '-'], JSON.stringify(pod));
      const rs = {
        apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'cache' },
        spec: { replicas: 2, selector: { matchLabels: { tier: 'cache' } }, template: { metadata: { labels: { tier: 'cache' } }, spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'redis:7' }] } } },
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
      await until('a replacement', async () => live(await pods('tier=cache')).length === 2);
      const st = await until('status', async () => { const x = await json(['get', 'rs', 'cache']); return x.status.availableReplicas === 2 && x.status; });
      assert.deepEqual(st, { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1 });
    });

    test('ReplicationController: pods owned by it, events from replication-controller, scale down', async () => {
      const rc = {
        apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy' },
        spec: { replicas: 3, selector: { app: 'legacy' }, template: { metadata: { labels: { app: 'legacy' } }, spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
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
      await until('1 pod', async () => live(await pods('app=legacy')).length === 1);
      const st = await until('status', async () => { const x = await json(['get', 'rc', 'legacy']); return x.status.replicas === 1 && x.status.observedGeneration === 2 && x.status.availableReplicas === 1 && x.status; });
      assert.deepEqual(st, { replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 2 });
    });
  });
}
