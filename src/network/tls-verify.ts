/**
 * crypto/x509 Certificate.Verify as crypto/tls's client calls it (Go 1.23, what v1.32 is built
 * with): the leaf's validity period, then the name (VerifyHostname), then a chain to a trusted
 * root through the intermediates the server sent. Returns the x509 error text, or undefined
 * when the certificate is good. `roots` is a PEM bundle; an empty one trusts nothing (the
 * system roots hold no cluster CA).
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle, skipping blocks that do not parse (as AppendCertsFromPEM does). */
export function parsePEMCertificates(pem: string): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const block of pem.match(PEM_CERT) ?? []) {
    try { out.push(new X509Certificate(block)); } catch { /* not a certificate */ }
  }
  return out;
}

/** time.Time.Format(time.RFC3339) in UTC. */
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The names a certificate is valid for: its DNS SANs (Go ignores the Common Name since 1.15). */
function dnsNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '').split(', ').filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4));
}

/** x509.HostnameError's text. */
export function hostnameError(cert: X509Certificate, host: string): string {
  if (isIP(host)) {
    const ips = (cert.subjectAltName ?? '').split(', ').filter((s) => s.startsWith('IP Address:')).map((s) => s.slice(11));
    if (!ips.length) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ips.join(', ')}, not ${host}`;
  }
  const names = dnsNames(cert);
  if (!names.length) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${names.join(', ')}, not ${host}`;
}

/** Whether `issuer` signed `cert` (names match and the signature checks out). */
function issued(issuer: X509Certificate, cert: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** A chain from `cert` to one of `roots` through `intermediates` (depth-limited as Go's maxChainSignatureChecks bounds it). */
function chains(cert: X509Certificate, roots: X509Certificate[], intermediates: X509Certificate[], depth = 0): boolean {
  if (depth > 8) return false;
  if (roots.some((r) => issued(r, cert) || r.raw.equals(cert.raw))) return true;
  return intermediates.some((i) => !i.raw.equals(cert.raw) && issued(i, cert) && chains(i, roots, intermediates, depth + 1));
}

/**
 * The single checks, for clients that run them in another order or word them otherwise (OpenSSL
 * builds the chain first, then checks the dates; curl checks the name after the handshake).
 */

/** Whether the served chain (leaf first) reaches one of the trusted roots (a PEM bundle). */
export function chainsToTrustedRoot(chainPEM: string, rootsPEM: string): boolean {
  const [leaf, ...intermediates] = parsePEMCertificates(chainPEM);
  return leaf !== undefined && chains(leaf, parsePEMCertificates(rootsPEM), intermediates);
}

/**
 * How far an untrusted chain gets: the last certificate reached from the leaf through the
 * certificates the server sent, its depth (0 for the leaf), and whether it signed itself.
 */
export function untrustedChainEnd(chainPEM: string): { depth: number; selfSigned: boolean } {
  const [leaf, ...rest] = parsePEMCertificates(chainPEM);
  if (!leaf) return { depth: 0, selfSigned: false };
  let at = leaf;
  let depth = 0;
  for (;;) {
    if (issued(at, at)) return { depth, selfSigned: true };
    const next = rest.find((c) => !c.raw.equals(at.raw) && issued(c, at));
    if (!next || depth >= 8) return { depth, selfSigned: false };
    at = next; depth++;
  }
}

/** Whether `now` is before the leaf's NotBefore or after its NotAfter, with both instants. */
export function validityProblem(chainPEM: string, now: Date): { kind: 'not-yet-valid' | 'expired'; notBefore: Date; notAfter: Date } | undefined {
  const [leaf] = parsePEMCertificates(chainPEM);
  if (!leaf) return undefined;
  const notBefore = new Date(leaf.validFrom);
  const notAfter = new Date(leaf.validTo);
  if (now < notBefore) return { kind: 'not-yet-valid', notBefore, notAfter };
  if (now > notAfter) return { kind: 'expired', notBefore, notAfter };
  return undefined;
}

/** The leaf's subjectAltNames by kind and its subject's Common Name. */
export function leafNames(chainPEM: string): { dns: string[]; ips: string[]; commonName?: string } | undefined {
  const [leaf] = parsePEMCertificates(chainPEM);
  if (!leaf) return undefined;
  const sans = (leaf.subjectAltName ?? '').split(', ');
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(leaf.subject)?.[1];
  return {
    dns: sans.filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4)),
    ips: sans.filter((s) => s.startsWith('IP Address:')).map((s) => s.slice(11)),
    ...(cn !== undefined ? { commonName: cn } : {}),
  };
}

/** Whether the leaf is for the name: an IP SAN for an address, a DNS SAN (wildcards as RFC 6125 allows) for a name. */
export function leafMatchesName(chainPEM: string, name: string): boolean {
  const [leaf] = parsePEMCertificates(chainPEM);
  if (!leaf) return false;
  return (isIP(name) ? leaf.checkIP(name) : leaf.checkHost(name, { subject: 'never' })) !== undefined;
}

export function verifyServerCertificate(chainPEM: string, rootsPEM: string, serverName: string, now: Date): string | undefined {
  const [leaf] = parsePEMCertificates(chainPEM);
  if (!leaf) return 'x509: certificate signed by unknown authority';
  const validity = validityProblem(chainPEM, now);
  if (validity) {
    const edge = validity.kind === 'not-yet-valid' ? `is before ${rfc3339(validity.notBefore)}` : `is after ${rfc3339(validity.notAfter)}`;
    return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} ${edge}`;
  }
  if (!leafMatchesName(chainPEM, serverName)) return hostnameError(leaf, serverName);
  if (!chainsToTrustedRoot(chainPEM, rootsPEM)) return 'x509: certificate signed by unknown authority';
  return undefined;
}
