/**
 * The cluster the manifests are checked against, always as Node objects
 * (what the scheduler's plugins read) plus the facts nodes do not carry: the
 * pod network mode, kube-proxy's DSR and the GMSA webhook. From node pools
 * (the default cluster of `winkube up`, or a cluster file) the Node objects
 * are the ones the emulated kubelets register; from a live cluster they are
 * listed.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { parseWindowsBuild, WINDOWS_BUILD_LABEL } from '../os/windows-versions.js';
import { DEFAULT_POOLS, expandPools, type NodePool } from '../node/pool.js';
import { buildNode } from '../node/node-object.js';
import { machineIdentity } from '../node/identity.js';
import { DEFAULT_NETWORK } from '../node/network.js';
import type { ClusterDescription, ClusterNode } from './types.js';

/** A fixed instant: the Node objects' timestamps never reach a finding. */
const REGISTERED_AT = '2025-01-01T00:00:00Z';

/** The facts a rule reads from one Node object. */
export function clusterNode(node: Node): ClusterNode {
  const labels = node.metadata?.labels ?? {};
  const os = (labels['kubernetes.io/os'] ?? node.status?.nodeInfo?.operatingSystem) === 'windows' ? 'windows' : 'linux';
  const kernel = node.status?.nodeInfo?.kernelVersion;
  const build = os === 'windows' ? parseWindowsBuild(labels[WINDOWS_BUILD_LABEL]) ?? parseWindowsBuild(kernel?.split(' ')[0]) : undefined;
  const runtime = (node.status?.nodeInfo?.containerRuntimeVersion ?? '').split('://')[0] || 'unknown';
  return { name: node.metadata?.name ?? '', os, ...(build !== undefined ? { build } : {}), runtime, taints: node.spec?.taints ?? [], node };
}

/** The cluster `winkube up` would start from these pools (the default cluster without a cluster file). */
export function describePools(pools: readonly NodePool[] = DEFAULT_POOLS, origin = 'the default cluster'): ClusterDescription {
  const configs = expandPools(pools);
  const nodes = configs.map((cfg, i) => clusterNode(buildNode(cfg, i, machineIdentity(cfg.name, cfg.os), REGISTERED_AT) as Node));
  const net = pools[0]?.network ?? DEFAULT_NETWORK;
  return { origin, nodes, network: { mode: net.mode, dsr: net.kubeProxy?.enableDSR === true }, gmsaWebhook: false };
}

/** A live cluster's nodes; its network facts are unknown (nodes do not carry them). */
export function describeNodes(nodes: readonly Node[], origin: string, gmsaWebhook?: boolean): ClusterDescription {
  return { origin, nodes: nodes.map(clusterNode), ...(gmsaWebhook !== undefined ? { gmsaWebhook } : {}) };
}

export const windowsNodes = (c: ClusterDescription): ClusterNode[] => c.nodes.filter((n) => n.os === 'windows');
