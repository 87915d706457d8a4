/**
 * client-go's rest.InClusterConfig: in a pod, the API server is
 * $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT, trusted through the
 * service account's CA, and called with its token. The token is read on
 * every call: bound service account tokens are rotated by the kubelet.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ServerTarget } from '../client/https.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterEnv {
  env: NodeJS.ProcessEnv;
  /** The service account directory (the standard path unless a test says otherwise). */
  dir?: string;
}

/** Whether this process runs in a pod with a service account mounted. */
export function inCluster({ env, dir = SERVICE_ACCOUNT_DIR }: InClusterEnv): boolean {
  return !!env.KUBERNETES_SERVICE_HOST && !!env.KUBERNETES_SERVICE_PORT && existsSync(`${dir}/token`);
}

export function inClusterTarget({ env, dir = SERVICE_ACCOUNT_DIR }: InClusterEnv): ServerTarget {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  if (!host || !port) throw new Error('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  // An IPv6 service address needs brackets in a URL (net.JoinHostPort).
  const server = new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`);
  return { server, ca: readFileSync(`${dir}/ca.crt`), token: readFileSync(`${dir}/token`, 'utf8').trim() };
}
