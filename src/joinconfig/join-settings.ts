/**
 * The values the joining node's files are written from: each one the
 * command line's or the cluster's, checked against each other. A flag that
 * says something else than the cluster is an error naming both values and
 * where the cluster's was read; a value the cluster does not show is taken
 * from its default with a warning saying which flag sets it. Only the
 * service CIDR has no safe default (the kubelet's DNS address, the
 * OutBoundNAT exceptions and the SDN route are made from it): without it
 * and without --service-cidr the command stops.
 */
import { EMULATED_VERSION } from '../apimachinery/version.js';
import { ipv4InCIDR, ipv4Number } from '../node/net/ipv4-cidr.js';
import { CNI_PLUGINS, DEFAULT_POD_SUBNET, DNS_DOMAIN, NETWORK_MODES, type CNIPlugin, type KubeProxySettings, type NetworkMode } from '../node/network.js';
import { DEFAULT_WINDOWS_VERSION, lookupWindowsVersion, type WindowsVersion } from '../os/windows-versions.js';
import { PAUSE_WINDOWS_BUILDS } from '../os/image-catalog.js';
import { WINCAT_NOT_FOUND, sandboxImageHasWincat } from '../os/wincat.js';
import { PAUSE_IMAGE } from '../node/kubelet/kubelet.js';
import type { ClusterFacts, Fact } from './cluster-facts.js';

/** The command line, as given (undefined: not given). */
export interface JoinFlags {
  nodeName?: string;
  windowsVersion?: string;
  network?: string;
  mode?: string;
  runtime?: string;
  kubernetesVersion?: string;
  serviceCIDR?: string;
  podCIDR?: string;
  clusterDNS?: string;
  clusterDomain?: string;
  sandboxImage?: string;
}

export interface JoinSettings {
  /** undefined: the machine's own host name, lowercased, at install time. */
  nodeName?: string;
  windows: WindowsVersion;
  plugin: CNIPlugin;
  mode: NetworkMode;
  runtime: 'containerd';
  /** `v1.32.0` form. */
  kubernetesVersion: string;
  serviceCIDR: string;
  podCIDR: string;
  dnsIP: string;
  clusterDomain: string;
  kubeProxy: KubeProxySettings;
  /** containerd's sandbox_image and the kubelet's --pod-infra-container-image. */
  sandboxImage: string;
}

export interface JoinCheck { settings?: JoinSettings; errors: string[]; warnings: string[] }

/** kubeadm puts the kube-dns Service at the tenth address of the service CIDR. */
export function tenthAddress(cidr: string): string | undefined {
  const [base, bits] = cidr.split('/');
  const n = ipv4Number(base ?? '');
  if (n === undefined || bits === undefined) return undefined;
  const size = 2 ** (32 - Number(bits));
  const ip = Math.floor(n / size) * size + 10;
  return [24, 16, 8, 0].map((s) => Math.floor(ip / 2 ** s) % 256).join('.');
}

const IPV4_CIDR = /^(\d{1,3}\.){3}\d{1,3}\/(\d|[12]\d|3[0-2])$/;
const isCIDR = (v: string) => IPV4_CIDR.test(v) && ipv4Number(v.split('/')[0]!) !== undefined;

/** Minor version of `v1.32.0` / `1.32.0`; undefined for anything else. */
function parseVersion(v: string): { minor: number; text: string } | undefined {
  const m = /^v?1\.(\d+)\.(\d+)$/.exec(v.trim());
  return m ? { minor: Number(m[1]), text: `v1.${m[1]}.${m[2]}` } : undefined;
}

