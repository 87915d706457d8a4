/**
 * Taint and toleration helpers of the node lifecycle and taint eviction
 * controllers (pkg/controller/nodelifecycle, k8s.io/api core/v1
 * toleration.go, pkg/util/taints, v1.32).
 */
import { toleratesTaint, type Taint, type Toleration } from '../../meta/tolerations.js';

export type { Taint, Toleration };

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

export const UNREACHABLE_NO_EXECUTE: Taint = { key: TAINT_UNREACHABLE, effect: 'NoExecute' };
export const NOT_READY_NO_EXECUTE: Taint = { key: TAINT_NOT_READY, effect: 'NoExecute' };

/** nodeConditionToTaintKeyStatusMap: the NoSchedule taint each condition status stands for. */
export const CONDITION_TAINTS: Record<string, Record<string, string>> = {
  Ready: { False: TAINT_NOT_READY, Unknown: TAINT_UNREACHABLE },
  MemoryPressure: { True: 'node.kubernetes.io/memory-pressure' },
  DiskPressure: { True: 'node.kubernetes.io/disk-pressure' },
  NetworkUnavailable: { True: 'node.kubernetes.io/network-unavailable' },
  PIDPressure: { True: 'node.kubernetes.io/pid-pressure' },
};
const CONDITION_TAINT_KEYS = new Set(Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)));

/** Taint.MatchTaint: same key and effect. */
export const matchTaint = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;

/** v1helper.GetMatchingTolerations: whether every taint is tolerated, and the first toleration used for each. */
export function matchingTolerations(taints: Taint[], tolerations: Toleration[]): { all: boolean; used: Toleration[] } {
  if (!taints.length) return { all: true, used: [] };
  if (!tolerations.length) return { all: false, used: [] };
  const used: Toleration[] = [];
  for (const taint of taints) {
    const t = tolerations.find((x) => toleratesTaint(x, taint));
    if (!t) return { all: false, used: [] };
    used.push(t);
  }
  return { all: true, used };
}

/** getMinTolerationTime: the shortest tolerationSeconds in ms (0 for none or ≤0), -1 when all tolerate forever. */
export function minTolerationMs(used: Toleration[]): number {
  if (!used.length) return 0;
  let min = Infinity;
  for (const t of used) {
    if (t.tolerationSeconds == null) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds);
  }
  return min === Infinity ? -1 : min * 1000;
}

/**
 * doNoScheduleTaintingPass: the NoSchedule taints a node's conditions (and
 * spec.unschedulable) call for, and which of its current ones go.
 */
export function noScheduleTaintDiff(node: any): { add: Taint[]; remove: Taint[] } {
  const want: Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const key = CONDITION_TAINTS[c?.type]?.[c?.status];
    if (key) want.push({ key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable) want.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
  const have: Taint[] = (node.spec?.taints ?? []).filter((t: Taint) => t?.effect === 'NoSchedule' &&
    (t.key === TAINT_UNSCHEDULABLE || CONDITION_TAINT_KEYS.has(t.key)));
  // TaintSetDiff
  return {
    add: want.filter((w) => !have.some((h) => matchTaint(h, w))),
    remove: have.filter((h) => !want.some((w) => matchTaint(h, w))),
  };
}
