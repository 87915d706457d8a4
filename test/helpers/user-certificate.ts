/**
 * Client certificates for named users of a test cluster, signed by the CA in
 * its data directory as `winkube kubeconfig --user NAME --group G` signs them
 * (CN = user, O = groups), for requests that must come from someone other than
 * the admin (impersonation cannot stand in when impersonation is what is tested).
 */
import { loadClusterCA } from '../../src/pki/certificates.js';
import { issue } from '../../src/pki/issue.js';

export interface UserCertificate { cert: string; key: string }

const issued = new Map<string, Promise<UserCertificate>>();

export function userCertificate(dataDir: string, user: string, groups: readonly string[] = []): Promise<UserCertificate> {
  const key = JSON.stringify([dataDir, user, groups]);
  let cert = issued.get(key);
  if (!cert) {
    const ca = loadClusterCA(dataDir);
    if (!ca) throw new Error(`no cluster CA in ${dataDir}`);
    // As Go's pkix.Name: the organizations in one RDN, then the common name.
    cert = issue(ca, [...(groups.length ? [{ O: [...groups] }] : []), { CN: [user] }], 'client', { dns: [], ip: [] });
    issued.set(key, cert);
  }
  return cert;
}
