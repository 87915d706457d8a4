import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { timingSafeEqual } from 'node:crypto';
import { TOKEN_ISSUER, type ServiceAccountTokens } from '../pki/service-account-tokens.js';
import type { Lookup } from '../admission/lookup.js';
import { validateServiceAccountToken } from './service-account-token-validator.js';

export interface User { name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> }

/** Paths upstream lets anyone read (the system:public-info-viewer role). */
const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version']);

export function isPublicPath(pathname: string): boolean {
  return PUBLIC_PATHS.has(pathname) || pathname.startsWith('/healthz/') || pathname.startsWith('/livez/') || pathname.startsWith('/readyz/');
}

function tokenMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The user of a verified client certificate, read once per connection (reading it is costly). */
const certUsers = new WeakMap<TLSSocket, User | null>();

function certificateUser(socket: TLSSocket): User | null {
  let user = certUsers.get(socket);
  if (user !== undefined) return user;
  user = null;
  if (socket.authorized) {
    const subject = socket.getPeerCertificate()?.subject as unknown as Record<string, string | string[]> | undefined;
    if (subject?.CN) {
      const o = subject.O;
      user = { name: String(subject.CN), groups: [...(Array.isArray(o) ? o : o ? [o] : []), 'system:authenticated'] };
    }
  }
  certUsers.set(socket, user);
  return user;
}

/** What authenticating a bearer token says: a user (for the audiences both sides share), or why not. */
export type TokenAuthentication = { ok: true; user: User; audiences: string[] } | { ok: false; error: string };

/** bearertoken.Authenticator's answer when no token authenticator recognized the token. */
const INVALID_BEARER_TOKEN = 'invalid bearer token';

/** --api-audiences' default: the service account issuer. */
export const API_AUDIENCES = [TOKEN_ISSUER];

/** Go's %q of a []string: ["a" "b"]. */
const goQuoteList = (l: string[]) => `[${l.map((a) => JSON.stringify(a)).join(' ')}]`;

/**
 * Who a request is: an x509 client certificate signed by the cluster CA, the
 * admin bearer token, or a service account token we issued whose service
 * account (and bound objects) still exist.
 */
export class Authenticator {
  constructor(private readonly adminToken: string, private readonly saTokens: ServiceAccountTokens, private readonly objects: Lookup) {}

  async authenticate(req: IncomingMessage): Promise<User | undefined> {
    const user = certificateUser(req.socket as TLSSocket);
    if (user) return user;
    const auth = req.headers.authorization;
    if (!auth?.startsWith('Bearer ')) return undefined;
    const result = await this.authenticateToken(auth.slice(7).trim());
    return result.ok ? result.user : undefined;
  }

  /**
   * A bearer token's user for the audiences asked for (the API server's own by default), as the
   * union of upstream's token authenticators answers (also what TokenReview answers).
   */
  async authenticateToken(token: string, audiences: string[] = API_AUDIENCES): Promise<TokenAuthentication> {
    // The static admin token is audience-agnostic: it counts only for the API server's audiences.
    const shared = API_AUDIENCES.filter((a) => audiences.includes(a));
    if (shared.length && tokenMatches(token, this.adminToken)) {
      return { ok: true, user: { name: 'winkube-admin', groups: ['system:masters', 'system:authenticated'] }, audiences: shared };
    }
    const signed = this.saTokens.check(token);
    if (signed.kind === 'foreign') return { ok: false, error: INVALID_BEARER_TOKEN };
    if (signed.kind === 'invalid') return { ok: false, error: signed.error };
    const claims = signed.claims;
    const tokenAudiences = Array.isArray(claims.aud) && claims.aud.length ? claims.aud : API_AUDIENCES;
    const granted = tokenAudiences.filter((a) => audiences.includes(a));
    if (!granted.length) {
      return { ok: false, error: `token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(audiences)}` };
    }
    const valid = await validateServiceAccountToken(claims, this.objects);
    if (!valid.ok) return valid;
    const { namespace, name, uid } = valid.account;
    return {
      ok: true,
      audiences: granted,
      user: {
        name: `system:serviceaccount:${namespace}:${name}`, uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
      },
    };
  }

  get serviceAccountTokens(): ServiceAccountTokens { return this.saTokens; }
}
