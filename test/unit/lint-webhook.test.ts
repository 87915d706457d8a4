/**
 * `winkube webhook`'s decisions as pure functions: AdmissionReview parsing
 * and answers, /validate's refusals and warnings (UPDATE diffing, warn-only,
 * rule selection, suppression), /mutate's JSON patch, the in-cluster target
 * and the refreshed cluster description; and the HTTPS handler's answers to
 * malformed requests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePools } from '../../src/lint/cluster-description.js';
import { parseClusterFile } from '../../src/node/cluster-file.js';
import type { ClusterDescription, Obj } from '../../src/lint/types.js';
import { admissionReviewResponse, parseAdmissionReview, type AdmissionRequest } from '../../src/webhook/admission-review.js';
import { validateRequest } from '../../src/webhook/validate.js';
import { mutateRequest, windowsPlacementPatch } from '../../src/webhook/mutate.js';
import { inCluster, inClusterTarget } from '../../src/webhook/in-cluster.js';
import { ClusterSource } from '../../src/webhook/cluster-source.js';
import { startWebhookServer, WebhookHandler } from '../../src/webhook/server.js';
import { createCA, issue } from '../../src/pki/issue.js';
import { readKeyPair, reloadKeyPairOnChange } from '../../src/webhook/tls-files.js';
import { connect } from 'node:tls';

const cluster = describePools();
const WIN = 'mcr.microsoft.com/windows/nanoserver:ltsc2022';
const pod = (spec: Obj, metadata: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...metadata }, spec });
const onWindows = { 'kubernetes.io/os': 'windows' };
/** WK103: a Linux image in a Windows pod. */
const mixed = pod({ nodeSelector: onWindows, containers: [{ name: 'app', image: WIN }, { name: 'proxy', image: 'nginx:1.27' }] });
/** WK108: runAsUser on Windows. */
const numericUser = pod({ nodeSelector: onWindows, securityContext: { runAsUser: 1000 }, containers: [{ name: 'app', image: WIN }] });
const create = (object: Obj): AdmissionRequest => ({ uid: 'u-1', kind: String(object.kind), operation: 'CREATE', object });
const update = (object: Obj, oldObject: Obj): AdmissionRequest => ({ uid: 'u-2', kind: String(object.kind), operation: 'UPDATE', object, oldObject });

const WK103 = '[WK103] spec.containers[1].image: image nginx:1.27 has no windows platform, and the pod targets Windows nodes';
const WK108 = '[WK108] spec.securityContext.runAsUser: securityContext.runAsUser is not supported on Windows (no numeric user IDs)';

test('an error denies with 403 Forbidden, the message listing rule ids and messages', () => {
  assert.deepEqual(validateRequest(create(mixed), cluster), {
    allowed: false, code: 403, reason: 'Forbidden', message: `winkube lint found 1 error:\n${WK103}`,
  });
});

test('several errors: one line each; warnings ride along with the refusal', () => {
  const both = pod({
    nodeSelector: onWindows, securityContext: { runAsUser: 1000 },
    containers: [{ name: 'app', image: WIN }, { name: 'proxy', image: 'nginx:1.27' }, { name: 'side', image: 'busybox:1.36' }],
  });
  const d = validateRequest(create(both), cluster);
  assert.deepEqual(d, {
    allowed: false, code: 403, reason: 'Forbidden',
    message: `winkube lint found 2 errors:\n${WK103}\n[WK103] spec.containers[2].image: image busybox:1.36 has no windows platform, and the pod targets Windows nodes`,
    warnings: [WK108],
  });
});

