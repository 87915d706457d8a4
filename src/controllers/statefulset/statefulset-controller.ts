/**
 * The StatefulSet controller (pkg/controller/statefulset,
 * stateful_set_control.go updateStatefulSet): stable ordinals,
 * OrderedReady (one pod at a time, each waiting for its predecessors to be
 * Running and Ready; scale-down from the highest ordinal) or Parallel,
 * RollingUpdate from the highest ordinal down to the partition, OnDelete,
 * PVCs from volumeClaimTemplates with the retention policy, and
 * ControllerRevisions. Events are StatefulPodControl's own
 * ("create Pod web-0 in StatefulSet web successful").
 */
import { plain } from '../../client/plain.js';
import { StatusError, isAlreadyExists } from '../../apimachinery/errors.js';
import { referenceTo, type EventRecorder } from '../../events/recorder.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import { OwnWrites } from '../../client/own-writes.js';
import { controllerrevisions, persistentvolumeclaims, pods, statefulsets } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import type { KObject } from '../../apimachinery/object.js';
import { fromLabelSelector } from '../../selectors/labels.js';
import { controllerRef } from '../pod-control.js';
import { claimObjects } from '../controller-utils.js';
import { POD_REVISION_LABEL, RevisionHistory } from '../controller-revision.js';
import { controllerOf, isAvailable, isReady, isTerminating, phaseOf } from '../job/pod-state.js';
import { keyOf, splitKey } from '../../client/queue-keys.js';
import { claimsFor, newStatefulSetPod, ordinalOf, POD_INDEX_LABEL, POD_NAME_LABEL, startOrdinal } from './statefulset-pods.js';

const COMPONENT = 'statefulset-controller';

type Obj = KObject & { spec?: any; status?: any };

const errText = (e: unknown) => (e instanceof StatusError ? e.status.message ?? String(e) : (e as Error).message);

/** isCreated: the API server gave it a phase. */
const isCreated = (p: Obj) => phaseOf(p) !== '';
const isRunningAndReady = (p: Obj) => phaseOf(p) === 'Running' && isReady(p);
const isHealthy = (p: Obj) => isRunningAndReady(p) && !isTerminating(p);

export class StatefulSetController {
  private readonly sets: ResourceClient<KObject>;
  /** Pod writes go through podWrites.resource, so syncs read back their own pod writes from the informer. */
  private readonly pods: ResourceClient<KObject>;
  private readonly claims: ResourceClient<KObject>;
  private readonly history: RevisionHistory;
  private readonly loop: RateLimitingQueue;
  private readonly now: () => Date;

  private readonly podWrites: OwnWrites;
  private readonly events: EventRecorder;

  constructor(private readonly ctx: ControllerContext, opts: { now?: () => Date } = {}) {
    const client = ctx.client;
    this.podWrites = new OwnWrites(client.resource(plain(pods)), ctx.informers.forResource(pods));
    this.pods = this.podWrites.resource;
    this.events = ctx.events;
    this.sets = client.resource(plain(statefulsets));
    this.claims = client.resource(plain(persistentvolumeclaims));
    this.history = new RevisionHistory(client.resource(plain(controllerrevisions)), this.sets, COMPONENT);
    this.now = opts.now ?? (() => new Date(ctx.clock.now()));
    this.loop = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(statefulsets, (_t, set) => this.loop.add(keyOf(set)));
    await this.ctx.informers.inform(pods, (_t, pod) => {
      const ref = controllerOf(pod);
      if (ref?.kind === 'StatefulSet' && ref.apiVersion.startsWith('apps/')) this.loop.add(`${pod.metadata.namespace}/${ref.name}`);
    });
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.loop.run(5, (k) => this.sync(k), (k, e) => this.ctx.log(`${COMPONENT}: ${k}: ${(e as Error).message}`));
  }

  stop(): void {
    this.loop.shutDown();
  }

  /** recordPodEvent / recordClaimEvent. */
  private podEvent(verb: string, set: Obj, pod: string, err?: unknown): void {
    const title = verb.charAt(0).toUpperCase() + verb.slice(1);
    if (err === undefined) void this.events.record(referenceTo(set), 'Normal', `Successful${title}`, `${verb} Pod ${pod} in StatefulSet ${set.metadata.name} successful`, COMPONENT);
    else void this.events.record(referenceTo(set), 'Warning', `Failed${title}`, `${verb} Pod ${pod} in StatefulSet ${set.metadata.name} failed error: ${errText(err)}`, COMPONENT);
  }

