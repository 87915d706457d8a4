/**
 * What a live cluster says about the values a joining Windows node needs,
 * each with where it was read, so that a contradiction can name both sides.
 * Read from the objects any kubeadm cluster (and most others) has:
 * - service CIDR: kube-apiserver's `--service-cluster-ip-range` on its
 *   static pod, else kubeadm-config's ClusterConfiguration
 *   `networking.serviceSubnet` (the `kubernetes` Service's ClusterIP alone
 *   does not give the prefix length, it only checks the range);
 * - cluster DNS: the kube-dns Service's ClusterIP;
 * - cluster domain: the kubelet-config ConfigMap's `clusterDomain`, else
 *   kubeadm-config's `networking.dnsDomain`;
 * - pod CIDR: flannel's net-conf.json `Network`, else kube-proxy's
 *   `clusterCIDR`, else kubeadm-config's `networking.podSubnet`;
 * - CNI and mode: flannel's backend (vxlan → overlay, host-gw → l2bridge) or
 *   calico-node's CALICO_NETWORKING_BACKEND.
 */
import type { ConfigMap, Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { parse as parseYaml } from 'yaml';
import {
  calicoBackend, calicoBackendMode, flannelBackendMode, flannelBackendType, flannelNetConfOf, kubeProxySettings,
} from '../node/net/cluster-network-config.js';
import type { CNIPlugin, KubeProxySettings, NetworkMode } from '../node/network.js';

/** The objects join-config reads; any of them may be missing. */
export interface ClusterObjects {
  /** kube-apiserver's /version gitVersion. */
  version?: string;
  kubernetesService?: Service;
  kubeDnsService?: Service;
  kubeadmConfig?: ConfigMap;
  kubeletConfig?: ConfigMap;
  flannelConfig?: ConfigMap;
  kubeProxyConfig?: ConfigMap;
  calicoNode?: DaemonSet;
  /** kube-system's kube-apiserver static pods (label component=kube-apiserver). */
  apiServerPods?: Pod[];
  nodes?: Node[];
  /** Every namespace's DaemonSets: the Windows kube-proxy or CNI may already run as HostProcess pods. */
  daemonSets?: DaemonSet[];
}

/** A value and where in the cluster it was read. */
export interface Fact<T> { value: T; source: string }

export interface ClusterFacts {
  version?: string;
  serviceCIDR?: Fact<string>;
  /** The `kubernetes` Service's ClusterIP: the service CIDR must hold it. */
  apiServiceIP?: Fact<string>;
  dnsIP?: Fact<string>;
  clusterDomain?: Fact<string>;
  podCIDR?: Fact<string>;
  plugin?: Fact<CNIPlugin>;
  mode?: Fact<NetworkMode>;
  /** flannel backends Windows has no HNS network for (udp, wireguard, ...). */
  unsupportedBackend?: Fact<string>;
  kubeProxy: KubeProxySettings;
  /** The nodes' spec.podCIDR, by node name. */
  nodePodCIDRs: Array<{ node: string; cidr: string }>;
  /** DaemonSets whose pods land on Windows nodes (namespace/name), by what they run. */
  windowsDaemonSets: { kubeProxy: string[]; cni: string[] };
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Rec : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function yamlOf(text: string | undefined): Rec {
  if (!text) return {};
  try { return rec(parseYaml(text)); } catch { return {}; }
}

function fact<T>(value: T | undefined, source: string): Fact<T> | undefined {
  return value === undefined ? undefined : { value, source };
}

/** A flag's value from a command line, `--flag=value` or `--flag value`. */
function flagValue(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
    if (a === flag) return args[i + 1];
  }
  return undefined;
}

function serviceRangeFromApiServer(pods: readonly Pod[]): Fact<string> | undefined {
  for (const p of pods) {
    for (const c of p.spec?.containers ?? []) {
      const v = flagValue([...(c.command ?? []), ...(c.args ?? [])], '--service-cluster-ip-range');
      // A dual-stack range lists the IPv4 CIDR first; Windows nodes take that one.
      if (v) return { value: v.split(',')[0]!, source: `kube-system/${p.metadata?.name ?? 'kube-apiserver'} --service-cluster-ip-range` };
    }
  }
  return undefined;
}

function modeFacts(o: ClusterObjects): Pick<ClusterFacts, 'plugin' | 'mode' | 'unsupportedBackend'> {
  if (o.flannelConfig) {
    const where = `${o.flannelConfig.metadata?.namespace ?? 'kube-system'}/${o.flannelConfig.metadata?.name ?? 'kube-flannel-cfg'} net-conf.json`;
    const type = flannelBackendType(o.flannelConfig);
    const plugin = { value: 'flannel' as const, source: where };
    if (type !== 'vxlan' && type !== 'host-gw') return { plugin, unsupportedBackend: { value: typeof type === 'string' ? type : JSON.stringify(type ?? null), source: `${where} Backend.Type` } };
    return { plugin, mode: { value: flannelBackendMode(type), source: `${where} Backend.Type ${type}` } };
  }
  if (o.calicoNode) {
    const backend = calicoBackend(o.calicoNode) ?? 'bird';
    return {
      plugin: { value: 'calico', source: 'kube-system/calico-node DaemonSet' },
      mode: { value: calicoBackendMode(backend), source: `kube-system/calico-node CALICO_NETWORKING_BACKEND ${backend}` },
    };
  }
  return {};
}

export function clusterFacts(o: ClusterObjects): ClusterFacts {
  const cc = yamlOf(o.kubeadmConfig?.data?.ClusterConfiguration);
  const networking = rec(cc.networking);
  const kubeadm = 'kube-system/kubeadm-config ClusterConfiguration';
  const kubelet = yamlOf(o.kubeletConfig?.data?.kubelet);
  const proxyConf = yamlOf(o.kubeProxyConfig?.data?.['config.conf']);
  const flannelNetwork = str(flannelNetConfOf(o.flannelConfig).Network);
  const flannelWhere = `${o.flannelConfig?.metadata?.namespace ?? 'kube-system'}/${o.flannelConfig?.metadata?.name ?? 'kube-flannel-cfg'}`;
  return {
    version: o.version,
    serviceCIDR: serviceRangeFromApiServer(o.apiServerPods ?? []) ?? fact(str(networking.serviceSubnet)?.split(',')[0], `${kubeadm} networking.serviceSubnet`),
    apiServiceIP: fact(str(o.kubernetesService?.spec?.clusterIP), 'default/kubernetes Service'),
    dnsIP: fact(str(o.kubeDnsService?.spec?.clusterIP), 'kube-system/kube-dns Service'),
    clusterDomain: fact(str(kubelet.clusterDomain), 'kube-system/kubelet-config clusterDomain')
      ?? fact(str(networking.dnsDomain), `${kubeadm} networking.dnsDomain`),
    podCIDR: fact(flannelNetwork, `${flannelWhere} net-conf.json Network`)
      ?? fact(str(proxyConf.clusterCIDR)?.split(',')[0], 'kube-system/kube-proxy config.conf clusterCIDR')
      ?? fact(str(networking.podSubnet)?.split(',')[0], `${kubeadm} networking.podSubnet`),
    ...modeFacts(o),
    kubeProxy: kubeProxySettings(o.kubeProxyConfig),
    windowsDaemonSets: windowsDaemonSets(o.daemonSets ?? []),
    nodePodCIDRs: (o.nodes ?? []).flatMap((n) => (n.spec?.podCIDR ? [{ node: n.metadata?.name ?? '', cidr: n.spec.podCIDR }] : [])),
  };
}

/** Whether a DaemonSet's pods may run on a Windows node: its node selector or required affinity names windows. */
function runsOnWindows(ds: DaemonSet): boolean {
  const spec = ds.spec?.template.spec;
  if (spec?.nodeSelector?.['kubernetes.io/os'] === 'windows') return true;
  const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms.some((t) => (t.matchExpressions ?? []).some((e) => e.key === 'kubernetes.io/os' && e.operator === 'In' && (e.values ?? []).includes('windows')));
}

function windowsDaemonSets(list: readonly DaemonSet[]): ClusterFacts['windowsDaemonSets'] {
  const out: ClusterFacts['windowsDaemonSets'] = { kubeProxy: [], cni: [] };
  for (const ds of list.filter(runsOnWindows)) {
    const id = `${ds.metadata?.namespace ?? ''}/${ds.metadata?.name ?? ''}`;
    const text = `${ds.metadata?.name ?? ''} ${(ds.spec?.template.spec?.containers ?? []).map((c) => c.image ?? '').join(' ')}`;
    if (/kube-proxy/.test(text)) out.kubeProxy.push(id);
    else if (/flannel|calico/.test(text)) out.cni.push(id);
  }
  return out;
}
