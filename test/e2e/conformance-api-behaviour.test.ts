/**
 * API behaviour the upstream conformance suite checks (test/e2e/apimachinery), against the
 * real server process.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlOk, raw, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

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
    message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor',
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
