/**
 * Requests without credentials under --authorization-mode=RBAC (anonymous
 * auth on, as kube-apiserver has it unless a mode is AlwaysAllow): they are
 * system:anonymous in system:unauthenticated and authorized like anyone, so
 * the bootstrap system:public-info-viewer lets them read /version and the
 * health checks and everything else is upstream's 403; credentials presented
 * and rejected stay 401.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { credentials, kubectl, raw, removeDir, startCluster, type RawResponse, type TestCluster } from '../helpers/cluster.js';
import { createCA, issue } from '../../src/pki/issue.js';

let cluster: TestCluster;

// The default modes, kubeadm's Node,RBAC.
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const anonymous = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  raw(cluster, method, path, { anonymous: true, headers: { ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers }, body });

const forbidden = (message: string, details: Record<string, string>) => ({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403,
});
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

/**
 * The authorization filter's 403. It runs after priority and fairness, whose
 * classification headers the answer carries, except for long-running requests
 * (exec, proxy) that the filter lets through unclassified.
 */
function assertForbidden(r: RawResponse, message: string, details: Record<string, string> = {}, classified = true): void {
  assert.equal(r.status, 403, r.body);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.equal(typeof r.headers['x-kubernetes-pf-flowschema-uid'], classified ? 'string' : 'undefined');
  assert.deepEqual(JSON.parse(r.body), forbidden(message, details));
}

function assertUnauthorized(r: RawResponse): void {
  assert.equal(r.status, 401, r.body);
  assert.equal(r.headers['content-type'], 'application/json');
  // The authentication filter's answer (ErrorNegotiated) does not add nosniff, unlike the authorization filter's.
  assert.equal(r.headers['x-content-type-options'], undefined);
  // Authentication comes before priority and fairness: the request was never classified.
  assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], undefined);
  assert.deepEqual(JSON.parse(r.body), UNAUTHORIZED);
}

test('without credentials /api is the 403 for system:anonymous (a path)', async () => {
  assertForbidden(await anonymous('GET', '/api'), 'forbidden: User "system:anonymous" cannot get path "/api"');
  assertForbidden(await anonymous('GET', '/apis/apps/v1'), 'forbidden: User "system:anonymous" cannot get path "/apis/apps/v1"');
});

test('without credentials a resource is the 403 naming the resource', async () => {
  assertForbidden(await anonymous('GET', '/api/v1/namespaces/default/pods'),
    'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"', { kind: 'pods' });
  assertForbidden(await anonymous('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin'),
    'clusterroles.rbac.authorization.k8s.io "admin" is forbidden: User "system:anonymous" cannot get resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    { name: 'admin', group: 'rbac.authorization.k8s.io', kind: 'clusterroles' });
});

test('system:public-info-viewer: /version and the health checks answer anyone', async () => {
  const v = await anonymous('GET', '/version');
  assert.equal(v.status, 200, v.body);
  assert.equal(JSON.parse(v.body).gitVersion.startsWith('v1.32.'), true);
  for (const p of ['/healthz', '/livez', '/readyz']) {
    const r = await anonymous('GET', p);
    assert.deepEqual([r.status, r.body], [200, 'ok'], p);
  }
  // The role names these paths only, for get only.
  assertForbidden(await anonymous('POST', '/version', {}, '{}'), 'forbidden: User "system:anonymous" cannot post path "/version"');
  assertForbidden(await anonymous('GET', '/openapi/v2'), 'forbidden: User "system:anonymous" cannot get path "/openapi/v2"');
});

test('an empty bearer token or another scheme is no credential: anonymous', async () => {
  for (const authorization of ['Bearer', 'Bearer ', 'bearer', 'Basic YWRtaW46YWRtaW4=', 'Token abc']) {
    assertForbidden(await anonymous('GET', '/api', { Authorization: authorization }), 'forbidden: User "system:anonymous" cannot get path "/api"');
  }
});

test('a token after two spaces is ignored, with bearertoken\'s warning', async () => {
  const r = await anonymous('GET', '/api', { Authorization: 'Bearer  not-looked-at' });
  assertForbidden(r, 'forbidden: User "system:anonymous" cannot get path "/api"');
  assert.equal(r.headers.warning, '299 - "the provided Authorization header contains extra space before the bearer token, and is ignored"');
});

test('an invalid bearer token is 401, never anonymous: even for /version and /healthz', async () => {
  for (const path of ['/api', '/version', '/healthz', '/api/v1/namespaces/default/pods']) {
    assertUnauthorized(await anonymous('GET', path, { Authorization: 'Bearer not-a-token' }));
  }
  // The scheme is case-insensitive and only the first field after it is the token.
  assertUnauthorized(await anonymous('GET', '/version', { Authorization: 'bEaReR not-a-token trailing' }));
});

/** One request over TLS with the given client certificate (and headers). */
function withCertificate(cert: { cert: string; key: string }, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const agent = new Agent({ ca: credentials(cluster).ca, cert: cert.cert, key: cert.key });
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: cluster.port, method: 'GET', path, agent, headers: { Accept: 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => { agent.destroy(); resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }); });
    });
    req.on('error', reject);
    req.end();
  });
}

