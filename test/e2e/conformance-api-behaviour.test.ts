/**
 * API and controller behaviour the upstream conformance suite checks (test/e2e/apimachinery,
 * test/e2e/apps), against the real server process.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, raw, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ssar = JSON.stringify({
  apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview',
  spec: { nonResourceAttributes: { path: '/', verb: 'get' } },
});

test('a Table of a SelfSubjectAccessReview, whose storage has no Table convertor, is refused with 406', async () => {
  const r = await raw(cluster, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    body: ssar, headers: { 'Content-Type': 'application/json', Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
  });
  assert.equal(r.status, 406);
  assert.deepEqual(JSON.parse(r.body), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 406, reason: 'NotAcceptable',
    message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  });
});

test('the same review with JSON offered after the Table is answered in JSON', async () => {
  const r = await raw(cluster, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    body: ssar, headers: { 'Content-Type': 'application/json', Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
  });
  assert.equal(r.status, 201);
  const body = JSON.parse(r.body) as { kind: string; status: { allowed: boolean } };
  assert.deepEqual([body.kind, body.status.allowed], ['SelfSubjectAccessReview', true]);
});

test('kubectl patch --subresource=status of a CronJob applies the annotation it carries and the status, not the spec', async () => {
  await kubectlOk(cluster, ['create', 'cronjob', 'api-ops', '--image=busybox', '--schedule=0 0 1 1 *', '--', 'sleep', '1']);
  const patch = '{"metadata":{"annotations":{"patchedstatus":"true"}},"spec":{"schedule":"0 0 2 1 *"},"status":{"lastScheduleTime":"2026-01-01T00:00:00Z"}}';
  assert.equal(await kubectlOk(cluster, ['patch', 'cronjob', 'api-ops', '--subresource=status', '--type=merge', '-p', patch]),
    'cronjob.batch/api-ops patched\n');
  assert.equal(await kubectlOk(cluster, ['get', 'cronjob', 'api-ops', '-o',
    'jsonpath={.metadata.annotations.patchedstatus} {.spec.schedule} {.status.lastScheduleTime} {.metadata.generation}']),
  'true 0 0 1 1 * 2026-01-01T00:00:00Z 1');
});

test('deleting an owner in the foreground keeps a dependent that has another owner, without the reference to the deleted one', async () => {
  await kubectlOk(cluster, ['create', 'configmap', 'gc-to-be-deleted']);
  await kubectlOk(cluster, ['create', 'configmap', 'gc-to-stay']);
  const uid = async (name: string) => kubectlOk(cluster, ['get', 'configmap', name, '-o', 'jsonpath={.metadata.uid}']);
  const owner = async (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid: await uid(name), blockOwnerDeletion: true });
  const dependent = (name: string, owners: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: owners } });
  await kubectlOk(cluster, ['create', '-f', '-'], dependent('gc-both-owners', [await owner('gc-to-be-deleted'), await owner('gc-to-stay')]));
  await kubectlOk(cluster, ['create', '-f', '-'], dependent('gc-only-deleted-owner', [await owner('gc-to-be-deleted')]));
  assert.equal(await kubectlOk(cluster, ['delete', 'configmap', 'gc-to-be-deleted', '--cascade=foreground']), 'configmap "gc-to-be-deleted" deleted\n');
  await eventually('the owner deleted in the foreground to be gone', async () =>
    (await kubectl(cluster, ['get', 'configmap', 'gc-to-be-deleted'])).code === 1 || undefined, 30_000);
  assert.equal((await kubectl(cluster, ['get', 'configmap', 'gc-only-deleted-owner'])).stderr,
    'Error from server (NotFound): configmaps "gc-only-deleted-owner" not found\n');
  assert.equal(await kubectlOk(cluster, ['get', 'configmap', 'gc-both-owners', '-o', 'jsonpath={.metadata.ownerReferences[*].name}']), 'gc-to-stay');
});

test('a Job adopts again a pod of its own whose controllerRef was removed', async () => {
  await kubectlOk(cluster, ['create', 'job', 'adopt-release', '--image=busybox', '--', 'sleep', '3600']);
  const podName = await eventually('the job\'s pod', async () =>
    (await kubectlOk(cluster, ['get', 'pods', '-l', 'job-name=adopt-release', '-o', 'jsonpath={.items[*].metadata.name}'])) || undefined);
  assert.equal(await kubectlOk(cluster, ['patch', 'pod', podName, '--type=json', '-p', '[{"op":"remove","path":"/metadata/ownerReferences"}]']),
    `pod/${podName} patched\n`);
  const owner = await eventually('the pod to be adopted again', async () =>
    (await kubectlOk(cluster, ['get', 'pod', podName, '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].controller}'])) || undefined);
  assert.equal(owner, 'Job/adopt-release true');
});
