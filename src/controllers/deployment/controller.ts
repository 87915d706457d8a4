/**
 * The Deployment controller of kube-controller-manager
 * (pkg/controller/deployment, v1.32): claims ReplicaSets by selector and
 * controllerRef, creates the new ReplicaSet `<deployment>-<pod-template-hash>`
 * with the revision annotations, rolls out (RollingUpdate with maxSurge and
 * maxUnavailable, or Recreate), scales proportionally on a scaling event,
 * honours pause, cleans up history past revisionHistoryLimit and keeps the
 * status (counters, Available and Progressing conditions, progress
 * deadline) as upstream does, with its ScalingReplicaSet events.
 */
import { plain } from '../../client/plain.js';
import { isDeepStrictEqual } from 'node:util';
import { StatusError, isAlreadyExists } from '../../apimachinery/errors.js';
import { referenceTo, type EventRecorder } from '../../events/recorder.js';
import type { KObject } from '../../apimachinery/object.js';
import { fromLabelSelector } from '../../selectors/labels.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import { deployments, pods, replicasets } from '../../client/resources.js';
import type { SharedInformer } from '../../client/shared-informer.js';
import type { ResourceClient } from '../../client/types.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import { controllerRef } from '../pod-control.js';
import { claimObjects, computeHash, isConflict, isNotFound } from '../controller-utils.js';
import { controllerOf } from '../../apimachinery/object.js';
import { keyOf, splitKey } from '../../client/keys.js';
import {
  POD_TEMPLATE_HASH, Reasons, activeReplicaSets, availableReplicaCount, actualReplicaCount, byCreation, byRevision,
  bySizeNewer, bySizeOlder, deploymentComplete, desiredReplicasAnnotation, equalIgnoreHash, findActiveOrLatest,
  findNewReplicaSet, getCondition, hasProgressDeadline, isSaturated, maxRevision, maxSurge, maxUnavailable, newCondition,
  newRSNewReplicas, replicaCount, replicaSetProportion, replicasAnnotationsNeedUpdate, replicasOf, setCondition,
  setDeploymentRevision, setNewReplicaSetAnnotations, setReplicasAnnotations, type DeploymentStatus,
} from './util.js';
import { calculateStatus, rolloutStatus, serializeStatus } from './status.js';

const COMPONENT = 'deployment-controller';

function errorText(e: unknown): string {
  return e instanceof StatusError ? e.status.message ?? String(e) : (e as Error)?.message ?? String(e);
}

function namespaceTerminating(e: unknown): boolean {
  return e instanceof StatusError && !!(e.status.details as any)?.causes?.some((c: any) => c?.reason === 'NamespaceTerminating');
}

const specOf = (o: KObject) => (o.spec ?? {}) as any;

/**
 * A copy of a Deployment or ReplicaSet status the controller may change: its
 * fields are counters and the conditions list, whose entries are flat, so
 * the list and each condition are copied (without a JSON round trip).
 */
function copyStatus(s: Record<string, unknown>): Record<string, unknown> {
  const c: Record<string, unknown> = { ...s };
  for (const k in c) {
    const v = c[k];
    if (Array.isArray(v)) c[k] = v.map((x) => (x && typeof x === 'object' ? { ...x } : x));
  }
  return c;
}

/**
 * A copy of a cached object to change and write: the maps the controller
 * edits (annotations, the top of spec, status) are copied, the rest shared
 * (a deep copy per sync would cost more than the sync).
 */
function writableCopy(o: KObject): KObject {
  const copy: KObject = { ...o, metadata: { ...o.metadata } };
  if (o.metadata.annotations) copy.metadata.annotations = { ...o.metadata.annotations };
  if (o.spec) copy.spec = { ...(o.spec as object) };
  if (o.status) copy.status = copyStatus(o.status as Record<string, unknown>);
  return copy;
}

export class DeploymentController {
  private readonly dClient: ResourceClient<KObject>;
  private readonly rsClient: ResourceClient<KObject>;
  private readonly deployments: SharedInformer;
  private readonly sets: SharedInformer;
  private readonly pods: SharedInformer;
  private readonly queue: RateLimitingQueue;

