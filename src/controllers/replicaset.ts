/**
 * The ReplicaSet controller of kube-controller-manager
 * (pkg/controller/replicaset/replica_set.go, v1.32), which also runs
 * ReplicationControllers (pkg/controller/replication wraps the same code):
 * claims pods by selector and controllerRef (adopting orphans, releasing
 * pods that no longer match), creates missing pods in slow-start batches
 * and deletes surplus ones in upstream's ranking, waits through
 * expectations for its own writes to come back, and writes status
 * (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
 * observedGeneration, the ReplicaFailure condition).
 */
import { plain } from '../client/plain.js';
import type { KObject } from '../apimachinery/object.js';
import { fromLabelSelector, type LabelSelector } from '../selectors/labels.js';
import { StatusError, asError } from '../apimachinery/errors.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import { pods, replicasets, replicationcontrollers } from '../client/resources.js';
import type { SharedInformer } from '../client/shared-informer.js';
import type { ResourceClient } from '../client/types.js';
import type { RateLimitingQueue } from '../client/work-queue.js';
import { PodControl } from './pod-control.js';
import { ControllerExpectations, SLOW_START_INITIAL_BATCH, claimObjects, filterActivePods, isNotFound, isPodActive, isPodAvailable, isPodReady, podsToDelete, slowStartBatch } from './controller-utils.js';
import { controllerOf } from '../apimachinery/object.js';
import { keyOf, splitKey } from '../client/keys.js';

/** --concurrent-... burstReplicas: at most this many creations or deletions per sync. */
const BURST_REPLICAS = 500;

export type ReplicaKind = 'ReplicaSet' | 'ReplicationController';

/** The selector of a ReplicaSet (metav1.LabelSelector) or ReplicationController (a map). */
export function replicaSelector(kind: ReplicaKind, obj: KObject): LabelSelector | undefined {
  const sel = (obj.spec as any)?.selector;
  if (kind === 'ReplicationController') return fromLabelSelector({ matchLabels: sel ?? {} });
  return fromLabelSelector(sel ?? undefined) ?? undefined;
}

/** NewReplicaSetCondition: type, status, lastTransitionTime, reason, message. */
function condition(type: string, status: string, reason: string, message: string): Record<string, string> {
  return { type, status, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), reason, message };
}

function errorMessage(e: unknown): string {
  return e instanceof StatusError ? e.status.message ?? String(e) : (e as Error)?.message ?? String(e);
}

/** Namespace terminating: creations fail, and the controller does nothing about it (NamespaceTerminatingCause). */
function namespaceTerminating(e: unknown): boolean {
  return e instanceof StatusError && !!(e.status.details as any)?.causes?.some((c: any) => c?.reason === 'NamespaceTerminating');
}

/** The status calculateStatus produces, in the field order of ReplicaSetStatus (zero values omitted). */
export function calculateStatus(rs: KObject, pods: KObject[], manageError: unknown, now = Date.now()): Record<string, any> {
  const spec = (rs.spec ?? {}) as any;
  const old = (rs.status ?? {}) as any;
  const templateLabels: Record<string, string> = spec.template?.metadata?.labels ?? {};
  let fully = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    const labels = pod.metadata.labels ?? {};
    if (Object.entries(templateLabels).every(([k, v]) => labels[k] === v)) fully++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, spec.minReadySeconds ?? 0, now)) available++;
    }
  }
  let conditions: any[] = Array.isArray(old.conditions) ? [...old.conditions] : [];
  const failure = conditions.find((c) => c?.type === 'ReplicaFailure');
  if (manageError && !failure) {
    const diff = pods.length - (spec.replicas ?? 1);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    conditions = [...conditions.filter((c) => c?.type !== 'ReplicaFailure'), condition('ReplicaFailure', 'True', reason, errorMessage(manageError))];
  } else if (!manageError && failure) {
    conditions = conditions.filter((c) => c?.type !== 'ReplicaFailure');
  }
  const status: Record<string, any> = { replicas: pods.length };
  if (fully) status.fullyLabeledReplicas = fully;
  if (ready) status.readyReplicas = ready;
  if (available) status.availableReplicas = available;
  if (old.observedGeneration) status.observedGeneration = old.observedGeneration;
  if (conditions.length) status.conditions = conditions;
  return status;
}

export class ReplicaSetController {
  private readonly setClient: ResourceClient<KObject>;
  private readonly podClient: ResourceClient<KObject>;
  private readonly sets: SharedInformer;
  private readonly pods: SharedInformer;
  private readonly queue: RateLimitingQueue;
  private readonly podControl: PodControl;
  private readonly component: string;
  readonly expectations = new ControllerExpectations();

