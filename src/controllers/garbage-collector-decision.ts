/**
 * attemptToDeleteItem's decision (pkg/controller/garbagecollector, v1.32) as a pure function:
 * what the collector does with a dependent given the state of each of its owners.
 */

/**
 * An owner as classifyReferences sees it: `solid` exists and is not being deleted in the
 * foreground; `dangling` is gone (or was recreated under another uid); `waiting` exists with a
 * deletionTimestamp and the foregroundDeletion finalizer (waitingForDependentsDeletion).
 */
export type OwnerState = 'solid' | 'dangling' | 'waiting';

export type DependentAction =
  | { kind: 'keep' }
  /** Patch the dependent to drop its references to these owners (uids); its solid owner keeps it. */
  | { kind: 'removeOwnerReferences'; uids: string[] }
  | {
    kind: 'delete';
    propagationPolicy: 'Foreground' | 'Background' | 'Orphan';
    /**
     * First patch the dependent's blocking ownerReferences to blockOwnerDeletion: false: one of
     * its own dependents already waits on its dependents, which may be a circle back to the
     * owner, and the owner must not wait on this item then.
     */
    unblockOwnerReferences?: true;
  };

export function attemptToDeleteAction(
  owners: readonly { uid: string; state: OwnerState }[],
  hasDependents: boolean,
  finalizers: readonly string[],
  aDependentIsDeletingDependents = false,
): DependentAction {
  // An object without owners is never collected.
  if (owners.length === 0) return { kind: 'keep' };
  const solid = owners.filter((o) => o.state === 'solid');
  const notSolid = owners.filter((o) => o.state !== 'solid');
  if (solid.length > 0) {
    if (notSolid.length === 0) return { kind: 'keep' };
    return { kind: 'removeOwnerReferences', uids: notSolid.map((o) => o.uid) };
  }
  // No solid owner: an owner waits on this item, which itself has dependents, so it goes in the
  // foreground too, blocking its owner until its own dependents are gone.
  if (owners.some((o) => o.state === 'waiting') && hasDependents) {
    // Upstream's circle detection (it has false positives, which only cost the owner its wait).
    if (aDependentIsDeletingDependents) return { kind: 'delete', propagationPolicy: 'Foreground', unblockOwnerReferences: true };
    return { kind: 'delete', propagationPolicy: 'Foreground' };
  }
  if (finalizers.includes('orphan')) return { kind: 'delete', propagationPolicy: 'Orphan' };
  if (finalizers.includes('foregroundDeletion')) return { kind: 'delete', propagationPolicy: 'Foreground' };
  return { kind: 'delete', propagationPolicy: 'Background' };
}
