import { MAX_NODE_SCORE, type Plugin } from '../framework.js';
import type { NodeInfo } from '../node-info.js';
import type { PodInfo } from '../pod-info.js';
import { SUCCESS, type Status, Code } from '../status.js';

export interface ResourceSpec { name: string; weight: number }
export interface NodeResourcesFitArgs {
  scoringStrategy?: { type?: 'LeastAllocated' | 'MostAllocated'; resources?: ResourceSpec[] };
  ignoredResources?: string[];
  ignoredResourceGroups?: string[];
}

export const DEFAULT_RESOURCES: ResourceSpec[] = [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }];

interface Insufficient { reason: string }
const NO_INSUFFICIENT: Insufficient[] = [];

/** fitsRequest (noderesources/fit.go): every resource the node lacks, with upstream's reason. */
export function fitsRequest(pod: PodInfo, node: NodeInfo, ignored: ReadonlySet<string> = new Set(), ignoredGroups: ReadonlySet<string> = new Set()): Insufficient[] {
  const alloc = node.allocatable, used = node.requested, req = pod.requests;
  // The common case first, without allocating.
  if (node.pods.size + 1 <= alloc.pods && req.milliCPU <= alloc.milliCPU - used.milliCPU && req.memory <= alloc.memory - used.memory &&
    req.ephemeralStorage <= alloc.ephemeralStorage - used.ephemeralStorage && req.scalars.size === 0) return NO_INSUFFICIENT;
  const out: Insufficient[] = [];
  if (node.pods.size + 1 > alloc.pods) out.push({ reason: 'Too many pods' });
  if (req.milliCPU === 0 && req.memory === 0 && req.ephemeralStorage === 0 && req.scalars.size === 0) return out;
  if (req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - used.milliCPU) {
    out.push({ reason: 'Insufficient cpu' });
  }
  if (req.memory > 0 && req.memory > alloc.memory - used.memory) {
    out.push({ reason: 'Insufficient memory' });
  }
  if (req.ephemeralStorage > 0 && req.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) {
    out.push({ reason: 'Insufficient ephemeral-storage' });
  }
  for (const [name, q] of req.scalars) {
    if (q === 0) continue;
    if (ignored.has(name)) continue;
    const slash = name.indexOf('/');
    if (slash > 0 && ignoredGroups.has(name.slice(0, slash))) continue;
    const have = alloc.scalars.get(name) ?? 0;
    if (q > have - (used.scalars.get(name) ?? 0)) out.push({ reason: `Insufficient ${name}` });
  }
  return out;
}

/** The pod's request of one resource as the scorers count it (calculatePodResourceRequest). */
export function podRequestOf(pod: PodInfo, resource: string, useRequested: boolean): number {
  const r = useRequested ? pod.requests : pod.nonZero;
  switch (resource) {
    case 'cpu': return r.milliCPU;
    case 'memory': return r.memory;
    case 'ephemeral-storage': return pod.requests.ephemeralStorage;
    default: return pod.requests.scalars.get(resource) ?? 0;
  }
}

/** calculateResourceAllocatableRequest: [allocatable, requested including the pod]; [0, 0] to leave a resource out. */
export function allocatableAndRequested(node: NodeInfo, resource: string, podRequest: number, useRequested: boolean): [number, number] {
  const requested = useRequested ? node.requested : node.nonZeroRequested;
  switch (resource) {
    case 'cpu': return [node.allocatable.milliCPU, requested.milliCPU + podRequest];
    case 'memory': return [node.allocatable.memory, requested.memory + podRequest];
    case 'ephemeral-storage': return [node.allocatable.ephemeralStorage, node.requested.ephemeralStorage + podRequest];
    default: {
      if (podRequest === 0) return [0, 0];
      const alloc = node.allocatable.scalars.get(resource) ?? 0;
      return [alloc, (node.requested.scalars.get(resource) ?? 0) + podRequest];
    }
  }
}

function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc((capacity - requested) * MAX_NODE_SCORE / capacity);
}

function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  if (requested > capacity) requested = capacity;
  return Math.trunc(requested * MAX_NODE_SCORE / capacity);
}

/**
 * NodeResourcesFit: requests (with init/sidecar containers and the pod
 * overhead) against allocatable minus what the node's pods request; scored
 * LeastAllocated (or MostAllocated) over the configured resources.
 */
export function nodeResourcesFit(args: NodeResourcesFitArgs = {}): Plugin {
  const resources = args.scoringStrategy?.resources ?? DEFAULT_RESOURCES;
  const scorer = args.scoringStrategy?.type === 'MostAllocated' ? mostRequestedScore : leastRequestedScore;
  const ignored = new Set(args.ignoredResources ?? []);
  const ignoredGroups = new Set(args.ignoredResourceGroups ?? []);
  return {
    name: 'NodeResourcesFit',
    events: ['NodeAdd', 'NodeUpdate', 'AssignedPodDelete', 'AssignedPodUpdate'],
    filter(_s, pod, node): Status {
      const insufficient = fitsRequest(pod, node, ignored, ignoredGroups);
      if (insufficient.length === 0) return SUCCESS;
      // v1.32 answers Unschedulable even for a request above the node's allocatable, so preemption
      // still runs there (UnschedulableAndUnresolvable for that case arrived in v1.34).
      return { code: Code.Unschedulable, reasons: insufficient.map((i) => i.reason) };
    },
    score(_s, pod, node) {
      let nodeScore = 0, weightSum = 0;
      for (const r of resources) {
        let alloc: number, req: number;
        // cpu and memory inline (the default resources); others through the general helper.
        if (r.name === 'cpu') { alloc = node.allocatable.milliCPU; req = node.nonZeroRequested.milliCPU + pod.nonZero.milliCPU; }
        else if (r.name === 'memory') { alloc = node.allocatable.memory; req = node.nonZeroRequested.memory + pod.nonZero.memory; }
        else [alloc, req] = allocatableAndRequested(node, r.name, podRequestOf(pod, r.name, false), false);
        if (alloc === 0) continue;
        nodeScore += scorer(req, alloc) * r.weight;
        weightSum += r.weight;
      }
      return weightSum === 0 ? 0 : Math.trunc(nodeScore / weightSum);
    },
  };
}
