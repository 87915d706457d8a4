/**
 * StatefulSets through kubectl 1.27 and 1.33: three pods web-0..2 made in
 * order with their claims, `rollout status`, and scale-down from the
 * highest ordinal. Pods no kubelet owns (unscheduled ones, before the
 * scheduler runs them) are marked Running and Ready through the status
 * subresource, as a kubelet would.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl as run, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const VERSIONS = ['1.27', '1.33'];

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Plays the kubelet for pods that have no node (and so no kubelet) yet. */
async function markUnscheduledReady(ns: string): Promise<void> {
  const list = await rawJSON(cluster, 'GET', `/api/v1/namespaces/${ns}/pods`);
  for (const p of list.body.items) {
    if (p.spec.nodeName || p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')) continue;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await rawJSON(cluster, 'PATCH', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}/status`,
      { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } },
      { 'Content-Type': 'application/merge-patch+json' });
  }
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ns: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await markUnscheduledReady(ns);
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const manifest = (ns: string) => `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${ns}}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: ${ns}}
spec:
  serviceName: web
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.8
        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`;

for (const version of VERSIONS) {
  describe(`kubectl ${version} statefulsets`, () => {
    const ns = `sts-${version.replace('.', '')}`;
    const ok = async (args: string[], input?: string) => {
      const r = await run(cluster, args, { version, input });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    const podNames = async () => (await ok(['get', 'pods', '-n', ns, '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter(Boolean).sort();

    test('web-0..2 are created in order with their claims; rollout status completes', async () => {
      await ok(['create', 'namespace', ns]);
      assert.equal(await ok(['apply', '-f', '-'], manifest(ns)), 'service/web created\nstatefulset.apps/web created\n');
      await until('three ready pods', async () => {
        const sts = JSON.parse(await ok(['get', 'sts', 'web', '-n', ns, '-o', 'json']));
        return sts.status.readyReplicas === 3 ? sts : undefined;
      }, ns);
      assert.deepEqual(await podNames(), ['web-0', 'web-1', 'web-2']);
      const pod = JSON.parse(await ok(['get', 'pod', 'web-1', '-n', ns, '-o', 'json']));
      assert.equal(pod.metadata.labels['statefulset.kubernetes.io/pod-name'], 'web-1');
      assert.equal(pod.metadata.labels['apps.kubernetes.io/pod-index'], '1');
      assert.equal(pod.spec.hostname, 'web-1');
      assert.equal(pod.spec.subdomain, 'web');
      assert.deepEqual(pod.spec.volumes.find((v: any) => v.name === 'www'), { name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } });
      assert.equal(await ok(['get', 'pvc', '-n', ns, '-o', 'name']), 'persistentvolumeclaim/www-web-0\npersistentvolumeclaim/www-web-1\npersistentvolumeclaim/www-web-2\n');
      const sts = JSON.parse(await ok(['get', 'sts', 'web', '-n', ns, '-o', 'json']));
      assert.equal(sts.status.currentRevision, sts.status.updateRevision);
      assert.equal(pod.metadata.labels['controller-revision-hash'], sts.status.updateRevision);
      // The defaulted rollingUpdate.partition (0) makes kubectl report a partitioned roll out, as on a real cluster.
      assert.equal(await ok(['rollout', 'status', 'statefulset/web', '-n', ns, '--timeout=20s']),
        'partitioned roll out complete: 3 new pods have been updated...\n');
      const lines = (await ok(['get', 'sts', '-n', ns])).trimEnd().split('\n');
      assert.deepEqual(lines[0].trim().split(/\s+/), ['NAME', 'READY', 'AGE']);
      assert.deepEqual(lines[1].trim().split(/\s+/).slice(0, 2), ['web', '3/3']);
      const creates = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name=web,reason=SuccessfulCreate`)).body.items
        .sort((a: any, b: any) => (a.metadata.name < b.metadata.name ? -1 : 1)).map((e: any) => e.message);
      assert.deepEqual(creates, [
        'create Claim www-web-0 Pod web-0 in StatefulSet web success', 'create Pod web-0 in StatefulSet web successful',
        'create Claim www-web-1 Pod web-1 in StatefulSet web success', 'create Pod web-1 in StatefulSet web successful',
        'create Claim www-web-2 Pod web-2 in StatefulSet web success', 'create Pod web-2 in StatefulSet web successful',
      ]);
    });

    test('scale to 1 deletes web-2 before web-1 and keeps the claims', async () => {
      assert.equal(await ok(['scale', 'statefulset', 'web', '-n', ns, '--replicas=1']), 'statefulset.apps/web scaled\n');
      await until('one pod left', async () => ((await podNames()).length === 1 ? true : undefined), ns);
      assert.deepEqual(await podNames(), ['web-0']);
      const deletes = await until('two delete events', async () => {
        const items = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name=web,reason=SuccessfulDelete`)).body.items;
        return items.length === 2 ? items : undefined;
      }, ns);
      assert.deepEqual(deletes.sort((a: any, b: any) => (a.metadata.name < b.metadata.name ? -1 : 1)).map((e: any) => e.message),
        ['delete Pod web-2 in StatefulSet web successful', 'delete Pod web-1 in StatefulSet web successful']);
      assert.equal((await ok(['get', 'pvc', '-n', ns, '-o', 'name'])).split('\n').filter(Boolean).length, 3);
    });
  });
}
