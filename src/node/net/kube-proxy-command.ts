/**
 * kube-proxy's command line on each OS, as the manifests start it:
 * - Linux (kubeadm's DaemonSet): the config file from the kube-proxy
 *   ConfigMap, whose `mode` picks the proxier ('' is iptables).
 * - Windows (sig-windows-tools hostprocess kube-proxy start.ps1, per CNI):
 *   flags only, `--proxy-mode=kernelspace`; the HNS network by KUBE_NETWORK;
 *   on an overlay network `--source-vip` and the WinOverlay gate. Calico's
 *   script turns DSR on (`--enable-dsr=true`, WinDSR=true); flannel's does not.
 */
import { KUBE_PROXY_GATE_DEFAULTS, type CNIPlugin, type KubeProxySettings, type NetworkMode } from '../network.js';

export interface KubeProxyCommand {
  command: string[];
  /** The environment the flags leave to (Windows: KUBE_NETWORK). */
  env: Record<string, string>;
  /** Linux: the proxier; Windows: kernelspace. */
  mode: string;
  dsr: boolean;
  featureGates: Record<string, boolean>;
}

const SANDBOX = '$env:CONTAINER_SANDBOX_MOUNT_POINT';

export function linuxKubeProxyCommand(nodeName: string, settings: KubeProxySettings = {}): KubeProxyCommand {
  return {
    command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', `--hostname-override=${nodeName}`],
    env: {},
    mode: settings.mode ?? 'iptables',
    dsr: false,
    featureGates: { ...settings.featureGates },
  };
}

/** Whether the Windows kube-proxy runs with DSR: the cluster file's choice, else the start script's. */
export function windowsDSR(plugin: CNIPlugin, settings: KubeProxySettings = {}): boolean {
  return settings.enableDSR ?? plugin === 'calico';
}

/** The Windows kube-proxy's --feature-gates as the start scripts pass them: WinDSR with DSR, WinOverlay on overlay, then the cluster's own. */
export function windowsKubeProxyGates(mode: NetworkMode, dsr: boolean, settings: KubeProxySettings = {}): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  if (dsr) gates.WinDSR = true;
  if (mode === 'overlay') gates.WinOverlay = true;
  return Object.assign(gates, settings.featureGates);
}

export function windowsKubeProxyCommand(plugin: CNIPlugin, mode: NetworkMode, nodeName: string, networkName: string, sourceVIP: string,
  settings: KubeProxySettings = {}): KubeProxyCommand {
  const overlay = mode === 'overlay';
  const dsr = windowsDSR(plugin, settings);
  const gates = windowsKubeProxyGates(mode, dsr, settings);
  const gateFlag = Object.keys(gates).length ? [`--feature-gates=${Object.entries(gates).map(([k, v]) => `${k}=${v}`).join(',')}`] : [];
  const exe = `${SANDBOX}/kube-proxy/kube-proxy.exe`;
  const command = plugin === 'calico'
    ? [exe, `--hostname-override=${nodeName}`, '--v=4', '--proxy-mode=kernelspace', `--kubeconfig=${SANDBOX}/var/lib/kube-proxy/kubeconfig-win.conf`,
      ...(dsr ? ['--enable-dsr=true'] : []), ...(overlay ? [`--source-vip=${sourceVIP}`] : []), ...gateFlag]
    : [exe, '--v=6', `--hostname-override=${nodeName}`, ...gateFlag, '--proxy-mode=kernelspace',
      ...(overlay ? [`--source-vip=${sourceVIP}`] : []), ...(dsr ? ['--enable-dsr=true'] : []),
      `--kubeconfig=${SANDBOX}/mounts/var/lib/kube-proxy/kubeconfig-win.conf`];
  const effective = { ...KUBE_PROXY_GATE_DEFAULTS, ...gates };
  return { command, env: { KUBE_NETWORK: networkName }, mode: 'kernelspace', dsr, featureGates: effective };
}
