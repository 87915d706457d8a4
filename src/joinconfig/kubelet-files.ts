/**
 * The kubelet's files: its KubeletConfiguration, built by the same code
 * the emulated Windows kubelets answer `/configz` with (so a joined node
 * and an emulated one agree), and StartKubelet.ps1 with the flags the
 * Windows guides pass (PrepareNode.ps1, the older KubeClusterHelper.psm1):
 * no QoS cgroups, no node-allocatable enforcement, no resolv.conf, the
 * process priority class, the sandbox image.
 */
import { stringify as toYaml } from 'yaml';
import { kubeletConfiguration } from '../node/kubelet-server/kubelet-config.js';
import { expandPools, PoolError, type NodeConfig } from '../node/pool.js';
import type { JoinSettings } from './join-settings.js';
import { KUBELET_CONFIG, KUBELET_EXE } from './windows-paths.js';

/** What the command line adds for the kubelet alone. */
export interface KubeletOptions {
  systemReserved: Record<string, string>;
  kubeReserved: Record<string, string>;
  windowsPriorityClass: string;
}

/**
 * The docs (Resource Management for Windows nodes) ask for reservations for
 * the OS and the kubelet, and for the kubelet's priority class to be
 * ABOVE_NORMAL_PRIORITY_CLASS or above so pods cannot starve it.
 */
export const DEFAULT_KUBELET_OPTIONS: KubeletOptions = {
  systemReserved: { memory: '2Gi' },
  kubeReserved: {},
  windowsPriorityClass: 'ABOVE_NORMAL_PRIORITY_CLASS',
};

/** `cpu=500m,memory=2Gi` as kubelet's --system-reserved takes it. */
export function parseReservation(flag: string, value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',').filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new PoolError(`${flag} ${value}: expected resource=quantity pairs such as cpu=500m,memory=2Gi`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** The node as the emulation describes a Windows pool's node; the pool checks reservations and the priority class. */
export function windowsNodeConfig(s: JoinSettings, k: KubeletOptions): NodeConfig {
  try {
    return expandPools([{
      name: 'windows', count: 1, exactName: true, os: 'windows', windowsVersion: s.windows.tag,
      network: { plugin: s.plugin, mode: s.mode, podSubnet: s.podCIDR },
      systemReserved: k.systemReserved, kubeReserved: k.kubeReserved, windowsPriorityClass: k.windowsPriorityClass,
      containerRuntime: s.runtime, sandboxImage: s.sandboxImage,
    }])[0]!;
  } catch (e) {
    // The pool's messages name pool fields; the user typed flags.
    const msg = (e as Error).message.replace(/^node pool windows: /, '')
      .replace(/^systemReserved: /, '--system-reserved: ').replace(/^kubeReserved: /, '--kube-reserved: ')
      .replace(/^windowsPriorityClass: /, '--windows-priorityclass: ');
    throw new PoolError(msg);
  }
}

/**
 * The KubeletConfiguration file. What only a running kubelet knows is left
 * out: the pod CIDR (the node IPAM controller assigns it) and the serving
 * certificate (the kubelet makes it in --cert-dir). enforceNodeAllocatable
 * is written empty: left out, the file's default ["pods"] needs cgroups.
 */
export function kubeletConfigYaml(s: JoinSettings, k: KubeletOptions): string {
  const conf = kubeletConfiguration(windowsNodeConfig(s, k), 0, { ip: s.dnsIP, domain: s.clusterDomain });
  delete conf.podCIDR;
  delete conf.tlsCertFile;
  delete conf.tlsPrivateKeyFile;
  conf.enforceNodeAllocatable = [];
  return toYaml({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', ...conf });
}

/** The node name the kubelet registers as: the flag's, else the host name lowercased, as the kubelet itself does. */
export function hostnameExpression(s: JoinSettings): string {
  return s.nodeName === undefined ? '$((hostname).ToLower())' : s.nodeName;
}

const kv = (m: Record<string, string>) => Object.entries(m).map(([r, q]) => `${r}=${q}`).join(',');

export function kubeletFlags(s: JoinSettings, k: KubeletOptions): string[] {
  return [
    `--config=${KUBELET_CONFIG}`,
    '--bootstrap-kubeconfig=C:\\etc\\kubernetes\\bootstrap-kubelet.conf',
    '--kubeconfig=C:\\etc\\kubernetes\\kubelet.conf',
    '--cert-dir=C:\\var\\lib\\kubelet\\pki',
    `--hostname-override=${hostnameExpression(s)}`,
    '--container-runtime-endpoint=npipe:////./pipe/containerd-containerd',
    `--pod-infra-container-image=${s.sandboxImage}`,
    `--windows-priorityclass=${k.windowsPriorityClass}`,
    '--cgroups-per-qos=false',
    '--enforce-node-allocatable=""',
    '--resolv-conf=""',
    `--cluster-dns=${s.dnsIP}`,
    `--cluster-domain=${s.clusterDomain}`,
    ...(Object.keys(k.systemReserved).length ? [`--system-reserved=${kv(k.systemReserved)}`] : []),
    ...(Object.keys(k.kubeReserved).length ? [`--kube-reserved=${kv(k.kubeReserved)}`] : []),
  ];
}

/** A PowerShell string: single-quoted (literal) unless it holds a $( ) expression. */
export function psString(v: string): string {
  return v.includes('$(') ? `"${v.replace(/"/g, '`"')}"` : `'${v.replace(/'/g, "''")}'`;
}

/**
 * StartKubelet.ps1, run by the kubelet service under Windows PowerShell 5.1
 * (as PrepareNode.ps1's): it passes `--resolv-conf=""` to kubelet.exe as
 * written, which Go's command-line parsing reads as an empty value.
 */
export function startKubeletScript(s: JoinSettings, k: KubeletOptions): string {
  return [
    `# kubelet ${s.kubernetesVersion} for ${s.windows.release}: run by the kubelet service (install.ps1).`,
    '$ErrorActionPreference = \'Stop\'',
    '$kubeletArgs = @(',
    ...kubeletFlags(s, k).map((f, i, all) => `    ${psString(f)}${i < all.length - 1 ? ',' : ''}`),
    ')',
    `& ${psString(KUBELET_EXE)} @kubeletArgs`,
    '',
  ].join('\r\n');
}
