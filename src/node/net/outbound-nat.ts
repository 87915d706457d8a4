/**
 * The source address a destination sees for a pod's connection, and
 * whether the reply finds its way back: the SNAT rules of the node's CNI.
 *
 * Linux, flannel (`ipMasq: true`, the kube-flannel manifest's
 * `--ip-masq`): `-s <cluster CIDR> -d <cluster CIDR> -j RETURN`, then
 * `-s <cluster CIDR> ! -d 224.0.0.0/4 -j MASQUERADE`: everything leaving the
 * cluster CIDR (node addresses and the outside world alike) carries the
 * node's address. Calico's `natOutgoing` pools do the same for destinations
 * outside every pool. Service traffic was DNATed to a pod before and is
 * pod-to-pod here.
 *
 * Windows: the HNS endpoint's OutBoundNAT policy rewrites the source to the
 * node's address unless the destination is in its `ExceptionList`; the CNI
 * configs of sig-windows-tools list the service CIDR and the cluster CIDR,
 * and on l2bridge (host-gw, Calico BGP) the node subnet as well. The list
 * is written by hand or by a start script, and its mistakes are the
 * troubleshooting guide's:
 * - the cluster CIDR missing: pod-to-pod traffic across nodes is NATed, the
 *   other pod sees the node's address (and NetworkPolicy by pod IP misfires);
 * - the node subnet missing on l2bridge: traffic to a node leaves with the
 *   node's own address as its source and is not answered (pod → node breaks);
 * - an external address inside the list (a too wide entry such as
 *   10.0.0.0/8, or the external IP itself): its packets leave with the pod's
 *   address, which the outside cannot route back to: no reply.
 */
import { ipv4InCIDR } from './ipv4-cidr.js';

/** What the node's SNAT rules are made from. */
export interface EgressContext {
  os: 'linux' | 'windows';
  /** The node's InternalIP: the address NATed packets carry. */
  nodeIP: string;
  /** The cluster CIDR (kubeadm's podSubnet). */
  clusterCIDR: string;
  /** The machines' network the nodes are on. */
  nodeSubnet: string;
  /** HNS network type on Windows. */
  mode: 'overlay' | 'l2bridge';
  /** Windows: the OutBoundNAT policy's ExceptionList. */
  exceptionList?: readonly string[];
}

/** Where a packet is going, as the SNAT rule cares. */
export type Destination = 'pod' | 'node' | 'external';

export interface EgressOutcome {
  /** The source address the destination sees. */
  source: string;
  /** Whether the rewrite happened. */
  natted: boolean;
  /** Whether the destination's reply reaches the pod. */
  replies: boolean;
}

/** The ExceptionList sig-windows-tools' flannel and Calico start scripts write: service CIDR, cluster CIDR, and the node subnet on l2bridge. */
export function defaultExceptionList(mode: 'overlay' | 'l2bridge', serviceCIDR: string, clusterCIDR: string, nodeSubnet: string): string[] {
  return mode === 'l2bridge' ? [serviceCIDR, clusterCIDR, nodeSubnet] : [serviceCIDR, clusterCIDR];
}

/** What kind of address `ip` is for a pod on this node. */
export function destinationKind(ip: string, ctx: Pick<EgressContext, 'clusterCIDR' | 'nodeSubnet'>): Destination {
  if (ipv4InCIDR(ip, ctx.clusterCIDR)) return 'pod';
  if (ipv4InCIDR(ip, ctx.nodeSubnet)) return 'node';
  return 'external';
}

/** The source address `dest` sees for a connection from `podIP`, and whether the reply comes back. */
export function outboundSource(podIP: string, dest: string, ctx: EgressContext): EgressOutcome {
  const kind = destinationKind(dest, ctx);
  if (ctx.os === 'linux') {
    return kind === 'pod' ? { source: podIP, natted: false, replies: true } : { source: ctx.nodeIP, natted: true, replies: true };
  }
  const excepted = (ctx.exceptionList ?? []).some((c) => ipv4InCIDR(dest, c));
  if (excepted) {
    // Un-NATed, the pod's address is routable only inside the cluster's networks.
    return { source: podIP, natted: false, replies: kind !== 'external' };
  }
  // NATed to the node's own address on l2bridge, a node's reply goes to itself, not back through the endpoint.
  return { source: ctx.nodeIP, natted: true, replies: !(kind === 'node' && ctx.mode === 'l2bridge') };
}
