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
import { DEFAULT_POD_SUBNET, SERVICE_SUBNET, type ClusterNetwork, type KubeProxySettings, type NetworkMode } from '../network.js';

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

/** kube-proxy's settings from its ConfigMap's KubeProxyConfiguration (config.conf). */
export function kubeProxySettings(cm: ConfigMap | undefined): KubeProxySettings {
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

/** flannel's net-conf.json from the kube-flannel-cfg ConfigMap ({} when absent or not JSON). */
export function flannelNetConfOf(cm: ConfigMap | undefined): Record<string, unknown> {
  return json(cm?.data?.['net-conf.json']);
}

/** flannel's backend type (`vxlan`, `host-gw`, ...) from its net-conf.json. */
export function flannelBackendType(cm: ConfigMap | undefined): unknown {
  return record(flannelNetConfOf(cm).Backend).Type;
}

/** The HNS network a flannel backend makes on Windows: host-gw is L2Bridge, vxlan Overlay. */
export function flannelBackendMode(type: unknown): NetworkMode { return type === 'host-gw' ? 'l2bridge' : 'overlay'; }

/** calico-node's CALICO_NETWORKING_BACKEND (`bird`, `vxlan`, `none`). */
export function calicoBackend(ds: DaemonSet | undefined): string | undefined {
  const env = ds?.spec?.template.spec?.containers.find((c) => c.name === 'calico-node')?.env ?? [];
  return env.find((e) => e.name === 'CALICO_NETWORKING_BACKEND')?.value;
}

/** Calico VXLAN is an Overlay network on Windows, BGP an L2Bridge one. */
export function calicoBackendMode(backend: string | undefined): NetworkMode { return backend === 'vxlan' ? 'overlay' : 'l2bridge'; }

/** The cluster network, or an error naming what kube-system lacks. */
export function clusterNetworkFromKubeSystem(o: KubeSystemNetworkObjects): { network: ClusterNetwork; serviceSubnet: string } {
  const networking = record(yaml(o.kubeadmConfig?.data?.ClusterConfiguration).networking);
  const podSubnet = typeof networking.podSubnet === 'string' ? networking.podSubnet : DEFAULT_POD_SUBNET;
  const serviceSubnet = typeof networking.serviceSubnet === 'string' ? networking.serviceSubnet : SERVICE_SUBNET;
  const kubeProxy = kubeProxySettings(o.kubeProxyConfig);
  const extra = { podSubnet, ...(Object.keys(kubeProxy).length ? { kubeProxy } : {}) };
  if (o.flannelConfig) {
    return { network: { plugin: 'flannel', mode: flannelBackendMode(flannelBackendType(o.flannelConfig)), ...extra }, serviceSubnet };
  }
  if (o.calicoNode) {
    return { network: { plugin: 'calico', mode: calicoBackendMode(calicoBackend(o.calicoNode)), ...extra }, serviceSubnet };
  }
  throw new Error('kube-system has neither the kube-flannel-cfg ConfigMap nor the calico-node DaemonSet: the cluster network is unknown');
}
