/**
 * kube-scheduler (pkg/scheduler/scheduler.go, schedule_one.go,
 * eventhandlers.go): pods and nodes from shared informers, one scheduling
 * cycle at a time, the chosen node assumed at once and the binding posted
 * asynchronously (pods/binding) through the scheduler's client.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { isNotFound } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import { InformerFactory } from '../client/informer-factory.js';
import { nodes, persistentvolumeclaims, persistentvolumes, pods } from '../client/resources.js';
import type { Client, ResourceClient, ResourceRef } from '../client/types.js';
import { referenceTo, type EventRecorder } from '../events/recorder.js';
import { rfc3339 } from '../apimachinery/time.js';
import { SchedulerCache } from './cache.js';
import { FitError, type ClusterEvent, type ScheduleResult } from './framework.js';
import { InformerListers } from './listers.js';
import { PodInfo } from './pod-info.js';
import { preempt } from './preemption.js';
import { defaultConfig, type ProfileConfig, type SchedulerConfig } from './profile.js';
import { SchedulingQueue, type QueueOptions } from './queue.js';
import { ANN_SELECTED_NODE, bindVolumeToClaim, claimBindingCompleted, isVolumeBoundToClaim } from '../component-helpers/pv-helpers.js';
import { matchDelayedClaims } from './plugins/volume-binding.js';
import { podClaimNames } from './plugins/volumes.js';

/** VolumeBindingArgs.bindTimeoutSeconds' default: how long PreBind waits for claims to bind. */
export const VOLUME_BIND_TIMEOUT_MS = 600_000;

export const SCHEDULER = 'default-scheduler';

/**
 * What upstream exports as scheduler_schedule_attempts_total and
 * scheduler_scheduling_algorithm_duration_seconds, kept in-process for the
 * benchmark: successful scheduling cycles, their total and individual times.
 */
export const metrics = { scheduled: 0, algorithmMs: 0, evaluatedNodes: 0, algorithmDurations: [] as number[] };
export function resetMetrics(): void {
  metrics.scheduled = 0; metrics.algorithmMs = 0; metrics.evaluatedNodes = 0; metrics.algorithmDurations = [];
}
/** events.k8s.io notes are limited to 1 kB (truncateMessage). */
const NOTE_LENGTH_LIMIT = 1024;

export function truncateMessage(message: string): string {
  if (message.length <= NOTE_LENGTH_LIMIT) return message;
  return message.slice(0, NOTE_LENGTH_LIMIT - 3) + '...';
}

export interface SchedulerOptions extends QueueOptions {
  config?: SchedulerConfig;
  log?: (m: string) => void;
  random?: () => number;
  /** Called after each binding is written (benchmarks measure with it). */
  onBound?: (pod: PodInfo, node: string) => void;
  /** The process's shared informers (the scheduler's own, on its client, when absent). */
  informers?: InformerFactory;
}

/** A resource handle on loosely typed objects: the scheduler reads and writes them as their JSON. */
function handle(client: Client, ref: ResourceRef<unknown>): ResourceClient<any> {
  return client.resource(ref as ResourceRef<any>);
}

/** What changed in a pod for the queue (isPodUpdated ignores status and bookkeeping). */
function schedulingRelevant(pod: any): string {
  const m = pod.metadata ?? {};
  return JSON.stringify([m.labels, m.annotations, m.deletionTimestamp, pod.spec]);
}

function nodeRelevant(node: any): string {
  return JSON.stringify([node.metadata?.labels, node.spec, node.status?.allocatable, node.status?.images?.length]);
}

function terminal(pod: any): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

