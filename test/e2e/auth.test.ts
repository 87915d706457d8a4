import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

for (const version of ['1.27', '1.33']) {
  describe(`kubectl ${version} auth`, () => {
    const ok = async (args: string[]) => {
      const r = await kubectl(cluster, args, { version });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };

    test('auth whoami names the admin certificate user', async () => {
      const out = await ok(['auth', 'whoami']);
      assert.match(out, /^ATTRIBUTE\s+VALUE$/m);
      assert.match(out, /^Username\s+kubernetes-admin$/m);
      assert.match(out, /^Groups\s+\[system:masters system:authenticated\]$/m);
    });

    test('auth can-i answers yes for the admin', async () => {
      assert.equal(await ok(['auth', 'can-i', 'create', 'pods']), 'yes\n');
      assert.equal(await ok(['auth', 'can-i', 'delete', 'nodes']), 'yes\n');
      const list = await ok(['auth', 'can-i', '--list']);
      assert.match(list, /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
    });

    test('create token issues a token the server accepts for the service account', async () => {
      const token = (await ok(['create', 'token', 'default', '-n', 'default'])).trim();
      assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
      assert.equal(claims.sub, 'system:serviceaccount:default:default');
      assert.deepEqual(claims.aud, ['https://kubernetes.default.svc.cluster.local']);
      // Authenticated, and authorized as RBAC says: the default account holds no role.
      const withToken = await raw(cluster, 'GET', '/api/v1/namespaces/default/configmaps', { anonymous: true, headers: { Authorization: `Bearer ${token}` } });
      assert.equal(withToken.status, 403);
      assert.equal(JSON.parse(withToken.body).message,
        'configmaps is forbidden: User "system:serviceaccount:default:default" cannot list resource "configmaps" in API group "" in the namespace "default"');
      const who = await raw(cluster, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        anonymous: true, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      });
      assert.deepEqual(JSON.parse(who.body).status.userInfo.groups,
        ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
      const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      assert.equal((await raw(cluster, 'GET', '/api/v1/namespaces', { anonymous: true, headers: { Authorization: `Bearer ${forged}` } })).status, 401);
    });
  });
}

test('TokenReview says whether a token authenticates', async () => {
  const bad = await rawJSON(cluster, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'nope' } });
  assert.equal(bad.status, 201);
  assert.equal(bad.body.status.authenticated, undefined);
  const tr = await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  assert.equal(tr.status, 201);
  assert.equal(tr.body.spec.expirationSeconds, 3600);
  const good = await rawJSON(cluster, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: tr.body.status.token } });
  assert.equal(good.body.status.authenticated, true);
  assert.equal(good.body.status.user.username, 'system:serviceaccount:default:default');
  const missing = await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', { spec: {} });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'serviceaccounts "nobody" not found');
});
