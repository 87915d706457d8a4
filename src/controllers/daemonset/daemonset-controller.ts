/**
 * The DaemonSet controller (pkg/controller/daemon daemon_controller.go and
 * update.go): one pod per eligible node, bound through required node
 * affinity `metadata.name In [node]` (the scheduler places it), failed
 * daemon pods deleted with a per-node back-off, RollingUpdate with
 * maxUnavailable or maxSurge, OnDelete, ControllerRevisions and the status
 * counters. A pod whose image cannot run on a node (a Linux image on a
 * Windows node) is still created there: the kubelet fails it, as upstream.
 */
// Lets the event loop run (timers, I/O, the watch events of what was just written).
import { plain } from '../../client/plain.js';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { isNotFound, asError } from '../../apimachinery/errors.js';
import { referenceTo, type EventRecorder } from '../../events/recorder.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import { controllerrevisions, daemonsets, nodes, pods } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import type { KObject } from '../../apimachinery/object.js';
import { fromLabelSelector } from '../../selectors/labels.js';
import { claimObjects, ControllerExpectations, SLOW_START_INITIAL_BATCH } from '../controller-utils.js';
import type { SharedInformer } from '../../client/shared-informer.js';
import { DAEMONSET_STYLE, POD_REVISION_LABEL, RevisionHistory } from '../controller-revision.js';
import { PodControl } from '../pod-control.js';
import { controllerOf, isAvailable, isReady, phaseOf } from '../job/pod-state.js';
import { keyOf, splitKey } from '../../client/queue-keys.js';
import { addDaemonTolerations, daemonPodSpec, replaceNodeNameAffinity, shouldRunDaemonPodSpec, targetNodeName } from './node-predicates.js';

const COMPONENT = 'daemonset-controller';
/** extensions.DaemonSetTemplateGenerationKey and the annotation the registry keeps it in. */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
/** failedPodsBackoff: flowcontrol.NewBackOff(1s, 15m). */
const FAILED_BACKOFF_INITIAL_MS = 1000;
const FAILED_BACKOFF_MAX_MS = 15 * 60_000;
/** BurstReplicas: pods created, and pods deleted, by one sync at most. */
export const BURST_REPLICAS = 250;
/** Deletions issued at once: the rest wait, with the event loop running between (upstream issues them all from goroutines). */
const DELETE_BATCH = 32;

type Obj = KObject & { spec?: any; status?: any };

/** intstr.GetScaledValueFromIntOrPercent rounding up. */
function scaled(v: number | string | undefined, total: number): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  return m ? Math.ceil((Number(m[1]) * total) / 100) : Number(v) || 0;
}

/** podByCreationTimestampAndPhase: running before not running, then oldest first, then by name. */
function byCreationAndPhase(a: Obj, b: Obj): number {
  const ra = phaseOf(a) === 'Running' ? 0 : 1; const rb = phaseOf(b) === 'Running' ? 0 : 1;
  if (ra !== rb) return ra - rb;
  const ca = a.metadata.creationTimestamp ?? ''; const cb = b.metadata.creationTimestamp ?? '';
  if (ca !== cb) return ca < cb ? -1 : 1;
  return a.metadata.name! < b.metadata.name! ? -1 : 1;
}

const byName = (a: KObject, b: KObject) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);

/** NodeShouldRunDaemonPod's answer for every node, worked out once per sync. */
type Placement = Map<string, { shouldRun: boolean; shouldContinueRunning: boolean }>;

export class DaemonSetController {
  private readonly daemonsets: ResourceClient<KObject>;
  private readonly pods: ResourceClient<KObject>;
  private readonly podControl: PodControl;
  private readonly history: RevisionHistory;
  private readonly loop: RateLimitingQueue;
  private readonly now: () => Date;
  private readonly known = new Set<string>();
  private readonly nodePrints = new Map<string, string>();
  private readonly backoff = new Map<string, { delay: number; at: number }>();
  /** The shared informers' caches (upstream's listers), not a list from the storage per sync. */
  private readonly dsInformer: SharedInformer;
  private readonly podInformer: SharedInformer;
  private readonly nodeInformer: SharedInformer;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly expectations: ControllerExpectations;
  private observing = false;

