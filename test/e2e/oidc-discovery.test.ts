/**
 * Service account issuer discovery through real kubectl against a real
 * server process: the discovery document and JWKS (`kubectl get --raw`),
 * and agnhost test-service-account-issuer-discovery in a pod with a
 * projected token, as the conformance test runs it: it verifies the token
 * through the API server and succeeds; with another audience it fails
 * the in-cluster check, falls back to the external client and exits 1.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

const validator = (name: string, audience: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: oidc-discovery-validator
    image: registry.k8s.io/e2e-test-images/agnhost:2.52
    args: [test-service-account-issuer-discovery, --token-path, /var/run/secrets/tokens/sa-token, --audience, ${audience}]
    volumeMounts:
    - {name: sa-token, mountPath: /var/run/secrets/tokens, readOnly: true}
  volumes:
  - name: sa-token
    projected:
      sources:
      - serviceAccountToken: {path: sa-token, expirationSeconds: 600, audience: oidc-discovery-test}
`;

before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const phase = (name: string) => eventually(`${name} finished`, async () => {
  const p = JSON.parse(await kubectlOk(cluster, ['get', 'pod', name, '-o', 'json'])) as { status?: { phase?: string } };
  return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed' ? p.status.phase : undefined;
}, 60_000);

const untimed = (s: string) => s.replace(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /gm, '');
const CLAIMS = (pointer: string) => `${pointer}openidmetadata\\.claims\\{Claims:jwt\\.Claims\\{Issuer:"${ISSUER.replace(/\./g, '\\.')}", Subject:"system:serviceaccount:default:default", ` +
  'Audience:jwt\\.Audience\\{"oidc-discovery-test"\\}, Expiry:\\(\\*jwt\\.NumericDate\\)\\(0x[0-9a-f]+\\), NotBefore:\\(\\*jwt\\.NumericDate\\)\\(0x[0-9a-f]+\\), ' +
  'IssuedAt:\\(\\*jwt\\.NumericDate\\)\\(0x[0-9a-f]+\\), ID:"[0-9a-f-]{36}"\\}, Kubernetes:openidmetadata\\.kubeClaims\\{Namespace:"default", ' +
  'ServiceAccount:openidmetadata\\.kubeName\\{Name:"default", UID:"[0-9a-f-]{36}"\\}\\}\\}';

test('the discovery document names the issuer and its JWKS, whose key is the one tokens name', async () => {
  assert.equal(await kubectlOk(cluster, ['get', '--raw', '/.well-known/openid-configuration']),
    `{"issuer":"${ISSUER}","jwks_uri":"${ISSUER}/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256"]}`);
  const jwks = JSON.parse(await kubectlOk(cluster, ['get', '--raw', '/openid/v1/jwks'])) as { keys: { kid: string }[] };
  const token = (await kubectlOk(cluster, ['create', 'token', 'default'])).trim();
  const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string };
  assert.deepEqual(jwks.keys.map((k) => Object.keys(k).join(',')), ['use,kty,kid,crv,alg,x,y']);
  assert.deepEqual(jwks.keys.map((k) => k.kid), [header.kid]);
});

test('test-service-account-issuer-discovery verifies the projected token through the API server', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], validator('oidc-ok', 'oidc-discovery-test'));
  assert.equal(await phase('oidc-ok'), 'Succeeded');
  assert.match(untimed(await kubectlOk(cluster, ['logs', 'oidc-ok'])), new RegExp(`^OK: Got token\nvalidating with in-cluster discovery\nOK: got issuer ${ISSUER.replace(/\./g, '\\.')}\n` +
    `Full, not-validated claims: \n${CLAIMS('')}\nOK: Constructed OIDC provider for issuer ${ISSUER.replace(/\./g, '\\.')}\nOK: Validated signature on JWT\n` +
    `OK: Got valid claims from token!\nFull, validated claims: \n${CLAIMS('&')}\n$`));
});

test('another audience: the in-cluster check fails, the external client does not trust the cluster CA, exit 1', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], validator('oidc-wrong-audience', 'api'));
  assert.equal(await phase('oidc-wrong-audience'), 'Failed');
  const lines = untimed(await kubectlOk(cluster, ['logs', 'oidc-wrong-audience'])).split('\n').filter((l) => !/claims/.test(l) && !l.startsWith('&') && !l.startsWith('openidmetadata'));
  assert.deepEqual(lines, [
    'OK: Got token', 'validating with in-cluster discovery', `OK: got issuer ${ISSUER}`, `OK: Constructed OIDC provider for issuer ${ISSUER}`,
    'failed to validate with in-cluster discovery: oidc: expected audience "api" got ["oidc-discovery-test"]',
    'falling back to validating with external discovery', `OK: got issuer ${ISSUER}`,
    `Get "${ISSUER}/.well-known/openid-configuration": tls: failed to verify certificate: x509: certificate signed by unknown authority`, '',
  ]);
});
