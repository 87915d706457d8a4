/**
 * The Node authorizer (plugin/pkg/auth/authorizer/node/node_authorizer.go,
 * v1.32 with AuthorizeNodeWithSelectors on): a kubelet, known by its
 * system:node:<name> identity, may read only the Secrets, ConfigMaps,
 * claims, volumes and service account tokens of the pods bound to it, its own
 * Node and Lease, and list pods only with `spec.nodeName=<itself>`; the rest
 * of what it may do are the static node rules (the system:node role's).
 * Which objects relate to which node is the graph's to say (NodeRelations).
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { goQuote } from '../apimachinery/go-quote.js';
import { ruleAllows } from './rule-matching.js';
import type { Attributes, AuthorizationResult, AuthorizerWithRules, RulesResult, UserInfo } from './types.js';

/** The kinds of object the graph relates to nodes (upstream's vertex types). */
export type RelatedKind = 'configmap' | 'pod' | 'pvc' | 'pv' | 'resourceclaim' | 'secret' | 'volumeattachment' | 'serviceAccount' | 'resourceslice';

/** Whether a path leads from the object to the node (Graph and NodeAuthorizer.hasPathFrom). */
export interface NodeRelations {
  hasPathFrom(nodeName: string, kind: RelatedKind, namespace: string, name: string): boolean;
}

const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';
/** api.NamespaceNodeLease. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/**
 * nodeidentifier.NewDefaultNodeIdentifier: a user named system:node:<name> in
 * the system:nodes group is the node <name> (possibly ''); anyone else is no node.
 */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

const allow: AuthorizationResult = { decision: 'Allow', reason: '' };
const noOpinion = (reason = ''): AuthorizationResult => ({ decision: 'NoOpinion', reason });

export class NodeAuthorizer implements AuthorizerWithRules {
  constructor(private readonly graph: NodeRelations, private readonly nodeRules: readonly PolicyRule[]) {}

  authorize(attrs: Attributes): AuthorizationResult {
    const nodeName = nodeIdentity(attrs.user);
    if (nodeName === undefined) return noOpinion();
    if (nodeName === '') return noOpinion(`unknown node for user ${goQuote(attrs.user.name)}`);
    if (attrs.resourceRequest) {
      const decided = this.subdivided(nodeName, attrs);
      if (decided) return decided;
    }
    return this.nodeRules.some((r) => ruleAllows(attrs, r)) ? allow : noOpinion();
  }

  /** The resources whose access is subdivided by node; undefined for the others. */
  private subdivided(nodeName: string, attrs: Attributes): AuthorizationResult | undefined {
    switch (`${attrs.apiGroup}/${attrs.resource}`) {
      case '/secrets': return this.readNamespacedObject(nodeName, 'secret', attrs);
      case '/configmaps': return this.readNamespacedObject(nodeName, 'configmap', attrs);
      case '/persistentvolumeclaims':
        return attrs.subresource === 'status' ? this.statusUpdate(nodeName, 'pvc', attrs) : this.get(nodeName, 'pvc', attrs);
      case '/persistentvolumes': return this.get(nodeName, 'pv', attrs);
      case 'resource.k8s.io/resourceclaims': return this.get(nodeName, 'resourceclaim', attrs);
      case 'storage.k8s.io/volumeattachments': return this.get(nodeName, 'volumeattachment', attrs);
      case '/serviceaccounts': return this.createToken(nodeName, attrs);
      case 'coordination.k8s.io/leases': return this.lease(nodeName, attrs);
      case 'storage.k8s.io/csinodes': return this.csiNode(nodeName, attrs);
      case 'resource.k8s.io/resourceslices': return this.resourceSlice(nodeName, attrs);
      case '/nodes': return this.node(nodeName, attrs);
      case '/pods': return this.pod(nodeName, attrs);
      default: return undefined;
    }
  }

