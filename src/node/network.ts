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

export interface ClusterNetwork { plugin: CNIPlugin; mode: NetworkMode }

export const DEFAULT_NETWORK: ClusterNetwork = { plugin: 'flannel', mode: 'overlay' };

/** flannel's VXLAN network identifier on Windows must be 4096 (sig-windows-tools flannel-overlay: `flannel.4096`). */
export const FLANNEL_WINDOWS_VNI = 4096;

export interface NodeNetwork extends ClusterNetwork {
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
  if (!windows) return { ...net, backend };
  return {
    ...net, backend,
    hnsNetworkType: overlay ? 'Overlay' : 'L2Bridge',
    // flannel names the HNS network after the backend (vxlan: flannel.<VNI>, host-gw: cbr0); Calico calls it Calico.
    hnsNetworkName: net.plugin === 'calico' ? 'Calico' : overlay ? `flannel.${FLANNEL_WINDOWS_VNI}` : 'cbr0',
    windowsCNI: overlay ? 'sdnoverlay' : 'sdnbridge',
  };
}