  private claimEvent(verb: string, set: Obj, claim: string, pod: string, err?: unknown): void {
    const title = verb.charAt(0).toUpperCase() + verb.slice(1);
    if (err === undefined) void this.events.record(referenceTo(set), 'Normal', `Successful${title}`, `${verb} Claim ${claim} Pod ${pod} in StatefulSet ${set.metadata.name} success`, COMPONENT);
    else void this.events.record(referenceTo(set), 'Warning', `Failed${title}`, `${verb} Claim ${claim} for Pod ${pod} in StatefulSet ${set.metadata.name} failed error: ${errText(err)}`, COMPONENT);
  }

  /** createPersistentVolumeClaims: the missing claims of one ordinal. */
  private async createClaims(set: Obj, ordinal: number, pod: string): Promise<void> {
    const ns = set.metadata.namespace!;
    for (const claim of claimsFor(set, ordinal)) {
      const existing = await this.claims.find(ns, claim.metadata.name!);
      if (existing) {
        if (existing.metadata.deletionTimestamp) throw new Error(`pvc ${claim.metadata.name} is being deleted`);
        continue;
      }
      try {
        await this.claims.create(ns, claim);
        this.claimEvent('create', set, claim.metadata.name!, pod);
      } catch (e) {
        if (isAlreadyExists(e)) continue;
        this.claimEvent('create', set, claim.metadata.name!, pod, e);
        throw new Error(`failed to create PVC ${claim.metadata.name}: ${errText(e)}`, { cause: e });
      }
    }
  }

  /**
   * updateClaimOwnerRefForSetAndPod: whenDeleted Delete makes the set the
   * claims' controller; whenScaled Delete makes a scaled-down pod their
   * controller, so the garbage collector removes them with it. A claim
   * controlled by something else only loses the set's and pod's references.
   */
  private async updateClaimOwners(set: Obj, pod: Obj, ordinal: number): Promise<void> {
    const ns = set.metadata.namespace!;
    const policy = set.spec?.persistentVolumeClaimRetentionPolicy ?? {};
    const scaledDown = ordinal < startOrdinal(set) || ordinal >= startOrdinal(set) + (set.spec?.replicas ?? 1);
    const wantSet = policy.whenDeleted === 'Delete' && !(policy.whenScaled === 'Delete' && scaledDown);
    const wantPod = policy.whenScaled === 'Delete' && scaledDown && !!pod.metadata.uid;
    const isSetRef = (r: any) => r.apiVersion === 'apps/v1' && r.kind === 'StatefulSet' && r.name === set.metadata.name;
    const isPodRef = (r: any) => r.apiVersion === 'v1' && r.kind === 'Pod' && r.name === pod.metadata.name;
    for (const claim of claimsFor(set, ordinal)) {
      const cur = await this.claims.find(ns, claim.metadata.name!);
      if (!cur) continue;
      const refs: any[] = cur.metadata.ownerReferences ?? [];
      // hasUnexpectedController: another controller, or a stale set/pod of the same name.
      const unexpected = refs.some((r) => r.controller && (isSetRef(r) ? r.uid !== set.metadata.uid : isPodRef(r) ? r.uid !== pod.metadata.uid : true));
      let next = refs.filter((r) => !isSetRef(r) && !isPodRef(r));
      if (!unexpected) {
        if (wantSet) next = [...next, controllerRef(set)];
        if (wantPod) next = [...next, controllerRef(pod)];
      }
      if (JSON.stringify(next) === JSON.stringify(refs)) continue;
      await this.claims.update(ns, claim.metadata.name!, (c) => {
        if (next.length) c.metadata.ownerReferences = next; else delete c.metadata.ownerReferences;
        return c;
      });
    }
  }

  /** CreateStatefulPod: claims first, then the pod. */
  private async createPod(set: Obj, pod: Obj, ordinal: number): Promise<void> {
    const ns = set.metadata.namespace!;
    try {
      await this.createClaims(set, ordinal, pod.metadata.name!);
    } catch (e) {
      this.podEvent('create', set, pod.metadata.name!, e);
      throw e;
    }
    let created: Obj;
    try {
      created = await this.pods.create(ns, pod) as Obj;
    } catch (e) {
      if (isAlreadyExists(e)) throw e;
      this.podEvent('create', set, pod.metadata.name!, e);
      throw e;
    }
    try {
      await this.updateClaimOwners(set, created, ordinal);
    } catch (e) {
      this.podEvent('update', set, pod.metadata.name!, e);
      throw e;
    }
    this.podEvent('create', set, pod.metadata.name!);
  }

  /**
   * UpdateStatefulPod for identityMatches: a pod whose pod-name or
   * pod-index label was changed gets it back (with an "update Pod" event).
   */
  private async fixIdentity(set: Obj, pod: Obj, ordinal: number): Promise<void> {
    const l = pod.metadata.labels ?? {};
    if (l[POD_NAME_LABEL] === pod.metadata.name && l[POD_INDEX_LABEL] === String(ordinal)) return;
    const ns = set.metadata.namespace!;
    try {
      await this.pods.update(ns, pod.metadata.name!, (cur) => {
        cur.metadata.labels = { ...(cur.metadata.labels ?? {}), [POD_NAME_LABEL]: cur.metadata.name!, [POD_INDEX_LABEL]: String(ordinal) };
        return cur;
      });
    } catch (e) {
      this.podEvent('update', set, pod.metadata.name!, e);
      throw e;
    }
    this.podEvent('update', set, pod.metadata.name!);
  }

