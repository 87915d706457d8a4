import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/**
 * Service account tokens as kube-apiserver judges them: only for its own audiences, and only
 * while the service account and every object the token is bound to still exist with the same uid.
 */
let cluster: TestCluster;
const NS = 'tokens';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

async function createServiceAccount(name: string): Promise<string> {
  const r = await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.metadata.uid;
}

async function requestToken(account: string, spec: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  return rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts/${account}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
}

async function tokenFor(account: string, spec: Record<string, unknown> = {}): Promise<string> {
  const r = await requestToken(account, spec);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.status.token;
}

/** The status of a request made with only the bearer token: discovery, which any authenticated user may read. */
async function statusWith(token: string): Promise<number> {
  return (await raw(cluster, 'GET', '/apis', { anonymous: true, headers: { Authorization: `Bearer ${token}` } })).status;
}

async function review(token: string, audiences?: string[]): Promise<any> {
  const r = await rawJSON(cluster, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.status;
}

test('a token for another audience is refused by the API server and by TokenReview', async () => {
  await createServiceAccount('vault-client');
  const token = await tokenFor('vault-client', { audiences: ['vault'] });
  assert.equal(await statusWith(token), 401);
  assert.deepEqual(await review(token), {
    user: {}, error: `token audiences ["vault"] is invalid for the target audiences ["${ISSUER}"]`,
  });
  const forVault = await review(token, ['vault']);
  assert.equal(forVault.authenticated, true);
  assert.deepEqual(forVault.audiences, ['vault']);
  assert.equal(forVault.user.username, `system:serviceaccount:${NS}:vault-client`);
});

test('a token without audiences is for the API server', async () => {
  await createServiceAccount('default-audience');
  const r = await requestToken('default-audience');
  assert.deepEqual(r.body.spec.audiences, [ISSUER]);
  assert.equal(await statusWith(r.body.status.token), 200);
  assert.deepEqual((await review(r.body.status.token)).audiences, [ISSUER]);
});

test('a token dies with its service account, and stays dead when the account is recreated', async () => {
  const oldUID = await createServiceAccount('short-lived');
  const token = await tokenFor('short-lived');
  assert.equal(await statusWith(token), 200);
  assert.equal((await raw(cluster, 'DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/short-lived`)).status, 200);
  assert.equal(await statusWith(token), 401);
  assert.deepEqual(await review(token), { user: {}, error: 'serviceaccounts "short-lived" not found' });
  const newUID = await createServiceAccount('short-lived');
  assert.equal(await statusWith(token), 401);
  assert.deepEqual(await review(token), { user: {}, error: `service account UID (${newUID}) does not match claim (${oldUID})` });
  assert.equal(await statusWith(await tokenFor('short-lived')), 200);
});

test('a pod-bound token dies with its pod', async () => {
  await createServiceAccount('runner');
  const pod = await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/pods`, {
    metadata: { name: 'bound-pod' }, spec: { serviceAccountName: 'runner', containers: [{ name: 'c', image: 'nginx' }] },
  });
  assert.equal(pod.status, 201, JSON.stringify(pod.body));
  const r = await requestToken('runner', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'bound-pod', uid: pod.body.metadata.uid } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const claims = JSON.parse(Buffer.from(r.body.status.token.split('.')[1], 'base64url').toString());
  assert.deepEqual(claims['kubernetes.io'].pod, { name: 'bound-pod', uid: pod.body.metadata.uid });
  assert.equal(await statusWith(r.body.status.token), 200);
  assert.equal((await raw(cluster, 'DELETE', `/api/v1/namespaces/${NS}/pods/bound-pod?gracePeriodSeconds=0`)).status, 200);
  assert.equal(await statusWith(r.body.status.token), 401);
  assert.deepEqual(await review(r.body.status.token), { user: {}, error: 'service account token has been invalidated' });
});

test('a secret-bound token dies with its secret, and with a secret recreated under its name', async () => {
  await createServiceAccount('secret-holder');
  const first = await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'anchor' } });
  const token = await tokenFor('secret-holder', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor' } });
  assert.equal(await statusWith(token), 200);
  await raw(cluster, 'DELETE', `/api/v1/namespaces/${NS}/secrets/anchor`);
  assert.equal(await statusWith(token), 401);
  assert.deepEqual(await review(token), { user: {}, error: 'service account token has been invalidated' });
  const second = await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'anchor' } });
  assert.equal(await statusWith(token), 401);
  assert.deepEqual(await review(token), {
    user: {}, error: `secret UID (${second.body.metadata.uid}) does not match service account secret ref claim (${first.body.metadata.uid})`,
  });
});

test('TokenRequest refuses bound objects it cannot bind to', async () => {
  await createServiceAccount('picky');
  await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'not-bindable' } });
  const cm = await requestToken('picky', { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'not-bindable' } });
  assert.equal(cm.status, 400);
  assert.equal(cm.body.message, 'cannot bind token to object of type /v1, Kind=ConfigMap');
  const missing = await requestToken('picky', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'nowhere' } });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'secrets "nowhere" not found');
  await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'picky-secret' } });
  const wrongUID = await requestToken('picky', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'picky-secret', uid: 'not-its-uid' } });
  assert.equal(wrongUID.status, 409);
  assert.equal(wrongUID.body.message, 'Operation cannot be fulfilled on Secret "picky-secret": the UID in the bound object reference ' +
    '(not-its-uid) does not match the UID in record. The object might have been deleted and then recreated');
  await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/pods`, {
    metadata: { name: 'other-account-pod' }, spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  const otherPod = await requestToken('picky', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other-account-pod' } });
  assert.equal(otherPod.status, 400);
  assert.equal(otherPod.body.message, 'cannot bind token for serviceaccount "picky" to pod running with different serviceaccount name.');
});

test('TokenReview of a token no authenticator knows, and of a forged one', async () => {
  assert.deepEqual(await review('not-a-token'), { user: {}, error: 'invalid bearer token' });
  await createServiceAccount('forger');
  const token = await tokenFor('forger');
  const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  assert.deepEqual(await review(forged), { user: {}, error: 'go-jose/go-jose: error in cryptographic primitive' });
  assert.equal(await statusWith(forged), 401);
});

test('exec and attach upgrades are refused with a token that no longer authenticates', async () => {
  await createServiceAccount('exec-user');
  const token = await tokenFor('exec-user');
  await raw(cluster, 'DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/exec-user`);
  const r = await raw(cluster, 'GET', `/api/v1/namespaces/${NS}/pods/anything/exec?command=true&stdout=true`, {
    anonymous: true, headers: { Authorization: `Bearer ${token}`, Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' },
  });
  assert.equal(r.status, 401);
  assert.equal(JSON.parse(r.body).message, 'Unauthorized');
});
