import { webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export interface PemPair { cert: string; key: string }

export interface ClusterPki {
  ca: PemPair;
  serving: PemPair;
  admin: PemPair;
}

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

async function createCA(): Promise<PemPair> {
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

async function issue(ca: PemPair, subject: string, usage: 'server' | 'client', sans: { dns: string[]; ip: string[] }): Promise<PemPair> {
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

function load(dir: string, name: string): PemPair | undefined {
  const c = join(dir, `${name}.crt`);
  const k = join(dir, `${name}.key`);
  return existsSync(c) && existsSync(k) ? { cert: readFileSync(c, 'utf8'), key: readFileSync(k, 'utf8') } : undefined;
}

function save(dir: string, name: string, p: PemPair): void {
  writeFileSync(join(dir, `${name}.crt`), p.cert);
  writeFileSync(join(dir, `${name}.key`), p.key, { mode: 0o600 });
}

/** Whether a serving certificate names every address it must. */
function coversSans(pem: string, ips: string[]): boolean {
  const san = new NodeX509(pem).subjectAltName ?? '';
  return ips.every((ip) => san.includes(`IP Address:${ip}`));
}

/**
 * The cluster's CA, serving certificate and admin client certificate: made
 * at first start under `<dir>/pki`, reused afterwards.
 */
export async function ensurePki(dataDir: string, serviceIP: string): Promise<ClusterPki> {
  const dir = join(dataDir, 'pki');
  mkdirSync(dir, { recursive: true });
  let ca = load(dir, 'ca');
  const fresh = !ca;
  if (!ca) save(dir, 'ca', ca = await createCA());
  const ips = ['127.0.0.1', serviceIP];
  let serving = fresh ? undefined : load(dir, 'apiserver');
  if (!serving || !coversSans(serving.cert, ips)) {
    save(dir, 'apiserver', serving = await issue(ca, 'CN=kube-apiserver', 'server', {
      dns: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
      ip: ips,
    }));
  }
  let admin = fresh ? undefined : load(dir, 'admin');
  if (!admin) save(dir, 'admin', admin = await issue(ca, 'CN=kubernetes-admin, O=system:masters', 'client', { dns: [], ip: [] }));
  return { ca, serving, admin };
}