test('WK112: the API default grace period (30 s) is not the user\'s ask; any other value is reported through the webhook', () => {
  const docker = describePools(parseClusterFile(readFileSync(new URL('../../../test/fixtures/lint/cluster-docker.yaml', import.meta.url), 'utf8')));
  const withGrace = (seconds: number): Obj => pod({ nodeSelector: onWindows, terminationGracePeriodSeconds: seconds, containers: [{ name: 'app', image: WIN }] });
  assert.deepEqual(validateRequest(create(withGrace(30)), docker, { enable: ['WK112'] }), { allowed: true });
  assert.deepEqual(validateRequest(create(withGrace(60)), docker, { enable: ['WK112'] }), {
    allowed: true,
    warnings: ['[WK112] spec.terminationGracePeriodSeconds: terminationGracePeriodSeconds 60 is not honoured on Windows nodes running Docker (win-docker-1): containers are stopped after 5 s'],
  });
});

test('warnings allow, returned as response.warnings', () => {
  assert.deepEqual(validateRequest(create(numericUser), cluster), { allowed: true, warnings: [WK108] });
});

test('a clean object is allowed without warnings', () => {
  assert.deepEqual(validateRequest(create(pod({ nodeSelector: onWindows, containers: [{ name: 'app', image: WIN }] })), cluster), { allowed: true });
});

test('--warn-only: errors become warnings, nothing is denied', () => {
  assert.deepEqual(validateRequest(create(mixed), cluster, { warnOnly: true }), { allowed: true, warnings: [WK103] });
});

test('UPDATE: findings the old object already had do not count; new ones do', () => {
  const relabelled = { ...mixed, metadata: { ...mixed.metadata, labels: { app: 'x' } } };
  assert.deepEqual(validateRequest(update(relabelled, mixed), cluster), { allowed: true });
  const clean = pod({ nodeSelector: onWindows, containers: [{ name: 'app', image: WIN }] });
  assert.deepEqual(validateRequest(update(mixed, clean), cluster).message, `winkube lint found 1 error:\n${WK103}`);
  // An old object with a different error does not excuse this one.
  const otherError = pod({ nodeSelector: onWindows, containers: [{ name: 'app', image: WIN }, { name: 'db', image: 'busybox:1.36' }] });
  assert.equal(validateRequest(update(mixed, otherError), cluster).allowed, false);
});

test('deletes, subresources and requests without an object are allowed unchecked', () => {
  assert.deepEqual(validateRequest({ uid: 'u', kind: 'Pod', operation: 'DELETE', oldObject: mixed }, cluster), { allowed: true });
  assert.deepEqual(validateRequest({ ...create(mixed), subResource: 'status' }, cluster), { allowed: true });
  assert.deepEqual(validateRequest({ uid: 'u', kind: 'Pod', operation: 'CREATE' }, cluster), { allowed: true });
});

test("objects of built-in controllers are not checked again (their template was); other owners' are", () => {
  const owned = (apiVersion: string, kind: string, controller = true) => ({
    ...mixed, metadata: { ...mixed.metadata, ownerReferences: [{ apiVersion, kind, name: 'o', uid: 'x', controller }] },
  });
  assert.deepEqual(validateRequest(create(owned('apps/v1', 'ReplicaSet')), cluster), { allowed: true });
  assert.deepEqual(validateRequest(create(owned('batch/v1', 'Job')), cluster), { allowed: true });
  assert.equal(validateRequest(create(owned('apps/v1', 'ReplicaSet', false)), cluster).allowed, false);
  assert.equal(validateRequest(create(owned('argoproj.io/v1alpha1', 'Rollout')), cluster).allowed, false);
});

test('rule selection and the suppression annotation', () => {
  assert.deepEqual(validateRequest(create(mixed), cluster, { disable: ['WK103'] }), { allowed: true });
  assert.deepEqual(validateRequest(create(mixed), cluster, { enable: ['WK108'] }), { allowed: true });
  const suppressed = { ...mixed, metadata: { ...mixed.metadata, annotations: { 'winkube.io/lint-ignore': 'WK103' } } };
  assert.deepEqual(validateRequest(create(suppressed), cluster), { allowed: true });
});

