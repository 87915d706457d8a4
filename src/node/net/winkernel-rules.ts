/**
 * kube-proxy's Windows proxier (pkg/proxy/winkernel/proxier.go
 * syncProxyRules, v1.32) for one Service port on one node. It creates HNS
 * load balancers in order, ClusterIP, NodePort, each externalIP, each
 * LoadBalancer ingress IP, and gives up on the rest of the Service at the
 * first that fails:
 *
 * - endpoints: without LoadBalancer ingress IPs, the Ready (and Serving)
 *   ones only; with them, Ready ones unless every endpoint is terminating,
 *   then the Serving terminating ones (and NodePort and externalIP load
 *   balancers are skipped); when both traffic policies are Local with DSR,
 *   remote endpoints are left out;
 * - none: `Endpoint information not available for service, not applying
 *   any policy` and no load balancer, so nothing answers the VIP;
 * - internalTrafficPolicy Local: the ClusterIP balances over local
 *   endpoints only; externalTrafficPolicy Local only counts with DSR
 *   (localTrafficDSR): NodePort, externalIPs and ingress IPs then use local
 *   endpoints and keep the client's address; the `preserve-destination`
 *   annotation limits NodePort and ingress to local endpoints too;
 * - sessionAffinity ClientIP: HNS's SourceIP distribution, without a
 *   timeout, on builds that support it; older ones log `Session Affinity is
 *   not supported on this version of Windows` and balance without it;
 * - a named targetPort: the first endpoint's port for every backend;
 * - VFP cannot program more than 64 destinations in one load balancer
 *   (windows-networking.md's limitations; kubernetes#98680): creation
 *   fails with HNS's error; a failed ClusterIP or NodePort load balancer
 *   leaves the rest of the Service unprogrammed on the node.
 */
import { SESSION_AFFINITY_MIN_BUILD } from './net-node.js';
import type { ProxyEndpoint } from './proxy-endpoints.js';
import { isLocalEndpoint, servicePortName, type Frontend, type ProxyDecision, type ProxyInput } from './proxy-decision.js';

/** The most destinations one VFP load-balancer rule takes. */
export const MAX_LB_DESTINATIONS = 64;

const HCN_INVALID_DESTINATIONS = 'hcnCreateLoadBalancer failed in Win32: The parameter is incorrect. (0x57) '
  + '{"Success":false,"Error":"The parameter is incorrect. Unable to initialize VFP LB rule: invalid number of destinations.","ErrorCode":2147942487}';

/** What each load balancer is called in kube-proxy's failure log. */
const FAILURE_MESSAGE: Record<Frontend, string> = {
  clusterIP: 'ClusterIP policy creation failed',
  nodePort: 'Nodeport policy creation failed',
  externalIP: 'ExternalIP policy creation failed',
  loadBalancer: 'IngressIP policy creation failed',
};

/** klog's structured form of a message and its key/value pairs (values quoted as klog quotes strings). */
const klogText = (msg: string, kv: Record<string, string>): string =>
  [JSON.stringify(msg), ...Object.entries(kv).map(([k, v]) => `${k}=${JSON.stringify(v)}`)].join(' ');

export function winkernelDecision(i: ProxyInput): ProxyDecision {
  const spec = i.service.spec ?? {};
  const local = isLocalEndpoint(i.node);
  const itpLocal = spec.internalTrafficPolicy === 'Local';
  const localTrafficDSR = i.dsr && spec.externalTrafficPolicy === 'Local';
  const preserveDIP = i.service.metadata?.annotations?.['preserve-destination'] === 'true';
  const hasIngress = (i.service.status?.loadBalancer?.ingress ?? []).some((g) => !!g.ip);

  let allTerminating = false;
  let allNonServing = false;
  if (hasIngress) {
    const counted = i.endpoints.filter((e) => !localTrafficDSR || local(e));
    allTerminating = counted.every((e) => (!e.ready && !e.terminating) || e.terminating);
    allNonServing = counted.every((e) => !e.serving);
  }
  const someServing = !allNonServing;
  const hns = i.endpoints.filter((e) => {
    if (itpLocal && localTrafficDSR && !local(e)) return false;
    if (someServing && ((!allTerminating && !e.ready) || !e.serving)) return false;
    return true;
  });
  if (!hns.length) {
    return {
      kind: 'timeout', rule: 'no HNS load balancer: no usable endpoint',
      log: [klogText('Endpoint information not available for service, not applying any policy', { serviceName: servicePortName(i.service, i.port) })],
    };
  }
  const log: string[] = [];
  const wantsAffinity = spec.sessionAffinity === 'ClientIP';
  const affinity = wantsAffinity && (i.node.build ?? 0) >= SESSION_AFFINITY_MIN_BUILD;
  if (wantsAffinity && !affinity) log.push(klogText('Session Affinity is not supported on this version of Windows', {}));
  const available = !allTerminating && !allNonServing;
  const hnsLocal = hns.filter(local);

  // The load balancers in creation order, each with its endpoints and whether it is created at all.
  const steps: { frontend: Frontend; endpoints: ProxyEndpoint[]; created: boolean; dsr: boolean }[] = [
    { frontend: 'clusterIP', endpoints: itpLocal ? hnsLocal : hns, created: true, dsr: i.dsr },
  ];
  if (spec.ports?.some((p) => p.nodePort)) {
    const eps = preserveDIP || localTrafficDSR ? hnsLocal : hns;
    steps.push({ frontend: 'nodePort', endpoints: eps, created: available, dsr: localTrafficDSR });
  }
  if (spec.externalIPs?.length) steps.push({ frontend: 'externalIP', endpoints: localTrafficDSR ? hnsLocal : hns, created: available, dsr: localTrafficDSR });
  if (hasIngress) steps.push({ frontend: 'loadBalancer', endpoints: preserveDIP || localTrafficDSR ? hnsLocal : hns, created: true, dsr: preserveDIP || localTrafficDSR });

  for (const step of steps) {
    const programmed = step.created && step.endpoints.length > 0;
    if (programmed && step.endpoints.length > MAX_LB_DESTINATIONS) {
      log.push(`${JSON.stringify(FAILURE_MESSAGE[step.frontend])} err=${JSON.stringify(HCN_INVALID_DESTINATIONS)}`);
      // ClusterIP and NodePort failures skip the rest of the Service; an externalIP's or ingress IP's only that address.
      const rule = `no HNS load balancer: ${FAILURE_MESSAGE[step.frontend]} (more than ${MAX_LB_DESTINATIONS} destinations)`;
      if (step.frontend === 'clusterIP' || step.frontend === 'nodePort' || step.frontend === i.frontend) return { kind: 'timeout', rule, log };
      continue;
    }
    if (step.frontend !== i.frontend) continue;
    if (!programmed) {
      const why = step.created ? 'no local endpoint' : 'every endpoint is terminating';
      return { kind: 'timeout', rule: `no HNS load balancer for the ${step.frontend}: ${why}`, ...(log.length ? { log } : {}) };
    }
    const firstPort = hns.find((e) => e.port !== undefined)?.port;
    return {
      kind: 'balance', endpoints: step.endpoints, snat: !step.dsr,
      ...(affinity ? { affinity: {} } : {}),
      ...(typeof i.port.targetPort === 'string' && !/^\d+$/.test(i.port.targetPort) && firstPort !== undefined ? { backendPort: firstPort } : {}),
      ...(log.length ? { log } : {}),
    };
  }
  return { kind: 'timeout', rule: `no HNS load balancer for the ${i.frontend}`, ...(log.length ? { log } : {}) };
}
