/**
 * Where the store's keys (`/<group>/<resource>/[<namespace>/]<name>`) live in etcd, as
 * kube-apiserver lays them out: `<prefix>/<resource>/...` for the built-in groups (the group
 * dropped, cohabiting versions sharing one place), `<prefix>/<group>/<resource>/...` for the
 * resources other servers own (apiextensions-apiserver, kube-aggregator, custom resources).
 */

/** k8s.io/apiserver/pkg/server/storage: specialDefaultResourcePrefixes. */
const SPECIAL_PREFIXES: Readonly<Record<string, string>> = {
  'core/replicationcontrollers': 'controllers',
  'core/endpoints': 'services/endpoints',
  'core/nodes': 'minions',
  'core/services': 'services/specs',
  'extensions/ingresses': 'ingress',
  'networking.k8s.io/ingresses': 'ingress',
};

/** The groups kube-apiserver itself serves (their CRDs are refused), keyed without the group. */
const BUILT_IN_GROUPS = new Set([
  'core', 'apps', 'batch', 'policy', 'autoscaling', 'extensions',
  'admissionregistration.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'certificates.k8s.io',
  'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io', 'networking.k8s.io', 'node.k8s.io', 'rbac.authorization.k8s.io',
  'resource.k8s.io', 'scheduling.k8s.io', 'storage.k8s.io', 'storagemigration.k8s.io',
]);

/** `--etcd-prefix`'s default. */
export const DEFAULT_ETCD_PREFIX = '/registry';

/**
 * The etcd key of a store key or key prefix. Keys below `/<group>/<resource>/` keep their
 * tail as it is, so a prefix maps to the prefix of the mapped keys.
 */
export function etcdKey(prefix: string, storeKey: string): string {
  const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  const m = /^\/([^/]+)\/([^/]+)(\/.*)?$/.exec(storeKey);
  if (!m) return base + storeKey;
  const [, group, resource, tail = ''] = m as unknown as [string, string, string, string | undefined];
  const special = SPECIAL_PREFIXES[`${group}/${resource}`];
  if (special) return `${base}/${special}${tail}`;
  if (BUILT_IN_GROUPS.has(group)) return `${base}/${resource}${tail}`;
  return `${base}/${group}/${resource}${tail}`;
}
