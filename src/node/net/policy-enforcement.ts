/**
 * Where the cluster network applies NetworkPolicy: the addresses of a
 * connection made into the pods (or other hosts) that own them, from the
 * informer caches, and the decision (network-policy.ts) taken only on the
 * nodes whose CNI plugin enforces policy. Calico's Felix does, on Linux
 * and on Windows (as HNS ACLs); flannel has no policy engine, so with it
 * policies are stored and nothing happens, as on a real flannel cluster.
 * Egress is judged on the source pod's node, ingress on the destination's.
 */
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { judgeFlow, type FlowEnd, type FlowProtocol, type Verdict } from './network-policy.js';

/** What enforcement reads: the kubelets' informer caches and the nodes' network plugin. */
export interface PolicyLookups {
  /** Whether the node's CNI plugin enforces NetworkPolicy (Calico). */
  enforces(node: string): boolean;
  pod(namespace: string, name: string): Pod | undefined;
  namespace(name: string): Namespace | undefined;
  networkPolicies(namespace: string): NetworkPolicy[];
}

/** The pod a pod-network address belongs to, as the network attached it. */
export interface AddressOwner { namespace: string; name: string; node: string }

/**
 * The verdict on a flow from `from` to `to` (after DNAT). Addresses the
 * pod network did not hand out (nodes, hostNetwork pods, the API server)
 * have no pod and no policy of their own.
 */
export function policyVerdict(lookups: PolicyLookups, ownerOf: (ip: string) => AddressOwner | undefined,
  from: string, to: string, protocol: FlowProtocol, port: number): Verdict {
  const src = ownerOf(from);
  const dst = ownerOf(to);
  const egress = src !== undefined && lookups.enforces(src.node);
  const ingress = dst !== undefined && lookups.enforces(dst.node);
  if (!egress && !ingress) return 'allowed';
  return judgeFlow({ src: end(lookups, from, src), dst: end(lookups, to, dst), protocol, port }, {
    policies: (ns) => lookups.networkPolicies(ns),
    namespaceLabels: (ns) => { const n = lookups.namespace(ns); return n ? n.metadata?.labels ?? {} : undefined; },
  }, { egress, ingress });
}

function end(lookups: PolicyLookups, ip: string, owner: AddressOwner | undefined): FlowEnd {
  const pod = owner ? lookups.pod(owner.namespace, owner.name) : undefined;
  return pod ? { ip, pod } : { ip };
}