  private readonly events: EventRecorder;

  constructor(private readonly ctx: ControllerContext, opts: { now?: () => Date } = {}) {
    const client = ctx.client;
    const events = this.events = ctx.events;
    this.daemonsets = client.resource(plain(daemonsets));
    this.pods = client.resource(plain(pods));
    this.podControl = new PodControl(this.pods, events, COMPONENT);
    this.history = new RevisionHistory(client.resource(plain(controllerrevisions)), this.daemonsets, COMPONENT);
    this.now = opts.now ?? (() => new Date(ctx.clock.now()));
    this.expectations = new ControllerExpectations(() => this.now().getTime());
    this.loop = newQueue(ctx);
    this.dsInformer = ctx.informers.forResource(daemonsets);
    this.podInformer = ctx.informers.forResource(pods);
    this.nodeInformer = ctx.informers.forResource(nodes);
  }

  /** addPod / updatePod / deletePod's bookkeeping of expectations, and deleteDaemonset's (also when syncs are called without start). */
  private observe(): void {
    if (this.observing) return;
    this.observing = true;
    this.unsubscribe.push(this.dsInformer.onEvent((type, ds) => { if (type === 'DELETED') this.expectations.delete(keyOf(ds)); }));
    this.unsubscribe.push(this.podInformer.onEvent((type, pod) => {
      const ref = controllerOf(pod);
      if (ref?.kind !== 'DaemonSet' || !ref.apiVersion.startsWith('apps/')) return;
      const key = `${pod.metadata.namespace}/${ref.name}`;
      // A pod seen with a deletion timestamp counts as deleted: the replacement need not wait for the kubelet.
      if (type === 'DELETED' || pod.metadata.deletionTimestamp) this.expectations.deletionObserved(key);
      else if (type === 'ADDED') this.expectations.creationObserved(key);
    }));
  }

  async start(): Promise<void> {
    this.observe();
    this.unsubscribe.push(this.dsInformer.onEvent((type, ds) => {
      if (type === 'DELETED') this.known.delete(keyOf(ds)); else this.known.add(keyOf(ds));
      this.loop.add(keyOf(ds));
    }));
    this.unsubscribe.push(this.podInformer.onEvent((_t, pod) => {
      const ref = controllerOf(pod);
      if (ref?.kind === 'DaemonSet' && ref.apiVersion.startsWith('apps/')) this.loop.add(`${pod.metadata.namespace}/${ref.name}`);
    }));
    // A node's labels, taints or existence change which daemon sets want it; its heartbeats do not.
    this.unsubscribe.push(this.nodeInformer.onEvent((type, node) => {
      const name = node.metadata.name!;
      const print = type === 'DELETED' ? undefined : JSON.stringify([node.metadata.labels, (node as Obj).spec?.taints]);
      if (print === this.nodePrints.get(name)) return;
      if (print === undefined) this.nodePrints.delete(name); else this.nodePrints.set(name, print);
      for (const k of this.known) this.loop.add(k);
    }));
    await this.dsInformer.start();
    await this.podInformer.start();
    await this.nodeInformer.start();
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.loop.run(2, (k) => this.sync(k), (k, e) => this.ctx.log(`${COMPONENT}: ${k}: ${(e as Error).message}`));
  }

  stop(): void {
    this.loop.shutDown();
    this.observing = false;
    for (const u of this.unsubscribe.splice(0)) u();
  }

  /** NodeShouldRunDaemonPod for every node, with the daemon pod spec built once. */
  private placement(ds: Obj, nodes: Obj[]): Placement {
    const spec = daemonPodSpec(ds);
    return new Map(nodes.map((n) => [n.metadata.name!, shouldRunDaemonPodSpec(n, spec)]));
  }

