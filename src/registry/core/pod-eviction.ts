/**
 * POST pods/eviction (pkg/registry/core/pod/storage/eviction.go,
 * EvictionREST.Create): deletes the pod unless the PodDisruptionBudget that
 * selects it has no disruption left, which is answered 429 TooManyRequests
 * with a DisruptionBudget cause (kubectl drain waits and tries again).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Eviction, PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import type { Condition } from 'kubernetes-types/meta/v1.js';
import { errors, StatusError } from '../../apimachinery/errors.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { fromLabelSelector } from '../../selectors/labels.js';
import type { Store } from '../store.js';
import type { ResourceDef, Stored, SubresourceWrite } from '../types.js';
import type { WriteContext } from '../../apimachinery/write-context.js';
import { createdStatus } from './pod-binding.js';
import { poddisruptionbudgets } from '../groups/policy/poddisruptionbudgets.js';
import { admitNodeEviction } from '../../admission/node-restriction.js';
import { mutateSubresourceCreate, validateSubresourceCreate, type SubresourceCreate } from '../../admission/chain.js';

type StoredPod = Stored<Pod>;
type StoredBudget = Stored<PodDisruptionBudget>;

/** How often a budget's conditional update is tried again when another eviction took a disruption meanwhile. */
const MAX_BUDGET_CONFLICTS = 20;

/** DisruptedPods above this size mean the disruption controller is not keeping up (eviction.go's MaxDisruptedPodSize). */
const MAX_DISRUPTED_POD_SIZE = 2000;

/** createTooManyRequestsError: what kubectl drain reads as "will retry". */
function tooManyRequests(cause: string): StatusError {
  return new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'Cannot evict pod as it would violate the pod\'s disruption budget.',
    reason: 'TooManyRequests',
    details: { causes: [{ reason: 'DisruptionBudget', message: cause }] },
    code: 429,
  });
}

/** canIgnorePDB: terminal, pending and terminating pods are not counted by any budget. */
function canIgnoreBudget(pod: StoredPod): boolean {
  return ['Succeeded', 'Failed', 'Pending'].includes(pod.status?.phase ?? '') || !!pod.metadata.deletionTimestamp;
}

function isReady(pod: StoredPod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c?.type === 'Ready' && c.status === 'True');
}

/**
 * The budget check: an unready pod may go while the budget is met
 * (IfHealthyBudget) or always (AlwaysAllow); otherwise checkAndDecrement
 * takes a disruption from status.disruptionsAllowed and records the pod in
 * disruptedPods, in one conditional write, so that concurrent evictions
 * (kubectl drain) cannot overdraw the budget. Throws the 429 when none is left.
 */
async function takeDisruption(store: Store, pdbDef: ResourceDef, pdb: StoredBudget, pod: StoredPod, ctx: WriteContext): Promise<void> {
  if (!isReady(pod)) {
    if (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return;
    const st = pdb.status;
    if ((st?.currentHealthy ?? 0) >= (st?.desiredHealthy ?? 0) && (st?.desiredHealthy ?? 0) > 0) return;
  }
  for (let attempt = 0; ; attempt++) {
    const cur = attempt === 0 ? pdb : await store.read(pdbDef, pdb.metadata.namespace ?? '', pdb.metadata.name ?? '') as StoredBudget;
    const name = cur.metadata.name ?? '';
    const st: Partial<PodDisruptionBudgetStatus> = cur.status ?? {};
    if ((st.observedGeneration ?? 0) < (cur.metadata.generation ?? 0)) {
      throw tooManyRequests(`The disruption budget ${name} is still being processed by the server.`);
    }
    if ((st.disruptionsAllowed ?? 0) < 0) {
      throw errors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, 'pdb disruptions allowed is negative');
    }
    if (Object.keys(st.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
      throw errors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name,
        'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
    }
    if ((st.disruptionsAllowed ?? 0) === 0) {
      throw tooManyRequests(`The disruption budget ${name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`);
    }
    if (ctx.dryRun) return;
    try {
      await store.update(pdbDef, cur.metadata.namespace ?? '', name, (obj) => {
        const p = obj as StoredBudget;
        p.metadata.resourceVersion = cur.metadata.resourceVersion;
        const next: Partial<PodDisruptionBudgetStatus> = { ...(p.status ?? {}) };
        next.disruptionsAllowed = (next.disruptionsAllowed ?? 0) - 1;
        if (next.disruptionsAllowed === 0) {
          next.conditions = (next.conditions ?? []).map((c): Condition => (c?.type === 'DisruptionAllowed'
            ? { ...c, status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: next.observedGeneration,
              lastTransitionTime: c.status === 'False' ? c.lastTransitionTime : rfc3339(ctx.now) } : c));
        }
        next.disruptedPods = { ...(next.disruptedPods ?? {}), [pod.metadata.name ?? '']: rfc3339(ctx.now) };
        p.status = next as PodDisruptionBudgetStatus;
        return p;
      }, ctx, 'status');
      return;
    } catch (e) {
      // Someone else took a disruption meanwhile: decide again on the new status.
      if (e instanceof StatusError && e.status.code === 409 && attempt < MAX_BUDGET_CONFLICTS) continue;
      throw e;
    }
  }
}

/** EvictionREST.Create: the budget (at most one may select the pod), then the delete with the eviction's options. */
export const createEviction: SubresourceWrite = async (store, def, namespace, name, body, ctx) => {
  const eviction = body as Partial<Eviction>;
  const pod = await store.read(def, namespace, name) as StoredPod;
  admitNodeEviction(pod, ctx);
  // The admission of the eviction itself: a CREATE of pods/eviction, the Eviction as the object.
  const admission: SubresourceCreate = { def, subresource: 'eviction', namespace, name, object: body, ctx, lookup: store };
  await mutateSubresourceCreate(admission);
  await validateSubresourceCreate(admission);
  if (!canIgnoreBudget(pod)) {
    const pdbs = (await store.list(poddisruptionbudgets, namespace)).items.filter((o) => {
      const selector = o.spec?.selector;
      return fromLabelSelector(selector)?.matches(pod.metadata.labels) && selector;
    });
    if (pdbs.length > 1) {
      throw errors.internal('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    }
    const pdb = pdbs[0];
    if (pdb) await takeDisruption(store, poddisruptionbudgets, pdb, pod, ctx);
  }
  const opts = eviction.deleteOptions ?? {};
  await store.delete(def, namespace, name, {
    gracePeriodSeconds: opts.gracePeriodSeconds, propagationPolicy: opts.propagationPolicy as 'Orphan' | 'Background' | 'Foreground' | undefined,
    preconditions: opts.preconditions,
  }, ctx);
  return createdStatus();
};
