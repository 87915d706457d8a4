/**
 * flannel's files for the node: net-conf.json as the kube-flannel-cfg
 * ConfigMap has it, and 10-flannel.conf as flannel's Windows start.ps1
 * fills the kube-flannel-windows-cfg template, both from the emulated
 * nodes' builders (flannel-files.ts). What only the machine knows stays a
 * placeholder install.ps1 replaces: the management IP (the provider
 * address on overlay) and, on l2bridge, the management subnet in the
 * OutBoundNAT ExceptionList. Calico writes its own CNI configuration
 * (Calico for Windows' installer), so nothing is generated for it.
 */
import { flannelNetConf, flannelWindowsCNIConf } from '../node/net/flannel-files.js';
import { convertToJsonPS51 } from '../node/net/powershell-json.js';
import type { JoinSettings } from './join-settings.js';

export const MANAGEMENT_IP_PLACEHOLDER = '__MANAGEMENT_IP__';
export const MANAGEMENT_SUBNET_PLACEHOLDER = '__MANAGEMENT_SUBNET__';

export function flannelNetConfJson(s: JoinSettings): string {
  return flannelNetConf(s.podCIDR, s.mode);
}

/** 10-flannel.conf as start.ps1's Set-Content writes it (ConvertTo-Json of PowerShell 5.1, CRLF). */
export function flannelCNIConfJson(s: JoinSettings): string {
  const conf = flannelWindowsCNIConf(s.mode, s.podCIDR, s.serviceCIDR, MANAGEMENT_IP_PLACEHOLDER, MANAGEMENT_SUBNET_PLACEHOLDER);
  return convertToJsonPS51(conf) + '\r\n';
}
