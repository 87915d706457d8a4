import { errors, StatusError } from '../apimachinery/errors.js';

/**
 * Names that cannot be a path segment (apimachinery api/validation/path): the REST path and the
 * storage key are built from them, so `.`, `..`, `/` and `%` would address something else.
 */
export function pathSegmentNameProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const problems: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) problems.push(`may not contain '${bad}'`);
  return problems;
}

/** Go's %q of a string, for the names in these messages. */
function quoted(s: string): string {
  return JSON.stringify(s);
}

/**
 * The storage's key function (registry.NamespaceKeyFunc/NoNamespaceKeyFunc) rejects a name that is
 * not a valid path segment before any read or write: 400 "Name parameter invalid".
 */
export function checkNameSegment(name: string): void {
  const problems = pathSegmentNameProblems(name);
  if (problems.length) throw errors.badRequest(`Name parameter invalid: ${quoted(name)}: ${problems.join(';')}`);
}

/**
 * NamespaceKeyFunc does not check the namespace, so `.` and `..` reach etcd3's prepareKey, which
 * refuses the key with a plain error: a 500 Status without a reason. `etcdPrefix` is the
 * resource's key prefix in upstream's storage ("/configmaps").
 */
export function checkNamespaceKey(etcdPrefix: string, namespace: string, name: string): void {
  if (namespace !== '.' && namespace !== '..') return;
  const key = `${etcdPrefix}/${namespace}/${name}`;
  throw new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `invalid key: ${quoted(key)}`, code: 500,
  });
}

/**
 * A create in a namespace that is no path segment: the NamespaceLifecycle admission plugin does
 * not find it in its cache and asks the API through client-go, which refuses the name before
 * sending; the plugin answers that error as an InternalError.
 */
export function checkCreateNamespace(namespace: string): void {
  const problems = pathSegmentNameProblems(namespace);
  if (problems.length) throw errors.internal(`invalid resource name ${quoted(namespace)}: [${problems.join(' ')}]`);
}

/**
 * The resources whose etcd key prefix is not their resource name: kube-apiserver's
 * SpecialDefaultResourcePrefixes (pkg/kubeapiserver/default_storage_factory_builder.go), which
 * DefaultStorageFactory.ResourcePrefix uses before falling back to the resource.
 */
const ETCD_PREFIXES: Record<string, string> = {
  '/services': '/services/specs',
  '/endpoints': '/services/endpoints',
  '/replicationcontrollers': '/controllers',
  'networking.k8s.io/ingresses': '/ingress',
};

export function etcdPrefixOf(group: string, resource: string): string {
  return ETCD_PREFIXES[group ? `${group}/${resource}` : `/${resource}`] ?? `/${resource}`;
}

/**
 * What upstream's storage checks before it reads or writes one object: the name must be a path
 * segment (KeyFunc), and the key must not hold a dot segment (etcd3 prepareKey).
 */
export function checkObjectKey(def: { group: string; resource: string; namespaced?: boolean }, namespace: string, name: string): void {
  checkNameSegment(name);
  if (def.namespaced) checkNamespaceKey(etcdPrefixOf(def.group, def.resource), namespace, name);
}