export class Scheduler {
  readonly listers: InformerListers;
  readonly cache: SchedulerCache;
  readonly queue: SchedulingQueue;
  private readonly profiles = new Map<string, ProfileConfig>();
  private readonly informers: InformerFactory;
  /** Whether the informers are the scheduler's own, to stop with it. */
  private readonly ownInformers: boolean;
  private readonly pods: ResourceClient<any>;
  private readonly removals: (() => void)[] = [];
  private readonly lastSeen = new Map<string, string>();
  private readonly nodeSeen = new Map<string, string>();
  private stopped = false;
  private loop?: Promise<void>;
  private readonly log: (m: string) => void;
  private bindingsInFlight = 0;
  /** PreBind waits of VolumeBinding, re-checked on every claim or volume change. */
  private readonly volumeWaiters = new Set<() => void>();

  constructor(private readonly client: Client, private readonly events: EventRecorder, private readonly opts: SchedulerOptions = {}) {
    const config = opts.config ?? defaultConfig();
    for (const p of config.profiles) this.profiles.set(p.schedulerName, p);
    this.ownInformers = !opts.informers;
    this.informers = opts.informers ?? new InformerFactory(client);
    this.pods = handle(client, pods);
    this.log = opts.log ?? (() => {});
    this.listers = new InformerListers(this.informers, (e) => {
      this.queue.onEvent(e);
      if (e === 'PvcChange' || e === 'PvChange') for (const w of [...this.volumeWaiters]) w();
    });
    this.cache = new SchedulerCache(this.listers.namespaceLabels, this.listers);
    const allPlugins = config.profiles.flatMap((p) => p.framework.plugins);
    this.queue = new SchedulingQueue(allPlugins.filter((p) => p.preEnqueue !== undefined), allPlugins, opts);
  }

  profileFor(schedulerName: string | undefined): ProfileConfig | undefined {
    return this.profiles.get(schedulerName || SCHEDULER);
  }

