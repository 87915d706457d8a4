/**
 * curl's (8.x, built with OpenSSL 3) verification of a server's certificate, as the error text
 * it prints after `curl: (60) `. OpenSSL runs during the handshake: it builds the chain to a
 * trusted CA first and only then checks the dates, so an unknown issuer hides an expired
 * certificate; curl checks the name itself after the handshake (vtls/openssl.c
 * ossl_verifyhost): a subjectAltName of the target's kind (IP address or DNS name) must match,
 * and only a certificate with neither kind falls back to the subject's Common Name (texts of
 * curl 8.11.1's lib/vtls/openssl.c and src/tool_operate.c).
 *
 * The checks themselves are the ones Go's client uses (network/tls-verify.ts); only their
 * order and words are OpenSSL's and curl's.
 */
import { isIP } from 'node:net';
import { chainsToTrustedRoot, leafMatchesName, leafNames, untrustedChainEnd, validityProblem } from '../../network/tls-verify.js';

/** X509_verify_cert_error_string of the chain's first failure (OpenSSL 3 spells "self-signed" with a hyphen). */
function chainError(chainPEM: string): string {
  const end = untrustedChainEnd(chainPEM);
  if (!end.selfSigned) return 'unable to get local issuer certificate';
  return end.depth === 0 ? 'self-signed certificate' : 'self-signed certificate in certificate chain';
}

/** The message of curl's exit 60 for this chain, CA bundle and URL host; undefined when curl accepts it. */
export function curlPeerVerification(chainPEM: string, caBundle: string, host: string, now: Date): string | undefined {
  if (!chainsToTrustedRoot(chainPEM, caBundle)) return `SSL certificate problem: ${chainError(chainPEM)}`;
  const validity = validityProblem(chainPEM, now);
  if (validity) return `SSL certificate problem: ${validity.kind === 'expired' ? 'certificate has expired' : 'certificate is not yet valid'}`;
  const names = leafNames(chainPEM);
  if (!names) return 'SSL certificate problem: unable to get local issuer certificate';
  if (names.dns.length || names.ips.length) {
    // Only SANs of the target's kind can match; any SAN at all rules out the Common Name.
    const ofKind = isIP(host) ? names.ips.length > 0 : names.dns.length > 0;
    const target = isIP(host) === 4 ? 'ipv4 address' : isIP(host) === 6 ? 'ipv6 address' : 'hostname';
    return ofKind && leafMatchesName(chainPEM, host) ? undefined : `SSL: no alternative certificate subject name matches target ${target} '${host}'`;
  }
  if (names.commonName === undefined) return 'SSL: unable to obtain common name from peer certificate';
  return names.commonName.toLowerCase() === host.toLowerCase() ? undefined
    : `SSL: certificate subject name '${names.commonName}' does not match target hostname '${host}'`;
}
