import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { timingSafeEqual } from 'node:crypto';

export interface User { name: string; groups: string[] }

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

/** x509 client certificates signed by the cluster CA, or the admin bearer token. */
export function authenticate(req: IncomingMessage, adminToken: string): User | undefined {
  const user = certificateUser(req.socket as TLSSocket);
  if (user) return user;
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ') && tokenMatches(auth.slice(7).trim(), adminToken)) {
    return { name: 'winkube-admin', groups: ['system:masters', 'system:authenticated'] };
  }
  return undefined;
}
