import { createPrivateKey, createPublicKey, createHash, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceAccountUsername } from '../apimachinery/service-account-user.js';

/** --service-account-issuer, and so (--api-audiences' default) the one audience the API server accepts. */
export const TOKEN_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** An EC P-256 verification key in a JWKS document. */
export type PublicJWK = { use: 'sig'; kty: 'EC'; kid: string; crv: 'P-256'; alg: 'ES256'; x: string; y: string };

/** A reference to the object a token is bound to, as the token carries it. */
export interface BoundRef { name: string; uid?: string }

/** The objects a token is bound to besides its service account (TokenRequest's boundObjectRef). */
export interface BoundObjects { pod?: BoundRef; secret?: BoundRef; node?: BoundRef }

export interface ServiceAccountClaims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  'kubernetes.io': { namespace: string; serviceaccount: BoundRef } & BoundObjects;
  nbf: number;
  sub: string;
}

/** What checking a token's signature says: not a token of ours at all, a bad one, or its claims. */
export type SignedToken =
  | { kind: 'foreign' }
  | { kind: 'invalid'; error: string }
  | { kind: 'signed'; claims: ServiceAccountClaims };

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** go-jose's answer when a signature does not verify with the key. */
const CRYPTO_FAILURE = 'go-jose/go-jose: error in cryptographic primitive';

function decodeSegment(segment: string): unknown {
  if (!/^[A-Za-z0-9_-]*$/.test(segment)) return undefined;
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Signs and verifies bound service account tokens (ES256 JWTs, as
 * kube-apiserver issues them with an EC key), with a key kept in the data directory.
 */
export class ServiceAccountTokens {
  private readonly key: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly kid: string;

  constructor(pkiDir: string) {
    const file = join(pkiDir, 'sa.key');
    if (!existsSync(file)) {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    }
    this.key = createPrivateKey(readFileSync(file));
    this.publicKey = createPublicKey(this.key);
    this.kid = createHash('sha256').update(this.publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
  }

  issue(namespace: string, name: string, uid: string, audiences: string[], expirationSeconds: number, now: Date,
    bound: BoundObjects = {}): { token: string; expires: Date } {
    const iat = Math.floor(now.getTime() / 1000);
    // go-jose writes the merged claims as a map: keys in sorted order, empty refs' uids left out.
    const ref = (r: BoundRef): BoundRef => (r.uid ? { name: r.name, uid: r.uid } : { name: r.name });
    const kube: ServiceAccountClaims['kubernetes.io'] = {
      namespace,
      ...(bound.node ? { node: ref(bound.node) } : {}),
      ...(bound.pod ? { pod: ref(bound.pod) } : {}),
      ...(bound.secret ? { secret: ref(bound.secret) } : {}),
      serviceaccount: { name, uid },
    };
    const claims: ServiceAccountClaims = {
      aud: audiences, exp: iat + expirationSeconds, iat, iss: TOKEN_ISSUER, jti: randomUUID(),
      'kubernetes.io': kube, nbf: iat, sub: serviceAccountUsername(namespace, name),
    };
    const head = b64url(JSON.stringify({ alg: 'ES256', kid: this.kid }));
    const body = b64url(JSON.stringify(claims));
    const sig = sign('sha256', Buffer.from(`${head}.${body}`), { key: this.key, dsaEncoding: 'ieee-p1363' });
    return { token: `${head}.${body}.${b64url(sig)}`, expires: new Date(claims.exp * 1000) };
  }

  /**
   * The verification key as the JWKS document lists it (go-jose's
   * JSONWebKey: use, kty, kid, crv, alg, x, y in that order).
   */
  publicJWK(): PublicJWK {
    const jwk = this.publicKey.export({ format: 'jwk' });
    return { use: 'sig', kty: 'EC', kid: this.kid, crv: 'P-256', alg: 'ES256', x: String(jwk.x), y: String(jwk.y) };
  }

  /**
   * jwtTokenAuthenticator's first steps: a token that is no JWT of our issuer is someone else's
   * (no error), one whose signature fails is invalid, otherwise its claims (not yet validated).
   */
  check(token: string): SignedToken {
    const parts = token.split('.');
    const [headerPart = '', payloadPart = '', signaturePart = ''] = parts;
    if (parts.length !== 3) return { kind: 'foreign' };
    const payload = decodeSegment(payloadPart) as Partial<ServiceAccountClaims> | undefined;
    if (!payload || typeof payload !== 'object' || payload.iss !== TOKEN_ISSUER) return { kind: 'foreign' };
    const header = decodeSegment(headerPart) as { alg?: string } | undefined;
    if (!header || typeof header !== 'object' || typeof header.alg !== 'string') return { kind: 'foreign' };
    const ok = header.alg === 'ES256' && verify('sha256', Buffer.from(`${headerPart}.${payloadPart}`),
      { key: this.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signaturePart, 'base64url'));
    if (!ok) return { kind: 'invalid', error: CRYPTO_FAILURE };
    return { kind: 'signed', claims: payload as ServiceAccountClaims };
  }
}
