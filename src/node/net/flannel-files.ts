/**
 * What flannel puts on a node, as its manifests and scripts write it:
 * - Linux (kube-flannel.yml): the install-cni init container copies the
 *   kube-flannel-cfg ConfigMap's cni-conf.json to
 *   /etc/cni/net.d/10-flannel.conflist; flanneld writes /run/flannel/subnet.env
 *   (pkg/subnet WriteSubnetFile: the node subnet's first address, the MTU,
 *   --ip-masq).
 * - Windows (sig-windows-tools hostprocess/flannel/flanneld/start.ps1): copies
 *   net-conf.json to C:\etc\kube-flannel\, fills the kube-flannel-windows-cfg
 *   template (OutBoundNAT exceptions = service subnet and cluster CIDR,
 *   SDNROUTE to the service subnet, ProviderAddress = the management IP) and
 *   writes it as C:\etc\cni\net.d\10-flannel.conf with PowerShell 5.1's
 *   ConvertTo-Json; flanneld (no --ip-masq there) writes C:\run\flannel\subnet.env.
 */
import { defaultExceptionList } from './outbound-nat.js';
import { NODE_SUBNET } from './outside-world.js';
import { FLANNEL_WINDOWS_VNI, type NetworkMode } from '../network.js';
import { convertToJsonPS51, type PSJsonValue } from './powershell-json.js';

/** flannel's vxlan backend port; Windows accepts only 4789 (pkg/backend/vxlan/vxlan_windows.go). */
export const VXLAN_PORT = 4789;

export interface NodeFile { path: string; content: string }

type Json = { [key: string]: PSJsonValue };

/** kube-flannel-cfg's cni-conf.json (kube-flannel.yml). */
export function flannelCNIConf(): string {
  return JSON.stringify({
    name: 'cbr0', cniVersion: '0.3.1',
    plugins: [{ type: 'flannel', delegate: { hairpinMode: true, isDefaultGateway: true } }, { type: 'portmap', capabilities: { portMappings: true } }],
  }, null, 2) + '\n';
}

/** kube-flannel-cfg's net-conf.json: Windows needs VNI 4096 and port 4789 on vxlan (sig-windows-tools guides). */
export function flannelNetConf(podSubnet: string, mode: NetworkMode): string {
  const backend = mode === 'overlay' ? { Type: 'vxlan', VNI: FLANNEL_WINDOWS_VNI, Port: VXLAN_PORT } : { Type: 'host-gw' };
  return JSON.stringify({ Network: podSubnet, EnableNFTables: false, Backend: backend }, null, 2) + '\n';
}

/** kube-flannel-windows-cfg's cni-conf-containerd.json: the template start.ps1 fills in. */
export function flannelWindowsCNITemplate(mode: NetworkMode): Json {
  const overlay = mode === 'overlay';
  return {
    name: overlay ? `flannel.${FLANNEL_WINDOWS_VNI}` : 'cbr0',
    cniVersion: '0.3.0',
    type: 'flannel',
    capabilities: { portMappings: true, dns: true },
    delegate: {
      type: overlay ? 'sdnoverlay' : 'sdnbridge',
      AdditionalArgs: [
        { Name: 'EndpointPolicy', Value: { Type: 'OutBoundNAT', Settings: { Exceptions: [] } } },
        { Name: 'EndpointPolicy', Value: { Type: 'SDNROUTE', Settings: { DestinationPrefix: '', NeedEncap: overlay } } },
        ...(overlay ? [{ Name: 'EndpointPolicy', Value: { Type: 'ProviderAddress', Settings: { ProviderAddress: '' } } }] : []),
      ],
    },
  };
}

/**
 * start.ps1's edits of the template, in its order: exceptions, route,
 * provider address. The OutBoundNAT exceptions are the ones the network
 * model NATs by (outbound-nat.ts): on l2bridge the management subnet too,
 * as the Windows troubleshooting guide's ExceptionList has it.
 */
export function flannelWindowsCNIConf(mode: NetworkMode, podSubnet: string, serviceSubnet: string, managementIP: string, nodeSubnet = NODE_SUBNET): Json {
  const conf = flannelWindowsCNITemplate(mode);
  const args = (conf.delegate as Json).AdditionalArgs as Json[];
  const settings = (i: number) => (args[i]!.Value as Json).Settings as Json;
  settings(0).Exceptions = defaultExceptionList(mode, serviceSubnet, podSubnet, nodeSubnet);
  settings(1).DestinationPrefix = serviceSubnet;
  if (args[2]) settings(2).ProviderAddress = managementIP;
  return conf;
}

/** flanneld's subnet file: the node subnet written as its first address. */
export function flannelSubnetEnv(podSubnet: string, nodePodCIDR: string, mtu: number, ipMasq: boolean): string {
  const first = nodePodCIDR.replace(/\.0\/(\d+)$/, '.1/$1');
  return `FLANNEL_NETWORK=${podSubnet}\nFLANNEL_SUBNET=${first}\nFLANNEL_MTU=${mtu}\nFLANNEL_IPMASQ=${ipMasq}\n`;
}

/** The VXLAN header takes 50 bytes of the 1500-byte link (flannel's vxlan MTU); host-gw keeps the link's. */
export function flannelMTU(mode: NetworkMode): number { return mode === 'overlay' ? 1450 : 1500; }

export interface FlannelNodeInput {
  os: 'linux' | 'windows'; mode: NetworkMode; podSubnet: string; serviceSubnet: string; nodePodCIDR: string; internalIP: string;
}

export function flannelNodeFiles(n: FlannelNodeInput): NodeFile[] {
  const mtu = flannelMTU(n.mode);
  if (n.os === 'linux') {
    return [
      { path: '/etc/cni/net.d/10-flannel.conflist', content: flannelCNIConf() },
      { path: '/run/flannel/subnet.env', content: flannelSubnetEnv(n.podSubnet, n.nodePodCIDR, mtu, true) },
    ];
  }
  const conf = flannelWindowsCNIConf(n.mode, n.podSubnet, n.serviceSubnet, n.internalIP);
  return [
    // Set-Content ends the text with CRLF.
    { path: 'C:\\etc\\cni\\net.d\\10-flannel.conf', content: convertToJsonPS51(conf) + '\r\n' },
    { path: 'C:\\etc\\kube-flannel\\net-conf.json', content: flannelNetConf(n.podSubnet, n.mode) },
    { path: 'C:\\run\\flannel\\subnet.env', content: flannelSubnetEnv(n.podSubnet, n.nodePodCIDR, mtu, false) },
  ];
}
