/**
 * The cluster network as a client reads it back from kube-system (what
 * kubeadm and the CNI manifests put there): the pod and service subnets
 * from kubeadm-config's ClusterConfiguration, the plugin from which CNI's
 * objects exist and its mode from flannel's net-conf.json backend or
 * calico-node's CALICO_NETWORKING_BACKEND, kube-proxy's settings from its
 * ConfigMap's KubeProxyConfiguration.
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_POD_SUBNET, SERVICE_SUBNET, type ClusterNetwork, type KubeProxySettings } from '../network.js';

export interface KubeSystemNetworkObjects {
  kubeadmConfig?: ConfigMap;
  flannelConfig?: ConfigMap;
  calicoNode?: DaemonSet;
  kubeProxyConfig?: ConfigMap;
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {};
}

function yaml(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try { return record(parseYaml(text)); } catch { return {}; }
}

function json(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try { return record(JSON.parse(text)); } catch { return {}; }
}

function kubeProxySettings(cm: ConfigMap | undefined): KubeProxySettings {
  const conf = yaml(cm?.data?.['config.conf']);
  const out: KubeProxySettings = {};
  if (conf.mode === 'ipvs' || conf.mode === 'iptables') out.mode = conf.mode;
  const gates = record(conf.featureGates);
  const bools = Object.entries(gates).filter((e): e is [string, boolean] => typeof e[1] === 'boolean');
  if (bools.length) out.featureGates = Object.fromEntries(bools);
  const dsr = record(conf.winkernel).enableDSR;
  if (typeof dsr === 'boolean') out.enableDSR = dsr;
  return out;
}

/** The cluster network, or an error naming what kube-system lacks. */
export function clusterNetworkFromKubeSystem(o: KubeSystemNetworkObjects): { network: ClusterNetwork; serviceSubnet: string } {
  const networking = record(yaml(o.kubeadmConfig?.data?.ClusterConfiguration).networking);
  const podSubnet = typeof networking.podSubnet === 'string' ? networking.podSubnet : DEFAULT_POD_SUBNET;
  const serviceSubnet = typeof networking.serviceSubnet === 'string' ? networking.serviceSubnet : SERVICE_SUBNET;
  const kubeProxy = kubeProxySettings(o.kubeProxyConfig);
  const extra = { podSubnet, ...(Object.keys(kubeProxy).length ? { kubeProxy } : {}) };
  if (o.flannelConfig) {
    const backend = record(json(o.flannelConfig.data?.['net-conf.json']).Backend).Type;
    return { network: { plugin: 'flannel', mode: backend === 'host-gw' ? 'l2bridge' : 'overlay', ...extra }, serviceSubnet };
  }
  if (o.calicoNode) {
    const env = o.calicoNode.spec?.template.spec?.containers.find((c) => c.name === 'calico-node')?.env ?? [];
    const backend = env.find((e) => e.name === 'CALICO_NETWORKING_BACKEND')?.value;
    return { network: { plugin: 'calico', mode: backend === 'vxlan' ? 'overlay' : 'l2bridge', ...extra }, serviceSubnet };
  }
  throw new Error('kube-system has neither the kube-flannel-cfg ConfigMap nor the calico-node DaemonSet: the cluster network is unknown');
}