  private readonly events: EventRecorder;
  private readonly log: (m: string) => void;

  constructor(private readonly ctx: ControllerContext) {
    const client = ctx.client;
    this.events = ctx.events;
    this.log = ctx.log;
    this.dClient = client.resource(plain(deployments));
    this.rsClient = client.resource(plain(replicasets));
    this.deployments = ctx.informers.forResource(deployments);
    this.sets = ctx.informers.forResource(replicasets);
    this.pods = ctx.informers.forResource(pods);
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    this.deployments.onEvent((type, d) => {
      this.queue.add(keyOf(d));
    });
    this.sets.onEvent((type, rs, old) => this.replicaSetEvent(type, rs, old));
    this.pods.onEvent((type, pod) => { if (type === 'DELETED') this.podDeleted(pod); });
    await this.deployments.start();
    await this.sets.start();
    await this.pods.start();
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(5, (key) => this.syncKey(key), (key, e) => {
      if (!isConflict(e)) this.ctx.log(`${COMPONENT}: ${key}: ${errorText(e)}`);
    });
  }

  stop(): void {
    this.queue.shutDown();
  }

  private enqueueAfter(key: string, ms: number): void {
    this.queue.addAfter(key, ms);
  }

  private resolve(namespace: string, ref: { kind: string; name: string; uid: string } | undefined): KObject | undefined {
    if (!ref || ref.kind !== 'Deployment') return undefined;
    const d = this.deployments.cache.get(namespace, ref.name);
    return d?.metadata.uid === ref.uid ? d : undefined;
  }

  /** getDeploymentsForReplicaSet: the Deployments whose selector matches an orphan ReplicaSet. */
  private matchingDeployments(rs: KObject): KObject[] {
    return this.deployments.cache.list(rs.metadata.namespace ?? '').filter((d) => {
      const sel = fromLabelSelector(specOf(d).selector);
      return sel && !sel.empty() && sel.matches(rs.metadata.labels);
    });
  }

