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

/** x509 client certificates signed by the cluster CA, or the admin bearer token. */
export function authenticate(req: IncomingMessage, adminToken: string): User | undefined {
  const socket = req.socket as TLSSocket;
  if (socket.authorized) {
    const cert = socket.getPeerCertificate();
    const subject = cert?.subject as unknown as Record<string, string | string[]> | undefined;
    if (subject?.CN) {
      const o = subject.O;
      return { name: String(subject.CN), groups: [...(Array.isArray(o) ? o : o ? [o] : []), 'system:authenticated'] };
    }
  }
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ') && tokenMatches(auth.slice(7).trim(), adminToken)) {
    return { name: 'winkube-admin', groups: ['system:masters', 'system:authenticated'] };
  }
  return undefined;
}