  constructor(private readonly ctx: ControllerContext, private readonly kind: ReplicaKind = 'ReplicaSet') {
    const setRef = kind === 'ReplicaSet' ? plain(replicasets) : plain(replicationcontrollers);
    // The component name is also upstream's service account for the controller.
    this.component = kind === 'ReplicaSet' ? 'replicaset-controller' : 'replication-controller';
    const client = ctx.client;
    this.setClient = client.resource(setRef);
    this.podClient = client.resource(plain(pods));
    this.sets = ctx.informers.forResource(setRef);
    this.pods = ctx.informers.forResource(pods);
    this.podControl = new PodControl(this.podClient, ctx.events, this.component);
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    this.sets.onEvent((type, rs) => {
      if (type === 'DELETED') this.expectations.delete(keyOf(rs));
      this.queue.add(keyOf(rs));
    });
    this.pods.onEvent((type, pod, old) => this.podEvent(type, pod, old));
    await this.sets.start();
    await this.pods.start();
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(5, (key) => this.sync(key), (key, e) => this.ctx.log(`${this.component}: ${key}: ${errorMessage(e)}`));
  }

  /** Enqueues the key now and again later (queue.AddAfter). */
  private enqueueAfter(key: string, ms: number): void {
    this.queue.addAfter(key, ms);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** resolveControllerRef: the cached set named by a controllerRef of our kind, if it has that UID. */
  private resolve(namespace: string, ref: { kind: string; name: string; uid: string } | undefined): KObject | undefined {
    if (!ref || ref.kind !== this.kind) return undefined;
    const rs = this.sets.cache.get(namespace, ref.name);
    return rs?.metadata.uid === ref.uid ? rs : undefined;
  }

  /** getPodReplicaSets: the sets of the pod's namespace whose selector matches an orphan pod. */
  private matchingSets(pod: KObject): KObject[] {
    return this.sets.cache.list(pod.metadata.namespace ?? '').filter((rs) => {
      const sel = replicaSelector(this.kind, rs);
      return sel && !sel.empty() && sel.matches(pod.metadata.labels);
    });
  }

  private podEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: KObject, old?: KObject): void {
    const ns = pod.metadata.namespace ?? '';
    const podKey = keyOf(pod);
    if (type === 'DELETED' || pod.metadata.deletionTimestamp) {
      // deletePod: a deletion we waited for.
      const rs = this.resolve(ns, controllerOf(pod));
      if (rs) {
        this.expectations.deletionObserved(keyOf(rs), podKey);
        this.queue.add(keyOf(rs));
      }
      return;
    }
    const ref = controllerOf(pod);
    if (type === 'ADDED' || !old) {
      const rs = this.resolve(ns, ref);
      if (rs) {
        this.expectations.creationObserved(keyOf(rs));
        this.queue.add(keyOf(rs));
      } else if (!ref) {
        for (const m of this.matchingSets(pod)) this.queue.add(keyOf(m));
      }
      return;
    }
    if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
    const labelsChanged = JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(pod.metadata.labels ?? {});
    const oldRef = controllerOf(old);
    const refChanged = oldRef?.uid !== ref?.uid;
    if (refChanged && oldRef) {
      const o = this.resolve(ns, oldRef);
      if (o) this.queue.add(keyOf(o));
    }
    if (ref) {
      const rs = this.resolve(ns, ref);
      if (!rs) return;
      this.queue.add(keyOf(rs));
      // A pod that just became ready counts as available only after minReadySeconds.
      const minReady = (rs.spec as any)?.minReadySeconds ?? 0;
      if (minReady > 0 && !isPodReady(old) && isPodReady(pod)) this.enqueueAfter(keyOf(rs), minReady * 1000 + 1000);
      return;
    }
    if (labelsChanged || refChanged) for (const m of this.matchingSets(pod)) this.queue.add(keyOf(m));
  }

