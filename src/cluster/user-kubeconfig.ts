/**
 * `winkube kubeconfig --user NAME [--group G ...]`: a kubeconfig for another
 * user of the cluster, made as kind and k3d users make one: a client
 * certificate signed by the cluster CA whose common name is the user and whose
 * organizations are the groups (what x509's CommonNameUserConversion reads).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadClusterCA } from '../pki/certificates.js';
import { clientCertKubeconfig } from './kubeconfig.js';

/** The admin kubeconfig `winkube up` writes, where the server's address is read from. */
const ADMIN_KUBECONFIG = 'kubeconfig.yaml';

/** The server of the admin kubeconfig of the cluster in `dataDir`. */
function adminCluster(dataDir: string): { server: string } {
  const path = join(dataDir, ADMIN_KUBECONFIG);
  if (!existsSync(path)) throw new Error(`no ${ADMIN_KUBECONFIG} in ${dataDir}: start the cluster with winkube up --data-dir ${dataDir} first`);
  const server = (parse(readFileSync(path, 'utf8')) as { clusters?: { cluster?: { server?: unknown } }[] } | null)?.clusters?.[0]?.cluster?.server;
  if (typeof server !== 'string' || !server) throw new Error(`${path} names no cluster server`);
  return { server };
}

export async function userKubeconfig(dataDir: string, user: string, groups: readonly string[]): Promise<string> {
  // An empty common name authenticates nobody (the request would be anonymous).
  if (!user) throw new Error('--user must not be empty');
  const ca = loadClusterCA(dataDir);
  if (!ca) throw new Error(`no cluster CA in ${join(dataDir, 'pki')} (ca.crt, ca.key): start the cluster with winkube up --data-dir ${dataDir} first`);
  const { server } = adminCluster(dataDir);
  const { issue } = await import('../pki/issue.js');
  // As Go's pkix.Name: the organizations in one RDN, then the common name.
  const subject: Record<string, string[]>[] = [...(groups.length ? [{ O: [...groups] }] : []), { CN: [user] }];
  const credentials = await issue(ca, subject, 'client', { dns: [], ip: [] });
  return clientCertKubeconfig(server, ca.cert, { name: user, context: user, credentials });
}