test("workload templates are checked; the API server's own warnings (WK122) only when enabled", () => {
  const deployment: Obj = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: {
      nodeSelector: { 'beta.kubernetes.io/os': 'windows' }, containers: [{ name: 'app', image: WIN }, { name: 'proxy', image: 'nginx:1.27' }],
    } } },
  };
  const d = validateRequest(create(deployment), cluster);
  assert.equal(d.message, 'winkube lint found 1 error:\n[WK103] spec.template.spec.containers[1].image: image nginx:1.27 has no windows platform, and the pod targets Windows nodes');
  assert.equal(d.warnings, undefined);
  assert.deepEqual(validateRequest(create(deployment), cluster, { enable: ['WK122'] }), {
    allowed: true,
    warnings: ['[WK122] spec.template.spec.nodeSelector[beta.kubernetes.io/os]: spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead'],
  });
});

test('the AdmissionReview answer: apiVersion, kind, uid echoed, Status for refusals, base64 JSONPatch', () => {
  assert.deepEqual(admissionReviewResponse('u-1', { allowed: false, code: 403, reason: 'Forbidden', message: 'no', warnings: ['w'] }), {
    kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1',
    response: { uid: 'u-1', allowed: false, status: { metadata: {}, message: 'no', reason: 'Forbidden', code: 403 }, warnings: ['w'] },
  });
  assert.deepEqual(admissionReviewResponse('u-2', { allowed: true }), { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', response: { uid: 'u-2', allowed: true } });
  const r = admissionReviewResponse('u-3', { allowed: true, patch: [{ op: 'add', path: '/a', value: 1 }] }) as { response: { patch: string; patchType: string } };
  assert.equal(r.response.patchType, 'JSONPatch');
  assert.equal(Buffer.from(r.response.patch, 'base64').toString(), '[{"op":"add","path":"/a","value":1}]');
});

test('malformed reviews: what is wrong, said plainly', () => {
  const bad = (body: string) => { try { parseAdmissionReview(body); return 'parsed'; } catch (e) { return (e as Error).message; } };
  assert.equal(bad(''), 'request body is empty');
  // JSON.parse's own words, which differ between Node releases.
  const jsonError = (() => { try { JSON.parse('{'); return ''; } catch (e) { return (e as Error).message; } })();
  assert.equal(bad('{'), `couldn't decode the body as an AdmissionReview: ${jsonError}`);
  assert.equal(bad('[]'), "couldn't decode the body as an AdmissionReview: not a JSON object");
  assert.equal(bad('{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"}'),
    'expected an admission.k8s.io/v1 AdmissionReview, got apiVersion "admission.k8s.io/v1beta1", kind "AdmissionReview"');
  const v1 = (request: unknown) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
  assert.equal(bad(v1(undefined)), 'the AdmissionReview has no request');
  assert.equal(bad(v1({ operation: 'CREATE' })), 'request.uid is missing');
  assert.equal(bad(v1({ uid: 'x' })), 'request.operation is missing');
  assert.equal(bad(v1({ uid: 'x', operation: 'CREATE', object: 'pod' })), 'request.object is not an object');
  assert.deepEqual(parseAdmissionReview(v1({ uid: 'x', operation: 'UPDATE', kind: { group: '', version: 'v1', kind: 'Pod' }, subResource: 'status', object: {}, oldObject: null })),
    { uid: 'x', kind: 'Pod', operation: 'UPDATE', subResource: 'status', object: {} });
});

const TOLERATION = { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' };

test('mutate: a Windows-image pod with no OS placement gets the nodeSelector and the toleration', () => {
  assert.deepEqual(windowsPlacementPatch(pod({ containers: [{ name: 'app', image: WIN }] })), [
    { op: 'add', path: '/spec/nodeSelector', value: { 'kubernetes.io/os': 'windows' } },
    { op: 'add', path: '/spec/tolerations', value: [TOLERATION] },
  ]);
  assert.deepEqual(windowsPlacementPatch(pod({ nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'gpu', operator: 'Exists' }], containers: [{ name: 'app', image: WIN }] })), [
    { op: 'add', path: '/spec/nodeSelector/kubernetes.io~1os', value: 'windows' },
    { op: 'add', path: '/spec/tolerations/-', value: TOLERATION },
  ]);
  // Already tolerated: only the nodeSelector.
  assert.deepEqual(windowsPlacementPatch(pod({ tolerations: [TOLERATION], containers: [{ name: 'app', image: WIN }] })), [
    { op: 'add', path: '/spec/nodeSelector', value: { 'kubernetes.io/os': 'windows' } },
  ]);
});

test('mutate: pods already placed, Linux or mixed pods, and other operations are left alone', () => {
  assert.deepEqual(windowsPlacementPatch(pod({ nodeSelector: onWindows, containers: [{ name: 'app', image: WIN }] })), []);
  assert.deepEqual(windowsPlacementPatch(pod({ runtimeClassName: 'windows-2022', containers: [{ name: 'app', image: WIN }] })), []);
  assert.deepEqual(windowsPlacementPatch(pod({ os: { name: 'windows' }, containers: [{ name: 'app', image: WIN }] })), []);
  assert.deepEqual(windowsPlacementPatch(pod({ containers: [{ name: 'app', image: 'nginx:1.27' }] })), []);
  assert.deepEqual(windowsPlacementPatch(pod({ containers: [{ name: 'app', image: WIN }, { name: 'proxy', image: 'nginx:1.27' }] })), []);
  assert.deepEqual(windowsPlacementPatch(pod({ containers: [{ name: 'app', image: 'example.com/unknown:1' }] })), []);
  const unpinned = pod({ containers: [{ name: 'app', image: WIN }] });
  assert.deepEqual(mutateRequest({ uid: 'u', kind: 'Pod', operation: 'UPDATE', object: unpinned, oldObject: unpinned }), { allowed: true });
  assert.equal(mutateRequest(create(unpinned)).patch?.length, 2);
});

test('in-cluster configuration: the service host and port, the CA and the token, read from the service account directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sa-'));
  try {
    assert.equal(inCluster({ env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, dir }), false);
    writeFileSync(join(dir, 'token'), 'tok-1\n');
    writeFileSync(join(dir, 'ca.crt'), 'CA');
    assert.equal(inCluster({ env: {}, dir }), false);
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    assert.equal(inCluster({ env, dir }), true);
    const t = inClusterTarget({ env, dir });
    assert.deepEqual([t.server.href, t.token, t.ca?.toString()], ['https://[fd00::1]/', 'tok-1', 'CA']);
    writeFileSync(join(dir, 'token'), 'tok-2');
    assert.equal(inClusterTarget({ env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '6443' }, dir }).token, 'tok-2');
    assert.throws(() => inClusterTarget({ env: {}, dir }), { message: 'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the cluster source keeps the last description when a refresh fails, and says so', async () => {
  const logged: string[] = [];
  const answers: Array<ClusterDescription | Error> = [new Error('connection refused'), cluster, new Error('timeout')];
  const source = new ClusterSource(async () => { const a = answers.shift()!; if (a instanceof Error) throw a; return a; }, (l) => logged.push(l));
  await source.refresh();
  assert.equal(source.current(), undefined);
  await source.refresh();
  assert.equal(source.current(), cluster);
  await source.refresh();
  assert.equal(source.current(), cluster);
  assert.deepEqual(logged, ['reading the cluster failed: connection refused', 'reading the cluster failed, keeping the last description: timeout']);
});

interface Answer { status: number; type: string; body: string }

test('the HTTPS handler: health, readiness, 400s for malformed requests, a review answered', async () => {
  const ca = await createCA();
  const pair = await issue(ca, 'CN=webhook', 'server', { dns: [], ip: ['127.0.0.1'] });
  let described: ClusterDescription | undefined;
  const source = new ClusterSource(async () => { if (!described) throw new Error('not yet'); return described; }, () => {});
  const { server, port } = await startWebhookServer(pair, new WebhookHandler(source, {}), 0, '127.0.0.1', () => {});
  const call = (method: string, path: string, body?: string, type = 'application/json') => new Promise<Answer>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, ca: ca.cert, headers: body === undefined ? {} : { 'Content-Type': type } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
  const status = (code: number, reason: string, message: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
  try {
    assert.deepEqual(await call('GET', '/healthz'), { status: 200, type: 'text/plain; charset=utf-8', body: 'ok' });
    assert.deepEqual(await call('GET', '/readyz'), { status: 503, type: 'text/plain; charset=utf-8', body: 'not ready: the cluster has not been read yet' });
    described = cluster;
    await source.refresh();
    assert.deepEqual(await call('GET', '/readyz'), { status: 200, type: 'text/plain; charset=utf-8', body: 'ok' });
    assert.deepEqual(await call('GET', '/validate'), { status: 405, type: 'application/json', body: status(405, 'MethodNotAllowed', 'GET is not allowed on /validate: AdmissionReviews are POSTed') });
    assert.deepEqual(await call('POST', '/mutate', '{}'), { status: 404, type: 'application/json', body: status(404, 'NotFound', 'no handler for /mutate') });
    assert.deepEqual(await call('POST', '/validate', 'x', 'text/plain'), { status: 400, type: 'application/json', body: status(400, 'BadRequest', 'contentType=text/plain, expected application/json') });
    assert.deepEqual(await call('POST', '/validate', ''), { status: 400, type: 'application/json', body: status(400, 'BadRequest', 'request body is empty') });
    const review = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'abc', kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', object: mixed } });
    const answer = await call('POST', '/validate', review);
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), {
      kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1',
      response: { uid: 'abc', allowed: false, status: { metadata: {}, message: `winkube lint found 1 error:\n${WK103}`, reason: 'Forbidden', code: 403 } },
    });
  } finally {
    server.close();
    server.closeAllConnections();
  }
});