  async start(): Promise<void> {
    await this.listers.start();
    const handlers = [
      [nodes, (type: string, obj: unknown) => this.onNode(type, obj)],
      [pods, (type: string, obj: unknown) => this.onPod(type, obj)],
    ] as const;
    for (const [ref, handler] of handlers) {
      const informer = this.informers.forResource(ref);
      this.removals.push(informer.onEvent((type, obj) => handler(type, obj)));
      await informer.start();
    }
    this.queue.start();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of [...this.volumeWaiters]) w();
    this.queue.stop();
    for (const remove of this.removals.splice(0)) remove();
    this.listers.stop();
    if (this.ownInformers) this.informers.stop();
    await this.loop;
  }

  private onNode(type: string, node: any): void {
    const name = node.metadata.name;
    if (type === 'DELETED') { this.cache.removeNode(name); this.nodeSeen.delete(name); return; }
    const sig = nodeRelevant(node);
    const before = this.nodeSeen.get(name);
    this.nodeSeen.set(name, sig);
    this.cache.setNode(node);
    if (before === undefined) this.queue.onEvent('NodeAdd');
    else if (before !== sig) this.queue.onEvent('NodeUpdate');
  }

  private onPod(type: string, pod: any): void {
    const uid: string = pod.metadata.uid;
    if (type === 'DELETED') {
      this.lastSeen.delete(uid);
      if (this.cache.nodeOfPod(uid)) { this.cache.removePod(uid); this.queue.onEvent('AssignedPodDelete'); }
      const queued = this.queue.has(uid);
      this.queue.delete(uid);
      if (queued) this.cache.setNominated({ uid } as PodInfo, undefined);
      return;
    }
    if (pod.spec?.nodeName) {
      this.lastSeen.delete(uid);
      if (this.queue.has(uid) && !this.queue.isInFlight(uid)) this.queue.delete(uid);
      this.cache.setNominated({ uid } as PodInfo, undefined);
      if (terminal(pod)) {
        if (this.cache.removePod(uid)) this.queue.onEvent('AssignedPodDelete');
        return;
      }
      const known = !!this.cache.nodeOfPod(uid) && !this.cache.isAssumed(uid);
      this.cache.addOrUpdatePod(new PodInfo(pod));
      this.queue.onEvent(known ? 'AssignedPodUpdate' : 'AssignedPodAdd');
      return;
    }
    if (!this.profileFor(pod.spec?.schedulerName) || terminal(pod)) return;
    if (pod.metadata.deletionTimestamp) { this.queue.delete(uid); return; }
    const info = new PodInfo(pod);
    this.cache.setNominated(info, pod.status?.nominatedNodeName || undefined);
    const sig = schedulingRelevant(pod);
    const before = this.lastSeen.get(uid);
    this.lastSeen.set(uid, sig);
    if (this.cache.isAssumed(uid)) return;
    if (before === undefined || !this.queue.has(uid)) { if (!this.queue.isInFlight(uid)) this.queue.add(info); return; }
    if (before !== sig) this.queue.update(info); else this.queue.refresh(info);
  }

  private async run(): Promise<void> {
    let n = 0;
    while (!this.stopped) {
      const p = this.queue.pop();
      if (!p) { await this.queue.wait(); continue; }
      try {
        this.scheduleOne(p);
      } catch (e) {
        this.log(`scheduler: ${p.namespace}/${p.name}: ${(e as Error).stack}`);
        this.queue.addUnschedulable(p, new Set(), true);
      }
      // Let watch events and binding completions in between cycles.
      if (++n % 8 === 0 || this.bindingsInFlight > 256) await yieldToLoop();
    }
  }

  /** scheduleOne: the scheduling cycle, then the binding cycle in the background. */
  scheduleOne(p: PodInfo): void {
    const profile = this.profileFor(p.pod.spec?.schedulerName);
    if (!profile || p.terminating) { this.queue.done(p.uid); return; }
    let result: ScheduleResult;
    try {
      const t0 = performance.now();
      result = profile.framework.schedule(p, this.cache);
      const ms = performance.now() - t0;
      metrics.scheduled++;
      metrics.algorithmMs += ms;
      metrics.evaluatedNodes += result.evaluatedNodes;
      if (metrics.algorithmDurations.length < 1_000_000) metrics.algorithmDurations.push(ms);
    } catch (e) {
      if (!(e instanceof FitError)) {
        this.failed(p, e instanceof Error ? e.message : String(e), 'SchedulerError', new Set(), true);
        return;
      }
      if (e.numAllNodes === 0) {
        this.failed(p, 'no nodes available to schedule pods', 'SchedulerError', new Set(['NodeAffinity']), false);
        return;
      }
      let nominated: string | undefined | null = null;
      if (profile.preemption) {
        const r = preempt(profile.framework, p, this.cache, e.diagnosis, this.listers.pdbs(), this.opts.random);
        e.diagnosis.postFilterMsg = r.message;
        if (r.candidate) {
          nominated = r.candidate.node;
          void this.evict(p, r.candidate.node, r.candidate.victims);
        } else if (r.clearNominated && p.pod.status?.nominatedNodeName) {
          nominated = '';
          this.cache.setNominated(p, undefined);
        }
      }
      this.failed(p, e.text(), 'Unschedulable', e.diagnosis.unschedulablePlugins, false, nominated);
      return;
    }
    const assumed = p.withPod({ ...p.pod, spec: { ...p.pod.spec, nodeName: result.node } });
    this.cache.assume(assumed, result.node);
    this.cache.setNominated(p, undefined);
    void this.bind(p, assumed, result.node);
  }

  private async bind(p: PodInfo, assumed: PodInfo, node: string): Promise<void> {
    this.bindingsInFlight++;
    try {
      const profile = this.profileFor(p.pod.spec?.schedulerName);
      if (profile?.framework.plugins.some((pl) => pl.name === 'VolumeBinding')) {
        const err = await this.bindPodVolumes(p, node);
        if (err !== undefined) {
          this.cache.forget(p.uid);
          if (!this.stopped) this.failed(p, `running PreBind plugin "VolumeBinding": ${err}`, 'SchedulerError', new Set(), true);
          return;
        }
      }
      // The answer is a Status: the cache has the assumed pod.
      await this.pods.createSubresource(p.namespace, p.name, 'binding',
        { apiVersion: 'v1', kind: 'Binding', metadata: { name: p.name, namespace: p.namespace }, target: { kind: 'Node', name: node } },
        { sharedResult: true });
      this.queue.done(p.uid);
      this.opts.onBound?.(assumed, node);
      void this.events.emit(referenceTo(p.pod as KObject), 'Normal', 'Scheduled', 'Binding',
        `Successfully assigned ${p.namespace}/${p.name} to ${node}`, SCHEDULER);
    } catch (e) {
      this.cache.forget(p.uid);
      if (isNotFound(e)) { this.queue.done(p.uid); return; }
      this.failed(p, `binding rejected: ${(e as Error).message}`, 'SchedulerError', new Set(), true);
    } finally {
      this.bindingsInFlight--;
    }
  }

  /**
   * VolumeBinding's PreBind (BindPodVolumes): each unbound claim of a
   * WaitForFirstConsumer class gets the free volume that fits the node
   * (its claimRef set) or, to be provisioned, `volume.kubernetes.io/selected-node`,
   * then the binding waits, off the scheduling loop, until the PV
   * controller has bound them all (checkBindings: volumeName and
   * bind-completed), for at most bindTimeoutSeconds. Returns the error text.
   */
  private async bindPodVolumes(p: PodInfo, node: string): Promise<string | undefined> {
    const ns = p.namespace;
    const toBind: string[] = [];
    for (const name of podClaimNames(p.pod)) {
      const pvc = this.listers.pvc(ns, name);
      if (!pvc || pvc.spec?.volumeName) continue;
      const cls = pvc.spec?.storageClassName ? this.listers.storageClass(pvc.spec.storageClassName) : undefined;
      if (cls?.volumeBindingMode === 'WaitForFirstConsumer') toBind.push(name);
    }
    if (!toBind.length) return undefined;
    // The Filter's choice on this node, again: free volumes to bind, and claims to provision.
    const delayed = toBind.map((n) => {
      const pvc = this.listers.pvc(ns, n);
      return { pvc, cls: this.listers.storageClass(pvc.spec.storageClassName) };
    });
    const matched = matchDelayedClaims(delayed, this.listers.pvs(), this.cache.get(node)?.node ?? { metadata: { name: node } });
    if (!matched) return `binding volumes: node(s) didn't find available persistent volumes to bind`;
    const staticClaims = new Set<string>();
    try {
      // bindAPIUpdate: volumes first (claimRef and bound-by-controller, as the PV controller writes them), then the claims to provision.
      for (const { pvc } of delayed) {
        const pv = matched.get(pvc.metadata.name);
        if (!pv) continue;
        staticClaims.add(pvc.metadata.name);
        await handle(this.client, persistentvolumes).update('', pv.metadata.name, (cur) => {
          if (cur.spec?.claimRef && !isVolumeBoundToClaim(cur, pvc)) throw new Error(`persistentvolume "${pv.metadata.name}" was bound to another claim`);
          return bindVolumeToClaim(cur, pvc) ?? cur;
        });
      }
      for (const name of toBind) {
        if (staticClaims.has(name)) continue;
        await handle(this.client, persistentvolumeclaims).update(ns, name, (cur) => {
          if (cur.spec?.volumeName || cur.metadata.annotations?.[ANN_SELECTED_NODE] === node) return cur;
          (cur.metadata.annotations ??= {})[ANN_SELECTED_NODE] = node;
          return cur;
        });
      }
    } catch (e) {
      return `binding volumes: ${(e as Error).message}`;
    }
    // checkBindings: done once every claim is bound; an error once a provisioner gave the node back (selected-node changed or removed).
    const check = (): string | boolean => {
      for (const n of toBind) {
        const pvc = this.listers.pvc(ns, n);
        if (claimBindingCompleted(pvc)) continue;
        if (!pvc || staticClaims.has(n)) return false;
        if (!pvc.metadata.annotations) return `selectedNode annotation reset for PVC "${n}"`;
        if (pvc.metadata.annotations[ANN_SELECTED_NODE] !== node) return `provisioning failed for PVC "${n}"`;
        return false;
      }
      return true;
    };
    const result = await new Promise<string | boolean>((resolve) => {
      const waiter = () => {
        const r = this.stopped ? 'scheduler stopped' : check();
        if (r === false) return;
        this.volumeWaiters.delete(waiter);
        clearTimeout(timer);
        resolve(r);
      };
      const timer = setTimeout(() => { this.volumeWaiters.delete(waiter); resolve('context deadline exceeded'); }, VOLUME_BIND_TIMEOUT_MS);
      this.volumeWaiters.add(waiter);
      waiter();
    });
    return result === true ? undefined : `binding volumes: ${result}`;
  }

  /** prepareCandidate: victims get the DisruptionTarget condition, a Preempted event, and are deleted. */
  private async evict(preemptor: PodInfo, node: string, victims: PodInfo[]): Promise<void> {
    for (const v of victims) {
      try {
        await this.pods.updateStatus(v.namespace, v.name, (cur) => {
          const conditions = (cur.status.conditions ?? []).filter((c: any) => c.type !== 'DisruptionTarget');
          conditions.push({ type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(new Date()),
            reason: 'PreemptionByScheduler', message: `${SCHEDULER}: preempting to accommodate a higher priority pod` });
          cur.status.conditions = conditions;
          return cur;
        });
        await this.pods.delete(v.namespace, v.name, { preconditions: { uid: v.uid } });
        void this.events.emit(referenceTo(v.pod as KObject), 'Normal', 'Preempted', 'Preempting',
          `Preempted by pod ${preemptor.uid} on node ${node}`, SCHEDULER);
      } catch (e) {
        this.log(`preemption of ${v.namespace}/${v.name}: ${(e as Error).message}`);
      }
    }
  }

  /**
   * handleSchedulingFailure: the FailedScheduling event, PodScheduled=False
   * with the same message (and the nominated node), and back to the queue.
   * `nominated`: null leaves status.nominatedNodeName alone, '' clears it.
   */
  private failed(p: PodInfo, msg: string, reason: 'Unschedulable' | 'SchedulerError', plugins: Set<string>, error: boolean,
    nominated: string | null = null): void {
    if (nominated) this.cache.setNominated(p, nominated);
    this.queue.addUnschedulable(p, plugins, error);
    void this.events.emit(referenceTo(p.pod as KObject), 'Warning', 'FailedScheduling', 'Scheduling', truncateMessage(msg), SCHEDULER);
    void this.updateCondition(p, reason, msg, nominated);
  }

  private async updateCondition(p: PodInfo, reason: string, msg: string, nominated: string | null): Promise<void> {
    try {
      await this.pods.updateStatus(p.namespace, p.name, (cur) => {
        if (cur.metadata.uid !== p.uid || cur.spec.nodeName) return cur;
        const status = cur.status ?? (cur.status = {});
        const conditions: any[] = status.conditions ?? [];
        const old = conditions.find((c) => c.type === 'PodScheduled');
        // podutil.UpdatePodCondition: the transition time moves only when the status does.
        const next = {
          type: 'PodScheduled', status: 'False', lastProbeTime: null,
          lastTransitionTime: old && old.status === 'False' ? old.lastTransitionTime : rfc3339(new Date()), reason, message: msg,
        };
        status.conditions = old ? conditions.map((c) => (c === old ? next : c)) : [...conditions, next];
        if (nominated !== null) {
          if (nominated) status.nominatedNodeName = nominated; else delete status.nominatedNodeName;
        }
        return cur;
      });
    } catch (e) {
      if (!isNotFound(e)) this.log(`scheduler: status of ${p.namespace}/${p.name}: ${(e as Error).message}`);
    }
  }

  /** Pods waiting in the queue (not bound yet), for tests and benchmarks. */
  get pending(): number { return this.queue.pendingCount; }
  get bindings(): number { return this.bindingsInFlight; }
}

/** ClusterEvent re-export for callers. */
export type { ClusterEvent };
