/**
 * What Windows does not support for a network combination, in the words of
 * the Kubernetes docs (concepts/services-networking/windows-networking.md,
 * "Network modes" and "Limitations"), for `winkube describe-node-network`.
 */
import type { CNIPlugin, NetworkMode } from '../network.js';

export function windowsSupportNotes(plugin: CNIPlugin, mode: NetworkMode, dsr: boolean): string[] {
  const notes: string[] = [];
  if (mode === 'overlay') {
    notes.push(plugin === 'flannel'
      ? 'Overlay (Flannel VXLAN): beta on Windows; VNI 4096 and UDP port 4789 required; WinOverlay feature gate (beta, on in v1.32)'
      : 'Overlay (Calico VXLAN): VXLAN encapsulation; WinOverlay feature gate (beta, on in v1.32)');
    notes.push('IPv6 communication between Windows pods connected to overlay networks is not supported');
  } else {
    notes.push(plugin === 'flannel'
      ? 'L2bridge (Flannel host-gw): stable on Windows; the container MAC is rewritten to the host MAC'
      : 'L2bridge (Calico BGP): the container MAC is rewritten to the host MAC');
  }
  notes.push(`Outbound communication using the ICMP protocol via the win-overlay, win-bridge, or using the Azure-CNI plugin is not supported: ping reaches pods, not destinations outside the cluster network`);
  notes.push('Local NodePort access from the node itself is not supported (works for other nodes or external clients)');
  notes.push('More than 64 backend pods (or unique destination addresses) for a single Service are not supported');
  notes.push(dsr
    ? 'DSR on (--enable-dsr, WinDSR feature gate): externalTrafficPolicy: Local preserves client IPs (Windows Server 2019 or later)'
    : 'DSR off: Local Traffic Policy in non-DSR mode is not supported, and client IPs are not preserved');
  return notes;
}