export function joinSettings(flags: JoinFlags, facts: ClusterFacts): JoinCheck {
  const errors: string[] = [];
  const warnings: string[] = [];

  /** The flag's value unless the cluster says otherwise; the cluster's when the flag is absent. */
  const pick = <T extends string>(flag: string, given: T | undefined, known: Fact<T> | undefined, what: string): T | undefined => {
    if (given !== undefined && known !== undefined && given !== known.value) {
      errors.push(`${flag} ${given} contradicts the cluster's ${what} ${known.value} (${known.source})`);
    }
    return given ?? known?.value;
  };
  const fallback = <T extends string>(value: T | undefined, def: T, missing: string, flag: string): T => {
    if (value !== undefined) return value;
    warnings.push(`${missing}: using ${def}; pass ${flag} to set it`);
    return def;
  };

  for (const [flag, v] of [['--service-cidr', flags.serviceCIDR], ['--pod-cidr', flags.podCIDR]] as const) {
    if (v !== undefined && !isCIDR(v)) errors.push(`${flag} ${v} is not an IPv4 CIDR (such as 10.96.0.0/12)`);
  }
  if (flags.clusterDNS !== undefined && ipv4Number(flags.clusterDNS) === undefined) errors.push(`--cluster-dns ${flags.clusterDNS} is not an IPv4 address`);
  if (flags.network !== undefined && !CNI_PLUGINS.includes(flags.network as CNIPlugin)) errors.push(`--network ${flags.network}: must be flannel or calico`);
  if (flags.mode !== undefined && !NETWORK_MODES.includes(flags.mode as NetworkMode)) errors.push(`--mode ${flags.mode}: must be overlay or l2bridge`);
  if (flags.runtime !== undefined && flags.runtime !== 'containerd') errors.push(`--runtime ${flags.runtime}: must be containerd (the only runtime Windows nodes support since dockershim's removal in v1.24)`);
  const windows = flags.windowsVersion === undefined ? DEFAULT_WINDOWS_VERSION : lookupWindowsVersion(normalizeWindowsVersion(flags.windowsVersion));
  if (!windows) errors.push(`--windows-version ${flags.windowsVersion}: unknown Windows Server version (2019, 2022, 2025, ltsc2019, 1809, 20H2, ... or a build such as 10.0.20348)`);
  if (errors.length) return { errors, warnings };

  const serviceCIDR = pick('--service-cidr', flags.serviceCIDR, facts.serviceCIDR, 'service CIDR');
  if (serviceCIDR === undefined) {
    errors.push('the cluster\'s service CIDR is not visible (no kube-apiserver pod with --service-cluster-ip-range in kube-system, no kube-system/kubeadm-config): pass --service-cidr');
  } else if (facts.apiServiceIP && !ipv4InCIDR(facts.apiServiceIP.value, serviceCIDR)) {
    errors.push(`the service CIDR ${serviceCIDR} does not hold the kubernetes Service's ClusterIP ${facts.apiServiceIP.value} (${facts.apiServiceIP.source})`);
  }
  const podCIDR = fallback(pick('--pod-cidr', flags.podCIDR, facts.podCIDR, 'pod CIDR'), DEFAULT_POD_SUBNET,
    'the cluster\'s pod CIDR is not visible (no flannel net-conf.json, kube-proxy clusterCIDR or kubeadm-config podSubnet)', '--pod-cidr');
  const outside = facts.nodePodCIDRs.find((n) => !ipv4InCIDR(n.cidr.split('/')[0]!, podCIDR));
  if (outside) errors.push(`the pod CIDR ${podCIDR} does not hold node ${outside.node}'s podCIDR ${outside.cidr}`);

  const plugin = pick('--network', flags.network as CNIPlugin | undefined, facts.plugin, 'network');
  if (facts.unsupportedBackend) {
    errors.push(`flannel's backend ${JSON.stringify(facts.unsupportedBackend.value)} (${facts.unsupportedBackend.source}) has no Windows network: Windows nodes need vxlan (overlay) or host-gw (l2bridge)`);
  }
  const mode = pick('--mode', flags.mode as NetworkMode | undefined, facts.mode, 'network mode');

  const dnsGiven = pick('--cluster-dns', flags.clusterDNS, facts.dnsIP, 'cluster DNS');
  const clusterDomain = fallback(pick('--cluster-domain', flags.clusterDomain, facts.clusterDomain, 'cluster domain'), DNS_DOMAIN,
    'the cluster domain is not visible (no kube-system/kubelet-config clusterDomain, no kubeadm-config dnsDomain)', '--cluster-domain');

  let kubernetesVersion = EMULATED_VERSION.gitVersion;
  const server = facts.version === undefined ? undefined : parseVersion(facts.version);
  if (flags.kubernetesVersion !== undefined) {
    const v = parseVersion(flags.kubernetesVersion);
    if (!v) errors.push(`--kubernetes-version ${flags.kubernetesVersion}: not a Kubernetes version (such as 1.32.0)`);
    else {
      kubernetesVersion = v.text;
      // The version skew policy: a kubelet may be up to three minor versions older than kube-apiserver, never newer.
      if (server && v.minor > server.minor) errors.push(`--kubernetes-version ${v.text} is newer than the cluster's ${facts.version}: the kubelet must not be newer than kube-apiserver`);
      if (server && v.minor < server.minor - 3) errors.push(`--kubernetes-version ${v.text} is more than three minor versions older than the cluster's ${facts.version}`);
    }
  } else if (server) {
    kubernetesVersion = server.text;
  } else {
    warnings.push(`the cluster's version is not known: using ${kubernetesVersion}; pass --kubernetes-version to set it`);
  }
  if (errors.length || serviceCIDR === undefined || !windows) return { errors, warnings };

  const dnsIP = fallback(dnsGiven, tenthAddress(serviceCIDR)!, 'the kube-dns Service was not found in kube-system', '--cluster-dns');
  if (!ipv4InCIDR(dnsIP, serviceCIDR)) errors.push(`the cluster DNS ${dnsIP} is not in the service CIDR ${serviceCIDR}`);
  const finalPlugin = fallback(plugin, 'flannel', 'no CNI was found in kube-system (kube-flannel-cfg ConfigMap, calico-node DaemonSet)', '--network');
  const finalMode = fallback(mode, 'overlay', 'the cluster\'s network mode is not visible', '--mode');
  if (errors.length) return { errors, warnings };
  const sandboxImage = flags.sandboxImage ?? PAUSE_IMAGE;
  warnings.push(...sandboxImageWarnings(sandboxImage, windows));
  return {
    settings: {
      ...(flags.nodeName !== undefined ? { nodeName: flags.nodeName } : {}),
      windows, plugin: finalPlugin, mode: finalMode, runtime: 'containerd', kubernetesVersion,
      serviceCIDR, podCIDR, dnsIP, clusterDomain, kubeProxy: facts.kubeProxy, sandboxImage,
    },
    errors, warnings,
  };
}

/** `2019`, `2022`, `2025` name the LTSC releases. */
function normalizeWindowsVersion(v: string): string {
  return /^20(19|22|25)$/.test(v) ? `ltsc${v}` : v;
}

/**
 * A sandbox image without wincat.exe breaks `kubectl port-forward` into the
 * node's pods; a registry.k8s.io/pause tag without the node's build cannot
 * start any pod (process isolation needs the host's build).
 */
function sandboxImageWarnings(image: string, windows: WindowsVersion): string[] {
  if (!sandboxImageHasWincat(image)) {
    return [`--sandbox-image ${image} is not a Kubernetes pause image, taken to lack wincat.exe: kubectl port-forward into the node's pods fails with "${WINCAT_NOT_FOUND}"`];
  }
  const m = /^(?:registry\.k8s\.io|k8s\.gcr\.io)\/pause:(.+)$/.exec(image);
  const builds = m ? PAUSE_WINDOWS_BUILDS[m[1]!] : undefined;
  if (builds && !builds.includes(windows.build)) {
    return [`${image} has no image for ${windows.release} (build ${windows.build}): pods on the node cannot start their sandbox; pass --sandbox-image`];
  }
  return [];
}