  async sync(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    this.observe();
    // Started once (by start(), or by the first sync when called directly).
    await Promise.all([this.dsInformer.start(), this.podInformer.start(), this.nodeInformer.start()]);
    const ds = this.dsInformer.cache.get(ns, name) as Obj | undefined;
    if (!ds) return;
    // In name order, as a list from the storage returns them.
    const nodes = (this.nodeInformer.cache.list('') as Obj[]).sort(byName);
    const placement = this.placement(ds, nodes);
    // Thousands of nodes and pods make each step of a sync tens of milliseconds of work: the event loop
    // (the nodes' Lease renewals, the API) runs between steps, as upstream's sync runs beside everything else.
    await yieldToLoop();
    const { revisions, update } = await this.history.ensure(ds, ds.spec.template, ds.status?.collisionCount ?? 0, DAEMONSET_STYLE);
    // cur.Labels[DefaultDaemonSetUniqueLabelKey]: empty for an adopted revision without the label.
    const hash = update.metadata.labels?.[POD_REVISION_LABEL] ?? '';
    // getNodesToDaemonPods once, and again only after this sync created or deleted pods.
    let pods = await this.daemonPods(ds);
    await yieldToLoop();
    // Creations or deletions of an earlier sync not seen yet: only the status is updated, and its observedGeneration stays.
    if (!ds.metadata.deletionTimestamp && !this.expectations.satisfied(key)) {
      await this.updateStatus(ds, nodes, placement, hash, false, pods);
      return;
    }
    if (!ds.metadata.deletionTimestamp) {
      let acted = await this.manage(ds, nodes, placement, hash, pods);
      if (acted) pods = await this.daemonPods(ds);
      await yieldToLoop();
      // The update runs on a sync that created or deleted nothing, with the expectations met.
      if (!acted && this.expectations.satisfied(key) && ds.spec.updateStrategy?.type === 'RollingUpdate') {
        acted = await this.rollingUpdate(ds, nodes, placement, hash, pods);
        if (acted) pods = await this.daemonPods(ds);
        await yieldToLoop();
      }
      const live = new Set<string>([hash]);
      for (const p of pods) if (p.metadata.labels?.[POD_REVISION_LABEL]) live.add(p.metadata.labels[POD_REVISION_LABEL]);
      const liveNames = new Set(revisions.filter((r) => live.has(r.metadata.labels?.[POD_REVISION_LABEL] ?? '')).map((r) => r.metadata.name!));
      liveNames.add(update.metadata.name!);
      await this.history.truncate(ds, await this.history.list(ds), liveNames, ds.spec.revisionHistoryLimit ?? 10);
    }
    await this.updateStatus(ds, nodes, placement, hash, !ds.metadata.deletionTimestamp, pods);
  }

  /** getDaemonPods: ClaimPods by the daemon set's selector. */
  private async daemonPods(ds: Obj): Promise<Obj[]> {
    // What it controls and the namespace's orphans: every other pod is another controller's.
    const all = (this.podInformer.cache.claimable(ds.metadata.namespace!, ds.metadata.uid!) as Obj[]).sort(byName);
    const selector = fromLabelSelector(ds.spec?.selector);
    if (!selector) return all.filter((p) => controllerOf(p)?.uid === ds.metadata.uid);
    const { claimed, errors } = await claimObjects({ objects: this.pods, owners: this.daemonsets }, ds, selector, all);
    if (errors.length) throw errors[0];
    return claimed as Obj[];
  }

  /** getNodesToDaemonPods, over the daemon set's claimed pods. */
  private podsByNode(pods: Obj[]): Map<string, Obj[]> {
    const m = new Map<string, Obj[]>();
    for (const p of pods) {
      const n = targetNodeName(p);
      if (n === undefined) continue;
      if (!m.has(n)) m.set(n, []);
      m.get(n)!.push(p);
    }
    return m;
  }

  private templateGeneration(ds: Obj): string | undefined {
    return ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  }

  /** util.IsPodUpdated: the revision hash, or the template generation, matches. */
  private isUpdated(ds: Obj, pod: Obj, hash: string): boolean {
    const gen = this.templateGeneration(ds);
    return (gen !== undefined && pod.metadata.labels?.[TEMPLATE_GENERATION_LABEL] === gen) || (!!hash && pod.metadata.labels?.[POD_REVISION_LABEL] === hash);
  }

  /** failedPodsBackoff.IsInBackOffSinceUpdate / Next. */
  private inBackoff(key: string, now: number): number | undefined {
    const e = this.backoff.get(key);
    return e && now - e.at < e.delay ? e.delay : undefined;
  }

