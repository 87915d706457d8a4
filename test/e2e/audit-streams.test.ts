/**
 * The audit log of the streaming subresources: `kubectl exec` (WebSocket for
 * kubectl ≥ 1.30, SPDY for 1.27) is logged with the 101 of its protocol
 * switch at ResponseStarted and ResponseComplete, as WithAudit records a
 * hijacked connection; a refused exec with the refusal's Status and the
 * authorization annotations.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    resources:
      - group: ""
        resources: ["pods/exec", "pods/attach", "pods/portforward"]
  - level: None
`;

interface AuditEvent {
  stage: string; verb: string; auditID: string; requestURI: string; user: { username: string }; impersonatedUser?: { username: string };
  objectRef?: Record<string, string>; responseStatus?: Record<string, unknown>; annotations?: Record<string, string>;
}

const dataDir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
const logFile = join(dataDir, 'audit', 'audit.log');
let cluster: TestCluster;

const events = (): AuditEvent[] => readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEvent);
const stagesOf = (uriPart: string) => async () => {
  const found = events().filter((e) => e.requestURI.includes(uriPart));
  return found.some((e) => e.stage === 'ResponseComplete') ? found : undefined;
};

before(async () => {
  const policyFile = join(dataDir, 'policy.yaml');
  writeFileSync(policyFile, POLICY);
  cluster = await startCluster(dataDir, ['--audit-policy-file', policyFile, '--audit-log-path', logFile]);
  await kubectlOk(cluster, ['run', 'shell', '--image=busybox:1.36', '--overrides={"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}', '--', 'sleep', '3600']);
  await kubectlOk(cluster, ['wait', '--for=condition=Ready', 'pod/shell', '--timeout=120s']);
});
after(async () => { await cluster.stop(); removeDir(dataDir); });

for (const version of ['1.33', '1.27']) {
  test(`kubectl ${version} exec: ResponseStarted and ResponseComplete with the protocol switch's 101`, async () => {
    const marker = `audited-${version.replace('.', '-')}`;
    const r = await kubectl(cluster, ['exec', 'shell', '--', 'echo', marker], { version });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${marker}\n`);
    const found = await eventually('the exec events', stagesOf(`command=${marker}`));
    assert.deepEqual(found.map((e) => e.stage), ['ResponseStarted', 'ResponseComplete']);
    for (const e of found) {
      assert.equal(e.auditID, found[0]!.auditID);
      assert.equal(e.verb, version === '1.27' ? 'create' : 'get');
      assert.equal(e.user.username, 'kubernetes-admin');
      assert.deepEqual(e.objectRef, { resource: 'pods', namespace: 'default', name: 'shell', apiVersion: 'v1', subresource: 'exec' });
      assert.deepEqual(e.responseStatus, { metadata: {}, code: 101 });
      assert.equal(e.annotations?.['authorization.k8s.io/decision'], 'allow');
    }
  });
}

test('a refused exec is logged with the 403 Status and the forbid decision, naming the impersonated user', async () => {
  // mallory may read the pod (kubectl exec gets it first), not exec into it.
  await kubectlOk(cluster, ['create', 'role', 'pod-reader', '--verb=get', '--resource=pods']);
  await kubectlOk(cluster, ['create', 'rolebinding', 'mallory-reads', '--role=pod-reader', '--user=mallory']);
  const r = await kubectl(cluster, ['exec', 'shell', '--as=mallory', '--', 'echo', 'refused']);
  assert.notEqual(r.code, 0);
  // kubectl 1.33 tries WebSocket (get), and on the refusal falls back to SPDY (create): both are refused and logged.
  assert.match(r.stderr, /pods "shell" is forbidden: User "mallory" cannot create resource "pods\/exec" in API group "" in the namespace "default"/);
  const complete = await eventually('both refused exec events', async () => {
    const done = events().filter((e) => e.requestURI.includes('command=refused') && e.stage === 'ResponseComplete');
    return done.length === 2 ? done : undefined;
  });
  assert.deepEqual(complete.map((e) => e.verb), ['get', 'create']);
  for (const e of complete) {
    assert.equal(e.user.username, 'kubernetes-admin');
    assert.equal(e.impersonatedUser?.username, 'mallory');
    assert.equal(e.responseStatus?.code, 403);
    assert.equal(e.responseStatus?.status, 'Failure');
    assert.equal(e.responseStatus?.reason, 'Forbidden');
    assert.equal(e.annotations?.['authorization.k8s.io/decision'], 'forbid');
  }
});
