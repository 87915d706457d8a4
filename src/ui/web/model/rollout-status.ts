/**
 * A workload's rollout progress: the counts `kubectl rollout status` reads and the message it prints, from
 * kubectl's status viewers (staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go, v1.32), and
 * for Jobs, which have no status viewer, the STATUS and COMPLETIONS columns of `kubectl get jobs` (printJob).
 */
import type { DaemonSet, Deployment, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Job';

export interface RolloutProgress {
  kind: WorkloadKind;
  namespace: string;
  name: string;
  desired: number;
  updated: number;
  ready: number;
  available: number;
  /** kubectl's message without its trailing newline, or its error prefixed with "error: " as kubectl prints it. */
  message: string;
  done: boolean;
}

const base = (kind: WorkloadKind, o: { metadata?: { namespace?: string; name?: string } }) =>
  ({ kind, namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });

/** DeploymentStatusViewer.Status. */
export function deploymentRollout(d: Deployment): RolloutProgress {
  const s = d.status ?? {};
  const name = d.metadata?.name ?? '';
  const replicas = d.spec?.replicas;
  const counts = { desired: replicas ?? 1, updated: s.updatedReplicas ?? 0, ready: s.readyReplicas ?? 0, available: s.availableReplicas ?? 0 };
  const say = (message: string, done = false) => ({ ...base('Deployment', d), ...counts, message, done });
  if ((d.metadata?.generation ?? 0) > (s.observedGeneration ?? 0)) return say('Waiting for deployment spec update to be observed...');
  const progressing = s.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return say(`error: deployment "${name}" exceeded its progress deadline`);
  if (replicas !== undefined && counts.updated < replicas) {
    return say(`Waiting for deployment "${name}" rollout to finish: ${counts.updated} out of ${replicas} new replicas have been updated...`);
  }
  if ((s.replicas ?? 0) > counts.updated) {
    return say(`Waiting for deployment "${name}" rollout to finish: ${(s.replicas ?? 0) - counts.updated} old replicas are pending termination...`);
  }
  if (counts.available < counts.updated) {
    return say(`Waiting for deployment "${name}" rollout to finish: ${counts.available} of ${counts.updated} updated replicas are available...`);
  }
  return say(`deployment "${name}" successfully rolled out`, true);
}

/** DaemonSetStatusViewer.Status. */
export function daemonSetRollout(ds: DaemonSet): RolloutProgress {
  const s = ds.status ?? { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 };
  const name = ds.metadata?.name ?? '';
  const counts = { desired: s.desiredNumberScheduled, updated: s.updatedNumberScheduled ?? 0, ready: s.numberReady, available: s.numberAvailable ?? 0 };
  const say = (message: string, done = false) => ({ ...base('DaemonSet', ds), ...counts, message, done });
  if ((ds.spec?.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return say('error: rollout status is only available for RollingUpdate strategy type', true);
  if ((ds.metadata?.generation ?? 0) > (s.observedGeneration ?? 0)) return say('Waiting for daemon set spec update to be observed...');
  if (counts.updated < counts.desired) {
    return say(`Waiting for daemon set "${name}" rollout to finish: ${counts.updated} out of ${counts.desired} new pods have been updated...`);
  }
  if (counts.available < counts.desired) {
    return say(`Waiting for daemon set "${name}" rollout to finish: ${counts.available} of ${counts.desired} updated pods are available...`);
  }
  return say(`daemon set "${name}" successfully rolled out`, true);
}

/** StatefulSetStatusViewer.Status. */
export function statefulSetRollout(sts: StatefulSet): RolloutProgress {
  const s = sts.status ?? { replicas: 0 };
  const replicas = sts.spec?.replicas;
  const counts = { desired: replicas ?? 1, updated: s.updatedReplicas ?? 0, ready: s.readyReplicas ?? 0, available: s.availableReplicas ?? 0 };
  const say = (message: string, done = false) => ({ ...base('StatefulSet', sts), ...counts, message, done });
  const strategy = sts.spec?.updateStrategy;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return say('error: rollout status is only available for RollingUpdate strategy type', true);
  if (!s.observedGeneration || (sts.metadata?.generation ?? 0) > s.observedGeneration) return say('Waiting for statefulset spec update to be observed...');
  if (replicas !== undefined && counts.ready < replicas) return say(`Waiting for ${replicas - counts.ready} pods to be ready...`);
  if (strategy?.rollingUpdate) {
    const partition = strategy.rollingUpdate.partition;
    if (replicas !== undefined && partition !== undefined && counts.updated < replicas - partition) {
      return say(`Waiting for partitioned roll out to finish: ${counts.updated} out of ${replicas - partition} new pods have been updated...`);
    }
    return say(`partitioned roll out complete: ${counts.updated} new pods have been updated...`, true);
  }
  if (s.updateRevision !== s.currentRevision) {
    return say(`waiting for statefulset rolling update to complete ${counts.updated} pods at revision ${s.updateRevision ?? ''}...`);
  }
  return say(`statefulset rolling update complete ${s.currentReplicas ?? 0} pods at revision ${s.currentRevision ?? ''}...`, true);
}

function jobCondition(job: Job, type: string): boolean {
  return job.status?.conditions?.find((c) => c.type === type)?.status === 'True';
}

/** printJob's STATUS column. */
export function jobStatus(job: Job): string {
  if (jobCondition(job, 'Complete')) return 'Complete';
  if (jobCondition(job, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (jobCondition(job, 'Suspended')) return 'Suspended';
  if (jobCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** printJob's COMPLETIONS column. */
export function jobCompletions(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (typeof job.spec?.completions === 'number') return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

export function jobRollout(job: Job): RolloutProgress {
  const status = jobStatus(job);
  return {
    ...base('Job', job), desired: job.spec?.completions ?? 1, updated: job.status?.succeeded ?? 0,
    ready: job.status?.ready ?? 0, available: job.status?.active ?? 0,
    message: `${status}, ${jobCompletions(job)} completions`, done: status === 'Complete' || status === 'Failed',
  };
}
