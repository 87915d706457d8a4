/**
 * `winkube up --audit-policy-file --audit-log-path`: kubectl's requests and
 * the components' own (each as its user) are written to the log as
 * kube-apiserver's audit.k8s.io/v1 events, at the level the policy's first
 * matching rule gives, without the stages it omits; a forbidden request shows
 * the authorizer's decision.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
  - RequestReceived
rules:
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["configmaps"]
  - level: Metadata
    users: ["dev"]
  - level: Metadata
    userGroups: ["system:serviceaccounts:kube-system"]
    verbs: ["create"]
    resources:
      - group: ""
        resources: ["serviceaccounts"]
  - level: None
`;

interface AuditEvent {
  kind: string; apiVersion: string; level: string; auditID: string; stage: string; requestURI: string; verb: string;
  user: { username: string; groups?: string[] }; sourceIPs: string[]; userAgent?: string;
  objectRef?: Record<string, string>; responseStatus?: { code: number; status?: string; reason?: string; message?: string };
  requestObject?: { data?: Record<string, string> }; responseObject?: { data?: Record<string, string> };
  requestReceivedTimestamp: string; stageTimestamp: string; annotations?: Record<string, string>;
}

const dataDir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
const logFile = join(dataDir, 'audit', 'audit.log');
let cluster: TestCluster;

function events(): AuditEvent[] {
  return readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEvent);
}

before(async () => {
  const policyFile = join(dataDir, 'policy.yaml');
  writeFileSync(policyFile, POLICY);
  cluster = await startCluster(dataDir, ['--api-only', '--audit-policy-file', policyFile, '--audit-log-path', logFile]);
});
after(async () => { await cluster.stop(); removeDir(dataDir); });

test('kubectl create, get and delete of a ConfigMap are logged at RequestResponse', async () => {
  const admin = await kubectlOk(cluster, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
  await kubectlOk(cluster, ['create', 'configmap', 'audited', '--from-literal=colour=blue']);
  await kubectlOk(cluster, ['get', 'configmap', 'audited', '-o', 'name']);
  await kubectlOk(cluster, ['delete', 'configmap', 'audited', '--wait=false']);
  // An event is written once its response is sent: kubectl may have its answer a moment before.
  const mine = await eventually('the three events', async () => {
    const found = events().filter((e) => e.objectRef?.resource === 'configmaps' && e.objectRef.name === 'audited');
    return found.length === 3 ? found : undefined;
  });
  assert.deepEqual(mine.map((e) => [e.stage, e.verb, e.user.username, e.responseStatus?.code, e.level]), [
    ['ResponseComplete', 'create', admin, 201, 'RequestResponse'],
    ['ResponseComplete', 'get', admin, 200, 'RequestResponse'],
    ['ResponseComplete', 'delete', admin, 200, 'RequestResponse'],
  ]);
  const [create, get] = mine;
  assert.equal(create!.kind, 'Event');
  assert.equal(create!.apiVersion, 'audit.k8s.io/v1');
  assert.equal(create!.requestURI, '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict');
  assert.deepEqual(create!.objectRef, { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' });
  assert.deepEqual(create!.requestObject?.data, { colour: 'blue' });
  assert.deepEqual(create!.responseObject?.data, { colour: 'blue' });
  assert.deepEqual(create!.responseStatus, { metadata: {}, code: 201 });
  assert.deepEqual(create!.sourceIPs, ['127.0.0.1']);
  assert.match(create!.userAgent ?? '', /^kubectl/);
  assert.deepEqual(create!.annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
  assert.match(create!.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.equal(get!.requestURI, '/api/v1/namespaces/default/configmaps/audited');
  assert.equal(get!.requestObject, undefined);
  // RequestReceived is omitted by the policy; ResponseStarted is logged for watches (long-running) only.
  const all = events();
  assert.deepEqual(all.filter((e) => e.stage === 'RequestReceived'), []);
  assert.deepEqual(all.filter((e) => e.stage === 'ResponseStarted' && e.verb !== 'watch'), []);
  assert.ok(all.some((e) => e.stage === 'ResponseStarted' && e.verb === 'watch' && e.objectRef?.resource === 'configmaps'));
});

test('admission\'s audit annotations: a ValidatingAdmissionPolicy\'s published keys and its Audit action\'s validation_failure', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-red}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "!has(object.data) || !('colour' in object.data) || object.data.colour != 'red'"
    message: red is not allowed
  auditAnnotations:
  - key: colour
    valueExpression: "'colour is ' + object.data.colour"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-red-audit}
spec:
  policyName: no-red
  validationActions: [Audit, Warn]
`);
  const r = await kubectl(cluster, ['create', 'configmap', 'red', '--from-literal=colour=red']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "Warning: Validation failed for ValidatingAdmissionPolicy 'no-red' with binding 'no-red-audit': red is not allowed\n");
  const create = await eventually('the create event', () =>
    Promise.resolve(events().find((e) => e.objectRef?.resource === 'configmaps' && e.objectRef.name === 'red' && e.verb === 'create')));
  assert.deepEqual(create?.annotations, {
    'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '',
    'no-red/colour': 'colour is red',
    'validation.policy.admission.k8s.io/validation_failure':
      '[{"message":"red is not allowed","policy":"no-red","binding":"no-red-audit","expressionIndex":0,"validationActions":["Audit","Warn"]}]',
  });
  await kubectlOk(cluster, ['delete', 'validatingadmissionpolicybinding', 'no-red-audit']);
});

test('a component writes as its own user: the service account controller creates the namespace\'s default ServiceAccount', async () => {
  await kubectlOk(cluster, ['create', 'namespace', 'audited-ns']);
  const ev = await eventually('the default ServiceAccount\'s create event', async () =>
    events().find((e) => e.verb === 'create' && e.objectRef?.resource === 'serviceaccounts' && e.objectRef.namespace === 'audited-ns'));
  assert.equal(ev.user.username, 'system:serviceaccount:kube-system:service-account-controller');
  assert.deepEqual(ev.objectRef, { resource: 'serviceaccounts', namespace: 'audited-ns', name: 'default', apiVersion: 'v1' });
  assert.equal(ev.level, 'Metadata');
  assert.equal(ev.stage, 'ResponseComplete');
  assert.deepEqual(ev.responseStatus, { metadata: {}, code: 201 });
  assert.equal(ev.requestObject, undefined);
  assert.equal(ev.requestURI, '/api/v1/namespaces/audited-ns/serviceaccounts');
  assert.equal(ev.annotations?.['authorization.k8s.io/decision'], 'allow');
});

test('a forbidden request is logged with decision forbid and its 403 Status', async () => {
  const file = join(dataDir, 'dev.kubeconfig');
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, [MAIN, 'kubeconfig', '--user', 'dev', '--data-dir', dataDir, '--output', file], (err) => (err ? reject(new Error(err.message)) : resolve()));
  });
  const r = await kubectl(cluster, ['--kubeconfig', file, 'get', 'pods']);
  assert.notEqual(r.code, 0);
  const ev = await eventually('an event of dev listing pods', () =>
    Promise.resolve(events().find((e) => e.user.username === 'dev' && e.objectRef?.resource === 'pods')));
  assert.equal(ev.verb, 'list');
  assert.equal(ev.stage, 'ResponseComplete');
  assert.deepEqual(ev.objectRef, { resource: 'pods', namespace: 'default', apiVersion: 'v1' });
  assert.deepEqual(ev.responseStatus, {
    metadata: {}, status: 'Failure',
    message: 'pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "default"',
    reason: 'Forbidden', details: { kind: 'pods' }, code: 403,
  });
  assert.deepEqual(ev.annotations, { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' });
  assert.equal(statSync(logFile).mode & 0o777, 0o600);
});
