/**
 * agnhost test-service-account-issuer-discovery
 * (test/images/agnhost/openidmetadata/openidmetadata.go): reads the token
 * at --token-path, then, as go-oidc does with the in-cluster client
 * (rest.InClusterConfig: the pod's service account token as bearer, only
 * the cluster CA trusted), fetches `<issuer>/.well-known/openid-configuration`,
 * checks its issuer, and verifies the token against the keys at its
 * jwks_uri: issuer, audience (--audience), expiry, not-before, the
 * algorithm (RS256 or ES256) and the signature. Success exits 0; a
 * failure logs and falls back to the "external" client (the system's
 * roots, no token), whose failure is log.Fatal (exit 1).
 *
 * The `%#v` dumps of the claims print pointers for the NumericDates, whose
 * addresses are the Go heap's: the model writes fixed ones.
 */
import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import type { ContainerFS } from '../shell/fs.js';
import { awaitPending, bundleHolds } from '../shell/http-client.js';
import type { HttpRequest, PodNetAccess } from '../shell/net-types.js';
import type { Program, Step } from '../shell/types.js';
import { goLog } from './go-http.js';

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface DiscoveryDeps {
  net?: PodNetAccess;
  fs?: ContainerFS;
  env: Record<string, string>;
  now: () => Date;
}

interface Claims {
  iss?: string; sub?: string; aud?: string | string[]; exp?: number; nbf?: number; iat?: number; jti?: string;
  'kubernetes.io'?: { namespace?: string; serviceaccount?: { name?: string; uid?: string } };
}

/** The token's parts: header, claims (unverified), and what the signature covers. */
export function parseJWT(raw: string): { header: { alg?: string; kid?: string }; claims: Claims; signed: string; signature: Buffer } | undefined {
  const parts = raw.trim().split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as { alg?: string; kid?: string };
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Claims;
    return { header, claims, signed: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') };
  } catch {
    return undefined;
  }
}

const goQuote = (s: string | undefined) => JSON.stringify(s ?? '');
const audiences = (c: Claims) => (c.aud === undefined ? [] : Array.isArray(c.aud) ? c.aud : [c.aud]);

/** `%#v` of openidmetadata's claims struct (with `&` for the pointer the second dump prints). */
export function goClaimsDump(c: Claims, pointer: boolean): string {
  const date = (v: number | undefined, addr: string) => (v === undefined ? '(*jwt.NumericDate)(nil)' : `(*jwt.NumericDate)(${addr})`);
  const aud = `jwt.Audience{${audiences(c).map(goQuote).join(', ')}}`;
  const k = c['kubernetes.io'] ?? {};
  return `${pointer ? '&' : ''}openidmetadata.claims{Claims:jwt.Claims{Issuer:${goQuote(c.iss)}, Subject:${goQuote(c.sub)}, Audience:${aud}, ` +
    `Expiry:${date(c.exp, '0xc000012a08')}, NotBefore:${date(c.nbf, '0xc000012a10')}, IssuedAt:${date(c.iat, '0xc000012a18')}, ID:${goQuote(c.jti)}}, ` +
    `Kubernetes:openidmetadata.kubeClaims{Namespace:${goQuote(k.namespace)}, ServiceAccount:openidmetadata.kubeName{Name:${goQuote(k.serviceaccount?.name)}, UID:${goQuote(k.serviceaccount?.uid)}}}}`;
}

/** go-oidc's checks of a token's claims against the provider's issuer and the client id, in its order. */
export function claimsError(c: Claims, issuer: string, audience: string, alg: string | undefined, now: Date): string | undefined {
  if (c.iss !== issuer) return `oidc: id token issued by a different provider, expected ${goQuote(issuer)} got ${goQuote(c.iss)}`;
  if (audience !== '' && !audiences(c).includes(audience)) return `oidc: expected audience ${goQuote(audience)} got [${audiences(c).map(goQuote).join(' ')}]`;
  const t = now.getTime() / 1000;
  if (c.exp !== undefined && t > c.exp) return `oidc: token is expired (Token Expiry: ${goTime(new Date(c.exp * 1000))})`;
  // go-oidc allows a 5 minute skew for nbf.
  if (c.nbf !== undefined && t + 300 < c.nbf) return `oidc: current time ${goTime(now)} before the nbf (not before) time: ${goTime(new Date(c.nbf * 1000))}`;
  if (alg !== 'RS256' && alg !== 'ES256') return `oidc: id token signed with unsupported algorithm, expected ["RS256" "ES256"] got ${goQuote(alg)}`;
  return undefined;
}

