import { stringify } from 'yaml';
import type { ClusterPki, PemPair } from '../pki/certificates.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The cluster entry every kubeconfig of this cluster names. */
const CLUSTER_NAME = 'winkube';

/**
 * A kubeconfig with one cluster (`winkube`: the server and the CA), one user
 * authenticating with a client certificate, and one context joining them in
 * the `default` namespace, made current.
 */
export function clientCertKubeconfig(server: string, caCert: string, user: { name: string; context: string; credentials: PemPair }): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CLUSTER_NAME, cluster: { server, 'certificate-authority-data': b64(caCert) } }],
    users: [{ name: user.name, user: { 'client-certificate-data': b64(user.credentials.cert), 'client-key-data': b64(user.credentials.key) } }],
    contexts: [{ name: user.context, context: { cluster: CLUSTER_NAME, user: user.name, namespace: 'default' } }],
    'current-context': user.context,
    preferences: {},
  });
}

/** A kubeconfig for the admin user, with a context named `winkube`. */
export function adminKubeconfig(server: string, pki: ClusterPki): string {
  return clientCertKubeconfig(server, pki.ca.cert, { name: 'winkube-admin', context: CLUSTER_NAME, credentials: pki.admin });
}
