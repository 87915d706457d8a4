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

export interface IPv4Range { base: number; bits: number }

/** A dotted IPv4 address as a number; undefined when it is not one. */
export function ipv4ToNumber(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const o = m.slice(1).map(Number);
  if (o.some((x) => x > 255)) return undefined;
  return (((o[0] ?? 0) << 24) >>> 0) + ((o[1] ?? 0) << 16) + ((o[2] ?? 0) << 8) + (o[3] ?? 0);
}

/** `a.b.c.d/n` (or a bare address, a /32); undefined for anything else. */
export function parseIPv4Range(cidr: string): IPv4Range | undefined {
  const [addr = '', bitsText] = cidr.trim().split('/');
  const ip = ipv4ToNumber(addr);
  const bits = bitsText === undefined ? 32 : /^\d{1,2}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (ip === undefined || !(bits >= 0 && bits <= 32)) return undefined;
  return { base: bits === 0 ? 0 : ip - (ip % 2 ** (32 - bits)), bits };
}

export function inRange(ip: string, cidr: string): boolean {
  const n = ipv4ToNumber(ip);
  const r = parseIPv4Range(cidr);
  return n !== undefined && r !== undefined && (r.bits === 0 || Math.floor(n / 2 ** (32 - r.bits)) === Math.floor(r.base / 2 ** (32 - r.bits)));
}

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
  if (inRange(ip, ctx.clusterCIDR)) return 'pod';
  if (inRange(ip, ctx.nodeSubnet)) return 'node';
  return 'external';
}

/** The source address `dest` sees for a connection from `podIP`, and whether the reply comes back. */
export function outboundSource(podIP: string, dest: string, ctx: EgressContext): EgressOutcome {
  const kind = destinationKind(dest, ctx);
  if (ctx.os === 'linux') {
    return kind === 'pod' ? { source: podIP, natted: false, replies: true } : { source: ctx.nodeIP, natted: true, replies: true };
  }
  const excepted = (ctx.exceptionList ?? []).some((c) => inRange(dest, c));
  if (excepted) {
    // Un-NATed, the pod's address is routable only inside the cluster's networks.
    return { source: podIP, natted: false, replies: kind !== 'external' };
  }
  // NATed to the node's own address on l2bridge, a node's reply goes to itself, not back through the endpoint.
  return { source: ctx.nodeIP, natted: true, replies: !(kind === 'node' && ctx.mode === 'l2bridge') };
}