  private nextBackoff(key: string, now: number): void {
    const e = this.backoff.get(key);
    const delay = !e || now - e.at > 2 * FAILED_BACKOFF_MAX_MS ? FAILED_BACKOFF_INITIAL_MS : Math.min(e.delay * 2, FAILED_BACKOFF_MAX_MS);
    this.backoff.set(key, { delay, at: now });
  }

  /** manage / podsShouldBeOnNode: returns whether it created or deleted anything. */
  private async manage(ds: Obj, nodes: Obj[], placement: Placement, hash: string, pods: Obj[]): Promise<boolean> {
    const byNode = this.podsByNode(pods);
    const create: string[] = [];
    const remove: Obj[] = [];
    const surge = this.allowsSurge(ds);
    const now = this.now().getTime();
    for (const node of nodes) {
      const nodeName = node.metadata.name!;
      const { shouldRun, shouldContinueRunning } = placement.get(nodeName)!;
      const pods = byNode.get(nodeName) ?? [];
      if (shouldRun && !pods.length) { create.push(nodeName); continue; }
      if (shouldContinueRunning) {
        const running: Obj[] = [];
        for (const p of pods) {
          if (p.metadata.deletionTimestamp) continue;
          if (phaseOf(p) === 'Failed') {
            // Kubelets that reject daemon pods would otherwise fight the controller in a hot loop.
            const bkey = `${ds.metadata.uid}/${nodeName}`;
            const wait = this.inBackoff(bkey, now);
            if (wait !== undefined) { this.loop.addAfter(keyOf(ds), wait); continue; }
            this.nextBackoff(bkey, now);
            void this.events.record(referenceTo(ds), 'Warning', 'FailedDaemonPod',
              `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${nodeName}, will try to kill it`, COMPONENT);
            remove.push(p);
          } else if (phaseOf(p) === 'Succeeded') {
            remove.push(p);
          } else {
            running.push(p);
          }
        }
        running.sort(byCreationAndPhase);
        if (!surge) {
          // More than one daemon pod on a node: all but the oldest go.
          remove.push(...running.slice(1));
        } else {
          // Surging: the oldest new and the oldest old pod may both stay, until the new one is
          // available or the old one stops being ready; every other pod goes.
          let oldestNew: Obj | undefined; let oldestOld: Obj | undefined;
          for (const p of running) {
            if (p.metadata.labels?.[POD_REVISION_LABEL] === hash) { if (!oldestNew) { oldestNew = p; continue; } }
            else if (!oldestOld) { oldestOld = p; continue; }
            remove.push(p);
          }
          if (oldestNew && oldestOld && (!isReady(oldestOld) || isAvailable(oldestNew, ds.spec.minReadySeconds ?? 0, this.now()))) remove.push(oldestOld);
        }
      } else {
        for (const p of pods) if (!p.metadata.deletionTimestamp) remove.push(p);
      }
    }
    await this.syncNodes(ds, remove, create, hash);
    return remove.length + create.length > 0;
  }

  /**
   * syncNodes: at most BURST_REPLICAS creations and as many deletions, recorded
   * as expectations; creates one pod per node from the template with the daemon
   * tolerations and node affinity (slow start), then deletes. Between batches the
   * event loop runs: the pods just created are admitted, watched and scheduled
   * while the next batch waits, and timers (the nodes' Lease renewals) stay on time.
   */
  private async syncNodes(ds: Obj, allRemove: Obj[], allCreate: string[], hash: string): Promise<void> {
    const key = keyOf(ds);
    const create = allCreate.slice(0, BURST_REPLICAS);
    const remove = allRemove.slice(0, BURST_REPLICAS);
    // More to do than one burst: the sync that the pod events of this one bring does the rest.
    this.expectations.set(key, create.length, remove.length);
    let failure: unknown;
    if (create.length) failure = await this.createPods(ds, create, hash);
    for (let i = 0; i < remove.length; i += DELETE_BATCH) {
      if (i) await yieldToLoop();
      const results = await Promise.allSettled(remove.slice(i, i + DELETE_BATCH).map((p) => this.podControl.delete(ds, p)));
      for (const r of results) {
        if (r.status === 'fulfilled') continue;
        // Never to be observed: the expectation is lowered now. A pod already gone is no error.
        this.expectations.deletionObserved(key);
        if (!(isNotFound(r.reason))) failure ??= asError(r.reason);
      }
    }
    if (failure) throw asError(failure);
  }

