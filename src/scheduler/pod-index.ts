/**
 * The placed pods of the scheduler cache by namespace and by label, so that
 * a plugin counting the pods a selector matches (PodTopologySpread's
 * scoring) visits only the pods that carry one of the selector's required
 * labels instead of every pod of every node. Upstream scans the NodeInfos;
 * the counts are the same, the index only narrows what is looked at.
 */
import type { LabelSelector } from '../selectors/labels.js';
import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';

type Placed = Map<PodInfo, NodeInfo>;
const NONE: Placed = new Map();

export class PodIndex {
  /** namespace → every placed pod of it, with its node. */
  private readonly byNamespace = new Map<string, Placed>();
  /** `namespace\0key\0value` → the placed pods with that label. */
  private readonly byLabel = new Map<string, Placed>();

  add(p: PodInfo, node: NodeInfo): void {
    let ns = this.byNamespace.get(p.namespace);
    if (!ns) this.byNamespace.set(p.namespace, ns = new Map());
    ns.set(p, node);
    for (const k in p.labels) {
      const key = `${p.namespace}\0${k}\0${p.labels[k]}`;
      let m = this.byLabel.get(key);
      if (!m) this.byLabel.set(key, m = new Map());
      m.set(p, node);
    }
  }

  remove(p: PodInfo): void {
    const ns = this.byNamespace.get(p.namespace);
    if (!ns?.delete(p)) return;
    if (!ns.size) this.byNamespace.delete(p.namespace);
    for (const k in p.labels) {
      const key = `${p.namespace}\0${k}\0${p.labels[k]}`;
      const m = this.byLabel.get(key);
      if (m?.delete(p) && !m.size) this.byLabel.delete(key);
    }
  }

  private label(namespace: string, key: string, value: string): Placed {
    return this.byLabel.get(`${namespace}\0${key}\0${value}`) ?? NONE;
  }

  /**
   * Calls fn for each placed pod of the namespace that may match the
   * selector: those with the label of its narrowest equality (=, ==, in)
   * requirement, or every pod of the namespace when it has none. The caller
   * still matches the selector.
   */
  forEachCandidate(namespace: string, selector: LabelSelector, fn: (p: PodInfo, node: NodeInfo) => void): void {
    let best: Placed[] | undefined;
    let bestSize = Infinity;
    for (const r of selector.requirements) {
      if (r.op !== '=' && r.op !== '==' && r.op !== 'in') continue;
      const sets = r.values.map((v) => this.label(namespace, r.key, v));
      let size = 0;
      for (const s of sets) size += s.size;
      if (size < bestSize) { best = sets; bestSize = size; }
    }
    // The values of one requirement are distinct, so no pod is in two of its sets.
    for (const s of best ?? [this.byNamespace.get(namespace) ?? NONE]) for (const [p, n] of s) fn(p, n);
  }
}
