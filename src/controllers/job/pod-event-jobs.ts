/**
 * Which Jobs a pod event wakes (the Job controller's addPod/updatePod/deletePod, v1.32): the
 * Job its controllerRef names (and, when that changed, the one it named before); for an orphan
 * that was just added or whose labels or controllerRef changed, every Job of its namespace whose
 * selector matches it (getPodJobs), so that one may adopt it.
 */
import type { KObject } from '../../apimachinery/object.js';
import { fromLabelSelector } from '../../selectors/labels.js';
import { controllerOf } from './pod-state.js';

const isJobRef = (ref: { apiVersion: string; kind: string } | undefined): boolean => ref?.kind === 'Job' && ref.apiVersion === 'batch/v1';

/** Keys (`namespace/name`) of the Jobs to sync; `jobsInNamespace` are the cached Jobs of the pod's namespace. */
export function jobsToSyncForPod(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: KObject, old: KObject | undefined,
  jobsInNamespace: readonly KObject[]): string[] {
  const ns = pod.metadata.namespace ?? '';
  const keys = new Set<string>();
  const ref = controllerOf(pod);
  const oldRef = old ? controllerOf(old) : undefined;
  const refChanged = old !== undefined && (ref?.uid !== oldRef?.uid || ref?.name !== oldRef?.name);
  if (refChanged && isJobRef(oldRef)) keys.add(`${ns}/${oldRef!.name}`);
  if (ref) {
    if (isJobRef(ref)) keys.add(`${ns}/${ref.name}`);
    return [...keys];
  }
  if (type === 'DELETED' || pod.metadata.deletionTimestamp) return [...keys];
  const labelsChanged = old !== undefined && JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(pod.metadata.labels ?? {});
  if (type === 'ADDED' || old === undefined || labelsChanged || refChanged) {
    for (const job of jobsInNamespace) {
      const sel = fromLabelSelector((job as { spec?: { selector?: Parameters<typeof fromLabelSelector>[0] } }).spec?.selector);
      if (sel && !sel.empty() && sel.matches(pod.metadata.labels)) keys.add(`${ns}/${job.metadata.name}`);
    }
  }
  return [...keys];
}
