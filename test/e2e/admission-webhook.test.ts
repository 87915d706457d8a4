/**
 * Admission webhooks end to end: a webhook server of a few lines of node:https with its own CA,
 * reached through a `url` and through a selector-less Service with hand-written Endpoints,
 * mutating and denying pods created with kubectl; failure policies with the server down, a
 * time-out, selectors, a match condition, dry runs and warnings, with upstream's texts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { createCA, issue } from '../../src/pki/issue.js';
import { kubectl, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

interface Review {
  request: {
    uid: string; name?: string; namespace?: string; operation: string; dryRun: boolean;
    object: { metadata?: { labels?: Record<string, string> } } | null; options: { kind: string; dryRun?: string[]; fieldManager?: string; fieldValidation?: string };
    kind: Record<string, string>; resource: Record<string, string>;
  };
}

let cluster: TestCluster;
let server: https.Server;
let port = 0;
let caBundle = '';
/**
 * The address the Endpoints name: Endpoints may not point at loopback (ValidateNonSpecialIP), so
 * the webhook also listens on this machine's first non-loopback IPv4 address, as a developer's
 * webhook would.
 */
let hostIP = '';
const seen: { path: string; review: Review }[] = [];

/** The webhook: /mutate adds a label, /deny refuses pods named bad-*, /warn allows with a warning, /slow answers after 3 s. */
function handle(path: string, review: Review): Record<string, unknown> {
  const uid = review.request.uid;
  if (path === '/mutate') {
    const labels = review.request.object?.metadata?.labels;
    const patch = labels ? [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }]
      : [{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }];
    return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') };
  }
  if (path === '/deny') {
    const name = review.request.name ?? '';
    if (name.startsWith('bad-')) return { uid, allowed: false, status: { code: 403, message: `pod name ${name} is not allowed` } };
    return { uid, allowed: true };
  }
  if (path === '/warn') return { uid, allowed: true, warnings: ['pods here are watched'] };
  if (path === '/deny-delete') {
    return review.request.operation === 'DELETE' ? { uid, allowed: false, status: { message: 'deletes are not allowed' } } : { uid, allowed: true };
  }
  if (path === '/deny-rm') {
    const command = (review.request.object as { command?: string[] } | null)?.command ?? [];
    return command[0] === 'rm' ? { uid, allowed: false, status: { code: 403, message: 'rm is not allowed in this namespace' } } : { uid, allowed: true };
  }
  if (path === '/deny-subresource') {
    return { uid, allowed: false, status: { code: 403, reason: 'Forbidden', message: `no ${review.request.kind.kind} for ${review.request.name} here` } };
  }
  if (path === '/bad-uid') return { uid: 'wrong', allowed: true };
  if (path === '/bad-patch') {
    return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'remove', path: '/nothing/here' }])).toString('base64') };
  }
  if (path === '/unknown-field') {
    return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'replace', path: '/spec/nope', value: 1 }])).toString('base64') };
  }
  if (path === '/first') {
    // Records whether /second's label was there when it was called.
    const labels = review.request.object?.metadata?.labels ?? {};
    const value = labels.second ? 'after-second' : 'before-second';
    return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels/first', value }])).toString('base64') };
  }
  if (path === '/second') {
    return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels/second', value: 'yes' }])).toString('base64') };
  }
  return { uid, allowed: true };
}

/** What the v1beta1 webhook answers: no uid check, a patch without patchType. */
function handleV1beta1(review: Review): Record<string, unknown> {
  const patch = [{ op: 'add', path: '/metadata/labels', value: { beta: 'yes' } }];
  return { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true, patch: Buffer.from(JSON.stringify(patch)).toString('base64') } };
}

before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  const ca = await createCA();
  hostIP = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address ?? '';
  assert.ok(hostIP, 'this test needs a non-loopback IPv4 address');
  const cert = await issue(ca, 'webhook', 'server', { dns: ['hooks.default.svc'], ip: ['127.0.0.1', hostIP] });
  caBundle = Buffer.from(ca.cert).toString('base64');
  server = https.createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const review = JSON.parse(body) as Review;
      const path = (req.url ?? '').split('?')[0]!;
      seen.push({ path, review });
      const answer = JSON.stringify(path === '/beta' ? handleV1beta1(review)
        : { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: handle(path, review) });
      const send = () => { res.setHeader('Content-Type', 'application/json'); res.end(answer); };
      if (path === '/slow') setTimeout(send, 3000); else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
  port = (server.address() as AddressInfo).port;
  // The Service the service-targeted webhooks name: no selector, its Endpoints written by hand.
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks', namespace: 'default' }, spec: { ports: [{ name: 'https', port: 443, targetPort: port }] } },
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hooks', namespace: 'default' },
        subsets: [{ addresses: [{ ip: hostIP }], ports: [{ name: 'https', port }] }] },
    ],
  }));
});