/** The subject CN of the certificate the server at port presents. */
function servedCN(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port, ca, servername: undefined }, () => {
      const cn = sock.getPeerCertificate().subject.CN;
      sock.end();
      resolve(Array.isArray(cn) ? cn.join(',') : String(cn));
    });
    sock.on('error', reject);
  });
}

test('the key pair is reloaded when its files change; a broken pair keeps the current one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tls-'));
  const ca = await createCA();
  const write = async (cn: string) => {
    const p = await issue(ca, `CN=${cn}`, 'server', { dns: [], ip: ['127.0.0.1'] });
    writeFileSync(join(dir, 'tls.crt'), p.cert);
    writeFileSync(join(dir, 'tls.key'), p.key);
  };
  await write('first');
  const source = new ClusterSource(async () => cluster, () => {});
  const { server, port } = await startWebhookServer(readKeyPair(join(dir, 'tls.crt'), join(dir, 'tls.key')), new WebhookHandler(source, {}), 0, '127.0.0.1', () => {});
  const logged: string[] = [];
  const stop = reloadKeyPairOnChange(server, join(dir, 'tls.crt'), join(dir, 'tls.key'), 20, (l) => logged.push(l));
  /** Polls until cond holds: the files are looked at every 20 ms. */
  const until = async (cond: () => Promise<boolean> | boolean) => { while (!(await cond())) await new Promise((r) => setTimeout(r, 10)); };
  try {
    assert.equal(await servedCN(port, ca.cert), 'first');
    await write('second');
    await until(async () => (await servedCN(port, ca.cert)) === 'second');
    assert.equal(logged.at(-1), 'reloaded the serving certificate');
    const before = logged.length;
    writeFileSync(join(dir, 'tls.key'), 'not a key');
    await until(() => logged.length > before);
    assert.match(logged.at(-1)!, /^keeping the serving certificate: the new key pair does not load: /);
    assert.equal(await servedCN(port, ca.cert), 'second');
  } finally {
    stop();
    server.close();
    server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  }
});
