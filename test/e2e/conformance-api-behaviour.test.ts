/**
 * API behaviour the upstream conformance suite checks (test/e2e/apimachinery), against the
 * real server process.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { raw, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

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
