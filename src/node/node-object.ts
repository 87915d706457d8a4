/**
 * The Node object a kubelet registers (pkg/kubelet/kubelet_node_status.go
 * initialNode, then the nodestatus setters).
 */
import { EMULATED_VERSION } from '../apimachinery/version.js';
import { windowsNodeIdentity } from '../os/windows-versions.js';
import { nodeAllocatable, nodeCapacity } from './allocatable.js';
import { healthyConditions, type NodeCondition, type NodePressure } from './conditions.js';
import type { MachineIdentity } from './identity.js';
import type { NodeConfig } from './pool.js';
import { CONTAINERD_VERSION } from './container-runtime.js';
import { DEFAULT_POD_SUBNET, nodePodCIDR } from './network.js';

/** `uname -r` of the Linux nodes (Debian 12's kernel) and their /etc/os-release PRETTY_NAME. */
export const LINUX_KERNEL_VERSION = '6.1.0-28-amd64';
export const LINUX_OS_IMAGE = 'Debian GNU/Linux 12 (bookworm)';
export const CONTAINER_RUNTIME_VERSION = `containerd://${CONTAINERD_VERSION}`;
export const KUBELET_VERSION = EMULATED_VERSION.gitVersion;
export const KUBELET_PORT = 10250;

/** The nth node's pod CIDR (the node IPAM controller's allocation from the pod subnet, 10.244.0.0/16 by default). */
export function podCIDR(index: number, subnet = DEFAULT_POD_SUBNET): string { return nodePodCIDR(subnet, index); }
/** The nth node's address on the machines' network 172.18.0.0/16 (.1 is the gateway). */
export function internalIP(index: number): string { const n = index + 2; return `172.18.${n >> 8}.${n & 255}`; }

function sortKeys<T>(m: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function nodeLabels(cfg: NodeConfig): Record<string, string> {
  const base: Record<string, string> = cfg.os === 'windows' && cfg.windows
    ? { ...windowsNodeIdentity(cfg.windows).labels }
    : { 'beta.kubernetes.io/arch': cfg.arch, 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': cfg.arch, 'kubernetes.io/os': 'linux' };
  return sortKeys({ ...base, 'kubernetes.io/hostname': cfg.name, ...cfg.labels });
}

export function nodeInfo(cfg: NodeConfig, id: MachineIdentity): Record<string, string> {
  const os = cfg.os === 'windows' && cfg.windows
    ? windowsNodeIdentity(cfg.windows).nodeInfo
    : { operatingSystem: 'linux', architecture: cfg.arch, kernelVersion: cfg.arch === 'arm64' ? LINUX_KERNEL_VERSION.replace('amd64', 'arm64') : LINUX_KERNEL_VERSION, osImage: LINUX_OS_IMAGE };
  return {
    machineID: id.machineID,
    systemUUID: id.systemUUID,
    bootID: id.bootID,
    kernelVersion: os.kernelVersion,
    osImage: os.osImage,
    containerRuntimeVersion: cfg.runtime.containerRuntimeVersion,
    kubeletVersion: KUBELET_VERSION,
    // KEP-4004's DisableNodeKubeProxyVersion gate is off in v1.32: the kubelet still writes its own version here.
    kubeProxyVersion: KUBELET_VERSION,
    operatingSystem: os.operatingSystem,
    architecture: os.architecture,
  };
}

export function nodeStatus(cfg: NodeConfig, index: number, id: MachineIdentity, now: string, previous: NodeCondition[] = [],
  images: ReadonlyArray<{ names: string[]; sizeBytes: number }> = [], pressure: NodePressure = {}): Record<string, unknown> {
  const capacity = nodeCapacity(cfg);
  const status: Record<string, unknown> = {
    capacity,
    allocatable: nodeAllocatable(cfg, capacity),
    conditions: healthyConditions(now, previous, pressure),
    addresses: [{ type: 'InternalIP', address: internalIP(index) }, { type: 'Hostname', address: cfg.name }],
    daemonEndpoints: { kubeletEndpoint: { Port: KUBELET_PORT } },
    nodeInfo: nodeInfo(cfg, id),
  };
  // status.images (nodestatus.Images); an empty list is omitted (`json:"images,omitempty"`).
  if (images.length) status.images = images.map((i) => ({ names: [...i.names], sizeBytes: i.sizeBytes }));
  return status;
}

/** The Node as registered: labels, annotations, spec (pod CIDR, the pool's taints) and a Ready status. */
export function buildNode(cfg: NodeConfig, index: number, id: MachineIdentity, now: string,
  images: ReadonlyArray<{ names: string[]; sizeBytes: number }> = []): Record<string, any> {
  const cidr = podCIDR(index, cfg.network.podSubnet);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: cfg.name,
      labels: nodeLabels(cfg),
      annotations: {
        // Set by kube-controller-manager's TTL controller (0 s for clusters of up to 100 nodes).
        'node.alpha.kubernetes.io/ttl': '0',
        // Set by the kubelet when --enable-controller-attach-detach (the default) is on.
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {
      podCIDR: cidr,
      podCIDRs: [cidr],
      ...(cfg.taints.length ? { taints: cfg.taints.map((t) => ({ ...t })) } : {}),
    },
    status: nodeStatus(cfg, index, id, now, [], images),
  };
}
