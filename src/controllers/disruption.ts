/**
 * The disruption controller of kube-controller-manager
 * (pkg/controller/disruption/disruption.go, v1.32), in-process: each
 * PodDisruptionBudget's status — expectedPods, desiredHealthy,
 * currentHealthy, disruptionsAllowed, observedGeneration, the
 * DisruptionAllowed condition (SufficientPods / InsufficientPods, SyncFailed
 * when the expected count cannot be found) and disruptedPods, whose entries
 * (written by the eviction subresource) are dropped once the pod is
 * deleting or two minutes have passed. The eviction subresource reads
 * disruptionsAllowed, so this is what makes `kubectl drain` respect PDBs.
 * It also resets a stale DisruptionTarget condition of a pod that was not
 * deleted after all (two minutes later).
 */
import { plain } from '../client/plain.js';
import { StatusError } from '../apimachinery/errors.js';
import type { EventRecorder, ObjectReference } from '../events/recorder.js';
import { rfc3339 } from '../apimachinery/time.js';
import type { KObject } from '../apimachinery/object.js';
import { fromLabelSelector } from '../selectors/labels.js';
import { newQueue, type ControllerContext } from './runtime/controller-context.js';
import { deployments, poddisruptionbudgets, pods, replicasets, replicationcontrollers, statefulsets } from '../client/resources.js';
import type { Client, ResourceClient, ResourceRef } from '../client/types.js';
import type { RateLimitingQueue } from '../client/work-queue.js';
import { splitKey } from '../client/queue-keys.js';
import { isPodReady, isPodTerminal } from './endpointslice/util.js';

export const DISRUPTION_COMPONENT = 'controllermanager';
/** DeletionTimeout: how long an eviction's entry in disruptedPods waits for the pod's deletion. */
export const DELETION_TIMEOUT_MS = 2 * 60_000;
/** stalePodDisruptionTimeout. */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60_000;

type Obj = KObject & { spec?: any; status?: any };

