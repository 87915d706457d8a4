import { webcrypto } from 'node:crypto';
import { lib as x509 } from './x509.js';
import type { PemPair } from './certificates.js';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key as webcrypto.CryptoKey);
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').trimEnd();
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

async function importKey(pem: string): Promise<CryptoKey> {
  const b64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s/g, '');
  return (await webcrypto.subtle.importKey('pkcs8', Buffer.from(b64, 'base64'), ALG, true, ['sign'])) as unknown as CryptoKey;
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');
}

export async function createCA(): Promise<PemPair> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const now = new Date();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(), name: 'CN=winkube-ca', keys, signingAlgorithm: ALG,
    notBefore: new Date(now.getTime() - 3600_000), notAfter: new Date(now.getTime() + TEN_YEARS_MS),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await keyPem(keys.privateKey) };
}

/** A certificate's subject: an RFC 4514 string, or its RDNs (each attribute type with its values) in order. */
export type CertificateSubject = string | x509.JsonName;

export async function issue(ca: PemPair, subject: CertificateSubject, usage: 'server' | 'client', sans: { dns: string[]; ip: string[] }): Promise<PemPair> {
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await importKey(ca.key);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const now = new Date();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
    await x509.AuthorityKeyIdentifierExtension.create(caCert),
  ];
  if (sans.dns.length || sans.ip.length) {
    extensions.push(new x509.SubjectAlternativeNameExtension([
      ...sans.dns.map((value) => ({ type: 'dns' as const, value })),
      ...sans.ip.map((value) => ({ type: 'ip' as const, value })),
    ]));
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(), subject, issuer: caCert.subject, publicKey: keys.publicKey, signingKey: caKey,
    signingAlgorithm: ALG, notBefore: new Date(now.getTime() - 3600_000), notAfter: new Date(now.getTime() + TEN_YEARS_MS),
    extensions,
  });
  return { cert: cert.toString('pem') + '\n', key: await keyPem(keys.privateKey) };
}


/** A new P-256 key and a PKCS#10 request for it naming `subject`, both in PEM (what a kubelet's TLS bootstrap sends). */
export async function certificateRequest(subject: CertificateSubject): Promise<{ request: string; key: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: ALG });
  return { request: csr.toString('pem') + '\n', key: await keyPem(keys.privateKey) };
}
