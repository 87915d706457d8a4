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

export function verifyServerCertificate(chainPEM: string, rootsPEM: string, serverName: string, now: Date): string | undefined {
  const [leaf, ...intermediates] = parsePEMCertificates(chainPEM);
  if (!leaf) return 'x509: certificate signed by unknown authority';
  const notBefore = new Date(leaf.validFrom);
  const notAfter = new Date(leaf.validTo);
  if (now < notBefore) return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is before ${rfc3339(notBefore)}`;
  if (now > notAfter) return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is after ${rfc3339(notAfter)}`;
  const named = isIP(serverName) ? leaf.checkIP(serverName) : leaf.checkHost(serverName, { subject: 'never' });
  if (named === undefined) return hostnameError(leaf, serverName);
  if (!chains(leaf, parsePEMCertificates(rootsPEM), intermediates)) return 'x509: certificate signed by unknown authority';
  return undefined;
}
