import { stringify } from 'yaml';
import type { ClusterPki } from '../pki/certificates.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A kubeconfig for the admin user, with a context named `winkube`. */
export function adminKubeconfig(server: string, pki: ClusterPki): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'winkube', cluster: { server, 'certificate-authority-data': b64(pki.ca.cert) } }],
    users: [{ name: 'winkube-admin', user: { 'client-certificate-data': b64(pki.admin.cert), 'client-key-data': b64(pki.admin.key) } }],
    contexts: [{ name: 'winkube', context: { cluster: 'winkube', user: 'winkube-admin', namespace: 'default' } }],
    'current-context': 'winkube',
    preferences: {},
  });
}
