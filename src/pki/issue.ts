import { webcrypto } from 'node:crypto';
import { lib as x509 } from './x509.js';
import { pemDecode } from './certificate-request.js';
import type { PemPair } from './certificates.js';
import { SUBJECT_ALT_NAME_OID } from './request-subject.js';

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

/** A self-signed CA; kubeadm names its front-proxy CA `CN=front-proxy-ca`. */
export async function createCA(subject = 'CN=winkube-ca'): Promise<PemPair> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const now = new Date();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(), name: subject, keys, signingAlgorithm: ALG,
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

/** A certificate and its new key, signed by the CA `ca` (see CertificateAuthority.issue). */
export async function issue(ca: PemPair, subject: CertificateSubject, usage: 'server' | 'client', sans: { dns: string[]; ip: string[] }): Promise<PemPair> {
  return (await CertificateAuthority.load(ca)).issue(subject, usage, sans);
}

/** A new P-256 key and a PKCS#10 request for it naming `subject`, both in PEM (what a kubelet's TLS bootstrap sends). */
export async function certificateRequest(subject: CertificateSubject): Promise<{ request: string; key: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: ALG });
  return { request: csr.toString('pem') + '\n', key: await keyPem(keys.privateKey) };
}

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

/**
 * The cluster CA, read once: its certificate parsed, its key imported and
 * its authority key identifier computed, so that issuing and signing do not
 * do it again for each certificate (a node joining signs one).
 */
export class CertificateAuthority {
  private constructor(private readonly cert: x509.X509Certificate, private readonly key: CryptoKey,
    private readonly authorityKeyId: x509.AuthorityKeyIdentifierExtension) {}

  static async load(ca: PemPair): Promise<CertificateAuthority> {
    const cert = new x509.X509Certificate(ca.cert);
    return new CertificateAuthority(cert, await importKey(ca.key), await x509.AuthorityKeyIdentifierExtension.create(cert));
  }

  /** A certificate for a new key: `usage` server or client auth, valid ten years from an hour ago, with the given SANs. */
  async issue(subject: CertificateSubject, usage: 'server' | 'client', sans: { dns: string[]; ip: string[] }): Promise<PemPair> {
    const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
    const now = new Date();
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      this.authorityKeyId,
    ];
    if (sans.dns.length || sans.ip.length) {
      extensions.push(new x509.SubjectAlternativeNameExtension([
        ...sans.dns.map((value) => ({ type: 'dns' as const, value })),
        ...sans.ip.map((value) => ({ type: 'ip' as const, value })),
      ]));
    }
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(), subject, issuer: this.cert.subject, publicKey: keys.publicKey, signingKey: this.key,
      signingAlgorithm: ALG, notBefore: new Date(now.getTime() - 3600_000), notAfter: new Date(now.getTime() + TEN_YEARS_MS),
      extensions,
    });
    return { cert: cert.toString('pem') + '\n', key: await keyPem(keys.privateKey) };
  }

  /**
   * The local signer of kube-controller-manager's csrsigning controller
   * (pkg/controller/certificates/authority, v1.32): a certificate for a
   * validated PEM request's subject, public key and subject alternative
   * names, signed by the cluster CA for `ttlMs` from `now` (backdated 5
   * minutes), with the usages the CertificateSigningRequest names and none of
   * the request's other extensions (PermissiveSigningPolicy); in PEM.
   */
  async signRequest(request: Buffer, usages: readonly string[], ttlMs: number, now: Date): Promise<string> {
    const block = pemDecode(request);
    if (!block) throw new Error('PEM block type must be CERTIFICATE REQUEST');
    const csr = new x509.Pkcs10CertificateRequest(new Uint8Array(block.der));
    const notBefore = new Date(now.getTime() - BACKDATE_MS);
    let notAfter = new Date(now.getTime() + (ttlMs < SHORT_MS ? ttlMs : ttlMs - BACKDATE_MS));
    if (notAfter >= this.cert.notAfter) notAfter = this.cert.notAfter;
    if (notBefore >= this.cert.notAfter) throw new Error(`the signer has expired: NotAfter=${this.cert.notAfter.toISOString()}`);
    const extensions: x509.Extension[] = [
      ...usageExtensions(usages),
      new x509.BasicConstraintsExtension(false, undefined, true),
      this.authorityKeyId,
    ];
    const san = csr.getExtension(SUBJECT_ALT_NAME_OID);
    if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san.rawData));
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(), subject: csr.subjectName, issuer: this.cert.subjectName, publicKey: csr.publicKey,
      signingKey: this.key, signingAlgorithm: ALG, notBefore, notAfter, extensions,
    });
    return cert.toString('pem') + '\n';
  }
}