  private replicaSetEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', rs: KObject, old?: KObject): void {
    const ns = rs.metadata.namespace ?? '';
    const ref = controllerOf(rs);
    const owner = this.resolve(ns, ref);
    if (type === 'DELETED') {
      if (owner) this.queue.add(keyOf(owner));
      return;
    }
    if (old && controllerOf(old)?.uid !== ref?.uid) {
      const o = this.resolve(ns, controllerOf(old));
      if (o) this.queue.add(keyOf(o));
    }
    if (owner) { this.queue.add(keyOf(owner)); return; }
    if (ref) return;
    const labelsChanged = !old || !isDeepStrictEqual(old.metadata.labels ?? {}, rs.metadata.labels ?? {});
    if (labelsChanged || (old && controllerOf(old))) for (const d of this.matchingDeployments(rs)) this.queue.add(keyOf(d));
  }

  /** deletePod: a Recreate rollout waits for every old pod to be gone. */
  private podDeleted(pod: KObject): void {
    const ns = pod.metadata.namespace ?? '';
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'ReplicaSet') return;
    const rs = this.sets.cache.get(ns, ref.name);
    if (!rs || rs.metadata.uid !== ref.uid) return;
    const d = this.resolve(ns, controllerOf(rs));
    if (d && specOf(d).strategy?.type === 'Recreate') this.queue.add(keyOf(d));
  }

  private async syncKey(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const cached = this.deployments.cache.get(namespace, name);
    if (!cached) return;
    const d = writableCopy(cached);
    d.apiVersion = 'apps/v1';
    d.kind = 'Deployment';
    await this.syncDeployment(d);
  }

  /** syncDeployment. */
  async syncDeployment(d: KObject): Promise<void> {
    const ns = d.metadata.namespace ?? '';
    const sel = specOf(d).selector;
    if (sel && !Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length) {
      void this.events.record(referenceTo(d), 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.', COMPONENT);
      const st = (d.status ?? {}) as DeploymentStatus;
      if ((st.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
        await this.writeStatus(d, { ...st, observedGeneration: d.metadata.generation });
      }
      return;
    }
    const selector = fromLabelSelector(sel);
    if (!selector) throw new Error(`deployment ${ns}/${d.metadata.name} has invalid label selector`);
    const owned = this.sets.cache.claimable(ns, d.metadata.uid!);
    const { claimed, errors } = await claimObjects({ objects: this.rsClient, owners: this.dClient }, d, selector, owned);
    if (errors.length) throw errors[0];
    const rsList = claimed.map((rs) => ({ ...rs, apiVersion: 'apps/v1', kind: 'ReplicaSet' }) as KObject);

    if (d.metadata.deletionTimestamp) return this.syncStatusOnly(d, rsList);
    await this.checkPausedConditions(d);
    if (specOf(d).paused) return this.sync(d, rsList);
    if (await this.isScalingEvent(d, rsList)) return this.sync(d, rsList);
    if (specOf(d).strategy?.type === 'Recreate') return this.rolloutRecreate(d, rsList);
    return this.rolloutRolling(d, rsList);
  }

  // ------------------------------------------------------------ writes

  /** UpdateStatus: status and annotations (deploymentStatusStrategy keeps only spec and labels). */
  private async writeStatus(d: KObject, status: DeploymentStatus): Promise<void> {
    const ns = d.metadata.namespace ?? '';
    const updated = await this.dClient.updateStatus(ns, d.metadata.name!, (cur) => {
      cur.metadata.resourceVersion = d.metadata.resourceVersion;
      if (d.metadata.annotations) cur.metadata.annotations = { ...d.metadata.annotations };
      cur.status = serializeStatus(status);
      return cur;
    }, { sharedResult: true });
    // The object written is shared with the watchers (and the cache below): the sync goes on with a copy of its status.
    d.status = updated.status && copyStatus(updated.status as Record<string, unknown>);
    d.metadata.resourceVersion = updated.metadata.resourceVersion;
    this.deployments.cache.upsert(updated);
  }

  /** Update of a ReplicaSet read from the cache (its resourceVersion a precondition). */
  private async updateReplicaSet(rs: KObject): Promise<KObject> {
    const ns = rs.metadata.namespace ?? '';
    const updated = await this.rsClient.update(ns, rs.metadata.name!, () => JSON.parse(JSON.stringify(rs)));
    const typed = { ...updated, apiVersion: 'apps/v1', kind: 'ReplicaSet' } as KObject;
    this.sets.cache.upsert(updated);
    return typed;
  }

  /** scaleReplicaSet: replicas and the replica annotations; a ScalingReplicaSet event when the size changed. */
  private async scaleReplicaSet(rs: KObject, newScale: number, d: KObject): Promise<{ scaled: boolean; rs: KObject }> {
    const sizeChanges = replicasOf(rs) !== newScale;
    const desired = replicasOf(d);
    const max = desired + maxSurge(d);
    if (!sizeChanges && !replicasAnnotationsNeedUpdate(rs, desired, max)) return { scaled: false, rs };
    const oldScale = replicasOf(rs);
    const copy = writableCopy(rs);
    (copy.spec as any).replicas = newScale;
    setReplicasAnnotations(copy, desired, max);
    const updated = await this.updateReplicaSet(copy);
    if (sizeChanges) {
      const op = oldScale < newScale ? 'up' : 'down';
      void this.events.record(referenceTo(d), 'Normal', 'ScalingReplicaSet', `Scaled ${op} replica set ${rs.metadata.name} from ${oldScale} to ${newScale}`, COMPONENT);
    }
    return { scaled: sizeChanges, rs: updated };
  }

  /** scaleReplicaSetAndRecordEvent: nothing when the size is already right. */
  private async scaleAndRecord(rs: KObject, newScale: number, d: KObject): Promise<{ scaled: boolean; rs: KObject }> {
    if (replicasOf(rs) === newScale) return { scaled: false, rs };
    return this.scaleReplicaSet(rs, newScale, d);
  }

  // ------------------------------------------------------------ new and old ReplicaSets

  /** getAllReplicaSetsAndSyncRevision. */
  private async allReplicaSets(d: KObject, listed: KObject[], create: boolean): Promise<{ newRS?: KObject; oldRSs: KObject[] }> {
    // What this sync already wrote is in the cache: act on that, not on the listed versions.
    const rsList = listed.map((rs) => {
      const c = this.sets.cache.get(rs.metadata.namespace ?? '', rs.metadata.name!);
      return c && c.metadata.uid === rs.metadata.uid ? ({ ...c, apiVersion: 'apps/v1', kind: 'ReplicaSet' } as KObject) : rs;
    });
    const found = findNewReplicaSet(d, rsList);
    const oldRSs = rsList.filter((rs) => rs.metadata.uid !== found?.metadata.uid);
    const newRS = await this.getNewReplicaSet(d, rsList, oldRSs, create);
    return { newRS, oldRSs };
  }

  /** getNewReplicaSet: syncs the existing new ReplicaSet's annotations, or creates it. */
  private async getNewReplicaSet(d: KObject, rsList: KObject[], oldRSs: KObject[], create: boolean): Promise<KObject | undefined> {
    const ns = d.metadata.namespace ?? '';
    const existing = findNewReplicaSet(d, rsList);
    const newRevision = maxRevision(oldRSs) + 1n;
    const status = (d.status ??= {}) as DeploymentStatus;
    if (existing) {
      const copy = writableCopy(existing);
      const annotationsUpdated = setNewReplicaSetAnnotations(d, copy, newRevision, true);
      const minReady = specOf(d).minReadySeconds ?? 0;
      if (annotationsUpdated || (specOf(copy).minReadySeconds ?? 0) !== minReady) {
        if (minReady) (copy.spec as any).minReadySeconds = minReady; else delete (copy.spec as any).minReadySeconds;
        return this.updateReplicaSet(copy);
      }
      let needsUpdate = setDeploymentRevision(d, copy.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '');
      if (hasProgressDeadline(d) && !getCondition(status, 'Progressing')) {
        setCondition(status, newCondition('Progressing', 'True', Reasons.FoundNewRS, `Found new replica set "${copy.metadata.name}"`));
        needsUpdate = true;
      }
      if (needsUpdate) await this.writeStatus(d, status);
      return copy;
    }
    if (!create) return undefined;

    const template = structuredClone(specOf(d).template ?? {});
    const hash = computeHash(template, status.collisionCount);
    template.metadata ??= {};
    template.metadata.labels = { ...(template.metadata.labels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const selector = structuredClone(specOf(d).selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const rsSpec: Record<string, unknown> = { replicas: 0 };
    if (specOf(d).minReadySeconds) rsSpec.minReadySeconds = specOf(d).minReadySeconds;
    rsSpec.selector = selector;
    rsSpec.template = template;
    const newRS: KObject = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`, namespace: ns,
        labels: { ...template.metadata.labels },
        ownerReferences: [controllerRef(d) as any],
      },
      spec: rsSpec,
    };
    const replicas = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
    (newRS.spec as any).replicas = replicas;
    setNewReplicaSetAnnotations(d, newRS, newRevision, false);
    let created: KObject;
    let alreadyExists = false;
    try {
      // The set created is only read (cached, and copied below to add its type).
      created = await this.rsClient.create(ns, newRS, { sharedResult: true });
      this.sets.cache.upsert(created);
    } catch (e) {
      if (isAlreadyExists(e)) {
        alreadyExists = true;
        // The cache may not have it yet: read it.
        const rs = this.sets.cache.get(ns, newRS.metadata.name!) ?? await this.rsClient.find(ns, newRS.metadata.name!);
        if (!rs) throw e;
        if (controllerOf(rs)?.uid === d.metadata.uid && equalIgnoreHash(specOf(d).template, specOf(rs).template)) {
          created = rs;
        } else {
          // A hash collision: bump collisionCount and try again with another name.
          status.collisionCount = (status.collisionCount ?? 0) + 1;
          await this.writeStatus(d, status);
          throw e;
        }
      } else if (namespaceTerminating(e)) {
        throw e;
      } else {
        const msg = `Failed to create new replica set "${newRS.metadata.name}": ${errorText(e)}`;
        if (hasProgressDeadline(d)) {
          setCondition(status, newCondition('Progressing', 'False', Reasons.FailedRSCreate, msg));
          await this.writeStatus(d, status).catch(() => {});
        }
        void this.events.record(referenceTo(d), 'Warning', Reasons.FailedRSCreate, msg, COMPONENT);
        throw e;
      }
    }
    created = { ...created, apiVersion: 'apps/v1', kind: 'ReplicaSet' } as KObject;
    if (!alreadyExists && replicas > 0) {
      void this.events.record(referenceTo(d), 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} from 0 to ${replicas}`, COMPONENT);
    }
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    if (!alreadyExists && hasProgressDeadline(d)) {
      setCondition(status, newCondition('Progressing', 'True', Reasons.NewReplicaSet, `Created new replica set "${created.metadata.name}"`));
      needsUpdate = true;
    }
    if (needsUpdate) await this.writeStatus(d, status);
    return created;
  }

  // ------------------------------------------------------------ sync paths

  private async syncStatusOnly(d: KObject, rsList: KObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.allReplicaSets(d, rsList, false);
    await this.syncDeploymentStatus([...oldRSs, newRS], newRS, d);
  }

  /** sync: a scaling event or a paused Deployment: scale, clean up, write status. */
  private async sync(d: KObject, rsList: KObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.allReplicaSets(d, rsList, false);
    await this.scale(d, newRS, oldRSs);
    if (specOf(d).paused && !d.metadata.annotations?.['deprecated.deployment.rollback.to']) await this.cleanup(oldRSs, d);
    // The sets as scaled: read back from the cache, which holds what was written.
    const fresh = (rs: KObject | undefined) => (rs ? this.sets.cache.get(rs.metadata.namespace ?? '', rs.metadata.name!) ?? rs : rs);
    await this.syncDeploymentStatus([...oldRSs.map(fresh), fresh(newRS)], fresh(newRS), d);
  }

  /** checkPausedConditions: Progressing Unknown DeploymentPaused / DeploymentResumed, unless timed out. */
  private async checkPausedConditions(d: KObject): Promise<void> {
    if (!hasProgressDeadline(d)) return;
    const status = (d.status ??= {}) as DeploymentStatus;
    const cond = getCondition(status, 'Progressing');
    if (cond?.reason === Reasons.TimedOut) return;
    const pausedCond = cond?.reason === Reasons.PausedDeploy;
    const paused = !!specOf(d).paused;
    if (paused && !pausedCond) setCondition(status, newCondition('Progressing', 'Unknown', Reasons.PausedDeploy, 'Deployment is paused'));
    else if (!paused && pausedCond) setCondition(status, newCondition('Progressing', 'Unknown', Reasons.ResumedDeploy, 'Deployment is resumed'));
    else return;
    await this.writeStatus(d, status);
  }

  /** isScalingEvent: an active ReplicaSet was made for another number of replicas. */
  private async isScalingEvent(d: KObject, rsList: KObject[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.allReplicaSets(d, rsList, false);
    for (const rs of activeReplicaSets([...oldRSs, newRS])) {
      const desired = desiredReplicasAnnotation(rs);
      if (desired === undefined) continue;
      if (desired !== replicasOf(d)) return true;
    }
    return false;
  }

  /** scale: the active (or latest) ReplicaSet to the full count, or every active one proportionally. */
  private async scale(d: KObject, newRS: KObject | undefined, oldRSs: KObject[]): Promise<void> {
    const one = findActiveOrLatest(newRS, oldRSs);
    if (one) {
      if (replicasOf(one) === replicasOf(d)) return;
      await this.scaleAndRecord(one, replicasOf(d), d);
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of activeReplicaSets(oldRSs)) await this.scaleAndRecord(old, 0, d);
      return;
    }
    if ((specOf(d).strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return;
    const all = activeReplicaSets([...oldRSs, newRS]);
    const allReplicas = replicaCount(all);
    const allowed = replicasOf(d) > 0 ? replicasOf(d) + maxSurge(d) : 0;
    const toAdd = allowed - allReplicas;
    if (toAdd > 0) all.sort(bySizeNewer);
    else if (toAdd < 0) all.sort(bySizeOlder);
    let added = 0;
    const sizes = new Map<string, number>();
    for (const rs of all) {
      if (toAdd !== 0) {
        const p = replicaSetProportion(rs, d, toAdd, added);
        sizes.set(rs.metadata.name!, replicasOf(rs) + p);
        added += p;
      } else sizes.set(rs.metadata.name!, replicasOf(rs));
    }
    for (const [i, rs] of all.entries()) {
      const size = sizes.get(rs.metadata.name!) ?? replicasOf(rs);
      // Leftovers go to the largest.
      await this.scaleReplicaSet(rs, i === 0 && toAdd !== 0 ? Math.max(0, size + toAdd - added) : size, d);
    }
  }

  /** cleanupDeployment: delete the oldest fully scaled-down ReplicaSets beyond revisionHistoryLimit. */
  private async cleanup(oldRSs: KObject[], d: KObject): Promise<void> {
    const limit = specOf(d).revisionHistoryLimit;
    if (typeof limit !== 'number') return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    cleanable.sort(byRevision);
    for (const old of cleanable.slice(0, diff)) {
      const rs = this.sets.cache.get(old.metadata.namespace ?? '', old.metadata.name!) ?? old;
      const st = (rs.status ?? {}) as any;
      if ((st.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata.generation ?? 0) > (st.observedGeneration ?? 0) || rs.metadata.deletionTimestamp) continue;
      try {
        await this.rsClient.delete(rs.metadata.namespace ?? '', rs.metadata.name!);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  /** syncDeploymentStatus: write calculateStatus when it differs. */
  private async syncDeploymentStatus(all: (KObject | undefined)[], newRS: KObject | undefined, d: KObject): Promise<void> {
    const status = calculateStatus(all, newRS, d);
    if (isDeepStrictEqual(serializeStatus(status), d.status ?? {})) return;
    await this.writeStatus(d, status);
  }

  /** syncRolloutStatus, then requeueStuckDeployment when nothing changed. */
  private async syncRolloutStatus(all: (KObject | undefined)[], newRS: KObject | undefined, d: KObject): Promise<void> {
    const status = rolloutStatus(all, newRS, d);
    if (isDeepStrictEqual(serializeStatus(status), d.status ?? {})) {
      this.requeueStuck(d, status);
      return;
    }
    await this.writeStatus(d, status);
  }

  /** requeueStuckDeployment: look again when the progress deadline would pass. */
  private requeueStuck(d: KObject, status: DeploymentStatus): void {
    const cur = getCondition((d.status ?? {}) as DeploymentStatus, 'Progressing');
    if (!hasProgressDeadline(d) || !cur) return;
    if (deploymentComplete(d, status) || cur.reason === Reasons.TimedOut) return;
    const after = Date.parse(cur.lastUpdateTime ?? '') + specOf(d).progressDeadlineSeconds * 1000 - Date.now();
    if (Number.isNaN(after)) return;
    this.enqueueAfter(keyOf(d), after < 1000 ? 1000 : after + 1000);
  }

  // ------------------------------------------------------------ strategies

  /** rolloutRolling. */
  private async rolloutRolling(d: KObject, rsList: KObject[]): Promise<void> {
    let { newRS, oldRSs } = await this.allReplicaSets(d, rsList, true);
    if (!newRS) return;
    // reconcileNewReplicaSet.
    let scaledUp = false;
    if (replicasOf(newRS) !== replicasOf(d)) {
      const target = replicasOf(newRS) > replicasOf(d) ? replicasOf(d) : newRSNewReplicas(d, [...oldRSs, newRS], newRS);
      const r = await this.scaleAndRecord(newRS, target, d);
      scaledUp = r.scaled;
      newRS = r.rs;
    }
    if (scaledUp) return this.syncRolloutStatus([...oldRSs, newRS], newRS, d);
    const scaled = await this.reconcileOldReplicaSets([...oldRSs, newRS], activeReplicaSets(oldRSs), newRS, d);
    if (scaled.count > 0) return this.syncRolloutStatus([...scaled.oldRSs, newRS], newRS, d);
    if (deploymentComplete(d, (d.status ?? {}) as DeploymentStatus)) await this.cleanup(oldRSs, d);
    return this.syncRolloutStatus([...oldRSs, newRS], newRS, d);
  }

  /** reconcileOldReplicaSets: scale old ReplicaSets down as far as maxUnavailable allows, unhealthy ones first. */
  private async reconcileOldReplicaSets(all: KObject[], oldRSs: KObject[], newRS: KObject, d: KObject): Promise<{ count: number; oldRSs: KObject[] }> {
    const olds = all.filter((rs) => rs.metadata.uid !== newRS.metadata.uid);
    if (replicaCount(oldRSs) === 0) return { count: 0, oldRSs: olds };
    const allPods = replicaCount(all);
    const minAvailable = replicasOf(d) - maxUnavailable(d);
    const newUnavailable = replicasOf(newRS) - (((newRS.status ?? {}) as any).availableReplicas ?? 0);
    const maxScaledDown = allPods - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return { count: 0, oldRSs: olds };
    // cleanupUnhealthyReplicas.
    const active = [...oldRSs].sort(byCreation);
    let cleaned = 0;
    for (const [i, rs] of active.entries()) {
      if (cleaned >= maxScaledDown) break;
      const avail = ((rs.status ?? {}) as any).availableReplicas ?? 0;
      if (replicasOf(rs) === 0 || replicasOf(rs) === avail) continue;
      const down = Math.min(maxScaledDown - cleaned, replicasOf(rs) - avail);
      active[i] = (await this.scaleAndRecord(rs, replicasOf(rs) - down, d)).rs;
      cleaned += down;
    }
    // scaleDownOldReplicaSetsForRollingUpdate.
    let scaledDown = 0;
    const available = availableReplicaCount([...active, newRS]);
    if (available > minAvailable) {
      const total = available - minAvailable;
      active.sort(byCreation);
      for (const [i, rs] of active.entries()) {
        if (scaledDown >= total) break;
        if (replicasOf(rs) === 0) continue;
        const down = Math.min(replicasOf(rs), total - scaledDown);
        active[i] = (await this.scaleAndRecord(rs, replicasOf(rs) - down, d)).rs;
        scaledDown += down;
      }
    }
    const byUid = new Map(active.map((rs) => [rs.metadata.uid, rs]));
    return { count: cleaned + scaledDown, oldRSs: olds.map((rs) => byUid.get(rs.metadata.uid) ?? rs) };
  }

  /** rolloutRecreate: every old pod gone before the new ReplicaSet scales up. */
  private async rolloutRecreate(d: KObject, rsList: KObject[]): Promise<void> {
    let { newRS, oldRSs } = await this.allReplicaSets(d, rsList, false);
    let scaledDown = false;
    const olds = [...oldRSs];
    for (const [i, rs] of olds.entries()) {
      if (replicasOf(rs) === 0) continue;
      olds[i] = (await this.scaleAndRecord(rs, 0, d)).rs;
      scaledDown = true;
    }
    if (scaledDown) return this.syncRolloutStatus([...olds, newRS], newRS, d);
    if (this.oldPodsRunning(newRS, oldRSs)) return this.syncRolloutStatus([...oldRSs, newRS], newRS, d);
    if (!newRS) ({ newRS, oldRSs } = await this.allReplicaSets(d, rsList, true));
    if (!newRS) return;
    newRS = (await this.scaleAndRecord(newRS, replicasOf(d), d)).rs;
    if (deploymentComplete(d, (d.status ?? {}) as DeploymentStatus)) await this.cleanup(oldRSs, d);
    return this.syncRolloutStatus([...oldRSs, newRS], newRS, d);
  }

  /** oldPodsRunning: old ReplicaSets still report pods, or a pod of theirs is not finished. */
  private oldPodsRunning(newRS: KObject | undefined, oldRSs: KObject[]): boolean {
    if (actualReplicaCount(oldRSs) > 0) return true;
    for (const rs of oldRSs) {
      for (const pod of this.pods.cache.controlledBy(rs.metadata.uid!)) {
        const phase = ((pod.status ?? {}) as any).phase;
        if (phase === 'Failed' || phase === 'Succeeded') continue;
        return true;
      }
    }
    void newRS;
    return false;
  }
}
