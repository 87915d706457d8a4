/**
 * A service account's user as Kubernetes names it (apiserver pkg/authentication/serviceaccount:
 * MakeUsername, MakeGroupNames; UserInfo is the pair): what the token authenticator yields,
 * impersonation and access reviews name, and in-process components act as.
 */

/** serviceaccount.MakeUsername: `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** serviceaccount.MakeGroupNames: all service accounts', then the namespace's. */
export function serviceAccountGroups(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
}
