/**
 * API Priority and Fairness end to end: the flowcontrol kinds as kubectl shows
 * them, the classification headers, 429 for a saturated priority level while
 * the admin (system:masters, exempt) goes on, queueing with its wait limit,
 * and watches and long-running requests that never hold a seat.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type Agent } from 'node:https';
import { Agent as HttpsAgent } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { credentials, eventually, kubectl, raw, rawJSON, removeDir, startCluster, type RawResponse, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
let token: string;
let agent: Agent;
before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  agent = new HttpsAgent({ ca: credentials(cluster).ca, keepAlive: false });
  assert.equal((await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: 'apf' } })).status, 201);
  assert.equal((await rawJSON(cluster, 'POST', '/api/v1/namespaces/apf/serviceaccounts', { metadata: { name: 'burst' } })).status, 201);
  // The account reads its namespace (RBAC is on, as in a kubeadm cluster).
  assert.equal((await rawJSON(cluster, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/apf/rolebindings', {
    metadata: { name: 'burst-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'ServiceAccount', name: 'burst', namespace: 'apf' }],
  })).status, 201);
  const tr = await rawJSON(cluster, 'POST', '/api/v1/namespaces/apf/serviceaccounts/burst/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  token = tr.body.status.token;
});
after(async () => { agent.destroy(); await cluster.stop(); removeDir(cluster.dataDir); });

/** A request as the service account (group system:serviceaccounts: not exempt). */
function asAccount(method: string, path: string): Promise<RawResponse> {
  return raw(cluster, method, path, { anonymous: true, headers: { Authorization: `Bearer ${token}` } });
}

/** A LIST as the service account whose response is never read: the server's write waits, and so its seat stays taken. */
function heldList(path: string): Promise<{ res: IncomingMessage; release(): void }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: cluster.port, path, agent, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }, (res) => {
      res.pause();
      resolve({ res, release: () => req.destroy() });
    });
    req.on('error', (e) => { if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e); });
    req.end();
  });
}

const uidOf = async (resource: string, name: string) =>
  (await rawJSON(cluster, 'GET', `/apis/flowcontrol.apiserver.k8s.io/v1/${resource}/${name}`)).body.metadata.uid as string;

test('kubectl get flowschemas and prioritylevelconfigurations print upstream\'s columns and bootstrap objects', async () => {
  const fs = await kubectl(cluster, ['get', 'flowschemas']);
  assert.equal(fs.code, 0, fs.stderr);
  assert.match(fs.stdout, /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL$/m);
  assert.match(fs.stdout, /^exempt\s+exempt\s+1\s+<none>\s+\S+\s+False$/m);
  assert.match(fs.stdout, /^service-accounts\s+workload-low\s+9000\s+ByUser\s+\S+\s+False$/m);
  assert.match(fs.stdout, /^kube-scheduler\s+workload-high\s+800\s+ByNamespace\s+\S+\s+False$/m);
  assert.equal(fs.stdout.trim().split('\n').length, 14);
  const pl = await kubectl(cluster, ['get', 'prioritylevelconfigurations']);
  assert.equal(pl.code, 0, pl.stderr);
  assert.match(pl.stdout, /^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE$/m);
  assert.match(pl.stdout, /^exempt\s+Exempt\s+<none>\s+<none>\s+<none>\s+<none>\s+\S+$/m);
  assert.match(pl.stdout, /^catch-all\s+Limited\s+5\s+<none>\s+<none>\s+<none>\s+\S+$/m);
  assert.match(pl.stdout, /^workload-low\s+Limited\s+100\s+128\s+6\s+50\s+\S+$/m);
  const explain = await kubectl(cluster, ['explain', 'prioritylevelconfigurations.spec.exempt']);
  assert.equal(explain.code, 0, explain.stderr);
  assert.match(explain.stdout, /nominalConcurrencyShares\s+<integer>/);
  const applied = await kubectl(cluster, ['apply', '-f', '-'], { input: [
    'apiVersion: flowcontrol.apiserver.k8s.io/v1', 'kind: FlowSchema', 'metadata: {name: applied}',
    'spec: {priorityLevelConfiguration: {name: global-default}, rules: [{subjects: [{kind: User, user: {name: someone}}], nonResourceRules: [{verbs: [get], nonResourceURLs: [/x]}]}]}', '',
  ].join('\n') });
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(applied.stdout, 'flowschema.flowcontrol.apiserver.k8s.io/applied created\n');
  const res = await kubectl(cluster, ['api-resources', '--api-group=flowcontrol.apiserver.k8s.io']);
  assert.match(res.stdout, /^flowschemas\s+flowcontrol\.apiserver\.k8s\.io\/v1\s+false\s+FlowSchema$/m);
  assert.match(res.stdout, /^prioritylevelconfigurations\s+flowcontrol\.apiserver\.k8s\.io\/v1\s+false\s+PriorityLevelConfiguration$/m);
});

