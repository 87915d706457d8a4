/**
 * What one node's kube-proxy does with a connection to one of a Service's
 * addresses: the shapes the per-OS rules (iptables-rules.ts,
 * winkernel-rules.ts) share.
 */
import type { Service, ServicePort } from 'kubernetes-types/core/v1.js';
import type { NetworkMode } from '../network.js';
import type { NetNode } from './net-node.js';
import type { ProxyEndpoint } from './proxy-endpoints.js';

/** Which of a Service's addresses the connection was sent to. */
export type Frontend = 'clusterIP' | 'nodePort' | 'externalIP' | 'loadBalancer';

/**
 * Where the packet comes from, as the node whose rules apply sees it: a
 * pod (an address of the cluster CIDR, on any node), the node itself
 * (hostNetwork and HostProcess pods), or anything else (another machine,
 * another node's own address).
 */
export type SourceKind = 'pod' | 'local' | 'external';

export interface ProxyInput {
  /** The node whose kube-proxy rules the packet meets. */
  node: NetNode;
  mode: NetworkMode;
  /** Windows: kube-proxy runs with --enable-dsr (and the WinDSR gate). */
  dsr: boolean;
  service: Service;
  port: ServicePort;
  frontend: Frontend;
  source: SourceKind;
  endpoints: readonly ProxyEndpoint[];
}

export type ProxyDecision =
  | {
    kind: 'balance';
    /** The endpoints the rule spreads connections over (never empty). */
    endpoints: ProxyEndpoint[];
    /**
     * The backend sees the node's address instead of the client's: iptables'
     * KUBE-MARK-MASQ, or an HNS load balancer without DSR rewriting the
     * source to its source VIP.
     */
    snat: boolean;
    /** sessionAffinity ClientIP as programmed: with the timeout iptables' `recent` match keeps, or without one (HNS). */
    affinity?: { timeoutSeconds?: number };
    /** Windows: HNS load balancers have one backend port, the first endpoint's when the targetPort is a name. */
    backendPort?: number;
    /** kube-proxy's log lines about the Service on this node. */
    log?: string[];
  }
  /** iptables' REJECT: the Service has no endpoints at all. `rule` says which rule stopped it (for traces). */
  | { kind: 'refused'; rule: string }
  /** No rule or a DROP: the SYNs go unanswered. */
  | { kind: 'timeout'; rule: string; log?: string[] };

export const isLocalEndpoint = (node: NetNode) => (e: ProxyEndpoint): boolean => e.nodeName === node.name;

/** proxy.ServicePortName's String(): `<ns>/<name>`, and `:<port name>` when the port has one. */
export function servicePortName(service: { metadata?: { namespace?: string; name?: string } }, port: { name?: string }): string {
  const base = `${service.metadata?.namespace ?? 'default'}/${service.metadata?.name ?? ''}`;
  return port.name ? `${base}:${port.name}` : base;
}