  /** authorizeStatusUpdate. */
  private statusUpdate(nodeName: string, kind: RelatedKind, attrs: Attributes): AuthorizationResult {
    if (attrs.verb !== 'update' && attrs.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (attrs.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.related(nodeName, kind, attrs);
  }

  /** authorizeGet. */
  private get(nodeName: string, kind: RelatedKind, attrs: Attributes): AuthorizationResult {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource) return noOpinion('cannot get subresource');
    return this.related(nodeName, kind, attrs);
  }

  /** authorizeReadNamespacedObject. */
  private readNamespacedObject(nodeName: string, kind: RelatedKind, attrs: Attributes): AuthorizationResult {
    if (!['get', 'list', 'watch'].includes(attrs.verb)) return noOpinion('can only read resources of this type');
    if (attrs.subresource) return noOpinion('cannot read subresource');
    if (!attrs.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(nodeName, kind, attrs);
  }

  /** authorize: the named object must lead to the node. */
  private related(nodeName: string, kind: RelatedKind, attrs: Attributes): AuthorizationResult {
    if (!attrs.name) return noOpinion('No Object name found');
    return this.graph.hasPathFrom(nodeName, kind, attrs.namespace, attrs.name) ? allow : unrelated(nodeName);
  }

  /** authorizeCreateToken. */
  private createToken(nodeName: string, attrs: Attributes): AuthorizationResult {
    if (attrs.verb !== 'create' || !attrs.name) return noOpinion('can only create tokens for individual service accounts');
    if (attrs.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.graph.hasPathFrom(nodeName, 'serviceAccount', attrs.namespace, attrs.name) ? allow : unrelated(nodeName);
  }

  /** authorizeLease. */
  private lease(nodeName: string, attrs: Attributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) {
      return noOpinion('can only get, create, update, patch, or delete a node lease');
    }
    if (attrs.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the ${goQuote(NODE_LEASE_NAMESPACE)} system namespace`);
    // The name is unknown to the authorizer on create: NodeRestriction checks it then.
    if (attrs.verb !== 'create' && attrs.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
    return allow;
  }

  /** authorizeCSINode. */
  private csiNode(nodeName: string, attrs: Attributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) {
      return noOpinion('can only get, create, update, patch, or delete a CSINode');
    }
    if (attrs.subresource) return noOpinion('cannot authorize CSINode subresources');
    if (attrs.verb !== 'create' && attrs.name !== nodeName) return noOpinion('can only access CSINode with the same name as the requesting node');
    return allow;
  }

  /** authorizeResourceSlice. */
  private resourceSlice(nodeName: string, attrs: Attributes): AuthorizationResult {
    if (attrs.subresource) return noOpinion('cannot authorize ResourceSlice subresources');
    switch (attrs.verb) {
      case 'create': return allow;
      case 'get': case 'update': case 'patch': case 'delete': return this.related(nodeName, 'resourceslice', attrs);
      case 'watch': case 'list': case 'deletecollection':
        return selects(attrs, 'nodeName', nodeName) ? allow
          : noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }

  /** authorizeNode: its own Node only for reads; writes are NodeRestriction's to limit. */
  private node(nodeName: string, attrs: Attributes): AuthorizationResult {
    if (attrs.subresource === '') {
      if (['create', 'update', 'patch'].includes(attrs.verb)) return allow;
      if (['get', 'list', 'watch'].includes(attrs.verb)) {
        // The name, not the graph: a kubelet reads its Node before creating it.
        if (attrs.name === nodeName) return allow;
        return noOpinion(attrs.name === ''
          ? `node '${nodeName}' cannot read all nodes, only its own Node object`
          : `node '${nodeName}' cannot read '${attrs.name}', only its own Node object`);
      }
    } else if (attrs.subresource === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) {
      return allow;
    }
    return noOpinion();
  }

  /** authorizePod: the pods bound to it, listed by `spec.nodeName`; mirror pods, status and evictions are NodeRestriction's. */
  private pod(nodeName: string, attrs: Attributes): AuthorizationResult {
    switch (attrs.subresource) {
      case '':
        switch (attrs.verb) {
          case 'get': return this.get(nodeName, 'pod', attrs);
          case 'list': case 'watch':
            if (selects(attrs, 'spec.nodeName', nodeName)) return allow;
            if (attrs.name) return this.related(nodeName, 'pod', attrs);
            return noOpinion('can only list/watch pods with spec.nodeName field selector');
          case 'create': case 'delete': return allow;
        }
        break;
      case 'status':
        if (attrs.verb === 'update' || attrs.verb === 'patch') return allow;
        break;
      case 'eviction':
        if (attrs.verb === 'create') return allow;
        break;
    }
    return noOpinion();
  }

  /** Nodes' permissions are not enumerable (RulesFor). */
  rulesFor(user: UserInfo): RulesResult {
    if (nodeIdentity(user) !== undefined) {
      return { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'node authorizer does not support user rule resolution' };
    }
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}

function unrelated(nodeName: string): AuthorizationResult {
  return noOpinion(`no relationship found between node '${nodeName}' and this object`);
}

/** Whether the field selector has `field=value` (= and == alike, as fields.Requirements gives them). */
function selects(attrs: Attributes, field: string, value: string): boolean {
  return (attrs.fieldSelector ?? []).some((t) => t.field === field && !t.negate && t.value === value);
}