test('bootstrap objects carry upstream\'s spec, the autoupdate annotation and the Dangling condition', async () => {
  const { body } = await rawJSON(cluster, 'GET', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/workload-low');
  assert.deepEqual(body.metadata.annotations, { 'apf.kubernetes.io/autoupdate-spec': 'true' });
  assert.equal(JSON.stringify(body.spec),
    '{"type":"Limited","limited":{"nominalConcurrencyShares":100,"limitResponse":{"type":"Queue","queuing":{"queues":128,"handSize":6,"queueLengthLimit":50}},"lendablePercent":90}}');
  const fs = (await rawJSON(cluster, 'GET', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/probes')).body;
  assert.equal(JSON.stringify(fs.spec),
    '{"priorityLevelConfiguration":{"name":"exempt"},"matchingPrecedence":2,"rules":[{"subjects":[{"kind":"Group","group":{"name":"system:unauthenticated"}},{"kind":"Group","group":{"name":"system:authenticated"}}],"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/healthz","/readyz","/livez"]}]}]}');
  const [c] = fs.status.conditions;
  assert.deepEqual({ ...c, lastTransitionTime: undefined }, {
    type: 'Dangling', status: 'False', lastTransitionTime: undefined, reason: 'Found',
    message: 'This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists',
  });
});

test('a FlowSchema of a missing priority level is marked dangling; validation answers with upstream\'s messages', async () => {
  const created = await rawJSON(cluster, 'POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', {
    metadata: { name: 'orphan' },
    spec: { priorityLevelConfiguration: { name: 'nowhere' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'nobody' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }] },
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.spec.matchingPrecedence, 1000);
  const conditions: any[] = await eventually('the Dangling condition', async () => {
    const c = (await rawJSON(cluster, 'GET', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/orphan')).body.status.conditions ?? [];
    return c.length ? c : undefined;
  });
  assert.equal(conditions[0].status, 'True');
  assert.equal(conditions[0].reason, 'NotFound');
  assert.equal(conditions[0].message, 'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object');
  const out = await kubectl(cluster, ['get', 'flowschema', 'orphan']);
  assert.match(out.stdout, /^orphan\s+nowhere\s+1000\s+<none>\s+\S+\s+True$/m);

  const bad = await rawJSON(cluster, 'POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', {
    metadata: { name: 'first' }, spec: { priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1 },
  });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.message,
    'FlowSchema.flowcontrol.apiserver.k8s.io "first" is invalid: spec.matchingPrecedence: Invalid value: 1: only the schema named \'exempt\' may have matchingPrecedence 1');
  const badPL = await rawJSON(cluster, 'POST', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', {
    metadata: { name: 'bad' }, spec: { type: 'Limited', limited: { lendablePercent: 101, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5 } } } },
  });
  assert.equal(badPL.status, 422);
  assert.equal(badPL.body.message,
    'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "bad" is invalid: [spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4), spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive]');
});

test('responses name the FlowSchema and priority level by uid: the admin is exempt, a service account is workload-low', async () => {
  const admin = await raw(cluster, 'GET', '/api/v1/namespaces/default');
  assert.equal(admin.headers['x-kubernetes-pf-flowschema-uid'], await uidOf('flowschemas', 'exempt'));
  assert.equal(admin.headers['x-kubernetes-pf-prioritylevel-uid'], await uidOf('prioritylevelconfigurations', 'exempt'));
  const sa = await asAccount('GET', '/api/v1/namespaces/apf/configmaps');
  assert.equal(sa.status, 200);
  assert.equal(sa.headers['x-kubernetes-pf-flowschema-uid'], await uidOf('flowschemas', 'service-accounts'));
  assert.equal(sa.headers['x-kubernetes-pf-prioritylevel-uid'], await uidOf('prioritylevelconfigurations', 'workload-low'));
});

test('a saturated priority level queues, then refuses with 429 and Retry-After; the admin and watches go on', async () => {
  // A level of ceil(600 * 1 / 246) = 3 seats with one queue of one, for this service account only.
  const pl = await rawJSON(cluster, 'POST', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', {
    metadata: { name: 'tiny' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } } } },
  });
  assert.equal(pl.status, 201);
  const fs = await rawJSON(cluster, 'POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', {
    metadata: { name: 'burst' },
    spec: {
      priorityLevelConfiguration: { name: 'tiny' }, matchingPrecedence: 500, distinguisherMethod: { type: 'ByUser' },
      rules: [{
        subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'apf', name: 'burst' } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      }],
    },
  });
  assert.equal(fs.status, 201);
  // Enough ConfigMap bytes that a LIST nobody reads fills the socket buffers and waits.
  const data = { blob: 'x'.repeat(900_000) };
  for (let i = 0; i < 30; i++) {
    assert.equal((await rawJSON(cluster, 'POST', '/api/v1/namespaces/apf/configmaps', { metadata: { name: `big-${i}` }, data })).status, 201);
  }
  // The flow schema is in force once requests are classified by it.
  await eventually('the burst FlowSchema in force', async () =>
    ((await asAccount('GET', '/version')).headers['x-kubernetes-pf-flowschema-uid'] === fs.body.metadata.uid ? true : undefined));
  const held = [];
  for (let i = 0; i < 3; i++) held.push(await heldList('/api/v1/namespaces/apf/configmaps'));
  for (const h of held) {
    assert.equal(h.res.statusCode, 200);
    assert.equal(h.res.headers['x-kubernetes-pf-prioritylevel-uid'], pl.body.metadata.uid);
  }
  // The level is full: one request waits in the queue (a 4 s timeout lets it wait 1 s), the next is refused at once.
  const t0 = Date.now();
  const queued = asAccount('GET', '/api/v1/namespaces/apf/serviceaccounts?timeout=4s');
  await new Promise((r) => setTimeout(r, 200));
  const refused = await asAccount('GET', '/api/v1/namespaces/apf/serviceaccounts');
  assert.equal(refused.status, 429);
  assert.equal(refused.body, 'Too many requests, please try again later.\n');
  assert.equal(refused.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(refused.headers['x-content-type-options'], 'nosniff');
  assert.equal(refused.headers['retry-after'], '1');
  assert.equal(refused.headers['x-kubernetes-pf-flowschema-uid'], fs.body.metadata.uid);
  assert.equal(refused.headers['x-kubernetes-pf-prioritylevel-uid'], pl.body.metadata.uid);
  // Meanwhile the admin is served.
  const admin = await Promise.all(Array.from({ length: 20 }, () => raw(cluster, 'GET', '/api/v1/namespaces/apf/serviceaccounts')));
  assert.deepEqual(admin.map((r) => r.status), Array(20).fill(200));
  // Long-running requests are never held back: a pod's log answers (404 here) rather than 429.
  assert.equal((await asAccount('GET', '/api/v1/namespaces/apf/pods/none/log')).status, 404);
  const waited = await queued;
  assert.equal(waited.status, 429);
  assert.ok(Date.now() - t0 >= 900, `left the queue after ${Date.now() - t0} ms`);

  // Once seats free up, the account is served again; watches give their seat back once started.
  for (const h of held) h.release();
  await eventually('the account served again', async () =>
    ((await asAccount('GET', '/api/v1/namespaces/apf/serviceaccounts')).status === 200 ? true : undefined));
  const watches = [];
  for (let i = 0; i < 6; i++) {
    watches.push(await new Promise<{ status: number; close(): void }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: cluster.port, path: '/api/v1/namespaces/apf/serviceaccounts?watch=true', agent, headers: { Authorization: `Bearer ${token}` } },
        (res) => resolve({ status: res.statusCode ?? 0, close: () => req.destroy() }));
      req.on('error', (e) => { if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e); });
      req.end();
    }));
  }
  assert.deepEqual(watches.map((w) => w.status), Array(6).fill(200));
  assert.equal((await asAccount('GET', '/api/v1/namespaces/apf/serviceaccounts')).status, 200);
  for (const w of watches) w.close();
});

