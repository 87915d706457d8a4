/**
 * Admission plugins that need more than one object (default priority class,
 * default storage class, used cluster IPs and node ports) list a resource
 * through Lookup.listAll (every object in a namespace, or in all namespaces
 * for ''). A lookup without it (e.g. a test double) counts as empty.
 */
import type { KObject } from '../apimachinery/object.js';
import type { AuthorizationPolicy } from '../authorization/authorizers.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import type { PodEndpointDialer } from '../network/pod-endpoint-dial.js';

export interface EquivalentResource {
  resource: { group: string; version: string; resource: string };
  kind: { group: string; version: string; kind: string };
  /** The object of the requested version in this one. */
  fromRequested(obj: KObject): KObject;
  /** The object of this version in the requested one. */
  toRequested(obj: KObject): KObject;
}

/** Read access to other resources, for admission plugins. */
export interface Lookup {
  get(group: string, resource: string, namespace: string, name: string): Promise<KObject | undefined>;
  /** Every object of a resource in the namespace, or in all namespaces for ''. */
  listAll(group: string, resource: string, namespace: string): Promise<KObject[]>;
  /**
   * The other served versions of a resource (the same objects in storage), with converters from the
   * given version and back: what matchPolicy Equivalent matches webhook rules against.
   */
  equivalentResources?(group: string, version: string, resource: string): EquivalentResource[];
  /** The server's authorizer and RBAC rules, for checks made on writes (RBAC escalation); absent: none. */
  readonly authorization?: AuthorizationPolicy;
  /** The served resources (the RESTMapper admission policies resolve paramKind and equivalent versions with); absent: none. */
  readonly defs?: readonly ResourceInfo[];
  /** How the server reaches endpoints that are emulated pods (webhooks' Services); absent: real sockets only. */
  readonly podEndpoints?: PodEndpointDialer;
}

export async function listAll(lookup: Lookup, group: string, resource: string, namespace: string): Promise<KObject[]> {
  const l = lookup as Partial<Lookup>;
  return typeof l.listAll === 'function' ? l.listAll.call(lookup, group, resource, namespace) : [];
}