/** intstr.GetScaledValueFromIntOrPercent(v, total, roundUp). */
export function scaledValue(v: number | string, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

class SyncError extends Error {}

export class DisruptionController {
  private readonly queue: RateLimitingQueue;
  private readonly pdbs = new Map<string, Obj>();
  private readonly pods = new Map<string, Map<string, Obj>>();
  private readonly client: Client;
  private readonly pdbClient: ResourceClient<KObject>;
  private readonly podClient: ResourceClient<KObject>;

  private readonly events: EventRecorder;
  private readonly now: () => number;

  constructor(private readonly ctx: ControllerContext) {
    this.client = ctx.client;
    this.events = ctx.events;
    this.now = () => ctx.clock.now();
    this.pdbClient = this.client.resource(plain(poddisruptionbudgets));
    this.podClient = this.client.resource(plain(pods));
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(poddisruptionbudgets, (type, pdb) => {
      const key = `${pdb.metadata.namespace}/${pdb.metadata.name}`;
      if (type === 'DELETED') this.pdbs.delete(key); else this.pdbs.set(key, pdb);
      this.queue.add(key);
    });
    await this.ctx.informers.inform(pods, (type, pod) => {
      const ns = pod.metadata.namespace!;
      let byName = this.pods.get(ns);
      if (!byName) this.pods.set(ns, byName = new Map());
      const old = byName.get(pod.metadata.name!);
      if (type === 'DELETED') byName.delete(pod.metadata.name!); else byName.set(pod.metadata.name!, pod);
      for (const [key, pdb] of this.pdbs) {
        if (pdb.metadata.namespace !== ns) continue;
        if (this.selects(pdb, pod) || (old && this.selects(pdb, old))) this.queue.add(key);
      }
      if (type !== 'DELETED') this.checkStale(pod);
    });
    // Scale changes of the pods' controllers change expectedPods.
    for (const ref of [replicasets, deployments, statefulsets, replicationcontrollers]) {
      await this.ctx.informers.inform(ref, (_type, obj) => {
        for (const [key, pdb] of this.pdbs) if (pdb.metadata.namespace === obj.metadata.namespace) this.queue.add(key);
      });
    }
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.queue.run(1, (key) => (key.startsWith('pod:') ? this.syncStalePod(key.slice(4)) : this.sync(key)),
      (key, e) => this.ctx.log(`disruption ${key}: ${(e as Error).message}`));
  }

  stop(): void {
    this.queue.shutDown();
  }

  private selects(pdb: Obj, pod: Obj): boolean {
    const sel = pdb.spec?.selector;
    if (!sel) return false;
    return fromLabelSelector(sel)?.matches(pod.metadata.labels) ?? false;
  }

  private podsFor(pdb: Obj): Obj[] {
    return [...(this.pods.get(pdb.metadata.namespace!)?.values() ?? [])].filter((p) => this.selects(pdb, p));
  }

  private pdbRef(pdb: Obj): ObjectReference {
    return { kind: 'PodDisruptionBudget', apiVersion: 'policy/v1', name: pdb.metadata.name!, namespace: pdb.metadata.namespace,
      uid: pdb.metadata.uid, resourceVersion: pdb.metadata.resourceVersion };
  }

  private async sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const pdb = await this.pdbClient.find(namespace, name) as Obj | undefined;
    if (!pdb) return;
    try {
      await this.trySync(pdb);
    } catch (e) {
      if (e instanceof StatusError && e.status.code === 409) throw e;
      if (e instanceof StatusError && e.status.code === 404) return;
      await this.failSafe(pdb, (e as Error).message);
    }
  }

  private async trySync(pdb: Obj): Promise<void> {
    const pods = this.podsFor(pdb);
    if (!pods.length) void this.events.record(this.pdbRef(pdb), 'Normal', 'NoPods', 'No matching pods found', DISRUPTION_COMPONENT);
    let expected: number;
    let desired: number;
    try {
      ({ expected, desired } = await this.expectedPodCount(pdb, pods));
    } catch (e) {
      void this.events.record(this.pdbRef(pdb), 'Warning', 'CalculateExpectedPodCountFailed',
        `Failed to calculate the number of expected pods: ${(e as Error).message}`, DISRUPTION_COMPONENT);
      throw e;
    }
    const now = this.now();
    const { disrupted, recheck } = this.buildDisruptedPodMap(pods, pdb, now);
    const currentHealthy = pods.filter((p) => {
      if (p.metadata.deletionTimestamp) return false;
      const t = disrupted[p.metadata.name!];
      if (t && Date.parse(t) + DELETION_TIMEOUT_MS > now) return false;
      return isPodReady(p);
    }).length;
    await this.updateStatus(pdb, currentHealthy, desired, expected, disrupted);
    if (recheck !== undefined) {
      const key = `${pdb.metadata.namespace}/${pdb.metadata.name}`;
      this.queue.addAfter(key, recheck - now);
    }
  }

  /** getExpectedPodCount. */
  private async expectedPodCount(pdb: Obj, pods: Obj[]): Promise<{ expected: number; desired: number }> {
    const spec = pdb.spec ?? {};
    if (spec.maxUnavailable != null) {
      const expected = await this.expectedScale(pdb, pods);
      const maxUnavailable = scaledValue(spec.maxUnavailable, expected, true);
      return { expected, desired: Math.max(0, expected - maxUnavailable) };
    }
    if (spec.minAvailable != null) {
      if (typeof spec.minAvailable === 'number') return { expected: pods.length, desired: spec.minAvailable };
      const expected = await this.expectedScale(pdb, pods);
      return { expected, desired: scaledValue(spec.minAvailable, expected, true) };
    }
    return { expected: 0, desired: 0 };
  }

  /** getExpectedScale: the sum of the replicas of the pods' controllers. */
  private async expectedScale(pdb: Obj, pods: Obj[]): Promise<number> {
    const scales = new Map<string, number>();
    const unmanaged: string[] = [];
    for (const pod of pods) {
      const ref = (pod.metadata.ownerReferences ?? []).find((r) => r.controller);
      if (!ref) { unmanaged.push(pod.metadata.name!); continue; }
      if (scales.has(ref.uid)) continue;
      const found = await this.controllerScale(ref, pod.metadata.namespace!);
      if (!found) throw new SyncError(`found no controllers for pod "${pod.metadata.name}"`);
      scales.set(found.uid, found.scale);
    }
    if (unmanaged.length) {
      void this.events.record(this.pdbRef(pdb), 'Warning', 'UnmanagedPods', `Pods selected by this PodDisruptionBudget (selector: ${goSelector(pdb.spec?.selector)}) were found ` +
        'to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. ' +
        'To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.', DISRUPTION_COMPONENT);
    }
    let total = 0;
    for (const s of scales.values()) total += s;
    return total;
  }

  /** The finders: a ReplicaSet (or its Deployment), a ReplicationController, a StatefulSet. */
  private async controllerScale(ref: { apiVersion: string; kind: string; name: string; uid: string }, ns: string): Promise<{ uid: string; scale: number } | undefined> {
    const lookup = async (controllers: ResourceRef<unknown>, name: string) =>
      this.client.resource(plain(controllers)).find(ns, name) as Promise<Obj | undefined>;
    const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
    if (ref.kind === 'ReplicaSet' && group === 'apps') {
      const rs = await lookup(replicasets, ref.name);
      if (!rs || rs.metadata.uid !== ref.uid) return undefined;
      const owner = (rs.metadata.ownerReferences ?? []).find((r) => r.controller);
      if (owner && owner.kind === 'Deployment' && owner.apiVersion.startsWith('apps/')) {
        const d = await lookup(deployments, owner.name);
        if (!d || d.metadata.uid !== owner.uid) return undefined;
        return { uid: d.metadata.uid!, scale: d.spec?.replicas ?? 1 };
      }
      return { uid: rs.metadata.uid!, scale: rs.spec?.replicas ?? 1 };
    }
    const kinds: Record<string, ResourceRef<unknown>> = { ReplicationController: replicationcontrollers, StatefulSet: statefulsets };
    const k = kinds[ref.kind];
    if (!k || k.group !== group) return undefined;
    const obj = await lookup(k, ref.name);
    if (!obj || obj.metadata.uid !== ref.uid) return undefined;
    return { uid: obj.metadata.uid!, scale: obj.spec?.replicas ?? 1 };
  }

  /** buildDisruptedPodMap. */
  private buildDisruptedPodMap(pods: Obj[], pdb: Obj, now: number): { disrupted: Record<string, string>; recheck?: number } {
    const prior: Record<string, string> | undefined = pdb.status?.disruptedPods;
    const out: Record<string, string> = {};
    let recheck: number | undefined;
    if (!prior) return { disrupted: out };
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      const t = prior[pod.metadata.name!];
      if (!t) continue;
      const expectedDeletion = Date.parse(t) + DELETION_TIMEOUT_MS;
      if (expectedDeletion < now) {
        // Upstream names the namespace twice here.
        void this.events.record(podRef(pod), 'Warning', 'NotDeleted',
          `Pod was expected by PDB ${pdb.metadata.namespace}/${pdb.metadata.namespace} to be deleted but it wasn't`, DISRUPTION_COMPONENT);
      } else {
        if (recheck === undefined || expectedDeletion < recheck) recheck = expectedDeletion;
        out[pod.metadata.name!] = t;
      }
    }
    return { disrupted: out, recheck };
  }

  private async updateStatus(pdb: Obj, currentHealthy: number, desiredHealthy: number, expectedPods: number, disrupted: Record<string, string>): Promise<void> {
    let disruptionsAllowed = currentHealthy - desiredHealthy;
    if (expectedPods <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
    const s = pdb.status ?? {};
    const generation = pdb.metadata.generation ?? 0;
    const cond = allowedCondition(disruptionsAllowed, generation);
    const curCond = (s.conditions ?? []).find((c: any) => c?.type === 'DisruptionAllowed');
    const upToDate = curCond && curCond.status === cond.status && curCond.reason === cond.reason && curCond.observedGeneration === generation;
    if (s.currentHealthy === currentHealthy && s.desiredHealthy === desiredHealthy && s.expectedPods === expectedPods &&
      s.disruptionsAllowed === disruptionsAllowed && JSON.stringify(s.disruptedPods ?? {}) === JSON.stringify(disrupted) &&
      s.observedGeneration === generation && upToDate) return;
    await this.writeStatus(pdb, (cur) => {
      const status: Record<string, any> = {
        observedGeneration: generation, disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods,
        conditions: setCondition(cur.status?.conditions ?? [], cond, this.now()),
      };
      if (Object.keys(disrupted).length) status.disruptedPods = disrupted;
      return status;
    });
  }

  /** failSafe: disruptionsAllowed 0 and DisruptionAllowed False with reason SyncFailed. */
  private async failSafe(pdb: Obj, message: string): Promise<void> {
    await this.writeStatus(pdb, (cur) => ({
      ...(cur.status ?? {}),
      disruptionsAllowed: 0,
      conditions: setCondition(cur.status?.conditions ?? [], {
        type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message, observedGeneration: cur.status?.observedGeneration ?? 0,
      }, this.now()),
    }));
  }

  private async writeStatus(pdb: Obj, build: (cur: Obj) => Record<string, any>): Promise<void> {
    const ns = pdb.metadata.namespace!;
    const rv = pdb.metadata.resourceVersion;
    await this.pdbClient.updateStatus(ns, pdb.metadata.name!, (cur) => {
      // UpdateStatus of what was read: a conflict requeues.
      cur.metadata.resourceVersion = rv;
      (cur as Obj).status = build(cur as Obj);
      return cur;
    });
  }

  /** nonTerminatingPodHasStaleDisruptionCondition, scheduling the reset. */
  private checkStale(pod: Obj): void {
    if (pod.metadata.deletionTimestamp || isPodTerminal(pod)) return;
    const cond = (pod.status?.conditions ?? []).find((c: any) => c?.type === 'DisruptionTarget');
    if (!cond || cond.status !== 'True' || cond.reason === 'TerminationByKubelet') return;
    const key = `pod:${pod.metadata.namespace}/${pod.metadata.name}`;
    const wait = Math.max(0, Date.parse(cond.lastTransitionTime ?? '') + STALE_POD_DISRUPTION_TIMEOUT_MS - this.now());
    this.queue.addAfter(key, Number.isNaN(wait) ? 0 : wait);
  }

  /** syncStalePodDisruption: the DisruptionTarget condition goes False. */
  private async syncStalePod(key: string): Promise<void> {
    const [ns, name] = splitKey(key);
    const pod = this.pods.get(ns)?.get(name);
    if (!pod || pod.metadata.deletionTimestamp || isPodTerminal(pod)) return;
    const cond = (pod.status?.conditions ?? []).find((c: any) => c?.type === 'DisruptionTarget');
    if (!cond || cond.status !== 'True' || cond.reason === 'TerminationByKubelet') return;
    if (Date.parse(cond.lastTransitionTime ?? '') + STALE_POD_DISRUPTION_TIMEOUT_MS > this.now()) { this.checkStale(pod); return; }
    const stamp = rfc3339(new Date(this.now()));
    await this.podClient.updateStatus(ns, name, (p) => {
      const st = ((p as Obj).status ??= {});
      // UpdatePodCondition with only type and status: reason and message are cleared.
      st.conditions = (st.conditions ?? []).map((c: any) => (c?.type === 'DisruptionTarget' && c.status === 'True'
        ? { type: 'DisruptionTarget', status: 'False', lastProbeTime: null, lastTransitionTime: stamp } : c));
      return p;
    }).catch((e) => {
      if (!(e instanceof StatusError && e.status.code === 404)) throw e;
    });
  }
}