test('a LIST of several pages is streamed chunked, byte for byte the list written at once', async () => {
  assert.equal((await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: 'pages' } })).status, 201);
  for (let i = 0; i < 250; i++) {
    const r = await rawJSON(cluster, 'POST', '/api/v1/namespaces/pages/configmaps', { metadata: { name: `cm-${String(i).padStart(3, '0')}`, labels: { odd: String(i % 2) } }, data: { i: String(i), u: 'üß"\\' } });
    assert.equal(r.status, 201);
  }
  const streamed = await raw(cluster, 'GET', '/api/v1/namespaces/pages/configmaps');
  assert.equal(streamed.headers['transfer-encoding'], 'chunked');
  const rv = JSON.parse(streamed.body).metadata.resourceVersion;
  // A limit above the count: the same list, written from one buffer with a Content-Length.
  const whole = await raw(cluster, 'GET', '/api/v1/namespaces/pages/configmaps?limit=1000');
  assert.ok(whole.headers['content-length']);
  assert.equal(streamed.body, whole.body.replace(`"resourceVersion":"${JSON.parse(whole.body).metadata.resourceVersion}"`, `"resourceVersion":"${rv}"`));
  assert.equal(JSON.parse(streamed.body).items.length, 251);
  // With a selector the pages are filtered as they are read.
  const odd = JSON.parse((await raw(cluster, 'GET', '/api/v1/namespaces/pages/configmaps?labelSelector=odd%3D1')).body);
  assert.equal(odd.items.length, 125);
  assert.deepEqual(odd.items.map((c: any) => c.metadata.name).slice(0, 2), ['cm-001', 'cm-003']);
  // A consistent snapshot: an exact resourceVersion lists what was there then.
  assert.equal((await rawJSON(cluster, 'DELETE', '/api/v1/namespaces/pages/configmaps/cm-000')).status, 200);
  const then = JSON.parse((await raw(cluster, 'GET', `/api/v1/namespaces/pages/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`)).body);
  assert.equal(then.items.length, 251);
  assert.equal(then.metadata.resourceVersion, rv);
});