after(async () => {
  server?.closeAllConnections();
  server?.close();
  await cluster?.stop();
  if (cluster) removeDir(cluster.dataDir);
});

const podRule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };

function webhook(name: string, clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { name, clientConfig: { caBundle, ...clientConfig }, rules: [podRule], sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra };
}

function configuration(kind: 'Mutating' | 'Validating', name: string, webhooks: unknown[]) {
  return JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name }, webhooks });
}

/** A namespace of its own per test, labelled so that only that test's webhooks select it. */
async function namespace(name: string, labels: Record<string, string> = { test: name }): Promise<void> {
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }));
}

function pod(name: string, ns: string, labels?: Record<string, string>): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
    spec: { containers: [{ name: 'c', image: 'busybox' }] } });
}

const selecting = (ns: string) => ({ namespaceSelector: { matchLabels: { test: ns } } });

test('webhook configurations are served with upstream defaults, validation and columns', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'defaults', [webhook('defaults.example.com', { url: `https://127.0.0.1:${port}/allow` }, selecting('none'))]));
  const got = await rawJSON(cluster, 'GET', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/defaults');
  const h = got.body.webhooks[0];
  assert.deepEqual([h.failurePolicy, h.matchPolicy, h.timeoutSeconds, h.objectSelector, h.rules[0].scope], ['Fail', 'Equivalent', 10, {}, '*']);
  const table = await kubectlOk(cluster, ['get', 'validatingwebhookconfigurations']);
  assert.match(table, /^NAME\s+WEBHOOKS\s+AGE\ndefaults\s+1\s+\S+\n$/);
  const bad = await kubectl(cluster, ['create', '-f', '-'], {
    input: configuration('Mutating', 'bad', [webhook('bad', { url: 'http://127.0.0.1/x' }, { timeoutSeconds: 31, sideEffects: 'Some' })]),
  });
  assert.equal(bad.stderr.trim(), 'The MutatingWebhookConfiguration "bad" is invalid: \n' +
    '* webhooks[0].name: Invalid value: "bad": should be a domain with at least three segments separated by dots\n' +
    '* webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"\n' +
    '* webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds\n' +
    '* webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]');
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'defaults']);
});

test('a mutating webhook on a url adds a label to pods created with kubectl', async () => {
  await namespace('mutate-url');
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'label-url', [
    webhook('label.example.com', { url: `https://127.0.0.1:${port}/mutate` }, selecting('mutate-url'))]));
  await kubectlOk(cluster, ['create', '-f', '-'], pod('p1', 'mutate-url'));
  const labels = await kubectlOk(cluster, ['get', 'pod', 'p1', '-n', 'mutate-url', '-o', 'jsonpath={.metadata.labels}']);
  assert.equal(labels, '{"mutated":"yes"}');
  const r = seen.filter((s) => s.path === '/mutate').at(-1)!.review.request;
  assert.deepEqual([r.operation, r.namespace, r.name, r.dryRun, r.kind, r.resource, r.options],
    ['CREATE', 'mutate-url', 'p1', false, { group: '', version: 'v1', kind: 'Pod' }, { group: '', version: 'v1', resource: 'pods' },
      { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl-create', fieldValidation: 'Strict' }]);
  await kubectlOk(cluster, ['delete', 'mutatingwebhookconfiguration', 'label-url']);
});

test('a validating webhook reached through a Service and its Endpoints denies a pod, with the webhook\'s message', async () => {
  await namespace('deny-svc');
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'deny-svc', [
    webhook('deny.example.com', { service: { name: 'hooks', namespace: 'default', path: '/deny' } }, selecting('deny-svc'))]));
  const denied = await kubectl(cluster, ['create', '-f', '-'], { input: pod('bad-one', 'deny-svc') });
  assert.equal(denied.stderr.trim(),
    'Error from server: error when creating "STDIN": admission webhook "deny.example.com" denied the request: pod name bad-one is not allowed');
  await kubectlOk(cluster, ['create', '-f', '-'], pod('good-one', 'deny-svc'));
  // The mutating webhook through the same Service.
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'label-svc', [
    webhook('label.example.com', { service: { name: 'hooks', namespace: 'default', path: '/mutate' } }, selecting('deny-svc'))]));
  await kubectlOk(cluster, ['create', '-f', '-'], pod('good-two', 'deny-svc', { app: 'x' }));
  assert.equal(await kubectlOk(cluster, ['get', 'pod', 'good-two', '-n', 'deny-svc', '-o', 'jsonpath={.metadata.labels}']), '{"app":"x","mutated":"yes"}');
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'deny-svc']);
  await kubectlOk(cluster, ['delete', 'mutatingwebhookconfiguration', 'label-svc']);
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return p;
}