  /** The creations of syncNodes, slow start: 1, 2, 4, ... stopping at the first batch with a failure. Returns the first failure. */
  private async createPods(ds: Obj, create: string[], hash: string): Promise<unknown> {
    const key = keyOf(ds);
    const template = structuredClone(ds.spec.template ?? {});
    template.metadata ??= {};
    template.spec ??= {};
    addDaemonTolerations(template.spec);
    const labels: Record<string, string> = { ...(template.metadata.labels ?? {}) };
    const gen = this.templateGeneration(ds);
    if (gen !== undefined) labels[TEMPLATE_GENERATION_LABEL] = gen;
    if (hash) labels[POD_REVISION_LABEL] = hash;
    template.metadata.labels = labels;
    let i = 0;
    for (let batch = SLOW_START_INITIAL_BATCH; i < create.length; batch *= 2) {
      if (i) await yieldToLoop();
      const nodes = create.slice(i, i + batch);
      i += nodes.length;
      const results = await Promise.allSettled(nodes.map((nodeName) => this.podControl.create({
        template, owner: ds, mutate: (pod) => replaceNodeNameAffinity(pod.spec, nodeName),
      })));
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      const [first] = failed;
      if (!first) continue;
      // A failed creation, and every one skipped after it, will never be observed.
      for (let k = 0; k < failed.length + (create.length - i); k++) this.expectations.creationObserved(key);
      return first.reason;
    }
    return undefined;
  }

  private allowsSurge(ds: Obj): boolean {
    const ru = ds.spec.updateStrategy?.rollingUpdate;
    return ds.spec.updateStrategy?.type === 'RollingUpdate' && scaled(ru?.maxSurge, 1) > 0;
  }

  /** updatedDesiredNodeCounts. */
  private counts(ds: Obj, nodes: Obj[], placement: Placement): { maxSurge: number; maxUnavailable: number; desired: number } {
    const desired = nodes.filter((n) => placement.get(n.metadata.name!)!.shouldRun).length;
    const ru = ds.spec.updateStrategy?.rollingUpdate ?? {};
    let maxUnavailable = scaled(ru.maxUnavailable, desired);
    const maxSurge = this.allowsSurge(ds) ? scaled(ru.maxSurge, desired) : 0;
    if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
    return { maxSurge, maxUnavailable, desired };
  }

  /** findUpdatedPodsOnNode: at most one new and one old pod, else not ok. */
  private splitPods(ds: Obj, pods: Obj[], hash: string): { newPod?: Obj; oldPod?: Obj; ok: boolean } {
    let newPod: Obj | undefined; let oldPod: Obj | undefined;
    for (const p of pods) {
      if (p.metadata.deletionTimestamp) continue;
      if (this.isUpdated(ds, p, hash)) { if (newPod) return { ok: false }; newPod = p; } else { if (oldPod) return { ok: false }; oldPod = p; }
    }
    return { newPod, oldPod, ok: true };
  }

