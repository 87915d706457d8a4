/**
 * A node as the data plane needs it: its address on the machines' network,
 * its pod CIDR, and what decides its kube-proxy's behaviour (the OS and,
 * on Windows, the build: session affinity needs HNS support that first
 * shipped with Windows Server 2022).
 */
import type { Node } from 'kubernetes-types/core/v1.js';

export interface NetNode {
  name: string;
  os: 'linux' | 'windows';
  /** Windows: the OS build (status.nodeInfo.kernelVersion `10.0.<build>.<UBR>`). */
  build?: number;
  internalIP: string;
  /** The node's /24 of the pod subnet (x.y.z.0/24). */
  podCIDR?: string;
}

/** Windows Server 2022's build, the first whose HNS load balancers support session affinity (docs' feature table). */
export const SESSION_AFFINITY_MIN_BUILD = 20348;

export function netNodeOf(node: Node): NetNode | undefined {
  const name = node.metadata?.name;
  const internalIP = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  if (!name || !internalIP) return undefined;
  const info = node.status?.nodeInfo;
  const os = info?.operatingSystem === 'windows' || node.metadata?.labels?.['kubernetes.io/os'] === 'windows' ? 'windows' : 'linux';
  const build = os === 'windows' ? Number(/^\d+\.\d+\.(\d+)/.exec(info?.kernelVersion ?? '')?.[1]) : NaN;
  return {
    name, os, internalIP,
    ...(Number.isFinite(build) ? { build } : {}),
    ...(node.spec?.podCIDR ? { podCIDR: node.spec.podCIDR } : {}),
  };
}

/** Whether an IPv4 address is inside a /24 pod CIDR (x.y.z.0/24). */
export function inPodCIDR(ip: string, podCIDR: string | undefined): boolean {
  if (!podCIDR) return false;
  const prefix = podCIDR.replace(/\.0\/24$/, '.');
  return prefix !== podCIDR && ip.startsWith(prefix);
}