test('failurePolicy Fail refuses the write when the webhook is down, Ignore lets it through', async () => {
  await namespace('down');
  const p = await closedPort();
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'down', [
    webhook('down.example.com', { url: `https://127.0.0.1:${p}/x` }, selecting('down'))]));
  const failed = await kubectl(cluster, ['create', '-f', '-'], { input: pod('p', 'down') });
  assert.equal(failed.stderr.trim(), 'Error from server (InternalError): error when creating "STDIN": Internal error occurred: ' +
    `failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:${p}/x?timeout=10s": dial tcp 127.0.0.1:${p}: connect: connection refused`);
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'down', [
    webhook('down.example.com', { url: `https://127.0.0.1:${p}/x` }, { ...selecting('down'), failurePolicy: 'Ignore' })]));
  await kubectlOk(cluster, ['create', '-f', '-'], pod('p', 'down'));
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'down']);
});

test('a webhook slower than its timeoutSeconds fails the write as a time-out', async () => {
  await namespace('slow');
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'slow', [
    webhook('slow.example.com', { url: `https://127.0.0.1:${port}/slow` }, { ...selecting('slow'), timeoutSeconds: 1 })]));
  const failed = await kubectl(cluster, ['create', '-f', '-'], { input: pod('p', 'slow') });
  assert.equal(failed.stderr.trim(), 'Error from server (InternalError): error when creating "STDIN": Internal error occurred: ' +
    `failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/slow?timeout=1s": context deadline exceeded`);
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'slow']);
});

test('namespaceSelector, objectSelector and matchConditions decide which writes a webhook sees', async () => {
  await namespace('sel-on', { test: 'sel', hooks: 'on' });
  await namespace('sel-off', { test: 'sel' });
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'selectors', [
    webhook('deny.example.com', { url: `https://127.0.0.1:${port}/deny` }, {
      namespaceSelector: { matchLabels: { hooks: 'on' } },
      objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
      matchConditions: [{ name: 'not-exempt', expression: "object.metadata.name != 'bad-exempt'" }],
    })]));
  const denied = await kubectl(cluster, ['create', '-f', '-'], { input: pod('bad-a', 'sel-on') });
  assert.match(denied.stderr, /admission webhook "deny.example.com" denied the request: pod name bad-a is not allowed/);
  await kubectlOk(cluster, ['create', '-f', '-'], pod('bad-a', 'sel-off'));
  await kubectlOk(cluster, ['create', '-f', '-'], pod('bad-b', 'sel-on', { skip: 'yes' }));
  await kubectlOk(cluster, ['create', '-f', '-'], pod('bad-exempt', 'sel-on'));
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'selectors']);
});

test('a match condition that fails to evaluate refuses the write as Forbidden under failurePolicy Fail', async () => {
  await namespace('mc-error');
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'mc-error', [
    webhook('mc.example.com', { url: `https://127.0.0.1:${port}/allow` }, {
      ...selecting('mc-error'), matchConditions: [{ name: 'missing', expression: "object.metadata.annotations['x'] == 'y'" }],
    })]));
  const failed = await kubectl(cluster, ['create', '-f', '-'], { input: pod('p', 'mc-error') });
  assert.equal(failed.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": pods "p" is forbidden: ' +
    "expression 'object.metadata.annotations['x'] == 'y'' resulted in error: no such key: annotations");
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'mc-error']);
});

