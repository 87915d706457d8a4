import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { timingSafeEqual } from 'node:crypto';
import { TOKEN_ISSUER, type ServiceAccountTokens } from '../pki/service-account-tokens.js';
import type { Lookup } from '../admission/lookup.js';
import { validateServiceAccountToken } from './service-account-token-validator.js';
import { serviceAccountGroups, serviceAccountUsername } from '../apimachinery/service-account-user.js';

export interface User { name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> }

/** The anonymous authenticator's user: user.Anonymous in the group user.AllUnauthenticated. */
export const ANONYMOUS_USER: Readonly<User> = Object.freeze({ name: 'system:anonymous', groups: ['system:unauthenticated'] });

function tokenMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * One request authenticator's answer (authenticator.Request): a user, no
 * credentials of its kind (no opinion), or credentials it rejects.
 */
type Answer = User | 'none' | 'failed';

/** The x509 answer of a connection, worked out once per connection (reading the certificate is costly). */
const certAnswers = new WeakMap<TLSSocket, Answer>();

/**
 * x509.Authenticator with CommonNameUserConversion: no certificate is no
 * opinion; one the cluster CA did not sign (or expired) fails; a verified one
 * without a common name is no opinion.
 */
function certificateAnswer(socket: TLSSocket): Answer {
  let answer = certAnswers.get(socket);
  if (answer !== undefined) return answer;
  const cert = socket.getPeerCertificate?.();
  if (!cert || !Object.keys(cert).length) answer = 'none';
  else if (!socket.authorized) answer = 'failed';
  else {
    const subject = cert.subject as unknown as Record<string, string | string[]> | undefined;
    const o = subject?.O;
    answer = subject?.CN
      ? { name: String(subject.CN), groups: [...(Array.isArray(o) ? o : o ? [o] : []), 'system:authenticated'] }
      : 'none';
  }
  certAnswers.set(socket, answer);
  return answer;
}

/** bearertoken.Authenticator's warning when a second space precedes the token. */
const TOKEN_AFTER_EXTRA_SPACE = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

/** Go's strings.SplitN: at most n fields, the last one holding the rest. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  for (let i = rest.indexOf(sep); out.length < n - 1 && i >= 0; i = rest.indexOf(sep)) {
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

/**
 * The token of an `Authorization` header as bearertoken.Authenticator reads
 * it: the field after a case-insensitive `Bearer`; none when absent or empty.
 */
function bearerToken(header: string | undefined): { token?: string; warning?: string } {
  const auth = (header ?? '').trim();
  if (!auth) return {};
  const parts = splitN(auth, ' ', 3);
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return {};
  const token = parts[1]!;
  if (token) return { token };
  return parts.length === 3 ? { warning: TOKEN_AFTER_EXTRA_SPACE } : {};
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
 * admin bearer token, a service account token we issued whose service
 * account (and bound objects) still exist, or, without credentials and when
 * anonymous auth is on, system:anonymous.
 */
export class Authenticator {
  /**
   * `anonymous`: whether requests without credentials are system:anonymous
   * (--anonymous-auth, which kube-apiserver turns off when a mode is AlwaysAllow).
   */
  constructor(private readonly adminToken: string, private readonly saTokens: ServiceAccountTokens, private readonly objects: Lookup,
    private readonly anonymous = false) {}

  /**
   * The request's user, or undefined when it is to be answered 401: the one
   * place that decides. As pkg/kubeapiserver/authenticator's chain: the client
   * certificate, then the bearer token, the first user winning; credentials
   * presented and rejected are a 401 (never anonymous); with none at all, the
   * anonymous user when allowed. `warn` gets the authenticators' warnings.
   */
  async authenticate(req: IncomingMessage, warn?: (message: string) => void): Promise<User | undefined> {
    const cert = certificateAnswer(req.socket as TLSSocket);
    if (typeof cert === 'object') return cert;
    let failed = cert === 'failed';
    const bearer = bearerToken(req.headers.authorization);
    if (bearer.warning) warn?.(bearer.warning);
    if (bearer.token !== undefined) {
      const result = await this.authenticateToken(bearer.token);
      if (result.ok) return result.user;
      failed = true;
    }
    if (failed || !this.anonymous) return undefined;
    return { name: ANONYMOUS_USER.name, groups: [...ANONYMOUS_USER.groups] };
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
        name: serviceAccountUsername(namespace, name), uid,
        groups: [...serviceAccountGroups(namespace), 'system:authenticated'],
      },
    };
  }

  get serviceAccountTokens(): ServiceAccountTokens { return this.saTokens; }
}