  /** DeleteStatefulPod. */
  private async deletePod(set: Obj, pod: Obj): Promise<void> {
    const ns = set.metadata.namespace!;
    try {
      await this.pods.delete(ns, pod.metadata.name!);
    } catch (e) {
      if (!(e instanceof StatusError && e.status.code === 404)) {
        this.podEvent('delete', set, pod.metadata.name!, e);
        throw e;
      }
    }
    this.podEvent('delete', set, pod.metadata.name!);
  }

  async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const set = await this.sets.find(ns, name) as Obj | undefined;
    if (!set) return;
    const pods = await this.claimPods(set);
    const { revisions, update, collisionCount } = await this.history.ensure(set, set.spec.template, set.status?.collisionCount ?? 0);
    const current = revisions.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
    const status = await this.updateStatefulSet(set, pods, current, update, collisionCount);
    this.completeRollingUpdate(set, status);
    const old = set.status ?? {};
    const changed = ['observedGeneration', 'replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'currentRevision', 'updateRevision', 'availableReplicas', 'collisionCount']
      .some((k) => (old[k] ?? 0) !== (status[k] ?? 0));
    if (changed) {
      await this.sets.updateStatus(ns, name, (cur: Obj) => {
        const s = { ...(cur.status ?? {}), ...status };
        for (const k of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) if (!s[k]) delete s[k];
        return { ...cur, status: s };
      });
    }
    // truncateHistory: keep revisions pods use, the current and the update revision.
    const live = new Set<string>([current.metadata.name!, update.metadata.name!]);
    const after = ((await this.podWrites.list(ns)) as Obj[]).filter((p) => controllerOf(p)?.uid === set.metadata.uid);
    for (const p of after) if (p.metadata.labels?.[POD_REVISION_LABEL]) live.add(p.metadata.labels[POD_REVISION_LABEL]);
    await this.history.truncate(set, await this.history.list(set), live, set.spec.revisionHistoryLimit ?? 10);
    // Pods ready but not yet available are looked at again when minReadySeconds have passed.
    const minReady = set.spec.minReadySeconds ?? 0;
    if (minReady > 0 && status.readyReplicas !== status.availableReplicas) this.loop.addAfter(key, minReady * 1000);
  }

  /** getPodsForStatefulSet: ClaimPods restricted to this set's ordinals (isMemberOf). */
  private async claimPods(set: Obj): Promise<Obj[]> {
    const all = (await this.podWrites.list(set.metadata.namespace!)) as Obj[];
    const selector = fromLabelSelector(set.spec?.selector);
    if (!selector) return all.filter((p) => controllerOf(p)?.uid === set.metadata.uid);
    const { claimed, errors } = await claimObjects({ objects: this.pods, owners: this.sets }, set, selector, all, (p) => ordinalOf(set, p) >= 0);
    if (errors.length) throw errors[0];
    return claimed as Obj[];
  }

  /** completeRollingUpdate: once every replica is updated and ready, the update revision becomes current. */
  private completeRollingUpdate(set: Obj, status: any): void {
    const replicas = set.spec.replicas ?? 1;
    if (set.spec.updateStrategy?.type === 'RollingUpdate' && status.updatedReplicas === replicas && status.readyReplicas === replicas && status.replicas === replicas) {
      status.currentReplicas = status.updatedReplicas;
      status.currentRevision = status.updateRevision;
    }
  }

  /** computeReplicaStatus over the given pods. */
  private countStatus(status: any, pods: Obj[], minReadySeconds: number, current: string, update: string): void {
    const now = this.now();
    Object.assign(status, { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 });
    for (const p of pods) {
      if (isCreated(p)) status.replicas++;
      if (isRunningAndReady(p)) {
        status.readyReplicas++;
        if (isAvailable(p, minReadySeconds, now)) status.availableReplicas++;
      }
      if (isCreated(p) && !isTerminating(p)) {
        const rev = p.metadata.labels?.[POD_REVISION_LABEL];
        if (rev === current) status.currentReplicas++;
        if (rev === update) status.updatedReplicas++;
      }
    }
  }

