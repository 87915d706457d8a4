/**
 * The Deployment status as the controller computes it (sync.go
 * calculateStatus, progress.go syncRolloutStatus), as pure functions of the
 * Deployment and its ReplicaSets.
 */
import type { KObject } from '../../apimachinery/object.js';
import {
  Reasons, actualReplicaCount, availableReplicaCount, deploymentComplete, deploymentProgressing, deploymentTimedOut,
  getCondition, hasProgressDeadline, maxUnavailable, newCondition, readyReplicaCount, removeCondition, replicaCount,
  replicasOf, setCondition, type Condition, type DeploymentStatus,
} from './util.js';

/** calculateStatus: the counters, and the Available condition from maxUnavailable. */
export function calculateStatus(all: (KObject | undefined)[], newRS: KObject | undefined, d: KObject): DeploymentStatus {
  const old = (d.status ?? {}) as DeploymentStatus;
  const available = availableReplicaCount(all);
  const total = replicaCount(all);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: actualReplicaCount(all),
    updatedReplicas: actualReplicaCount([newRS]),
    readyReplicas: readyReplicaCount(all),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  };
  if (old.conditions?.length) status.conditions = old.conditions.map((c) => ({ ...c }));
  if (old.collisionCount !== undefined) status.collisionCount = old.collisionCount;
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', Reasons.MinimumReplicasAvailable, 'Deployment has minimum availability.'));
  } else {
    setCondition(status, newCondition('Available', 'False', Reasons.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.'));
  }
  return status;
}

/** ReplicaSetToDeploymentCondition: a ReplicaSet's ReplicaFailure as the Deployment's. */
function replicaFailures(all: (KObject | undefined)[], newRS: KObject | undefined): Condition | undefined {
  const order = newRS ? [newRS, ...all.filter((rs) => rs && rs.metadata.uid !== newRS.metadata.uid)] : all;
  for (const rs of order) {
    const c = ((rs?.status as any)?.conditions ?? []).find((x: any) => x?.type === 'ReplicaFailure');
    if (c) {
      return { type: c.type, status: c.status, lastUpdateTime: c.lastTransitionTime, lastTransitionTime: c.lastTransitionTime, reason: c.reason, message: c.message };
    }
  }
  return undefined;
}

/** syncRolloutStatus's new status: Progressing as the rollout completes, progresses or times out; ReplicaFailure. */
export function rolloutStatus(all: (KObject | undefined)[], newRS: KObject | undefined, d: KObject, now = Date.now()): DeploymentStatus {
  const status = calculateStatus(all, newRS, d);
  if (!hasProgressDeadline(d)) removeCondition(status, 'Progressing');
  const current = getCondition((d.status ?? {}) as DeploymentStatus, 'Progressing');
  const complete = status.replicas === status.updatedReplicas && current?.reason === Reasons.NewRSAvailable;
  if (hasProgressDeadline(d) && !complete) {
    const name = newRS?.metadata.name;
    if (deploymentComplete(d, status)) {
      const msg = name ? `ReplicaSet "${name}" has successfully progressed.` : `Deployment "${d.metadata.name}" has successfully progressed.`;
      setCondition(status, newCondition('Progressing', 'True', Reasons.NewRSAvailable, msg));
    } else if (deploymentProgressing(d, status)) {
      const msg = name ? `ReplicaSet "${name}" is progressing.` : `Deployment "${d.metadata.name}" is progressing.`;
      const c = newCondition('Progressing', 'True', Reasons.ReplicaSetUpdated, msg);
      // Progress moves lastUpdateTime even with the same reason (so the deadline restarts).
      if (current) {
        if (current.status === 'True') c.lastTransitionTime = current.lastTransitionTime;
        removeCondition(status, 'Progressing');
      }
      setCondition(status, c);
    } else if (deploymentTimedOut(d, status, now)) {
      const msg = name ? `ReplicaSet "${name}" has timed out progressing.` : `Deployment "${d.metadata.name}" has timed out progressing.`;
      setCondition(status, newCondition('Progressing', 'False', Reasons.TimedOut, msg));
    }
  }
  const failure = replicaFailures(all, newRS);
  if (failure) setCondition(status, failure);
  else removeCondition(status, 'ReplicaFailure');
  return status;
}

/** The status as the API serves it: DeploymentStatus fields in order, zero values omitted. */
export function serializeStatus(s: DeploymentStatus): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'] as const) {
    if (s[k]) out[k] = s[k];
  }
  if (s.conditions?.length) {
    out.conditions = s.conditions.map((c) => {
      const o: Record<string, string> = { type: c.type, status: c.status };
      if (c.lastUpdateTime) o.lastUpdateTime = c.lastUpdateTime;
      if (c.lastTransitionTime) o.lastTransitionTime = c.lastTransitionTime;
      if (c.reason) o.reason = c.reason;
      if (c.message) o.message = c.message;
      return o;
    });
  }
  // collisionCount is a pointer: 0 is kept once set.
  if (s.collisionCount !== undefined && s.collisionCount !== null) out.collisionCount = s.collisionCount;
  return out;
}
