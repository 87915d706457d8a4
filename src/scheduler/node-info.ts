/**
 * framework.NodeInfo: a node with what its pods use (requested and non-zero
 * requested resources, host ports, pods with affinity), kept up to date
 * incrementally as pods are assumed, bound and removed.
 */
import type { HostPort, PodInfo } from './pod-info.js';
import { emptyResources, nodeAllocatable, type Resources } from './resources.js';

let generation = 0;

/** The taint effects that keep a pod off a node it does not tolerate (TaintToleration's filter, NodeTaintsPolicy Honor). */
export const HARD_TAINT_EFFECTS: readonly string[] = ['NoSchedule', 'NoExecute'];

export class NodeInfo {
  node: any;
  name: string;
  labels: Record<string, string> = {};
  taints: any[] = [];
  /**
   * The taints with effect NoSchedule or NoExecute: what TaintToleration's
   * filter and the NodeTaintsPolicy Honor inclusion check, for every node of
   * every cycle; kept apart so an untainted node costs no lookup into its object.
   */
  hardTaints: any[] = [];
  /** spec.unschedulable (a cordoned node), read by NodeUnschedulable for every node of every cycle. */
  unschedulable = false;
  allocatable: Resources = emptyResources();
  readonly requested: Resources = emptyResources();
  readonly nonZeroRequested: Resources = emptyResources();
  readonly pods = new Map<string, PodInfo>();
  /** Pods with any pod (anti-)affinity, and those with required anti-affinity (InterPodAffinity's fast paths). */
  readonly podsWithAffinity = new Set<PodInfo>();
  readonly podsWithRequiredAntiAffinity = new Set<PodInfo>();
  readonly usedPorts: HostPort[] = [];
  /** Image name → size in bytes (node.status.images). */
  images = new Map<string, number>();
  generation = ++generation;

  constructor(node: any) {
    this.name = node?.metadata?.name ?? '';
    this.setNode(node);
  }

  setNode(node: any): void {
    this.node = node;
    this.labels = node?.metadata?.labels ?? {};
    this.taints = Array.isArray(node?.spec?.taints) ? node.spec.taints : [];
    this.hardTaints = this.taints.filter((t) => HARD_TAINT_EFFECTS.includes(t?.effect));
    this.unschedulable = !!node?.spec?.unschedulable;
    this.allocatable = nodeAllocatable(node);
    const images = new Map<string, number>();
    for (const img of node?.status?.images ?? []) {
      for (const n of img?.names ?? []) images.set(n, Number(img.sizeBytes ?? 0));
    }
    this.images = images;
    this.generation = ++generation;
  }

  addPod(p: PodInfo): void {
    if (this.pods.has(p.uid)) this.removePod(p.uid);
    this.pods.set(p.uid, p);
    this.account(p, 1);
  }

  removePod(uid: string): PodInfo | undefined {
    const p = this.pods.get(uid);
    if (!p) return undefined;
    this.pods.delete(uid);
    this.account(p, -1);
    return p;
  }

  private account(p: PodInfo, sign: 1 | -1): void {
    const r = this.requested, n = this.nonZeroRequested;
    r.milliCPU += sign * p.requests.milliCPU;
    r.memory += sign * p.requests.memory;
    r.ephemeralStorage += sign * p.requests.ephemeralStorage;
    for (const [k, v] of p.requests.scalars) r.scalars.set(k, (r.scalars.get(k) ?? 0) + sign * v);
    n.milliCPU += sign * p.nonZero.milliCPU;
    n.memory += sign * p.nonZero.memory;
    if (sign > 0) {
      if (p.hasAffinity) this.podsWithAffinity.add(p);
      if (p.requiredAntiAffinity.length) this.podsWithRequiredAntiAffinity.add(p);
      this.usedPorts.push(...p.hostPorts);
    } else {
      this.podsWithAffinity.delete(p);
      this.podsWithRequiredAntiAffinity.delete(p);
      for (const hp of p.hostPorts) {
        const i = this.usedPorts.findIndex((u) => u.ip === hp.ip && u.protocol === hp.protocol && u.port === hp.port);
        if (i >= 0) this.usedPorts.splice(i, 1);
      }
    }
    this.generation = ++generation;
  }

  /** A copy whose pods can be changed without touching this one (preemption's dry runs). */
  clone(): NodeInfo {
    const c = new NodeInfo(this.node);
    for (const p of this.pods.values()) c.addPod(p);
    return c;
  }
}
