/**
 * One node's network as a real node of the cluster's CNI would have it,
 * computed from what the API shows (the Node's pod CIDR and InternalIP, the
 * pods bound to it) and the cluster network: the HNS network and endpoints
 * on Windows, the Linux devices and veths, the files the CNI writes, and
 * kube-proxy's command line. Pure: the kubelet seeds the node's directories
 * with `files`, `winkube describe-node-network` prints the rest.
 */
import { createHash } from 'node:crypto';
import { FLANNEL_WINDOWS_VNI, SERVICE_SUBNET, DEFAULT_POD_SUBNET, type ClusterNetwork } from '../network.js';
import { flannelMTU, flannelNodeFiles, VXLAN_PORT, type NodeFile } from './flannel-files.js';
import { cidrHost, hnsEndpoint, hnsNetwork, type HNSEndpoint, type HNSNetwork } from './hns-network.js';
import { linuxKubeProxyCommand, windowsKubeProxyCommand, type KubeProxyCommand } from './kube-proxy-command.js';
import { windowsSupportNotes } from './windows-network-support.js';

export interface NodeNetworkInput {
  node: { name: string; os: 'linux' | 'windows'; podCIDR: string; internalIP: string };
  network: ClusterNetwork;
  serviceSubnet?: string;
  pods?: readonly { namespace: string; name: string; uid: string; ip?: string; hostNetwork?: boolean }[];
}

export interface LinuxDevice { name: string; kind: 'vxlan' | 'bridge'; address: string; mtu: number; detail?: string }
export interface LinuxEndpoint { name: string; IPAddress: string; Pod: string; bridge?: string }

export interface NodeNetworkModel {
  backend: string;
  hns?: HNSNetwork;
  endpoints: HNSEndpoint[] | LinuxEndpoint[];
  devices: LinuxDevice[];
  files: NodeFile[];
  kubeProxy: KubeProxyCommand;
  notes: string[];
}

export function backendOf(net: ClusterNetwork): string {
  if (net.mode === 'overlay') return net.plugin === 'flannel' ? `vxlan, VNI ${FLANNEL_WINDOWS_VNI}, UDP port ${VXLAN_PORT}` : `VXLAN, VNI ${FLANNEL_WINDOWS_VNI}`;
  return net.plugin === 'flannel' ? 'host-gw' : 'BGP';
}

/** The files the CNI writes on the node (flannel's; Calico's are not modelled). */
export function nodeNetworkFiles(input: NodeNetworkInput): NodeFile[] {
  const { node, network } = input;
  if (network.plugin !== 'flannel') return [];
  return flannelNodeFiles({
    os: node.os, mode: network.mode, podSubnet: network.podSubnet ?? DEFAULT_POD_SUBNET,
    serviceSubnet: input.serviceSubnet ?? SERVICE_SUBNET, nodePodCIDR: node.podCIDR, internalIP: node.internalIP,
  });
}

function linuxDevices(net: ClusterNetwork, podCIDR: string): LinuxDevice[] {
  const prefix = podCIDR.split('/')[1];
  if (net.plugin === 'calico') {
    return net.mode === 'overlay' ? [{ name: 'vxlan.calico', kind: 'vxlan', address: `${cidrHost(podCIDR, 0)}/32`, mtu: 1450, detail: `id ${FLANNEL_WINDOWS_VNI} dstport ${VXLAN_PORT}` }] : [];
  }
  const mtu = flannelMTU(net.mode);
  return [
    ...(net.mode === 'overlay' ? [{ name: `flannel.${FLANNEL_WINDOWS_VNI}`, kind: 'vxlan' as const, address: `${cidrHost(podCIDR, 0)}/32`, mtu, detail: `id ${FLANNEL_WINDOWS_VNI} dstport ${VXLAN_PORT}` }] : []),
    { name: 'cni0', kind: 'bridge', address: `${cidrHost(podCIDR, 1)}/${prefix}`, mtu },
  ];
}

/** The host side of a pod's veth pair: the bridge plugin's `veth<8 hex>`, Calico's `cali<11 hex>` (a hash of the workload). */
function linuxEndpoint(net: ClusterNetwork, pod: { namespace: string; name: string; uid: string; ip: string }): LinuxEndpoint {
  const h = createHash('sha1').update(`${pod.namespace}.${pod.name}`).digest('hex');
  return net.plugin === 'calico'
    ? { name: `cali${h.slice(0, 11)}`, IPAddress: pod.ip, Pod: `${pod.namespace}/${pod.name}` }
    : { name: `veth${h.slice(0, 8)}`, IPAddress: pod.ip, Pod: `${pod.namespace}/${pod.name}`, bridge: 'cni0' };
}

export function nodeNetworkModel(input: NodeNetworkInput): NodeNetworkModel {
  const { node, network } = input;
  const pods = (input.pods ?? []).filter((p): p is typeof p & { ip: string } => !p.hostNetwork && !!p.ip)
    .slice().sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  const files = nodeNetworkFiles(input);
  if (node.os === 'linux') {
    return {
      backend: backendOf(network), devices: linuxDevices(network, node.podCIDR),
      endpoints: pods.map((p) => linuxEndpoint(network, p)), files,
      kubeProxy: linuxKubeProxyCommand(node.name, network.kubeProxy), notes: [],
    };
  }
  const hns = hnsNetwork(network.plugin, network.mode, node.name, node.podCIDR, node.internalIP);
  const kubeProxy = windowsKubeProxyCommand(network.plugin, network.mode, node.name, hns.Name, hns.HostEndpoint.IPAddress, network.kubeProxy);
  return {
    backend: backendOf(network), hns, devices: [],
    endpoints: pods.map((p) => hnsEndpoint(hns, p)), files, kubeProxy,
    notes: windowsSupportNotes(network.plugin, network.mode, kubeProxy.dsr),
  };
}
