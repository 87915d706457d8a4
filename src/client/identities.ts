/**
 * The users upstream's components authenticate as, and the field managers
 * their writes name (their binaries' user agents): what RBAC's default
 * roles and bindings are written for.
 */
import type { UserInfo } from './types.js';
import { serviceAccountGroups, serviceAccountUsername } from '../apimachinery/service-account-user.js';

const AUTHENTICATED = 'system:authenticated';

export const KUBE_CONTROLLER_MANAGER: UserInfo = { name: 'system:kube-controller-manager', groups: [AUTHENTICATED] };
export const KUBE_SCHEDULER: UserInfo = { name: 'system:kube-scheduler', groups: [AUTHENTICATED] };
/** The API server's own loopback writes (bootstrap objects, the priority and fairness configuration). */
export const APISERVER_LOOPBACK: UserInfo = { name: 'system:apiserver', groups: ['system:masters', AUTHENTICATED] };

/** A kubelet's node identity (its client certificate's CN and O). */
export function nodeUser(nodeName: string): UserInfo {
  return { name: `system:node:${nodeName}`, groups: ['system:nodes', AUTHENTICATED] };
}

/** A service account's user (serviceaccount.UserInfo): its name and its two groups. */
export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    name: serviceAccountUsername(namespace, name),
    groups: [...serviceAccountGroups(namespace), AUTHENTICATED],
  };
}

/**
 * A kube-controller-manager controller run with --use-service-account-credentials:
 * the service account kube-system/<name> (e.g. "replicaset-controller").
 */
export function controllerServiceAccount(serviceAccount: string): UserInfo {
  return serviceAccountUser('kube-system', serviceAccount);
}