test('at start the bootstrap objects that auto-update get their spec back; others are left, retired ones deleted', async () => {
  const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';
  const merge = (path: string, patch: unknown) => raw(cluster, 'PATCH', path, { body: JSON.stringify(patch), headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal((await merge(`${FC}/prioritylevelconfigurations/workload-low`, { spec: { limited: { nominalConcurrencyShares: 7 } } })).status, 200);
  assert.equal((await merge(`${FC}/prioritylevelconfigurations/exempt`, { spec: { exempt: { nominalConcurrencyShares: 5 } } })).status, 200);
  assert.equal((await merge(`${FC}/flowschemas/global-default`,
    { metadata: { annotations: { 'apf.kubernetes.io/autoupdate-spec': 'false' } }, spec: { matchingPrecedence: 9800 } })).status, 200);
  assert.equal((await rawJSON(cluster, 'POST', `${FC}/prioritylevelconfigurations`, {
    metadata: { name: 'retired', annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true' } },
    spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } },
  })).status, 201);
  assert.equal((await rawJSON(cluster, 'POST', `${FC}/prioritylevelconfigurations`, {
    metadata: { name: 'mine' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } },
  })).status, 201);
  await cluster.stop();
  cluster = await startCluster(cluster.dataDir, ['--api-only']);
  const get = async (path: string) => (await rawJSON(cluster, 'GET', `${FC}/${path}`)).body;
  assert.equal((await get('prioritylevelconfigurations/workload-low')).spec.limited.nominalConcurrencyShares, 100);
  assert.deepEqual((await get('prioritylevelconfigurations/exempt')).spec.exempt, { nominalConcurrencyShares: 5, lendablePercent: 0 });
  const gd = await get('flowschemas/global-default');
  assert.equal(gd.spec.matchingPrecedence, 9800);
  assert.equal(gd.metadata.annotations['apf.kubernetes.io/autoupdate-spec'], 'false');
  assert.equal((await rawJSON(cluster, 'GET', `${FC}/prioritylevelconfigurations/retired`)).status, 404);
  // A user's own objects without the annotation stay.
  assert.equal((await rawJSON(cluster, 'GET', `${FC}/prioritylevelconfigurations/mine`)).status, 200);
});
