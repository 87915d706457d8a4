/**
 * The pod network of the cluster: one CNI plugin and one mode for every
 * node, as a real cluster has. On Windows the mode is the HNS network type
 * the plugin creates (concepts/services-networking/windows-networking.md,
 * "Network modes"): Overlay (VXLAN encapsulation; flannel's vxlan backend,
 * Calico VXLAN) or L2Bridge (flannel host-gw, Calico BGP). kube-proxy on
 * Windows finds that network by name (KUBE_NETWORK / --network-name).
 */
export type CNIPlugin = 'flannel' | 'calico';
export type NetworkMode = 'overlay' | 'l2bridge';

export const CNI_PLUGINS: readonly CNIPlugin[] = ['flannel', 'calico'];
export const NETWORK_MODES: readonly NetworkMode[] = ['overlay', 'l2bridge'];

/** kube-proxy's Linux proxier (KubeProxyConfiguration mode; '' is iptables on Linux). */
export type LinuxProxyMode = 'iptables' | 'ipvs';
export const LINUX_PROXY_MODES: readonly LinuxProxyMode[] = ['iptables', 'ipvs'];

/** The cluster file's `network.kubeProxy`: what goes into kube-proxy's ConfigMap and the Windows kube-proxy's flags. */
export interface KubeProxySettings {
  mode?: LinuxProxyMode;
  /** Windows --enable-dsr; unset is what the CNI's kube-proxy start script does (Calico's turns DSR on, flannel's does not). */
  enableDSR?: boolean;
  featureGates?: Record<string, boolean>;
}

export interface ClusterNetwork {
  plugin: CNIPlugin; mode: NetworkMode;
  /** The cluster CIDR the node IPAM controller cuts one /24 per node from (kubeadm's podSubnet; flannel's default 10.244.0.0/16). */
  podSubnet?: string;
  kubeProxy?: KubeProxySettings;
}

export const DEFAULT_POD_SUBNET = '10.244.0.0/16';

/** The kubelets' clusterDNS (kubeadm: the tenth address of the service CIDR, where the kube-dns Service is) and clusterDomain. */
export const CLUSTER_DNS_IP = '10.96.0.10';
export const DNS_DOMAIN = 'cluster.local';
export const DEFAULT_NETWORK: ClusterNetwork = { plugin: 'flannel', mode: 'overlay' };

/** The node CIDR mask (kube-controller-manager --node-cidr-mask-size, 24 for IPv4). */
export const NODE_CIDR_MASK = 24;

function parseIPv4CIDR(cidr: string): { base: number; prefix: number } | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  if (!m) return undefined;
  const [, a = '', b = '', c = '', d = '', bits = ''] = m;
  const octets = [a, b, c, d].map(Number);
  const prefix = Number(bits);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  const [o0 = 0, o1 = 0, o2 = 0, o3 = 0] = octets;
  const base = ((o0 << 24) >>> 0) + (o1 << 16) + (o2 << 8) + o3;
  return { base: prefix === 0 ? 0 : base - (base % 2 ** (32 - prefix)), prefix };
}

/** How many nodes the pod subnet has room for, a /24 each; undefined for a subnet that is not an IPv4 CIDR of /24 or wider. */
export function podSubnetCapacity(subnet: string): number | undefined {
  const c = parseIPv4CIDR(subnet);
  if (!c || c.prefix > NODE_CIDR_MASK || c.prefix < 8) return undefined;
  return 2 ** (NODE_CIDR_MASK - c.prefix);
}

/** The index-th /24 of the pod subnet, as the range allocator hands them out in order. */
export function nodePodCIDR(subnet: string, index: number): string {
  const c = parseIPv4CIDR(subnet)!;
  const ip = c.base + index * 256;
  return `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.0/24`;
}

/** flannel's VXLAN network identifier on Windows must be 4096 (sig-windows-tools flannel-overlay: `flannel.4096`). */
export const FLANNEL_WINDOWS_VNI = 4096;

export interface NodeNetwork extends ClusterNetwork {
  podSubnet: string;
  /** flannel backend type, or Calico's networking backend. */
  backend: 'vxlan' | 'host-gw' | 'bgp';
  /** Windows: the HNS network type and the name kube-proxy selects it by. */
  hnsNetworkType?: 'Overlay' | 'L2Bridge';
  hnsNetworkName?: string;
  /** Windows: the CNI plugin the flannel/calico plugin delegates to. */
  windowsCNI?: 'sdnoverlay' | 'sdnbridge';
}

export function nodeNetwork(net: ClusterNetwork, windows: boolean): NodeNetwork {
  const overlay = net.mode === 'overlay';
  const backend = overlay ? 'vxlan' : net.plugin === 'flannel' ? 'host-gw' : 'bgp';
  const base = { plugin: net.plugin, mode: net.mode, podSubnet: net.podSubnet ?? DEFAULT_POD_SUBNET, ...(net.kubeProxy ? { kubeProxy: net.kubeProxy } : {}) };
  if (!windows) return { ...base, backend };
  return {
    ...base, backend,
    hnsNetworkType: overlay ? 'Overlay' : 'L2Bridge',
    // flannel names the HNS network after the backend (vxlan: flannel.<VNI>, host-gw: cbr0); Calico calls it Calico.
    hnsNetworkName: net.plugin === 'calico' ? 'Calico' : overlay ? `flannel.${FLANNEL_WINDOWS_VNI}` : 'cbr0',
    windowsCNI: overlay ? 'sdnoverlay' : 'sdnbridge',
  };
}

/** Which /24 of the pod subnet a node's pod CIDR is; undefined when it is not one of them. */
export function podCIDRIndex(subnet: string, cidr: string): number | undefined {
  const c = parseIPv4CIDR(subnet);
  const n = parseIPv4CIDR(cidr);
  if (!c || !n || n.prefix !== NODE_CIDR_MASK) return undefined;
  const index = (n.base - c.base) / 256;
  return Number.isInteger(index) && index >= 0 && index < 2 ** (NODE_CIDR_MASK - c.prefix) ? index : undefined;
}

/** v1.32's defaults of the gates kube-proxy on Windows checks (pkg/features/kube_features.go: WinDSR alpha, WinOverlay beta). */
export const KUBE_PROXY_GATE_DEFAULTS: Readonly<Record<string, boolean>> = { WinDSR: false, WinOverlay: true };

/** kubeadm's default serviceSubnet (the Service ClusterIP range the OutBoundNAT exceptions and SDN route name). */
export const SERVICE_SUBNET = '10.96.0.0/12';
