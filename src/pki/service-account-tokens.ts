import { createPrivateKey, createPublicKey, createHash, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TOKEN_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface ServiceAccountClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  'kubernetes.io': { namespace: string; serviceaccount: { name: string; uid: string } };
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

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

  issue(namespace: string, name: string, uid: string, audiences: string[], expirationSeconds: number, now: Date): { token: string; expires: Date } {
    const iat = Math.floor(now.getTime() / 1000);
    const claims: ServiceAccountClaims = {
      aud: audiences, exp: iat + expirationSeconds, iat, iss: TOKEN_ISSUER, nbf: iat,
      sub: `system:serviceaccount:${namespace}:${name}`,
      'kubernetes.io': { namespace, serviceaccount: { name, uid } },
    };
    const head = b64url(JSON.stringify({ alg: 'ES256', kid: this.kid }));
    const body = b64url(JSON.stringify(claims));
    const sig = sign('sha256', Buffer.from(`${head}.${body}`), { key: this.key, dsaEncoding: 'ieee-p1363' });
    return { token: `${head}.${body}.${b64url(sig)}`, expires: new Date(claims.exp * 1000) };
  }

  /** The claims of a valid, unexpired token we signed; undefined otherwise. */
  verify(token: string, now = Date.now()): ServiceAccountClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const ok = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key: this.publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(parts[2], 'base64url'));
    if (!ok) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as ServiceAccountClaims;
      const t = Math.floor(now / 1000);
      if (claims.iss !== TOKEN_ISSUER || claims.exp < t || claims.nbf > t + 60) return undefined;
      return claims;
    } catch {
      return undefined;
    }
  }
}
