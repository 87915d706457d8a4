/**
 * The HNS network a Windows node's CNI creates, and the endpoints of its
 * pods, as `Get-HnsNetwork` / `Get-HnsEndpoint` would list them:
 * - flannel vxlan (pkg/backend/vxlan/device_windows.go): an Overlay network
 *   `flannel.<VNI>` with one subnet (the node's pod CIDR, gateway .1) and a
 *   VSID policy of the VNI; kube-proxy's start script reserves the source
 *   VIP from it through host-local, the first free address (.2).
 * - flannel host-gw (pkg/backend/hostgw/hostgw_windows.go): an L2Bridge
 *   network `cbr0` (gateway .1) and the host's bridge endpoint `cbr0_ep` at .2.
 * - Calico: the `Calico` network, VXLAN (Overlay) or BGP (L2Bridge), with the
 *   host endpoint `Calico_ep` kube-proxy takes its source VIP from.
 * HNS assigns the network's DR MAC and an l2bridge endpoint's MAC from the
 * Hyper-V range 00-15-5D; an overlay endpoint's MAC is flannel's MacPrefix
 * 0E-2A followed by its IPv4 address.
 */
import { createHash } from 'node:crypto';
import { FLANNEL_WINDOWS_VNI, type CNIPlugin, type NetworkMode } from '../network.js';
import { VXLAN_PORT } from './flannel-files.js';

export interface HNSNetwork {
  Name: string;
  Type: 'Overlay' | 'L2Bridge';
  AddressPrefix: string;
  GatewayAddress: string;
  ManagementIP: string;
  DrMacAddress?: string;
  /** Overlay: the VSID subnet policy (the VXLAN VNI) and the UDP port. */
  VSID?: number;
  VxlanPort?: number;
  /** The host's address on the network: kube-proxy's --source-vip on overlay, the bridge endpoint on l2bridge. */
  HostEndpoint: { Name: string; IPAddress: string };
}

export interface HNSEndpoint { Name: string; IPAddress: string; MacAddress: string; Pod: string }

function hex(data: string, bytes: number): string[] {
  return [...createHash('sha256').update(data).digest().subarray(0, bytes)].map((b) => b.toString(16).toUpperCase().padStart(2, '0'));
}

function ipBytes(ip: string): string[] {
  return ip.split('.').map((o) => Number(o).toString(16).toUpperCase().padStart(2, '0'));
}

/** The address `n` of a /24 pod CIDR (x.y.z.0/24). */
export function cidrHost(cidr: string, n: number): string { return cidr.replace(/\.0\/\d+$/, `.${n}`); }

export function hnsNetworkName(plugin: CNIPlugin, mode: NetworkMode): string {
  return plugin === 'calico' ? 'Calico' : mode === 'overlay' ? `flannel.${FLANNEL_WINDOWS_VNI}` : 'cbr0';
}

export function hnsNetwork(plugin: CNIPlugin, mode: NetworkMode, nodeName: string, podCIDR: string, internalIP: string): HNSNetwork {
  const overlay = mode === 'overlay';
  const name = hnsNetworkName(plugin, mode);
  return {
    Name: name,
    Type: overlay ? 'Overlay' : 'L2Bridge',
    AddressPrefix: podCIDR,
    GatewayAddress: cidrHost(podCIDR, 1),
    ManagementIP: internalIP,
    ...(overlay ? { DrMacAddress: ['00', '15', '5D', ...hex(`drmac/${nodeName}`, 3)].join('-'), VSID: FLANNEL_WINDOWS_VNI, VxlanPort: VXLAN_PORT } : {}),
    HostEndpoint: {
      // flannel's overlay source VIP is a host-local reservation, not an endpoint of its own.
      Name: plugin === 'calico' ? 'Calico_ep' : overlay ? '(source VIP)' : 'cbr0_ep',
      IPAddress: cidrHost(podCIDR, 2),
    },
  };
}

/** A pod's endpoint: containerd names it after the sandbox and the network (`<sandbox id>_<network>`). */
export function hnsEndpoint(net: HNSNetwork, pod: { namespace: string; name: string; uid: string; ip: string }): HNSEndpoint {
  const sandbox = createHash('sha256').update(`sandbox/${pod.uid}`).digest('hex');
  const mac = net.Type === 'Overlay' ? ['0E', '2A', ...ipBytes(pod.ip)] : ['00', '15', '5D', ...hex(`mac/${pod.uid}`, 3)];
  return { Name: `${sandbox}_${net.Name}`, IPAddress: pod.ip, MacAddress: mac.join('-'), Pod: `${pod.namespace}/${pod.name}` };
}