  /** rollingUpdate (update.go). */
  private async rollingUpdate(ds: Obj, nodes: Obj[], placement: Placement, hash: string, pods: Obj[]): Promise<boolean> {
    const byNode = this.podsByNode(pods);
    const { maxSurge, maxUnavailable, desired } = this.counts(ds, nodes, placement);
    const minReady = ds.spec.minReadySeconds ?? 0;
    const now = this.now();
    const available = (p: Obj) => isAvailable(p, minReady, now);
    if (maxSurge === 0) {
      let unavailable = 0;
      const replace: Obj[] = []; const candidates: Obj[] = [];
      for (const pods of byNode.values()) {
        const { newPod, oldPod, ok } = this.splitPods(ds, pods, hash);
        if (!ok) { unavailable++; continue; }
        if ((!oldPod && !newPod) || (oldPod && newPod)) unavailable++;
        else if (newPod) { if (!available(newPod)) unavailable++; }
        else if (!available(oldPod!)) replace.push(oldPod!);
        else if (unavailable >= maxUnavailable) continue;
        else candidates.push(oldPod!);
      }
      const remaining = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
      const remove = [...replace, ...candidates.slice(0, remaining)];
      await this.syncNodes(ds, remove, [], hash);
      return remove.length > 0;
    }
    const remove: Obj[] = []; const shouldNotRun: Obj[] = []; const candidateNodes: string[] = []; const allowedNodes: string[] = [];
    let surge = 0; let numAvailable = 0;
    for (const [nodeName, pods] of byNode) {
      const { newPod, oldPod, ok } = this.splitPods(ds, pods, hash);
      if (!ok) { surge++; continue; }
      if (oldPod ? available(oldPod) : newPod ? available(newPod) : false) numAvailable++;
      const shouldRun = placement.get(nodeName)?.shouldRun ?? false;
      if (!oldPod) continue;
      if (!newPod) {
        if (!available(oldPod)) {
          if (!shouldRun) { remove.push(oldPod); continue; }
          allowedNodes.push(nodeName);
        } else {
          if (!shouldRun) { shouldNotRun.push(oldPod); continue; }
          if (surge >= maxSurge) continue;
          candidateNodes.push(nodeName);
        }
      } else if (!available(newPod)) {
        surge++;
      } else {
        remove.push(oldPod);
      }
    }
    const deletable = Math.min(Math.max(0, numAvailable - desired), shouldNotRun.length);
    remove.push(...shouldNotRun.slice(0, deletable));
    const remainingSurge = Math.min(Math.max(0, maxSurge - surge), candidateNodes.length);
    const create = [...allowedNodes, ...candidateNodes.slice(0, remainingSurge)];
    await this.syncNodes(ds, remove, create, hash);
    return remove.length + create.length > 0;
  }

  /** updateDaemonSetStatus / storeDaemonSetStatus. */
  private async updateStatus(ds: Obj, nodes: Obj[], placement: Placement, hash: string, observe: boolean, pods: Obj[]): Promise<void> {
    const byNode = this.podsByNode(pods);
    const now = this.now();
    let desired = 0; let current = 0; let ready = 0; let available = 0; let updated = 0; let misscheduled = 0;
    for (const node of nodes) {
      const { shouldRun } = placement.get(node.metadata.name!)!;
      const pods = byNode.get(node.metadata.name!) ?? [];
      if (shouldRun) {
        desired++;
        const pod = [...pods].sort(byCreationAndPhase)[0];
        if (!pod) continue;
        current++;
        if (isReady(pod)) {
          ready++;
          if (isAvailable(pod, ds.spec.minReadySeconds ?? 0, now)) available++;
        }
        if (this.isUpdated(ds, pod, hash)) updated++;
      } else if (pods.length) {
        misscheduled++;
      }
    }
    const next: Record<string, number> = {
      currentNumberScheduled: current, numberMisscheduled: misscheduled, desiredNumberScheduled: desired, numberReady: ready,
      updatedNumberScheduled: updated, numberAvailable: available, numberUnavailable: desired - available,
    };
    const old = ds.status ?? {};
    const observedGeneration = observe ? ds.metadata.generation : old.observedGeneration;
    const same = Object.entries(next).every(([k, v]) => (old[k] ?? 0) === v) && old.observedGeneration === observedGeneration;
    if (same) return;
    const ns = ds.metadata.namespace!;
    await this.daemonsets.updateStatus(ns, ds.metadata.name!, (cur: Obj) => {
      const s: any = { ...(cur.status ?? {}), ...next };
      if (observedGeneration !== undefined) s.observedGeneration = observedGeneration;
      for (const k of ['updatedNumberScheduled', 'numberAvailable', 'numberUnavailable']) if (!s[k]) delete s[k];
      return { ...cur, status: s };
    });
    // Pods ready but not yet available are looked at again when minReadySeconds have passed.
    if ((ds.spec.minReadySeconds ?? 0) > 0 && ready !== available) this.loop.addAfter(keyOf(ds), ds.spec.minReadySeconds * 1000);
  }
}
