/**
 * Pod predicates the workload controllers share (pkg/api/v1/pod and
 * pkg/controller: IsPodReady, IsPodAvailable, FilterActivePods, ...).
 */
import type { KObject } from '../../apimachinery/object.js';

type Pod = KObject & { spec?: any; status?: any };

export const phaseOf = (p: Pod): string => p.status?.phase ?? '';
export const isTerminating = (p: Pod): boolean => !!p.metadata.deletionTimestamp;
export const isFinished = (p: Pod): boolean => phaseOf(p) === 'Succeeded' || phaseOf(p) === 'Failed';

/** controller.IsPodActive: not finished and not being deleted. */
export const isActive = (p: Pod): boolean => !isFinished(p) && !isTerminating(p);

/** The pod's Ready condition, if any. */
export function readyCondition(p: Pod): { status: string; lastTransitionTime?: string } | undefined {
  return (p.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
}

/** podutil.IsPodReady. */
export const isReady = (p: Pod): boolean => readyCondition(p)?.status === 'True';

/** podutil.IsPodAvailable: ready for at least minReadySeconds at `now`. */
export function isAvailable(p: Pod, minReadySeconds: number, now: Date): boolean {
  const c = readyCondition(p);
  if (c?.status !== 'True') return false;
  if (!minReadySeconds) return true;
  const since = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= now.getTime();
}

/** metav1.GetControllerOf. */
export function controllerOf(o: KObject): { apiVersion: string; kind: string; name: string; uid: string } | undefined {
  return (o.metadata.ownerReferences ?? []).find((r) => r.controller) as any;
}

/** Whether the object's controller is exactly this owner. */
export const controlledBy = (o: KObject, owner: KObject): boolean => controllerOf(o)?.uid === owner.metadata.uid;