test('a client certificate the cluster CA did not sign is 401, unless a valid token comes with it', async () => {
  const foreignCA = await createCA();
  const stranger = await issue(foreignCA, 'CN=mallory, O=system:masters', 'client', { dns: [], ip: [] });
  assertUnauthorized(await withCertificate(stranger, '/version'));
  assertUnauthorized(await withCertificate(stranger, '/api'));
  // The union tries the token after the failed certificate: the admin token authenticates.
  const token = (await import('node:fs')).readFileSync(join(cluster.dataDir, 'admin.token'), 'utf8').trim();
  const r = await withCertificate(stranger, '/api', { Authorization: `Bearer ${token}` });
  assert.equal(r.status, 200, r.body);
});

test('a certificate of the cluster CA without a common name is no credential: anonymous', async () => {
  const ca = { cert: (await import('node:fs')).readFileSync(join(cluster.dataDir, 'pki', 'ca.crt'), 'utf8'),
    key: (await import('node:fs')).readFileSync(join(cluster.dataDir, 'pki', 'ca.key'), 'utf8') };
  const nameless = await issue(ca, 'O=team-a', 'client', { dns: [], ip: [] });
  assertForbidden(await withCertificate(nameless, '/api'), 'forbidden: User "system:anonymous" cannot get path "/api"');
});

test('SelfSubjectReview: anonymous may not create it by default; allowed, it answers system:anonymous', async () => {
  const review = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  assertForbidden(await anonymous('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {}, review),
    'selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope',
    { group: 'authentication.k8s.io', kind: 'selfsubjectreviews' });
  const dir = mkdtempSync(join(cluster.dataDir, 'anon-'));
  const kubeconfig = join(dir, 'kubeconfig');
  // kubectl prompts for a user name when its user has no credentials; a basic-auth user name is sent but authenticates
  // nobody (kube-apiserver has no basic authentication since 1.19), so the request is anonymous.
  writeFileSync(kubeconfig, stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'anon',
    clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${cluster.port}`, 'certificate-authority-data': credentials(cluster).ca.toString('base64') } }],
    users: [{ name: 'nobody', user: { username: 'nobody' } }],
    contexts: [{ name: 'anon', context: { cluster: 'c', user: 'nobody' } }],
  }));
  const denied = await kubectl(cluster, ['auth', 'whoami'], { env: { KUBECONFIG: kubeconfig }, input: '' });
  assert.equal(denied.code, 1);
  assert.equal(denied.stderr, 'error: the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it\n');

  const grant = await kubectl(cluster, ['create', 'clusterrole', 'anon-whoami', '--verb=create', '--resource=selfsubjectreviews.authentication.k8s.io']);
  assert.equal(grant.code, 0, grant.stderr);
  const bind = await kubectl(cluster, ['create', 'clusterrolebinding', 'anon-whoami', '--clusterrole=anon-whoami', '--group=system:unauthenticated']);
  assert.equal(bind.code, 0, bind.stderr);
  const r = await anonymous('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {}, review);
  assert.equal(r.status, 201, r.body);
  const getRaw = await kubectl(cluster, ['get', '--raw', '/api'], { env: { KUBECONFIG: kubeconfig }, input: '' });
  assert.equal(getRaw.stderr, 'Error from server (Forbidden): forbidden: User "system:anonymous" cannot get path "/api"\n');
  assert.deepEqual(JSON.parse(r.body).status, { userInfo: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
  const whoami = await kubectl(cluster, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo}'], { env: { KUBECONFIG: kubeconfig }, input: '' });
  assert.equal(whoami.code, 0, whoami.stderr);
  assert.deepEqual(JSON.parse(whoami.stdout), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
});

test('exec upgrades and node proxies are authorized for system:anonymous too', async () => {
  const upgrade = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' };
  assertForbidden(await anonymous('GET', '/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true', upgrade),
    'pods "web" is forbidden: User "system:anonymous" cannot get resource "pods/exec" in API group "" in the namespace "default"', { name: 'web', kind: 'pods' }, false);
  const bad = await anonymous('GET', '/api/v1/namespaces/default/pods/web/exec?command=ls&stdout=true', { ...upgrade, Authorization: 'Bearer not-a-token' });
  assert.equal(bad.status, 401);
  assert.deepEqual(JSON.parse(bad.body), UNAUTHORIZED);
  assertForbidden(await anonymous('GET', '/api/v1/nodes/linux-1/proxy/healthz'),
    'nodes "linux-1" is forbidden: User "system:anonymous" cannot get resource "nodes/proxy" in API group "" at the cluster scope', { name: 'linux-1', kind: 'nodes' }, false);
});

test('with AlwaysAllow anonymous auth is off: no credentials is 401, on every path', async () => {
  // kube-apiserver's ApplyAuthorization turns --anonymous-auth off with AlwaysAllow: health checks and /version too.
  const open = await startCluster(undefined, ['--api-only', '--authorization-mode', 'AlwaysAllow']);
  try {
    for (const p of ['/healthz', '/livez', '/readyz', '/version', '/api', '/api/v1/namespaces']) assertUnauthorized(await raw(open, 'GET', p, { anonymous: true }));
    assertUnauthorized(await raw(open, 'GET', '/healthz', { anonymous: true, headers: { Authorization: 'Bearer ' } }));
  } finally {
    await open.stop();
    removeDir(open.dataDir);
  }
});