  /** updateStatefulSet: one step of reconciliation; returns the status to write. */
  private async updateStatefulSet(set: Obj, pods: Obj[], currentRev: KObject, updateRev: KObject, collisionCount: number): Promise<any> {
    const current = currentRev.metadata.name!; const update = updateRev.metadata.name!;
    const status: any = { observedGeneration: set.metadata.generation, currentRevision: current, updateRevision: update, collisionCount };
    const minReady = set.spec.minReadySeconds ?? 0;
    this.countStatus(status, pods, minReady, current, update);
    const monotonic = set.spec.podManagementPolicy !== 'Parallel';
    const start = startOrdinal(set);
    const count = set.spec.replicas ?? 1;
    const existing: (Obj | undefined)[] = new Array(count).fill(undefined);
    let condemned: Obj[] = [];
    for (const p of pods) {
      const ord = ordinalOf(set, p);
      if (ord >= start && ord < start + count) existing[ord - start] = p;
      else if (ord >= 0) condemned.push(p);
    }
    const templateOf = (rev: KObject) => {
      const t = structuredClone((rev as any).data?.spec?.template ?? set.spec.template);
      delete t.$patch;
      return t;
    };
    const partition = set.spec.updateStrategy?.type === 'RollingUpdate' ? set.spec.updateStrategy.rollingUpdate?.partition : undefined;
    const replicas: Obj[] = existing.map((pod, i) => {
      if (pod) return pod;
      const ord = start + i;
      // newVersionedStatefulSetPod: ordinals below the partition keep the current revision.
      const useCurrent = set.spec.updateStrategy?.type === 'RollingUpdate' &&
        (partition == null ? ord < start + (set.status?.currentReplicas ?? 0) : ord < start + partition);
      return newStatefulSetPod(set, useCurrent ? templateOf(currentRev) : set.spec.template, ord, useCurrent ? current : update);
    });
    condemned = condemned.sort((a, b) => ordinalOf(set, b) - ordinalOf(set, a));
    let firstUnhealthy: Obj | undefined;
    for (const r of replicas) if (!isHealthy(r)) { firstUnhealthy ??= r; }
    for (const c of [...condemned].reverse()) if (!isHealthy(c)) { firstUnhealthy ??= c; }
    if (set.metadata.deletionTimestamp) return status;
    const recount = () => this.countStatus(status, [...replicas, ...condemned], minReady, current, update);

    // processReplica over every ordinal; monotonic mode stops at the first that blocks.
    const processReplica = async (pod: Obj, i: number): Promise<boolean> => {
      const ord = start + i;
      if (phaseOf(pod) === 'Failed' || phaseOf(pod) === 'Succeeded') {
        // Finished pods are deleted and made again on a later sync.
        if (!pod.metadata.deletionTimestamp) await this.deletePod(set, pod);
        return true;
      }
      if (!isCreated(pod)) {
        // The pod object here stays without a phase: it is counted from the next sync on, as upstream's.
        await this.createPod(set, pod, ord);
        return monotonic;
      }
      if (phaseOf(pod) === 'Pending') await this.createClaims(set, ord, pod.metadata.name!);
      if (isTerminating(pod) && monotonic) return true;
      if (!isRunningAndReady(pod) && monotonic) return true;
      if (!isAvailable(pod, minReady, this.now()) && monotonic) return true;
      await this.updateClaimOwners(set, pod, ord);
      await this.fixIdentity(set, pod, ord);
      return false;
    };
    const runForAll = async (pods: Obj[], fn: (pod: Obj, i: number) => Promise<boolean>): Promise<boolean> => {
      if (monotonic) {
        for (const [i, pod] of pods.entries()) if (await fn(pod, i)) return true;
        return false;
      }
      const results = await Promise.all(pods.map((pod, i) => fn(pod, i)));
      return results.some((x) => x);
    };
    if (await runForAll(replicas, processReplica)) { recount(); return status; }

    // Condemned pods' claims follow the whenScaled policy before the pods go.
    for (const p of condemned) await this.updateClaimOwners(set, p, ordinalOf(set, p));
    const processCondemned = async (pod: Obj): Promise<boolean> => {
      if (isTerminating(pod)) return monotonic;
      if (!isRunningAndReady(pod) && monotonic && pod !== firstUnhealthy) return true;
      if (!isAvailable(pod, minReady, this.now()) && monotonic && pod !== firstUnhealthy) return true;
      await this.deletePod(set, pod);
      return monotonic;
    };
    if (await runForAll(condemned, processCondemned)) { recount(); return status; }
    recount();
    if (set.spec.updateStrategy?.type === 'OnDelete') return status;

    // Rolling update: the highest ordinal not at the update revision goes first, waiting on unhealthy pods.
    const updateMin = partition ?? 0;
    for (const pod of replicas.slice(updateMin).reverse()) {
      if (pod.metadata.labels?.[POD_REVISION_LABEL] !== update && !isTerminating(pod)) {
        await this.deletePod(set, pod);
        status.currentReplicas--;
        return status;
      }
      if (!isHealthy(pod)) return status;
    }
    return status;
  }
}