test('a dry run reaches webhooks without side effects, marked as such, and warnings reach kubectl', async () => {
  await namespace('dry');
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'dry', [
    webhook('warn.example.com', { url: `https://127.0.0.1:${port}/warn` }, { ...selecting('dry'), sideEffects: 'NoneOnDryRun' })]));
  const r = await kubectl(cluster, ['create', '--dry-run=server', '-f', '-'], { input: pod('p', 'dry') });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.trim(), 'Warning: pods here are watched');
  const req = seen.filter((s) => s.path === '/warn').at(-1)!.review.request;
  assert.deepEqual([req.dryRun, req.options.dryRun], [true, ['All']]);
  assert.equal((await kubectl(cluster, ['get', 'pod', 'p', '-n', 'dry'])).code, 1);
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'dry']);
});

test('a validating webhook sees DELETE with the object being deleted and can refuse it', async () => {
  await namespace('deletes');
  await kubectlOk(cluster, ['create', '-f', '-'], pod('p', 'deletes'));
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'deletes', [
    webhook('deny-delete.example.com', { url: `https://127.0.0.1:${port}/deny-delete` }, {
      ...selecting('deletes'), rules: [{ ...podRule, operations: ['DELETE'] }] })]));
  const refused = await kubectl(cluster, ['delete', 'pod', 'p', '-n', 'deletes']);
  assert.equal(refused.stderr.trim(), 'Error from server: admission webhook "deny-delete.example.com" denied the request: deletes are not allowed');
  const r = seen.filter((x) => x.path === '/deny-delete').at(-1)!.review.request;
  assert.deepEqual([r.operation, r.name, r.object, (r as unknown as { oldObject: { metadata: { name: string } } }).oldObject.metadata.name, r.options],
    ['DELETE', 'p', null, 'p', { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' }]);
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'deletes']);
  await kubectlOk(cluster, ['delete', 'pod', 'p', '-n', 'deletes', '--grace-period=0', '--force']);
});

test('a validating webhook sees CONNECT of pods/exec with the PodExecOptions and can refuse the exec', async () => {
  await namespace('connects');
  await kubectlOk(cluster, ['create', '-f', '-'], pod('p', 'connects'));
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'connects', [
    webhook('deny-rm.example.com', { url: `https://127.0.0.1:${port}/deny-rm` }, {
      ...selecting('connects'), rules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'] }] })]));
  const refused = await kubectl(cluster, ['exec', '-n', 'connects', 'p', '-c', 'c', '--', 'rm', '-rf', '/data']);
  assert.equal(refused.code, 1);
  // The webhook's Status (code 403, no reason) answers the upgrade request.
  assert.equal(refused.stderr, 'Error from server: admission webhook "deny-rm.example.com" denied the request: rm is not allowed in this namespace\n');
  // kubectl 1.27 asks for SPDY rather than WebSocket: the same answer.
  const spdy = await kubectl(cluster, ['exec', '-n', 'connects', 'p', '-c', 'c', '--', 'rm', '-rf', '/data'], { version: '1.27' });
  assert.equal(spdy.stderr, refused.stderr);
  const r = seen.filter((x) => x.path === '/deny-rm').at(-1)!.review.request as unknown as Record<string, unknown>;
  assert.deepEqual([r.operation, r.name, r.namespace, r.kind, r.resource, r.subResource, r.object, r.oldObject, r.options], [
    'CONNECT', 'p', 'connects', { group: '', version: 'v1', kind: 'PodExecOptions' }, { group: '', version: 'v1', resource: 'pods' }, 'exec',
    { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, stderr: true, container: 'c', command: ['rm', '-rf', '/data'] }, null, null,
  ]);
  // Admitted, the exec goes on to the pod, which no node runs here.
  const admitted = await kubectl(cluster, ['exec', '-n', 'connects', 'p', '-c', 'c', '--', 'ls']);
  assert.equal(admitted.stderr, 'Error from server (BadRequest): pod p does not have a host assigned\n');
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'connects']);
});

test('POSTs to pods/eviction and pods/binding reach webhooks as CREATEs of Eviction and Binding', async () => {
  await namespace('posts');
  await kubectlOk(cluster, ['create', '-f', '-'], pod('p', 'posts'));
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'posts', [
    webhook('deny-subresource.example.com', { url: `https://127.0.0.1:${port}/deny-subresource` }, {
      ...selecting('posts'), rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction', 'pods/binding'] }] })]));
  const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'posts' } };
  const evicted = await rawJSON(cluster, 'POST', '/api/v1/namespaces/posts/pods/p/eviction', eviction);
  assert.equal(evicted.status, 403);
  assert.equal(evicted.body.message, 'admission webhook "deny-subresource.example.com" denied the request: no Eviction for p here');
  const r = seen.filter((x) => x.path === '/deny-subresource').at(-1)!.review.request as unknown as Record<string, unknown>;
  assert.deepEqual([r.operation, r.kind, r.resource, r.subResource, r.requestKind, r.object, (r.options as { kind: string }).kind], [
    'CREATE', { group: 'policy', version: 'v1', kind: 'Eviction' }, { group: '', version: 'v1', resource: 'pods' }, 'eviction',
    { group: 'policy', version: 'v1', kind: 'Eviction' }, eviction, 'CreateOptions',
  ]);
  const bound = await rawJSON(cluster, 'POST', '/api/v1/namespaces/posts/pods/p/binding',
    { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'somewhere' } });
  assert.equal(bound.status, 403);
  assert.equal(bound.body.message, 'admission webhook "deny-subresource.example.com" denied the request: no Binding for p here');
  // Nothing was done: the pod is still there, unbound.
  const stored = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/posts/pods/p')).body;
  assert.equal(stored.spec.nodeName, undefined);
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'posts']);
});

