/**
 * The local signer of kube-controller-manager's csrsigning controller
 * (pkg/controller/certificates/authority, v1.32): a certificate for the
 * request's subject, public key and subject alternative names, signed by
 * the cluster CA, with the usages the CertificateSigningRequest names and
 * none of the request's other extensions (PermissiveSigningPolicy). Loaded
 * lazily, with the X.509 library.
 */
import { randomBytes, webcrypto } from 'node:crypto';
import { pemDecode } from './certificate-request.js';
import type { PemPair } from './certificates.js';
import { lib as x509 } from './x509.js';

/** keyUsageDict and extKeyUsageDict: a usage is a key usage bit or an extended key usage (or neither). */
const KEY_USAGES: Record<string, number> = {
  signing: x509.KeyUsageFlags.digitalSignature, 'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation, 'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement, 'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign, 'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly, 'decipher only': x509.KeyUsageFlags.decipherOnly,
};
const EXT_KEY_USAGES: Record<string, string> = {
  any: '2.5.29.37.0', 'server auth': '1.3.6.1.5.5.7.3.1', 'client auth': '1.3.6.1.5.5.7.3.2', 'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4', 's/mime': '1.3.6.1.5.5.7.3.4', 'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6', 'ipsec user': '1.3.6.1.5.5.7.3.7', timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9', 'microsoft sgc': '1.3.6.1.4.1.311.10.3.3', 'netscape sgc': '2.16.840.1.113730.4.1',
};

const BACKDATE_MS = 5 * 60_000;
const SHORT_MS = 8 * 3600_000;
const SUBJECT_ALT_NAME = '2.5.29.17';
const CA_ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** keyUsagesFromStrings: the KeyUsage and ExtendedKeyUsage extensions the usages make. */
function usageExtensions(usages: readonly string[]): x509.Extension[] {
  let bits = 0;
  const ext: string[] = [];
  const unknown: string[] = [];
  for (const u of usages) {
    if (u in KEY_USAGES) bits |= KEY_USAGES[u]!;
    else if (u in EXT_KEY_USAGES) ext.push(EXT_KEY_USAGES[u]!);
    else unknown.push(u);
  }
  if (unknown.length) throw new Error(`unrecognized usage values: [${unknown.map((u) => JSON.stringify(u)).join(' ')}]`);
  const out: x509.Extension[] = [];
  if (bits) out.push(new x509.KeyUsagesExtension(bits, true));
  if (ext.length) out.push(new x509.ExtendedKeyUsageExtension([...new Set(ext)]));
  return out;
}

async function importCAKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
  return (await webcrypto.subtle.importKey('pkcs8', der, CA_ALG, false, ['sign'])) as unknown as CryptoKey;
}

/** Signs a validated PEM request for `ttlMs` from `now` (backdated 5 minutes); the certificate in PEM. */
export async function signRequest(ca: PemPair, request: Buffer, usages: readonly string[], ttlMs: number, now: Date): Promise<string> {
  const block = pemDecode(request);
  if (!block) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const csr = new x509.Pkcs10CertificateRequest(new Uint8Array(block.der));
  const caCert = new x509.X509Certificate(ca.cert);
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  let notAfter = new Date(now.getTime() + (ttlMs < SHORT_MS ? ttlMs : ttlMs - BACKDATE_MS));
  if (notAfter >= caCert.notAfter) notAfter = caCert.notAfter;
  if (notBefore >= caCert.notAfter) throw new Error(`the signer has expired: NotAfter=${caCert.notAfter.toISOString()}`);
  const extensions: x509.Extension[] = [
    ...usageExtensions(usages),
    new x509.BasicConstraintsExtension(false, undefined, true),
    await x509.AuthorityKeyIdentifierExtension.create(caCert),
  ];
  const san = csr.getExtension(SUBJECT_ALT_NAME);
  if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san.rawData));
  const cert = await x509.X509CertificateGenerator.create({
    // A positive 128-bit serial, as the authority's random serial number.
    serialNumber: randomBytes(16).toString('hex').replace(/^[89a-f]/, '1'),
    subject: csr.subjectName, issuer: caCert.subjectName, publicKey: csr.publicKey,
    signingKey: await importCAKey(ca.key), signingAlgorithm: CA_ALG, notBefore, notAfter, extensions,
  });
  return cert.toString('pem') + '\n';
}