/** UpdateDisruptionAllowedCondition. */
function allowedCondition(disruptionsAllowed: number, observedGeneration: number): Record<string, any> {
  return disruptionsAllowed > 0
    ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration }
    : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', observedGeneration };
}

/** apimeta.SetStatusCondition: lastTransitionTime moves only when the status changes. */
function setCondition(conditions: any[], cond: Record<string, any>, now: number): any[] {
  const i = conditions.findIndex((c) => c?.type === cond.type);
  if (i < 0) return [...conditions, { ...cond, lastTransitionTime: rfc3339(new Date(now)) }];
  const old = conditions[i];
  const next = { type: cond.type, status: cond.status, observedGeneration: cond.observedGeneration,
    lastTransitionTime: old.status === cond.status ? old.lastTransitionTime : rfc3339(new Date(now)), reason: cond.reason, message: cond.message };
  return conditions.map((c, j) => (j === i ? next : c));
}

/** How Go's %v prints a *metav1.LabelSelector (its generated String method), for the UnmanagedPods event. */
export function goSelector(sel: any): string {
  if (!sel) return '<nil>';
  const keys = Object.keys(sel.matchLabels ?? {}).sort();
  const labels = keys.map((k) => `${k}: ${sel.matchLabels[k]},`).join('');
  const exprs = (sel.matchExpressions ?? []).map((e: any) =>
    `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

function podRef(pod: Obj): ObjectReference {
  return { kind: 'Pod', apiVersion: 'v1', name: pod.metadata.name!, namespace: pod.metadata.namespace, uid: pod.metadata.uid, resourceVersion: pod.metadata.resourceVersion };
}
