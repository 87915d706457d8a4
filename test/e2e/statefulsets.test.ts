/**
 * StatefulSets through kubectl 1.27 and 1.33, with the scheduler and the
 * emulated kubelets running the pods: web-0..2 made in order, each once its
 * predecessor is Running and Ready, `rollout status`, and scale-down from
 * the highest ordinal. A set with volumeClaimTemplates gets its claims of
 * the default StorageClass `standard`, provisioned on the pods' nodes (Linux
 * with kubectl 1.27, Windows with 1.33) and bound before the pods are; a
 * claim deleted once its pod is gone takes its volume with it.
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

const LINUX = { selector: '{kubernetes.io/os: linux}', image: 'registry.k8s.io/nginx-slim:0.8', mount: '/usr/share/nginx/html', annotations: '' };
// servercore's default command exits at once: the emulated runtime's script keeps it running.
const WINDOWS = {
  selector: "{kubernetes.io/os: windows, node.kubernetes.io/windows-build: '10.0.20348'}",
  image: 'mcr.microsoft.com/windows/servercore:ltsc2022', mount: 'C:\\inetpub\\wwwroot',
  annotations: `, annotations: {winkube.io/script: '{"*": {"runSeconds": 3600}}'}`,
};

const statefulSet = (ns: string, name: string, claims: boolean, replicas = 3, os = LINUX) => `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}, namespace: ${ns}}
spec:
  serviceName: ${name}
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}${os.annotations}}
    spec:
      nodeSelector: ${os.selector}
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: ${os.image}
${claims ? `        volumeMounts: [{name: www, mountPath: '${os.mount}'}]
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
      assert.deepEqual(lines[0]?.trim().split(/\s+/), ['NAME', 'READY', 'AGE']);
      assert.deepEqual(lines[1]?.trim().split(/\s+/).slice(0, 2), ['web', '3/3']);
      assert.deepEqual(await eventsOf(ns, 'web', 'SuccessfulCreate'),
        ['create Pod web-0 in StatefulSet web successful', 'create Pod web-1 in StatefulSet web successful', 'create Pod web-2 in StatefulSet web successful']);
    });

    test('scale to 1 deletes web-2 before web-1', async () => {
      assert.equal(await ok(['scale', 'statefulset', 'web', '-n', ns, '--replicas=1']), 'statefulset.apps/web scaled\n');
      await until('one pod left', async () => ((await podNames('web')).length === 1 ? true : undefined));
      assert.deepEqual(await podNames('web'), ['web-0']);
      assert.deepEqual(await eventsOf(ns, 'web', 'SuccessfulDelete'), ['delete Pod web-2 in StatefulSet web successful', 'delete Pod web-1 in StatefulSet web successful']);
    });

    test('volumeClaimTemplates: claims of class standard are provisioned on the pods\' nodes and bound; the set becomes Ready', async () => {
      const os = version === '1.27' ? LINUX : WINDOWS;
      await ok(['apply', '-f', '-'], statefulSet(ns, 'db', true, 2, os));
      await until('two ready pods', async () => {
        const sts = JSON.parse(await ok(['get', 'sts', 'db', '-n', ns, '-o', 'json']));
        return sts.status.readyReplicas === 2 ? sts : undefined;
      });
      const claims = await Promise.all(['www-db-0', 'www-db-1'].map(async (n) => JSON.parse(await ok(['get', 'pvc', n, '-n', ns, '-o', 'json']))));
      const volumes: any[] = [];
      for (const [i, claim] of claims.entries()) {
        const p = await pod(`db-${i}`);
        assert.equal(p.status.phase, 'Running');
        assert.deepEqual(p.spec.volumes.find((v: any) => v.name === 'www'), { name: 'www', persistentVolumeClaim: { claimName: `www-db-${i}` } });
        assert.deepEqual(claim.metadata.labels, { app: 'db' });
        assert.equal(claim.spec.storageClassName, 'standard');
        assert.equal(claim.spec.volumeName, `pvc-${claim.metadata.uid}`);
        assert.deepEqual(claim.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
        assert.deepEqual(claim.metadata.annotations, {
          'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes',
          'volume.beta.kubernetes.io/storage-provisioner': 'winkube.io/local', 'volume.kubernetes.io/storage-provisioner': 'winkube.io/local',
          'volume.kubernetes.io/selected-node': p.spec.nodeName,
        });
        const pv = JSON.parse(await ok(['get', 'pv', claim.spec.volumeName, '-o', 'json']));
        volumes.push(pv);
        assert.deepEqual(pv.metadata.annotations, { 'pv.kubernetes.io/provisioned-by': 'winkube.io/local' });
        assert.equal(pv.status.phase, 'Bound');
        assert.deepEqual(pv.spec.claimRef.name, `www-db-${i}`);
        assert.equal(pv.spec.claimRef.uid, claim.metadata.uid);
        assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete');
        assert.deepEqual(pv.spec.local, { path: os === LINUX ? `/var/lib/winkube/storage/${pv.metadata.name}` : `C:\\ProgramData\\winkube\\storage\\${pv.metadata.name}` });
        assert.deepEqual(pv.spec.nodeAffinity.required.nodeSelectorTerms, [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [p.spec.nodeName] }] }]);
        // The provisioner records its success behind the volume it made: wait for the event.
        assert.deepEqual(await until('the ProvisioningSucceeded event', async () => {
          const e = await eventsOf(ns, `www-db-${i}`, 'ProvisioningSucceeded');
          return e.length ? e : undefined;
        }), [`Successfully provisioned volume ${pv.metadata.name}`]);
        assert.deepEqual(await eventsOf(ns, `www-db-${i}`, 'Provisioning'), [`External provisioner is provisioning volume for claim "${ns}/www-db-${i}"`]);
      }
      const pvcLines = (await ok(['get', 'pvc', '-n', ns])).trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
      assert.deepEqual(pvcLines[0]?.slice(0, 7), ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS', 'MODES', 'STORAGECLASS']);
      assert.deepEqual(pvcLines.slice(1).map((l) => l.slice(0, 6)), [0, 1].map((i) => [`www-db-${i}`, 'Bound', volumes[i].metadata.name, '1Gi', 'RWO', 'standard']));
      const pvLines = (await ok(['get', 'pv'])).trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
      assert.deepEqual(pvLines[0]?.slice(0, 8), ['NAME', 'CAPACITY', 'ACCESS', 'MODES', 'RECLAIM', 'POLICY', 'STATUS', 'CLAIM']);
      for (const [i, v] of volumes.entries()) {
        const line = pvLines.find((l) => l[0] === v.metadata.name)!;
        assert.deepEqual(line.slice(0, 7), [v.metadata.name, '1Gi', 'RWO', 'Delete', 'Bound', `${ns}/www-db-${i}`, 'standard']);
      }
      assert.deepEqual((await eventsOf(ns, 'db', 'SuccessfulCreate')).sort(), [
        'create Claim www-db-0 Pod db-0 in StatefulSet db success', 'create Claim www-db-1 Pod db-1 in StatefulSet db success',
        'create Pod db-0 in StatefulSet db successful', 'create Pod db-1 in StatefulSet db successful']);

      // Scaled to 0 the claims stay (retention policy Retain); deleting one then releases and deletes its volume.
      await ok(['scale', 'statefulset', 'db', '-n', ns, '--replicas=0']);
      await until('no db pods', async () => ((await podNames('db')).length === 0 ? true : undefined));
      assert.equal(await ok(['delete', 'pvc', 'www-db-1', '-n', ns, '--wait=true']), 'persistentvolumeclaim "www-db-1" deleted\n');
      await until('the volume deleted', async () => {
        const r = await run(cluster, ['get', 'pv', volumes[1].metadata.name], { version });
        return r.code !== 0 && /not found/.test(r.stderr) ? true : undefined;
      });
      assert.equal(JSON.parse(await ok(['get', 'pv', volumes[0].metadata.name, '-o', 'json'])).status.phase, 'Bound');
    });
  });
}
