/**
 * StatefulSets through kubectl 1.27 and 1.33, with the scheduler and the
 * emulated kubelets running the pods: web-0..2 made in order, each once its
 * predecessor is Running and Ready, `rollout status`, and scale-down from
 * the highest ordinal. A set with volumeClaimTemplates gets its claims;
 * with no provisioner to bind them, its first pod cannot be scheduled and
 * OrderedReady keeps the next one from being made.
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
  for (let i = 0; i < 300; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const statefulSet = (ns: string, name: string, claims: boolean) => `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}, namespace: ${ns}}
spec:
  serviceName: ${name}
  replicas: 3
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.8
${claims ? `        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}` : ''}
`;

const eventsOf = async (ns: string, name: string, reason: string) =>
  (await rawJSON(cluster, 'GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name=${name},reason=${reason}`)).body.items
    .sort((a: any, b: any) => (a.metadata.name < b.metadata.name ? -1 : 1)).map((e: any) => e.message);

for (const version of VERSIONS) {
  describe(`kubectl ${version} statefulsets`, () => {
    const ns = `sts-${version.replace('.', '')}`;
    const ok = async (args: string[], input?: string) => {
      const r = await run(cluster, args, { version, input });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    const podNames = async (app: string) => (await ok(['get', 'pods', '-n', ns, '-l', `app=${app}`, '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter(Boolean).sort();
    const pod = async (name: string) => JSON.parse(await ok(['get', 'pod', name, '-n', ns, '-o', 'json']));

    test('web-0..2 are made in order, each after its predecessor is Ready; rollout status completes', async () => {
      await ok(['create', 'namespace', ns]);
      assert.equal(await ok(['apply', '-f', '-'], statefulSet(ns, 'web', false)), 'statefulset.apps/web created\n');
      await until('three ready pods', async () => {
        const sts = JSON.parse(await ok(['get', 'sts', 'web', '-n', ns, '-o', 'json']));
        return sts.status.readyReplicas === 3 ? sts : undefined;
      });
      assert.deepEqual(await podNames('web'), ['web-0', 'web-1', 'web-2']);
      const pods = await Promise.all(['web-0', 'web-1', 'web-2'].map(pod));
      for (let i = 1; i < 3; i++) {
        const readyAt = Date.parse(pods[i - 1].status.conditions.find((c: any) => c.type === 'Ready').lastTransitionTime);
        assert.ok(Date.parse(pods[i].metadata.creationTimestamp) >= readyAt, `web-${i} made before web-${i - 1} was Ready`);
      }
      const web1 = pods[1];
      assert.equal(web1.metadata.labels['statefulset.kubernetes.io/pod-name'], 'web-1');
      assert.equal(web1.metadata.labels['apps.kubernetes.io/pod-index'], '1');
      assert.equal(web1.spec.hostname, 'web-1');
      assert.equal(web1.spec.subdomain, 'web');
      assert.equal(web1.status.phase, 'Running');
      const sts = JSON.parse(await ok(['get', 'sts', 'web', '-n', ns, '-o', 'json']));
      assert.equal(sts.status.currentRevision, sts.status.updateRevision);
      assert.equal(web1.metadata.labels['controller-revision-hash'], sts.status.updateRevision);
      assert.deepEqual([sts.status.replicas, sts.status.readyReplicas, sts.status.availableReplicas, sts.status.currentReplicas, sts.status.updatedReplicas], [3, 3, 3, 3, 3]);
      // The defaulted rollingUpdate.partition (0) makes kubectl report a partitioned roll out, as on a real cluster.
      assert.equal(await ok(['rollout', 'status', 'statefulset/web', '-n', ns, '--timeout=20s']),
        'partitioned roll out complete: 3 new pods have been updated...\n');
      const lines = (await ok(['get', 'sts', '-n', ns])).trimEnd().split('\n');
      assert.deepEqual(lines[0].trim().split(/\s+/), ['NAME', 'READY', 'AGE']);
      assert.deepEqual(lines[1].trim().split(/\s+/).slice(0, 2), ['web', '3/3']);
      assert.deepEqual(await eventsOf(ns, 'web', 'SuccessfulCreate'),
        ['create Pod web-0 in StatefulSet web successful', 'create Pod web-1 in StatefulSet web successful', 'create Pod web-2 in StatefulSet web successful']);
    });

    test('scale to 1 deletes web-2 before web-1', async () => {
      assert.equal(await ok(['scale', 'statefulset', 'web', '-n', ns, '--replicas=1']), 'statefulset.apps/web scaled\n');
      await until('one pod left', async () => ((await podNames('web')).length === 1 ? true : undefined));
      assert.deepEqual(await podNames('web'), ['web-0']);
      assert.deepEqual(await eventsOf(ns, 'web', 'SuccessfulDelete'), ['delete Pod web-2 in StatefulSet web successful', 'delete Pod web-1 in StatefulSet web successful']);
    });

    test('volumeClaimTemplates: www-db-0 is made with db-0, which waits for its claim; db-1 is not made meanwhile', async () => {
      await ok(['apply', '-f', '-'], statefulSet(ns, 'db', true));
      const claim = await until('the claim', async () => {
        const r = await run(cluster, ['get', 'pvc', 'www-db-0', '-n', ns, '-o', 'json'], { version });
        return r.code === 0 ? JSON.parse(r.stdout) : undefined;
      });
      assert.deepEqual(claim.metadata.labels, { app: 'db' });
      assert.deepEqual(claim.spec.accessModes, ['ReadWriteOnce']);
      assert.deepEqual(claim.spec.resources, { requests: { storage: '1Gi' } });
      const db0 = await pod('db-0');
      assert.deepEqual(db0.spec.volumes.find((v: any) => v.name === 'www'), { name: 'www', persistentVolumeClaim: { claimName: 'www-db-0' } });
      await sleep(1000);
      assert.deepEqual(await podNames('db'), ['db-0']);
      assert.equal(await ok(['get', 'pvc', '-n', ns, '-o', 'name']), 'persistentvolumeclaim/www-db-0\n');
      assert.deepEqual(await eventsOf(ns, 'db', 'SuccessfulCreate'), ['create Claim www-db-0 Pod db-0 in StatefulSet db success', 'create Pod db-0 in StatefulSet db successful']);
    });
  });
}
