import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ensurePrivateDir } from '../storage/private-paths.js';
import { join } from 'node:path';

export interface PemPair { cert: string; key: string }

export interface ClusterPki {
  ca: PemPair;
  serving: PemPair;
  admin: PemPair;
  /**
   * kubeadm's front-proxy-ca and the front-proxy-client certificate it signs: the client
   * certificate the aggregator presents to extension API servers, which trust the CA through
   * the kube-system/extension-apiserver-authentication ConfigMap (--requestheader-client-ca-file).
   */
  frontProxyCA: PemPair;
  frontProxyClient: PemPair;
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

/** The cluster CA's certificate and key, if the data directory has them. */
export function loadClusterCA(dataDir: string): PemPair | undefined {
  return load(join(dataDir, 'pki'), 'ca');
}

/** Whether a serving certificate names every address it must. */
function coversSans(pem: string, ips: string[]): boolean {
  const san = new X509Certificate(pem).subjectAltName ?? '';
  return ips.every((ip) => san.includes(`IP Address:${ip}`));
}

/**
 * The cluster's CA, serving certificate and admin client certificate: made
 * at first start under `<dir>/pki`, reused afterwards.
 */
export async function ensurePki(dataDir: string, serviceIP: string, serverIPs: readonly string[] = []): Promise<ClusterPki> {
  const dir = join(dataDir, 'pki');
  // Issuing is only needed at first start; loading the X.509 library costs start-up time.
  const issuer = () => import('./issue.js');
  ensurePrivateDir(dir);
  let ca = load(dir, 'ca');
  const fresh = !ca;
  if (!ca) save(dir, 'ca', ca = await (await issuer()).createCA());
  const ips = [...new Set(['127.0.0.1', serviceIP, ...serverIPs])];
  let serving = fresh ? undefined : load(dir, 'apiserver');
  if (!serving || !coversSans(serving.cert, ips)) {
    save(dir, 'apiserver', serving = await (await issuer()).issue(ca, 'CN=kube-apiserver', 'server', {
      dns: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
      ip: ips,
    }));
  }
  let admin = fresh ? undefined : load(dir, 'admin');
  if (!admin) save(dir, 'admin', admin = await (await issuer()).issue(ca, 'CN=kubernetes-admin, O=system:masters', 'client', { dns: [], ip: [] }));
  // Made for data directories of earlier versions too: the front proxy was added later.
  let frontProxyCA = load(dir, 'front-proxy-ca');
  const freshFrontProxy = !frontProxyCA;
  if (!frontProxyCA) save(dir, 'front-proxy-ca', frontProxyCA = await (await issuer()).createCA('CN=front-proxy-ca'));
  let frontProxyClient = freshFrontProxy ? undefined : load(dir, 'front-proxy-client');
  if (!frontProxyClient) {
    save(dir, 'front-proxy-client', frontProxyClient = await (await issuer()).issue(frontProxyCA, 'CN=front-proxy-client', 'client', { dns: [], ip: [] }));
  }
  return { ca, serving, admin, frontProxyCA, frontProxyClient };
}
