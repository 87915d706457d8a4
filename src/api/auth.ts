import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { timingSafeEqual } from 'node:crypto';
import type { ServiceAccountTokens } from '../pki/service-account-tokens.js';

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

/**
 * Who a request is: an x509 client certificate signed by the cluster CA, the
 * admin bearer token, or a service account token we issued.
 */
export class Authenticator {
  constructor(private readonly adminToken: string, private readonly saTokens: ServiceAccountTokens) {}

  authenticate(req: IncomingMessage): User | undefined {
    const user = certificateUser(req.socket as TLSSocket);
    if (user) return user;
    const auth = req.headers.authorization;
    return auth?.startsWith('Bearer ') ? this.authenticateToken(auth.slice(7).trim()) : undefined;
  }

  /** A bearer token's user (also what TokenReview answers). */
  authenticateToken(token: string): User | undefined {
    if (tokenMatches(token, this.adminToken)) {
      return { name: 'winkube-admin', groups: ['system:masters', 'system:authenticated'] };
    }
    const claims = this.saTokens.verify(token);
    if (!claims) return undefined;
    const { namespace, serviceaccount } = claims['kubernetes.io'];
    return {
      name: claims.sub, uid: serviceaccount.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    };
  }

  get serviceAccountTokens(): ServiceAccountTokens { return this.saTokens; }
}