test('bad answers: a wrong uid, a patch that does not apply, an unknown CA', async () => {
  await namespace('bad');
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'bad-uid', [
    webhook('uid.example.com', { url: `https://127.0.0.1:${port}/bad-uid` }, selecting('bad'))]));
  const uid = await kubectl(cluster, ['create', '-f', '-'], { input: pod('p', 'bad') });
  assert.match(uid.stderr.trim(), new RegExp('^Error from server \\(InternalError\\): error when creating "STDIN": Internal error occurred: ' +
    'failed calling webhook "uid\\.example\\.com": received invalid webhook response: expected response\\.uid="[0-9a-f-]{36}", got "wrong"$'));
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'bad-uid']);

  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'bad-patch', [
    webhook('patch.example.com', { url: `https://127.0.0.1:${port}/bad-patch` }, selecting('bad'))]));
  const patch = await kubectl(cluster, ['create', '-f', '-'], { input: pod('p', 'bad') });
  assert.equal(patch.stderr.trim(), 'Error from server (InternalError): error when creating "STDIN": Internal error occurred: ' +
    'remove operation does not apply: doc is missing path: "/nothing/here": missing value');
  // json-patch v4 adds a missing key on replace; the Pod type has no such field, so it is dropped.
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'bad-patch', [
    webhook('patch.example.com', { url: `https://127.0.0.1:${port}/unknown-field` }, selecting('bad'))]));
  await kubectlOk(cluster, ['create', '-f', '-'], pod('unknown', 'bad'));
  assert.equal(await kubectlOk(cluster, ['get', 'pod', 'unknown', '-n', 'bad', '-o', 'jsonpath={.spec.nope}']), '');
  await kubectlOk(cluster, ['delete', 'mutatingwebhookconfiguration', 'bad-patch']);

  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Validating', 'no-ca', [
    { ...webhook('ca.example.com', { url: `https://127.0.0.1:${port}/allow` }, selecting('bad')), clientConfig: { url: `https://127.0.0.1:${port}/allow` } }]));
  const ca = await kubectl(cluster, ['create', '-f', '-'], { input: pod('p', 'bad') });
  assert.equal(ca.stderr.trim(), 'Error from server (InternalError): error when creating "STDIN": Internal error occurred: ' +
    `failed calling webhook "ca.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/allow?timeout=10s": ` +
    'tls: failed to verify certificate: x509: certificate signed by unknown authority');
  await kubectlOk(cluster, ['delete', 'validatingwebhookconfiguration', 'no-ca']);
});

