/**
 * What the apps conformance tests drive, through real kubectl: a pod of an
 * image no registry has shows ErrImagePull with containerd's message; httpd's
 * readiness follows its htdocs/index.html as `kubectl exec ... mv` moves it;
 * a pod bound to a node whose host port another pod holds is rejected by the
 * kubelet (NodePorts); a foreground deletion into a circle of blocking owners
 * finishes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, objectEvents, podObject, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string): Promise<string> => kubectlOk(cluster, args, input);
const pod = (name: string) => podObject(cluster, name);
const events = (name: string) => objectEvents(cluster, name);

test('a Docker Hub library name that is no official image: ErrImagePull with the registry\'s pull access denied', async () => {
  await ok(['run', 'missing-repo', '--image=webserver:404', '--overrides={"spec":{"nodeName":"linux-1"}}']);
  const err = 'rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/webserver:404": failed to resolve reference "docker.io/library/webserver:404": ' +
    'pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed';
  const ev = await eventually('the pull failure', async () => {
    const e = await events('missing-repo'); return e.some((x) => x.startsWith('Warning Failed Failed to pull image')) ? e : undefined;
  });
  assert.ok(ev.includes(`Warning Failed Failed to pull image "webserver:404": ${err}`), ev.join('\n'));
  const waiting = (await pod('missing-repo')).status.containerStatuses[0].state.waiting;
  assert.ok(waiting.reason === 'ErrImagePull' ? waiting.message === err : waiting.message === `Back-off pulling image "webserver:404": ErrImagePull: ${err}`,
    JSON.stringify(waiting));
});

test('httpd: moving htdocs/index.html away with kubectl exec makes the pod unready; moving it back makes it ready', async () => {
  await ok(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  nodeName: linux-2
  containers:
  - name: webserver
    image: registry.k8s.io/e2e-test-images/httpd:2.4.38-4
    readinessProbe: {httpGet: {path: /index.html, port: 80}, periodSeconds: 1, successThreshold: 1, failureThreshold: 1}`);
  const ready = (want: string) => eventually(`Ready=${want}`, async () => {
    const p = await pod('web'); return p.status.conditions?.find((c: any) => c.type === 'Ready')?.status === want ? p : undefined;
  });
  await ready('True');
  assert.equal(await ok(['exec', 'web', '--', '/bin/sh', '-c', 'mv -v /usr/local/apache2/htdocs/index.html /tmp/ || true']),
    "renamed '/usr/local/apache2/htdocs/index.html' -> '/tmp/index.html'\n");
  await ready('False');
  assert.equal(await ok(['exec', 'web', '--', '/bin/sh', '-c', 'mv -v /tmp/index.html /usr/local/apache2/htdocs/ || true']),
    "renamed '/tmp/index.html' -> '/usr/local/apache2/htdocs/index.html'\n");
  await ready('True');
});

test('a pod bound to a node whose host port another pod holds is rejected by the kubelet: Failed, NodePorts', async () => {
  const withPort = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: linux-1
  containers:
  - {name: app, image: "busybox:1.36", command: ["sleep", "3600"], ports: [{containerPort: 21017, hostPort: 21017}]}`;
  await ok(['apply', '-f', '-'], withPort('port-holder'));
  await eventually('the holder Running', async () => ((await pod('port-holder')).status.phase === 'Running' ? true : undefined));
  await ok(['apply', '-f', '-'], withPort('port-taker'));
  const p = await eventually('the taker Failed', async () => { const p = await pod('port-taker'); return p.status.phase === 'Failed' ? p : undefined; });
  assert.deepEqual([p.status.reason, p.status.message], ['NodePorts', "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"]);
});

test('kubectl delete --cascade=foreground into a circle of blocking owners removes the whole circle', async () => {
  for (const n of ['c1', 'c2', 'c3']) await ok(['create', 'configmap', n]);
  const uid = async (n: string) => (await ok(['get', 'configmap', n, '-o', 'jsonpath={.metadata.uid}']));
  // c1 is owned by c3, c2 by c1, c3 by c2.
  for (const [dep, owner] of [['c1', 'c3'], ['c2', 'c1'], ['c3', 'c2']] as const) {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: await uid(owner), controller: true, blockOwnerDeletion: true };
    await ok(['patch', 'configmap', dep, '--type=merge', '-p', JSON.stringify({ metadata: { ownerReferences: [ref] } })]);
  }
  await ok(['delete', 'configmap', 'c1', '--cascade=foreground', '--wait=false']);
  await eventually('the circle gone', async () => {
    const r = await kubectl(cluster, ['get', 'configmap', 'c1', 'c2', 'c3', '--ignore-not-found', '-o', 'name']);
    return r.code === 0 && r.stdout === '' ? true : undefined;
  }, 30_000);
});
