/**
 * The address a node puts on packets it originates or masquerades, as the
 * backend then sees it:
 *
 * - Linux picks the address of the interface the route to the backend
 *   leaves by: a local pod through the flannel bridge cni0 (the pod CIDR's
 *   .1), a remote pod over flannel's VXLAN device flannel.1 (the pod CIDR's
 *   .0, which flanneld gives it), over host-gw and Calico the node's own
 *   address.
 * - An HNS load balancer without DSR rewrites the source to its source VIP
 *   (winkernel proxier.go): on L2Bridge the node's address; on Overlay
 *   kube-proxy's --source-vip (the address the start script reserves from
 *   the pod CIDR, .2: hns-network.ts), or the node's address when a backend
 *   is a node's address or outside the cluster.
 */
import type { CNIPlugin, NetworkMode } from '../network.js';
import { cidrHost } from './hns-network.js';
import { inPodCIDR, type NetNode } from './net-node.js';

export interface PodNetworkShape { plugin: CNIPlugin; mode: NetworkMode }

export function linuxNodeAddress(node: NetNode, backendIP: string, net: PodNetworkShape, backendIsPod: boolean): string {
  if (net.plugin !== 'flannel' || !node.podCIDR || !backendIsPod) return node.internalIP;
  if (inPodCIDR(backendIP, node.podCIDR)) return cidrHost(node.podCIDR, 1);
  return net.mode === 'overlay' ? cidrHost(node.podCIDR, 0) : node.internalIP;
}

/** `backendsOutsidePods`: some backend is a node's address or outside the cluster (containsNodeIP / containsPublicIP). */
export function windowsSourceVip(node: NetNode, mode: NetworkMode, backendsOutsidePods: boolean): string {
  if (mode === 'l2bridge' || backendsOutsidePods || !node.podCIDR) return node.internalIP;
  return cidrHost(node.podCIDR, 2);
}
