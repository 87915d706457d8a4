/**
 * Service account issuer discovery: the API server's discovery document
 * and JWKS as openidmetadata.go writes them, and the checks agnhost's
 * test-service-account-issuer-discovery makes (go-oidc's) of a token
 * signed by the cluster's key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwksDocument, openIDConfiguration } from '../../src/api/openid-discovery.js';
import { ServiceAccountTokens, TOKEN_ISSUER } from '../../src/pki/service-account-tokens.js';
import { claimsError, goClaimsDump, parseJWT, signatureVerifies } from '../../src/node/apps/agnhost-oidc-discovery.js';

const NOW = new Date('2026-11-29T07:00:00Z');

function keys() {
  const dir = mkdtempSync(join(tmpdir(), 'oidc-'));
  try { return new ServiceAccountTokens(dir); } finally { rmSync(dir, { recursive: true }); }
}

test('discovery document and JWKS: field order, the key\'s algorithm, go-jose\'s key fields', () => {
  const t = keys();
  const jwk = t.publicJWK();
  const d = { issuer: TOKEN_ISSUER, jwksURI: `${TOKEN_ISSUER}/openid/v1/jwks`, keys: () => [jwk] };
  assert.equal(openIDConfiguration(d), '{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"https://kubernetes.default.svc.cluster.local/openid/v1/jwks",' +
    '"response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256"]}');
  assert.deepEqual(Object.keys(jwk), ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
  assert.equal(jwksDocument(d), `{"keys":[{"use":"sig","kty":"EC","kid":"${jwk.kid}","crv":"P-256","alg":"ES256","x":"${jwk.x}","y":"${jwk.y}"}]}`);
});

test('a token of the cluster verifies with its JWKS key; another key, or a changed payload, does not', () => {
  const t = keys();
  const { token } = t.issue('ns', 'default', 'u-1', ['oidc-discovery-test'], 600, NOW);
  const jwt = parseJWT(token)!;
  assert.equal(signatureVerifies([t.publicJWK()], jwt), true);
  assert.equal(signatureVerifies([{ ...keys().publicJWK(), kid: t.publicJWK().kid }], jwt), false);
  const forged = token.split('.');
  forged[1] = Buffer.from(JSON.stringify({ ...jwt.claims, sub: 'system:serviceaccount:ns:admin' })).toString('base64url');
  assert.equal(signatureVerifies([t.publicJWK()], parseJWT(forged.join('.'))!), false);
  assert.equal(parseJWT('not-a-jwt'), undefined);
});

test('go-oidc\'s claim checks: issuer, audience, expiry, algorithm, in that order', () => {
  const t = keys();
  const claims = parseJWT(t.issue('ns', 'default', 'u-1', ['oidc-discovery-test'], 600, NOW).token)!.claims;
  assert.equal(claimsError(claims, TOKEN_ISSUER, 'oidc-discovery-test', 'ES256', NOW), undefined);
  assert.equal(claimsError(claims, 'https://other', 'oidc-discovery-test', 'ES256', NOW),
    'oidc: id token issued by a different provider, expected "https://other" got "https://kubernetes.default.svc.cluster.local"');
  assert.equal(claimsError(claims, TOKEN_ISSUER, 'api', 'ES256', NOW), 'oidc: expected audience "api" got ["oidc-discovery-test"]');
  assert.equal(claimsError(claims, TOKEN_ISSUER, 'oidc-discovery-test', 'ES256', new Date(NOW.getTime() + 601_000)),
    'oidc: token is expired (Token Expiry: 2026-11-29 07:10:00 +0000 UTC)');
  assert.equal(claimsError(claims, TOKEN_ISSUER, 'oidc-discovery-test', 'HS256', NOW), 'oidc: id token signed with unsupported algorithm, expected ["RS256" "ES256"] got "HS256"');
});

test('%#v of the claims struct', () => {
  const c = { iss: TOKEN_ISSUER, sub: 'system:serviceaccount:ns:default', aud: ['a'], exp: 1, nbf: 1, iat: 1, jti: 'j', 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'default', uid: 'u' } } };
  assert.equal(goClaimsDump(c, true), '&openidmetadata.claims{Claims:jwt.Claims{Issuer:"https://kubernetes.default.svc.cluster.local", Subject:"system:serviceaccount:ns:default", ' +
    'Audience:jwt.Audience{"a"}, Expiry:(*jwt.NumericDate)(0xc000012a08), NotBefore:(*jwt.NumericDate)(0xc000012a10), IssuedAt:(*jwt.NumericDate)(0xc000012a18), ID:"j"}, ' +
    'Kubernetes:openidmetadata.kubeClaims{Namespace:"ns", ServiceAccount:openidmetadata.kubeName{Name:"default", UID:"u"}}}');
});
