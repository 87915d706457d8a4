/**
 * What the cluster network needs to reach beyond the cluster: the outside
 * world's hosts, CoreDNS (whose Corefile decides where names outside the
 * cluster zone go), and each pod's node's SNAT rules.
 */
import { SERVICE_SUBNET, DEFAULT_POD_SUBNET, type ClusterNetwork as ClusterNetworkConfig } from '../network.js';
import type { CoreDNS } from './coredns.js';
import { defaultExceptionList, type EgressContext } from './outbound-nat.js';
import { NODE_SUBNET, type OutsideWorld } from './outside-world.js';
import type { PodHost } from './cluster-network.js';

export interface OutsideAccess {
  world: OutsideWorld;
  coreDNS: CoreDNS;
  /** The SNAT rules of the node a pod runs on; undefined when the node is not known here. */
  egress(pod: PodHost): EgressContext | undefined;
}

/**
 * A node's SNAT rules from the cluster network: flannel/Calico masquerade
 * on Linux, and on Windows the OutBoundNAT ExceptionList the CNI's start
 * script writes (unless `exceptionList` gives another).
 */
export function egressContext(os: 'linux' | 'windows', nodeIP: string, network: ClusterNetworkConfig,
  serviceSubnet = SERVICE_SUBNET, exceptionList?: readonly string[]): EgressContext {
  const clusterCIDR = network.podSubnet ?? DEFAULT_POD_SUBNET;
  return {
    os, nodeIP, clusterCIDR, nodeSubnet: NODE_SUBNET, mode: network.mode,
    ...(os === 'windows' ? { exceptionList: exceptionList ?? defaultExceptionList(network.mode, serviceSubnet, clusterCIDR, NODE_SUBNET) } : {}),
  };
}