  /** syncReplicaSet. */
  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const rs = this.sets.cache.get(namespace, name);
    if (!rs) {
      this.expectations.delete(key);
      return;
    }
    const needsSync = this.expectations.satisfied(key);
    const selector = replicaSelector(this.kind, rs);
    if (!selector) return;
    // Our pods (those that no longer match are released) and the orphans (those that match are adopted).
    const all = filterActivePods(this.pods.cache.claimable(namespace, rs.metadata.uid!));
    const { claimed, errors } = await claimObjects({ objects: this.podClient, owners: this.setClient }, this.withType(rs), selector, all);
    if (errors.length) throw errors[0];
    let manageError: Error | undefined;
    if (needsSync && !rs.metadata.deletionTimestamp) {
      try {
        await this.manageReplicas(claimed, rs);
      } catch (e) {
        manageError = asError(e);
      }
    }
    const status = calculateStatus(rs, claimed, manageError);
    const updated = await this.updateStatus(rs, status);
    const spec = (updated.spec ?? {}) as any;
    const st = (updated.status ?? {}) as any;
    // A last resync after minReadySeconds, against clock skew.
    if (!manageError && spec.minReadySeconds > 0 && (st.readyReplicas ?? 0) === spec.replicas && (st.availableReplicas ?? 0) !== spec.replicas) {
      this.enqueueAfter(key, spec.minReadySeconds * 1000);
    }
    if (manageError) throw manageError;
  }

  /** The set with its apiVersion and kind (ownerReferences and events name them). */
  private withType(rs: KObject): KObject {
    const { ref } = this.setClient;
    return { ...rs, apiVersion: ref.group ? `${ref.group}/${ref.version}` : ref.version, kind: this.kind };
  }

  /** manageReplicas: create or delete pods to reach spec.replicas. */
  private async manageReplicas(pods: KObject[], rs: KObject): Promise<void> {
    const key = keyOf(rs);
    const want = (rs.spec as any)?.replicas ?? 1;
    let diff = pods.length - want;
    const owner = this.withType(rs);
    if (diff < 0) {
      diff = Math.min(-diff, BURST_REPLICAS);
      this.expectations.expectCreations(key, diff);
      const { successes, error } = await slowStartBatch(diff, SLOW_START_INITIAL_BATCH, async () => {
        try {
          await this.podControl.create({ template: (rs.spec as any)?.template ?? {}, owner });
        } catch (e) {
          if (namespaceTerminating(e)) return;
          throw e;
        }
      });
      // Pods never attempted (or that failed) will not be observed.
      for (let i = 0; i < diff - successes; i++) this.expectations.creationObserved(key);
      if (error) throw asError(error);
      return;
    }
    if (diff > 0) {
      diff = Math.min(diff, BURST_REPLICAS);
      const victims = podsToDelete(pods, this.relatedPods(rs), diff);
      this.expectations.expectDeletions(key, victims.map(keyOf));
      const results = await Promise.allSettled(victims.map(async (pod) => {
        try {
          await this.podControl.delete(owner, pod);
        } catch (e) {
          this.expectations.deletionObserved(key, keyOf(pod));
          if (!isNotFound(e)) throw e;
        }
      }));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  /**
   * getIndirectlyRelatedPods: the active pods of every set that shares this
   * set's controller (the other ReplicaSets of its Deployment), used to
   * prefer deleting pods doubled up on a node.
   */
  private relatedPods(rs: KObject): KObject[] {
    const owner = controllerOf(rs);
    const sets = owner
      ? this.sets.cache.list(rs.metadata.namespace ?? '').filter((s) => controllerOf(s)?.uid === owner.uid)
      : [rs];
    const seen = new Set<string>();
    const out: KObject[] = [];
    for (const s of sets) {
      for (const p of this.pods.cache.controlledBy(s.metadata.uid!)) {
        if (seen.has(p.metadata.uid!)) continue;
        seen.add(p.metadata.uid!);
        out.push(p);
      }
    }
    return out.filter(isPodActive);
  }

  /** updateReplicaSetStatus: writes the status unless nothing changed; observedGeneration is the generation acted on. */
  private async updateStatus(rs: KObject, status: Record<string, any>): Promise<KObject> {
    const old = (rs.status ?? {}) as any;
    const generation = rs.metadata.generation ?? 0;
    const same = (f: string) => (old[f] ?? 0) === (status[f] ?? 0);
    if (same('replicas') && same('fullyLabeledReplicas') && same('readyReplicas') && same('availableReplicas') &&
      generation === (old.observedGeneration ?? 0) && JSON.stringify(old.conditions ?? []) === JSON.stringify(status.conditions ?? [])) {
      return rs;
    }
    const next: Record<string, any> = { replicas: status.replicas };
    for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) if (status[f]) next[f] = status[f];
    if (generation) next.observedGeneration = generation;
    if (status.conditions) next.conditions = status.conditions;
    const ns = rs.metadata.namespace ?? '';
    try {
      const updated = await this.setClient.updateStatus(ns, rs.metadata.name!, (cur) => {
        if (cur.metadata.uid !== rs.metadata.uid) throw new Error('replaced');
        cur.status = next;
        return cur;
      }, { sharedResult: true });
      // Like the informer's objects, the set written is only read from here on.
      this.sets.cache.upsert(updated);
      return updated;
    } catch (e) {
      if (isNotFound(e) || (e as Error).message === 'replaced') return rs;
      throw e;
    }
  }
}