test('reinvocationPolicy IfNeeded calls a webhook again after a later one changed the object; v1beta1 answers are taken', async () => {
  await namespace('reinvoke');
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'a-first', [
    webhook('first.example.com', { url: `https://127.0.0.1:${port}/first` }, { ...selecting('reinvoke'), reinvocationPolicy: 'IfNeeded' })]));
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'b-second', [
    webhook('second.example.com', { url: `https://127.0.0.1:${port}/second` }, selecting('reinvoke'))]));
  await kubectlOk(cluster, ['create', '-f', '-'], pod('p', 'reinvoke', { app: 'x' }));
  assert.equal(await kubectlOk(cluster, ['get', 'pod', 'p', '-n', 'reinvoke', '-o', 'jsonpath={.metadata.labels}']),
    '{"app":"x","first":"after-second","second":"yes"}');
  await kubectlOk(cluster, ['delete', 'mutatingwebhookconfiguration', 'a-first', 'b-second']);

  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'beta', [
    webhook('beta.example.com', { url: `https://127.0.0.1:${port}/beta` }, { ...selecting('reinvoke'), admissionReviewVersions: ['v1beta1', 'v1'] })]));
  await kubectlOk(cluster, ['create', '-f', '-'], pod('q', 'reinvoke'));
  assert.equal(await kubectlOk(cluster, ['get', 'pod', 'q', '-n', 'reinvoke', '-o', 'jsonpath={.metadata.labels}']), '{"beta":"yes"}');
  assert.equal((seen.filter((x) => x.path === '/beta').at(-1)!.review as unknown as { apiVersion: string }).apiVersion, 'admission.k8s.io/v1beta1');
  await kubectlOk(cluster, ['delete', 'mutatingwebhookconfiguration', 'beta']);
});

test('matchPolicy Equivalent: a rule for autoscaling/v1 sees an autoscaling/v2 write in v1, and its patch lands', async () => {
  await namespace('equivalent');
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'hpa-v1', [
    webhook('hpa.example.com', { url: `https://127.0.0.1:${port}/mutate` }, {
      ...selecting('equivalent'), rules: [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] }],
    })]));
  await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify({
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'equivalent' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
  }));
  const r = seen.filter((x) => x.path === '/mutate').at(-1)!.review.request as Review['request'] & {
    requestKind: Record<string, string>; object: { spec?: { targetCPUUtilizationPercentage?: number } };
  };
  assert.deepEqual([r.kind, r.resource.version, r.requestKind.version, r.object.spec?.targetCPUUtilizationPercentage],
    [{ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' }, 'v1', 'v2', 50]);
  const got = await rawJSON(cluster, 'GET', '/apis/autoscaling/v2/namespaces/equivalent/horizontalpodautoscalers/h');
  assert.deepEqual([got.body.metadata.labels, got.body.spec.metrics[0].resource.target.averageUtilization], [{ mutated: 'yes' }, 50]);
  await kubectlOk(cluster, ['delete', 'mutatingwebhookconfiguration', 'hpa-v1']);
});

test('a create with generateName reaches webhooks without a name, as upstream generates it after admission', async () => {
  await namespace('generated');
  await kubectlOk(cluster, ['apply', '-f', '-'], configuration('Mutating', 'generated', [
    webhook('label.example.com', { url: `https://127.0.0.1:${port}/mutate` }, selecting('generated'))]));
  const out = await kubectlOk(cluster, ['create', '-o', 'jsonpath={.metadata.name} {.metadata.labels}', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'web-', namespace: 'generated' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }));
  assert.match(out, /^web-[a-z0-9]{5} \{"mutated":"yes"\}$/);
  const r = seen.filter((x) => x.path === '/mutate').at(-1)!.review.request as Review['request'] & { object: { metadata: Record<string, unknown> } };
  assert.deepEqual([r.name, r.object.metadata.name, r.object.metadata.generateName], [undefined, undefined, 'web-']);
  await kubectlOk(cluster, ['delete', 'mutatingwebhookconfiguration', 'generated']);
});

test('kubectl explain knows the webhook configurations, match conditions included', async () => {
  const out = await kubectlOk(cluster, ['explain', 'mutatingwebhookconfiguration.webhooks.matchConditions']);
  assert.match(out, /^GROUP:\s+admissionregistration\.k8s\.io\nKIND:\s+MutatingWebhookConfiguration\nVERSION:\s+v1\n\nFIELD: matchConditions <\[\]MatchCondition>/);
});