/** time.Time's String for a UTC time without a monotonic reading. */
const goTime = (d: Date) => `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;

/** Whether one of the JWKS keys (by kid, else any) verifies the signature. */
export function signatureVerifies(keys: JsonWebKey[], jwt: NonNullable<ReturnType<typeof parseJWT>>): boolean {
  const candidates = keys.filter((k) => jwt.header.kid === undefined || k.kid === undefined || k.kid === jwt.header.kid);
  return candidates.some((k) => {
    try {
      const key = createPublicKey({ key: k, format: 'jwk' });
      return jwt.header.alg === 'ES256'
        ? verify('sha256', Buffer.from(jwt.signed), { key, dsaEncoding: 'ieee-p1363' }, jwt.signature)
        : verify('sha256', Buffer.from(jwt.signed), key, jwt.signature);
    } catch {
      return false;
    }
  });
}

type Fetched = { ok: true; status: number; statusText: string; body: string } | { ok: false; error: string };

/** One GET over HTTPS, trusting only `caBundle` (none: the system roots, which do not hold the cluster CA). */
function* httpsGet(deps: DiscoveryDeps, url: string, bearer: string | undefined, caBundle: string | undefined): Generator<Step, Fetched, void> {
  const u = new URL(url);
  const fail = (why: string): Fetched => ({ ok: false, error: `Get ${goQuote(url)}: ${why}` });
  const ip = /^\d{1,3}(\.\d{1,3}){3}$/.test(u.hostname) ? u.hostname : deps.net?.resolve(u.hostname)?.[0];
  if (ip === undefined) return fail(`dial tcp: lookup ${u.hostname}: no such host`);
  const port = Number(u.port || 443);
  const conn = deps.net?.connect(ip, port) ?? { kind: 'timeout' as const };
  if (conn.kind === 'refused') return fail(`dial tcp ${ip}:${port}: connect: connection refused`);
  if (conn.kind === 'timeout') return fail(`dial tcp ${ip}:${port}: i/o timeout`);
  if (conn.tlsCA === undefined) return fail('http: server gave HTTP response to HTTPS client');
  if (!bundleHolds(caBundle ?? '', conn.tlsCA)) return fail('tls: failed to verify certificate: x509: certificate signed by unknown authority');
  const req: HttpRequest = {
    method: 'GET', target: `${u.pathname}${u.search}`, body: new Uint8Array(),
    headers: [['Host', u.host], ['User-Agent', 'agnhost/v0.0.0 (linux/amd64) kubernetes/$Format'], ...(bearer ? [['Authorization', `Bearer ${bearer}`] as [string, string]] : []), ['Accept-Encoding', 'gzip']],
  };
  const reply = yield* awaitPending(conn.exchange(req));
  if (reply === 'reset') return fail('EOF');
  return { ok: true, status: reply.status, statusText: `${reply.status} ${reply.reason}`, body: Buffer.from(reply.body).toString('utf8') };
}

/** validate(): the provider from the issuer's discovery document, then the token against its keys; the error text or undefined. */
function* validate(deps: DiscoveryDeps, raw: string, audience: string, bearer: string | undefined, ca: string | undefined,
  log: (text: string) => Step): Generator<Step, string | undefined, void> {
  const jwt = parseJWT(raw);
  if (!jwt) return 'go-jose/go-jose: compact JWS format must have three parts';
  yield log(`OK: got issuer ${jwt.claims.iss ?? ''}`);
  yield log(`Full, not-validated claims: \n${goClaimsDump(jwt.claims, false)}`);
  const issuer = jwt.claims.iss ?? '';
  const wellKnown = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const doc = yield* httpsGet(deps, wellKnown, bearer, ca);
  if (!doc.ok) return doc.error;
  if (doc.status !== 200) return `${doc.statusText}: ${doc.body}`;
  let meta: { issuer?: string; jwks_uri?: string };
  try { meta = JSON.parse(doc.body) as typeof meta; } catch (e) { return `oidc: failed to decode provider discovery object: ${(e as Error).message}`; }
  if (meta.issuer !== issuer) return `oidc: issuer did not match the issuer returned by provider, expected ${goQuote(issuer)} got ${goQuote(meta.issuer)}`;
  yield log(`OK: Constructed OIDC provider for issuer ${issuer}`);
  const bad = claimsError(jwt.claims, issuer, audience, jwt.header.alg, deps.now());
  if (bad) return bad;
  const keys = yield* httpsGet(deps, meta.jwks_uri ?? '', bearer, ca);
  if (!keys.ok) return `failed to verify signature: fetching keys oidc: get keys failed ${keys.error}`;
  if (keys.status !== 200) return `failed to verify signature: fetching keys oidc: get keys failed: ${keys.statusText} ${keys.body}`;
  let set: { keys?: JsonWebKey[] };
  try { set = JSON.parse(keys.body) as typeof set; } catch { return `failed to verify signature: fetching keys oidc: failed to decode keys: ${keys.body}`; }
  if (!signatureVerifies(set.keys ?? [], jwt)) return 'failed to verify signature: failed to verify id token signature';
  yield log('OK: Validated signature on JWT');
  yield log('OK: Got valid claims from token!');
  yield log(`Full, validated claims: \n${goClaimsDump(jwt.claims, true)}`);
  return undefined;
}

export function issuerDiscoveryTest(deps: DiscoveryDeps, flags: ReadonlyMap<string, string>): Program {
  const log = (text: string): Step => goLog(deps.now(), text);
  const fatal = function* (text: string): Generator<Step, void, void> { yield log(text); yield { kind: 'exit', code: 1 }; };
  function* run(): Generator<Step, void, void> {
    const tokenPath = flags.get('token-path') ?? '';
    const raw = tokenPath === '' ? undefined : deps.fs?.read(tokenPath);
    if (raw === undefined) return yield* fatal(`open ${tokenPath}: no such file or directory`);
    yield log('OK: Got token');
    yield log('validating with in-cluster discovery');
    const host = deps.env.KUBERNETES_SERVICE_HOST;
    const port = deps.env.KUBERNETES_SERVICE_PORT;
    if (!host || !port) return yield* fatal('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
    const bearer = deps.fs?.read(`${SA_DIR}/token`);
    const ca = deps.fs?.read(`${SA_DIR}/ca.crt`);
    if (bearer === undefined) return yield* fatal(`open ${SA_DIR}/token: no such file or directory`);
    const err = yield* validate(deps, raw, flags.get('audience') ?? '', bearer.trim(), ca, log);
    if (err === undefined) { yield { kind: 'exit', code: 0 }; return; }
    yield log(`failed to validate with in-cluster discovery: ${err}`);
    yield log('falling back to validating with external discovery');
    const external = yield* validate(deps, raw, flags.get('audience') ?? '', undefined, undefined, log);
    if (external === undefined) { yield { kind: 'exit', code: 0 }; return; }
    return yield* fatal(external);
  }
  return run();
}
