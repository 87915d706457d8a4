/**
 * kube-proxy's iptables proxier (pkg/proxy/iptables/proxier.go with
 * pkg/proxy/topology.go CategorizeEndpoints, v1.32) for one Service port:
 *
 * - the cluster endpoints are the ready ones, else the serving and
 *   terminating ones; the local ones likewise among this node's endpoints;
 * - no usable endpoint anywhere: the filter table REJECTs (`has no
 *   endpoints`), the client sees connection refused;
 * - internalTrafficPolicy Local without a local endpoint: DROP (`has no
 *   local endpoints`) for the ClusterIP;
 * - external addresses (nodePort, externalIPs, LoadBalancer ingress):
 *   externalTrafficPolicy Cluster masquerades everything (KUBE-EXT's
 *   "masquerade traffic for ... external destinations"); Local keeps the
 *   client's address and uses local endpoints only (DROP without one),
 *   except that pods (`-s <cluster CIDR>`) and the node itself
 *   (`--src-type LOCAL`, masqueraded) are short-circuited to the cluster
 *   endpoints;
 * - the ClusterIP masquerades only what does not come from the cluster CIDR.
 * - sessionAffinity ClientIP: the `recent` match with the Service's
 *   timeoutSeconds (10800 by default).
 */
import type { ProxyEndpoint } from './proxy-endpoints.js';
import { isLocalEndpoint, servicePortName, type ProxyDecision, type ProxyInput } from './proxy-decision.js';

/** The endpoints a chain balances over: ready ones, else serving terminating ones (ProxyTerminatingEndpoints). */
export function usableEndpoints(eps: readonly ProxyEndpoint[]): ProxyEndpoint[] {
  const ready = eps.filter((e) => e.ready);
  return ready.length ? ready : eps.filter((e) => e.serving && e.terminating);
}

/** core/v1 defaulting: sessionAffinityConfig.clientIP.timeoutSeconds. */
export const DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10800;

export function iptablesDecision(i: ProxyInput): ProxyDecision {
  const spec = i.service.spec ?? {};
  const cluster = usableEndpoints(i.endpoints);
  const spn = servicePortName(i.service, i.port);
  if (!cluster.length) return { kind: 'refused', rule: `REJECT "${spn} has no endpoints"` };
  const local = usableEndpoints(i.endpoints.filter(isLocalEndpoint(i.node)));
  const affinity = spec.sessionAffinity === 'ClientIP'
    ? { affinity: { timeoutSeconds: spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_TIMEOUT_SECONDS } } : {};
  const balance = (endpoints: ProxyEndpoint[], snat: boolean): ProxyDecision =>
    (endpoints.length ? { kind: 'balance', endpoints, snat, ...affinity } : { kind: 'timeout', rule: `DROP "${spn} has no local endpoints"` });
  if (i.frontend === 'clusterIP') {
    if (spec.internalTrafficPolicy === 'Local') return balance(local, false);
    return balance(cluster, i.source === 'external');
  }
  if (spec.externalTrafficPolicy !== 'Local') return balance(cluster, true);
  if (i.source === 'pod') return balance(cluster, false);
  if (i.source === 'local') return balance(cluster, true);
  return balance(local, false);
}
