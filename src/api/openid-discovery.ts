/**
 * ServiceAccountIssuerDiscovery (pkg/serviceaccount/openidmetadata.go and
 * pkg/routes/openidmetadata.go): `/.well-known/openid-configuration`, the
 * issuer's OIDC discovery document, and `/openid/v1/jwks`, the keys that
 * verify its tokens. Both are served as compact JSON with a one-hour
 * public cache lifetime; who may read them is RBAC's
 * system:service-account-issuer-discovery.
 */
import type { ServerResponse } from 'node:http';
import type { PublicJWK } from '../pki/service-account-tokens.js';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

/** openidmetadata.go's cacheControl. */
const CACHE_CONTROL = 'public, max-age=3600';

export interface IssuerDiscovery { issuer: string; jwksURI: string; keys: () => PublicJWK[] }

/** openIDMetadata in field order: the algorithms are those of the keys (ES256 for an EC P-256 key). */
export function openIDConfiguration(d: IssuerDiscovery): string {
  const algs = [...new Set(d.keys().map((k) => k.alg))].sort();
  return JSON.stringify({
    issuer: d.issuer, jwks_uri: d.jwksURI, response_types_supported: ['id_token'], subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: algs,
  });
}

export function jwksDocument(d: IssuerDiscovery): string {
  return JSON.stringify({ keys: d.keys() });
}

export function serveIssuerDiscovery(res: ServerResponse, path: string, d: IssuerDiscovery): boolean {
  const [body, type] = path === OPENID_CONFIGURATION_PATH ? [openIDConfiguration(d), 'application/json']
    : path === JWKS_PATH ? [jwksDocument(d), 'application/jwk-set+json'] : [undefined, ''];
  if (body === undefined) return false;
  res.writeHead(200, { 'Cache-Control': CACHE_CONTROL, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
  return true;
}
