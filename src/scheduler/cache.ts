/**
 * The scheduler cache (pkg/scheduler/backend/cache): NodeInfo per node with
 * the pods bound or assumed there. Assumed pods count from the moment the
 * scheduler picks their node, before the binding is written, so the next pod
 * sees the space taken. The cache is also the snapshot plugins read: the
 * scheduling cycle is synchronous, so nothing changes under it.
 */
import type { Listers, Snapshot } from './framework.js';
import { NodeInfo } from './node-info.js';
import type { NamespaceLabels, PodInfo } from './pod-info.js';
import { PodIndex } from './pod-index.js';

const NONE: readonly PodInfo[] = Object.freeze([]);

export class SchedulerCache implements Snapshot {
  private readonly byName = new Map<string, NodeInfo>();
  /** Nodes in the order the filter pass visits them. */
  nodes: NodeInfo[] = [];
  /** Pods on nodes the cache has no Node object for yet. */
  private readonly orphans = new Map<string, NodeInfo>();
  private readonly podNode = new Map<string, string>();
  private readonly assumed = new Set<string>();
  private readonly imageCounts = new Map<string, number>();
  private readonly nominatedByNode = new Map<string, Map<string, PodInfo>>();
  private readonly nominatedNodeOf = new Map<string, string>();

  nodesGeneration = 0;
  /** The nodes of the latest pod changes, oldest first; podLog[0] is change number podLogBase + 1. */
  private podLog: NodeInfo[] = [];
  private podLogBase = 0;
  podsWithAffinity = 0;
  podsWithRequiredAntiAffinity = 0;
  /** The placed pods (bound or assumed) by namespace and label. */
  readonly podIndex = new PodIndex();

  constructor(readonly nsLabels: NamespaceLabels, readonly listers: Listers) {}

  private countAffinity(p: PodInfo, by: 1 | -1): void {
    if (p.hasAffinity) this.podsWithAffinity += by;
    if (p.requiredAntiAffinity.length) this.podsWithRequiredAntiAffinity += by;
  }

  get(name: string): NodeInfo | undefined { return this.byName.get(name); }

  get podChangeSeq(): number { return this.podLogBase + this.podLog.length; }

  forEachPodChangeSince(seq: number, fn: (node: NodeInfo) => void): boolean {
    if (seq < this.podLogBase || seq > this.podChangeSeq) return false;
    for (let i = seq - this.podLogBase; i < this.podLog.length; i++) {
      const node = this.podLog[i];
      if (node) fn(node);
    }
    return true;
  }

  /** Plugins that keep counts per node catch up from here rather than recounting every node. */
  private logPodChange(n: NodeInfo): void {
    this.podLog.push(n);
    if (this.podLog.length >= 20_000) { this.podLog = this.podLog.slice(10_000); this.podLogBase += 10_000; }
  }
  imageNodeCount(image: string): number { return this.imageCounts.get(image) ?? 0; }
  nominated(node: string): readonly PodInfo[] {
    if (this.nominatedNodeOf.size === 0) return NONE;
    const m = this.nominatedByNode.get(node);
    return m && m.size ? [...m.values()] : NONE;
  }

  private countImages(n: NodeInfo, by: 1 | -1): void {
    for (const img of n.images.keys()) {
      const c = (this.imageCounts.get(img) ?? 0) + by;
      if (c <= 0) this.imageCounts.delete(img); else this.imageCounts.set(img, c);
    }
  }

  setNode(node: any): NodeInfo {
    this.nodesGeneration++;
    const name = node.metadata.name;
    let n = this.byName.get(name);
    if (n) {
      this.countImages(n, -1);
      n.setNode(node);
    } else {
      n = this.orphans.get(name) ?? new NodeInfo(node);
      this.orphans.delete(name);
      n.setNode(node);
      this.byName.set(name, n);
      this.nodes.push(n);
    }
    this.countImages(n, 1);
    return n;
  }

  removeNode(name: string): void {
    const n = this.byName.get(name);
    if (!n) return;
    this.nodesGeneration++;
    this.countImages(n, -1);
    this.byName.delete(name);
    this.nodes = this.nodes.filter((x) => x !== n);
    // Its pods stay accounted until they are deleted, as upstream keeps a NodeInfo without a node.
    if (n.pods.size) this.orphans.set(name, n);
  }

  private nodeFor(name: string): NodeInfo {
    let n = this.byName.get(name) ?? this.orphans.get(name);
    if (!n) { n = new NodeInfo({ metadata: { name } }); this.orphans.set(name, n); }
    return n;
  }

  isAssumed(uid: string): boolean { return this.assumed.has(uid); }

  /** AssumePod: the pod counts on the node before its binding is written. */
  assume(pod: PodInfo, node: string): void {
    this.removePod(pod.uid);
    const n = this.nodeFor(node);
    n.addPod(pod);
    this.podIndex.add(pod, n);
    this.logPodChange(n);
    this.countAffinity(pod, 1);
    this.podNode.set(pod.uid, node);
    this.assumed.add(pod.uid);
  }

  /** ForgetPod: the binding failed. */
  forget(uid: string): void {
    if (!this.assumed.has(uid)) return;
    this.removePod(uid);
  }

  /** A bound pod seen through the watch (confirms an assumed one). */
  addOrUpdatePod(pod: PodInfo): void {
    const node = pod.nodeName!;
    if (this.podNode.has(pod.uid)) this.removePod(pod.uid);
    const n = this.nodeFor(node);
    n.addPod(pod);
    this.podIndex.add(pod, n);
    this.logPodChange(n);
    this.countAffinity(pod, 1);
    this.podNode.set(pod.uid, node);
  }

  removePod(uid: string): PodInfo | undefined {
    const node = this.podNode.get(uid);
    this.assumed.delete(uid);
    if (!node) return undefined;
    this.podNode.delete(uid);
    const n = this.byName.get(node) ?? this.orphans.get(node);
    const p = n?.removePod(uid);
    if (p) { this.countAffinity(p, -1); this.podIndex.remove(p); this.logPodChange(n!); }
    if (n && !this.byName.has(node) && n.pods.size === 0) this.orphans.delete(node);
    return p;
  }

  nodeOfPod(uid: string): string | undefined { return this.podNode.get(uid); }

  /** The nominator: pods waiting on a node for their preemption victims to go. */
  setNominated(pod: PodInfo, node: string | undefined): void {
    const prev = this.nominatedNodeOf.get(pod.uid);
    if (prev) { this.nominatedByNode.get(prev)?.delete(pod.uid); this.nominatedNodeOf.delete(pod.uid); }
    if (!node) return;
    let m = this.nominatedByNode.get(node);
    if (!m) this.nominatedByNode.set(node, m = new Map());
    m.set(pod.uid, pod);
    this.nominatedNodeOf.set(pod.uid, node);
  }
}
