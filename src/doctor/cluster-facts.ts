/**
 * What several checks ask of the snapshot: each node's OS and build (as
 * `winkube lint` reads them from Node objects), which node a pod runs on,
 * whether the cluster mixes Linux and Windows nodes, and a pod's reference.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { clusterNode } from '../lint/cluster-description.js';
import type { ClusterNode } from '../lint/types.js';
import type { ClusterSnapshot, ObjectRef } from './types.js';

export interface ClusterFacts {
  nodes: ClusterNode[];
  byName: ReadonlyMap<string, ClusterNode>;
  windowsNodes: ClusterNode[];
  linuxNodes: ClusterNode[];
  mixed: boolean;
}

const facts = new WeakMap<ClusterSnapshot, ClusterFacts>();

/** Memoized per snapshot: every check asks. */
export function clusterFacts(c: ClusterSnapshot): ClusterFacts {
  const known = facts.get(c);
  if (known) return known;
  const nodes = c.nodes.map(clusterNode);
  const windowsNodes = nodes.filter((n) => n.os === 'windows');
  const linuxNodes = nodes.filter((n) => n.os === 'linux');
  const f = { nodes, byName: new Map(nodes.map((n) => [n.name, n])), windowsNodes, linuxNodes, mixed: windowsNodes.length > 0 && linuxNodes.length > 0 };
  facts.set(c, f);
  return f;
}

/** The node a pod is bound to, when the snapshot has it. */
export function nodeOfPod(c: ClusterSnapshot, pod: Pod): ClusterNode | undefined {
  const name = pod.spec?.nodeName;
  return name ? clusterFacts(c).byName.get(name) : undefined;
}

export function podRef(pod: Pod): ObjectRef {
  return { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata?.namespace ?? 'default', name: pod.metadata?.name ?? '' };
}

/** Pods that are done (Succeeded, Failed) or being deleted say nothing about the cluster's state now. */
export function isLivePod(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

/** The pod's owner of this kind (a DaemonSet's pods are judged with their DaemonSet). */
export function ownerKind(pod: Pod): string | undefined {
  return pod.metadata?.ownerReferences?.find((o) => o.controller)?.kind;
}

/** `spec.containers[0]` style paths for every container of a pod, with its status. */
export function containersWithPaths(pod: Pod): Array<{ name: string; image: string; path: string; waiting?: { reason?: string; message?: string } }> {
  const out: Array<{ name: string; image: string; path: string; waiting?: { reason?: string; message?: string } }> = [];
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const lists: Array<['initContainers' | 'containers', Array<{ name: string; image?: string }> | undefined]> = [
    ['initContainers', pod.spec?.initContainers], ['containers', pod.spec?.containers]];
  for (const [list, containers] of lists) {
    (containers ?? []).forEach((c, i) => {
      const waiting = statuses.find((s) => s.name === c.name)?.state?.waiting;
      out.push({ name: c.name, image: c.image ?? '', path: `spec.${list}[${i}]`, ...(waiting ? { waiting } : {}) });
    });
  }
  return out;
}

/** How a waiting container shows in the evidence: `status.containerStatuses[web].state.waiting: CreateContainerError: <message>`. */
export function waitingEvidence(c: { name: string; path: string; waiting?: { reason?: string; message?: string } }): string[] {
  if (!c.waiting?.reason) return [];
  const list = c.path.startsWith('spec.initContainers') ? 'initContainerStatuses' : 'containerStatuses';
  return [`status.${list}[${c.name}].state.waiting: ${c.waiting.reason}${c.waiting.message ? `: ${c.waiting.message}` : ''}`];
}
