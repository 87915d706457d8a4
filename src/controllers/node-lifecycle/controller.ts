/**
 * The node lifecycle controller of kube-controller-manager
 * (pkg/controller/nodelifecycle/node_lifecycle_controller.go, v1.32),
 * in-process. Every node-monitor-period it checks each node's heartbeat
 * (its Ready condition's lastHeartbeatTime and its Lease in
 * kube-node-lease): a node silent for longer than the grace period gets its
 * conditions set Unknown ("Kubelet stopped posting node status."), a
 * NodeNotReady event, its pods' Ready condition set False, and — at the
 * zone's eviction rate — the `node.kubernetes.io/unreachable:NoExecute`
 * taint (`not-ready:NoExecute` for a node reporting Ready=False), which the
 * taint eviction controller acts on. On every node change it keeps the
 * NoSchedule taints in step with the conditions and spec.unschedulable
 * (TaintNodesByCondition), which is how a registering node loses its
 * not-ready taint and a cordoned node gets `node.kubernetes.io/unschedulable`.
 */
import { parseDuration } from '../../apimachinery/duration.js';
import { setImmediate } from 'node:timers/promises';
import { StatusError } from '../../apimachinery/errors.js';
import type { EventRecorder, ObjectReference } from '../../events/recorder.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { KObject } from '../../apimachinery/object.js';
import { plain } from '../../client/plain.js';
import { leases, nodes, pods } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import { newQueue, type ControllerContext } from '../runtime/controller-context.js';
import type { RateLimitingQueue } from '../../client/work-queue.js';
import { matchTaint, noScheduleTaintDiff, NOT_READY_NO_EXECUTE, type Taint, UNREACHABLE_NO_EXECUTE } from './taints.js';

export const COMPONENT = 'node-controller';
const MANAGER = 'node-lifecycle-controller';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const EXCLUDE_DISRUPTION_LABEL = 'node.kubernetes.io/exclude-disruption';

export interface NodeLifecycleOptions {
  /** --node-monitor-period (5 s). */
  monitorPeriodMs: number;
  /** --node-monitor-grace-period (50 s since v1.32). */
  gracePeriodMs: number;
  /** --node-startup-grace-period (60 s): for nodes that never posted a Ready condition. */
  startupGracePeriodMs: number;
  /** --node-eviction-rate (0.1 nodes/s per zone) and --secondary-node-eviction-rate (0.01). */
  evictionRate: number;
  secondaryEvictionRate: number;
  /** --large-cluster-size-threshold (50) and --unhealthy-zone-threshold (0.55). */
  largeClusterSizeThreshold: number;
  unhealthyZoneThreshold: number;
}

export const DEFAULT_NODE_LIFECYCLE_OPTIONS: NodeLifecycleOptions = {
  monitorPeriodMs: 5_000, gracePeriodMs: 50_000, startupGracePeriodMs: 60_000,
  evictionRate: 0.1, secondaryEvictionRate: 0.01, largeClusterSizeThreshold: 50, unhealthyZoneThreshold: 0.55,
};


/**
 * Options from the environment, for tests that cannot wait upstream's
 * periods: WINKUBE_NODE_MONITOR_PERIOD, WINKUBE_NODE_MONITOR_GRACE_PERIOD,
 * WINKUBE_NODE_STARTUP_GRACE_PERIOD (Go durations), WINKUBE_NODE_EVICTION_RATE.
 */
export function nodeLifecycleOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): NodeLifecycleOptions {
  const o = { ...DEFAULT_NODE_LIFECYCLE_OPTIONS };
  const d = (name: string) => (env[name] ? parseDuration(env[name]!) : undefined);
  o.monitorPeriodMs = d('WINKUBE_NODE_MONITOR_PERIOD') ?? o.monitorPeriodMs;
  o.gracePeriodMs = d('WINKUBE_NODE_MONITOR_GRACE_PERIOD') ?? o.gracePeriodMs;
  o.startupGracePeriodMs = d('WINKUBE_NODE_STARTUP_GRACE_PERIOD') ?? o.startupGracePeriodMs;
  const rate = Number(env.WINKUBE_NODE_EVICTION_RATE);
  if (env.WINKUBE_NODE_EVICTION_RATE && rate > 0) o.evictionRate = rate;
  return o;
}

interface Condition { type: string; status: string; reason?: string; message?: string; lastHeartbeatTime?: string; lastTransitionTime?: string }
interface Health {
  ready?: Condition;
  probe: number;
  readyTransition: number;
  leaseRenew?: string;
}
type Node = KObject & { spec?: any; status?: any };

/** Work done in one turn of the event loop before monitorNodeHealth lets timers and I/O run (the nodes' Lease renewals share the loop). */
const SLICE_MS = 20;

/** Yields to the event loop once `since` is SLICE_MS old; returns when the next slice started. */
async function yieldAfter(since: number): Promise<number> {
  if (performance.now() - since < SLICE_MS) return since;
  await setImmediate();
  return performance.now();
}

const readyOf = (node: Node): Condition | undefined => (node.status?.conditions ?? []).find((c: Condition) => c?.type === 'Ready');
const microMs = (t: string | undefined) => (t ? Date.parse(t) : NaN);

/** nodetopology.GetZoneKey: region and zone labels, or '' without them. */
export function zoneKey(node: Node): string {
  const l = node.metadata.labels ?? {};
  const region = l['topology.kubernetes.io/region'] ?? '';
  const zone = l['topology.kubernetes.io/zone'] ?? '';
  return region === '' && zone === '' ? '' : `${region}:\u0000:${zone}`;
}

type ZoneState = 'Initial' | 'Normal' | 'FullDisruption' | 'PartialDisruption';

export class NodeLifecycleController {
  private readonly opts: NodeLifecycleOptions;
  private readonly nodes = new Map<string, Node>();
  private readonly leases = new Map<string, KObject>();
  private readonly podsByNode = new Map<string, Map<string, KObject>>();
  private readonly health = new Map<string, Health>();
  private readonly known = new Map<string, string>();
  /** Nodes waiting for their NoExecute taint, per zone, in order (RateLimitedTimedQueue). */
  private readonly taintQueues = new Map<string, Set<string>>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly zoneTokens = new Map<string, { tokens: number; at: number }>();
  private readonly retry = new Set<string>();
  private readonly noScheduleQueue: RateLimitingQueue;
  private readonly nodeClient: ResourceClient<KObject>;
  private readonly podClient: ResourceClient<KObject>;
  private timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private monitoring = false;

  private readonly events: EventRecorder;
  private readonly log: (m: string) => void;
  private readonly now: () => number;

  constructor(private readonly ctx: ControllerContext, opts: Partial<NodeLifecycleOptions> = {}) {
    this.events = ctx.events;
    this.log = ctx.log;
    this.now = () => ctx.clock.now();
    this.opts = { ...DEFAULT_NODE_LIFECYCLE_OPTIONS, ...opts };
    this.nodeClient = ctx.client.resource(plain(nodes));
    this.podClient = ctx.client.resource(plain(pods));
    this.noScheduleQueue = newQueue(ctx);
  }

  async start(): Promise<void> {
    // Nodes and pods from the shared informers (upstream's factory): one cache of thousands of pods, not one more.
    const nodeInformer = this.ctx.informers.forResource(nodes);
    this.unsubscribe.push(nodeInformer.onEvent((type, node) => {
      if (type === 'DELETED') this.nodes.delete(node.metadata.name!); else this.nodes.set(node.metadata.name!, node);
      if (type !== 'DELETED') this.noScheduleQueue.add(node.metadata.name!);
    }));
    await nodeInformer.start();
    await this.ctx.informers.inform(leases, (type, lease) => {
      if (lease.metadata.namespace !== NODE_LEASE_NAMESPACE) return;
      if (type === 'DELETED') this.leases.delete(lease.metadata.name!); else this.leases.set(lease.metadata.name!, lease);
    });
    const podInformer = this.ctx.informers.forResource(pods);
    this.unsubscribe.push(podInformer.onEvent((type, pod) => {
      const node = (pod.spec as any)?.nodeName as string | undefined;
      if (!node) return;
      let byName = this.podsByNode.get(node);
      if (!byName) this.podsByNode.set(node, byName = new Map());
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      const isNew = !byName.has(key);
      if (type === 'DELETED') byName.delete(key); else byName.set(key, pod);
      // processPod: a pod newly bound to a node that is not Ready is marked not ready at once.
      if (type !== 'DELETED' && isNew) {
        const ready = this.health.get(node)?.ready;
        if (ready && ready.status !== 'True') void this.markPodsNotReady([pod], node).catch((e) => this.log(`node lifecycle: ${(e as Error).message}`));
      }
    }));
    await podInformer.start();
    const tick = () => {
      if (this.monitoring) return;
      this.monitoring = true;
      this.monitorNodeHealth().catch((e) => this.log(`node lifecycle: ${(e as Error).message}`)).finally(() => { this.monitoring = false; });
    };
    this.timers.push(setInterval(tick, this.opts.monitorPeriodMs));
    // doNoExecuteTaintingPass runs every NodeEvictionPeriod (100 ms).
    this.timers.push(setInterval(() => void this.doNoExecuteTaintingPass().catch((e) => this.log(`node lifecycle: ${(e as Error).message}`)), 100));
    for (const t of this.timers) t.unref();
    tick();
    // Workers start once the informers have synced (WaitForCacheSync), so no sync sees a half-filled cache.
    this.noScheduleQueue.run(8, (n) => this.doNoScheduleTaintingPass(n), (n, e) => this.ctx.log(`node lifecycle ${n}: ${(e as Error).message}`));
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    for (const u of this.unsubscribe.splice(0)) u();
    this.noScheduleQueue.shutDown();
  }

  private nodeRef(node: Node): ObjectReference {
    // RecordNodeEvent's reference: kind, name and UID only.
    return { kind: 'Node', name: node.metadata.name!, uid: node.metadata.uid } as ObjectReference;
  }

  /** monitorNodeHealth. */
  async monitorNodeHealth(): Promise<void> {
    const nodes = [...this.nodes.values()];
    const names = new Set(nodes.map((n) => n.metadata.name!));
    let slice = performance.now();
    for (const node of nodes) {
      slice = await yieldAfter(slice);
      const name = node.metadata.name!;
      if (!this.known.has(name)) {
        void this.events.record(this.nodeRef(node), 'Normal', 'RegisteredNode', `Registered Node ${name} in Controller`, COMPONENT);
        this.known.set(name, node.metadata.uid!);
        await this.markNodeAsReachable(name);
      }
    }
    for (const [name, uid] of this.known) {
      if (names.has(name)) continue;
      void this.events.record({ kind: 'Node', name, uid } as ObjectReference, 'Normal', 'RemovingNode', `Removing Node ${name} from Controller`, COMPONENT);
      this.known.delete(name);
      this.health.delete(name);
      for (const q of this.taintQueues.values()) q.delete(name);
    }
    const zoneConditions = new Map<string, (Condition | undefined)[]>();
    for (const cached of nodes) {
      slice = await yieldAfter(slice);
      const name = cached.metadata.name!;
      let result: { observed: Condition; current: Condition | undefined; node: Node } | undefined;
      try {
        result = await this.tryUpdateNodeHealth(cached);
      } catch (e) {
        this.log(`node lifecycle: updating health of node ${name}: ${(e as Error).message}`);
        continue;
      }
      const { observed, current, node } = result;
      if (!(EXCLUDE_DISRUPTION_LABEL in (node.metadata.labels ?? {}))) {
        const z = zoneKey(node);
        if (!zoneConditions.has(z)) zoneConditions.set(z, []);
        zoneConditions.get(z)!.push(current);
      }
      if (!current) continue;
      await this.processTaintBaseEviction(node, observed);
      const needsRetry = this.retry.has(name);
      const pods = [...(this.podsByNode.get(name)?.values() ?? [])];
      try {
        if (current.status !== 'True' && observed.status === 'True') {
          void this.events.record(this.nodeRef(node), 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`, COMPONENT);
          await this.markPodsNotReady(pods, name);
        } else if (needsRetry && observed.status !== 'True') {
          await this.markPodsNotReady(pods, name);
        }
      } catch (e) {
        this.log(`node lifecycle: unable to mark all pods NotReady on node ${name}: ${(e as Error).message}; queuing for retry`);
        this.retry.add(name);
        continue;
      }
      this.retry.delete(name);
    }
    await this.handleDisruption(zoneConditions, nodes);
  }

  /** tryUpdateNodeHealth: returns the Ready condition observed before and after this pass. */
  private async tryUpdateNodeHealth(cached: Node): Promise<{ observed: Condition; current: Condition | undefined; node: Node }> {
    // Read from the cache; copied only when the conditions are about to be rewritten (every node, every monitor period).
    let node: Node = cached;
    const name = node.metadata.name!;
    const now = this.now();
    const created = Date.parse(node.metadata.creationTimestamp ?? '') || now;
    let health = this.health.get(name);
    const currentReady = readyOf(node);
    let observed: Condition;
    let grace: number;
    if (!currentReady) {
      // Never posted: a fake Unknown condition dated at creation, and the startup grace period.
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: node.metadata.creationTimestamp };
      grace = this.opts.startupGracePeriodMs;
      if (!health) health = { probe: created, readyTransition: created };
    } else {
      observed = { ...currentReady };
      grace = this.opts.gracePeriodMs;
    }
    const saved = health?.ready;
    if (!health) {
      health = { probe: now, readyTransition: now };
    } else if (!saved && currentReady) {
      health = { probe: now, readyTransition: now };
    } else if (saved && !currentReady) {
      health = { probe: now, readyTransition: now };
    } else if (saved && currentReady && saved.lastHeartbeatTime !== currentReady.lastHeartbeatTime) {
      const transition = saved.lastTransitionTime !== currentReady.lastTransitionTime ? now : health.readyTransition;
      health = { probe: now, readyTransition: transition, leaseRenew: health.leaseRenew };
    }
    health.ready = currentReady ? { ...currentReady } : undefined;
    // A renewed Lease counts as a heartbeat.
    const lease = this.leases.get(name);
    const renew = (lease?.spec as any)?.renewTime as string | undefined;
    if (renew && (!health.leaseRenew || microMs(health.leaseRenew) < microMs(renew))) {
      health.leaseRenew = renew;
      health.probe = now;
    }
    this.health.set(name, health);
    if (now <= health.probe + grace) return { observed, current: currentReady, node };
    node = structuredClone(cached);
    const stamp = rfc3339(new Date(now));
    const conditions: Condition[] = node.status.conditions ??= [];
    for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
      const c = conditions.find((x) => x?.type === type);
      if (!c) {
        conditions.push({ type, status: 'Unknown', lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: stamp,
          reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.' });
      } else if (c.status !== 'Unknown') {
        c.status = 'Unknown';
        c.reason = 'NodeStatusUnknown';
        c.message = 'Kubelet stopped posting node status.';
        c.lastTransitionTime = stamp;
      }
    }
    const current = readyOf(node)!;
    if (currentReady && JSON.stringify(current) === JSON.stringify(observed)) return { observed, current, node };
    const rv = cached.metadata.resourceVersion;
    const written = await this.nodeClient.updateStatus('', name, (n) => {
      // UpdateStatus of the cached copy: a conflict means the kubelet spoke meanwhile.
      n.metadata.resourceVersion = rv;
      (n as Node).status = { ...(n as Node).status, conditions };
      return n;
    }, { fieldManager: MANAGER });
    this.health.set(name, { ready: { ...current }, probe: health.probe, readyTransition: now, leaseRenew: health.leaseRenew });
    return { observed, current, node: written as Node };
  }

  /** processTaintBaseEviction, by the Ready condition observed before this pass. */
  private async processTaintBaseEviction(node: Node, observed: Condition): Promise<void> {
    const taints: Taint[] = node.spec?.taints ?? [];
    const name = node.metadata.name!;
    const has = (t: Taint) => taints.some((x) => matchTaint(x, t));
    if (observed.status === 'False') {
      if (has(UNREACHABLE_NO_EXECUTE)) await this.swapTaints(name, [NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE]);
      else this.markForTainting(node);
    } else if (observed.status === 'Unknown') {
      if (has(NOT_READY_NO_EXECUTE)) await this.swapTaints(name, [UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE]);
      else this.markForTainting(node);
    } else if (observed.status === 'True') {
      await this.markNodeAsReachable(name);
    }
  }

  private markForTainting(node: Node): void {
    const z = zoneKey(node);
    if (!this.taintQueues.has(z)) this.taintQueues.set(z, new Set());
    this.taintQueues.get(z)!.add(node.metadata.name!);
  }

  /** markNodeAsReachable: both NoExecute taints go, and the node leaves the taint queue. */
  private async markNodeAsReachable(name: string): Promise<void> {
    for (const q of this.taintQueues.values()) q.delete(name);
    const node = this.nodes.get(name);
    const taints: Taint[] = (node?.spec as any)?.taints ?? [];
    if (!taints.some((t) => matchTaint(t, UNREACHABLE_NO_EXECUTE) || matchTaint(t, NOT_READY_NO_EXECUTE))) return;
    await this.swapTaints(name, [], [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE]);
  }

  /** SwapNodeControllerTaint: added taints are stamped with timeAdded. */
  private async swapTaints(name: string, add: Taint[], remove: Taint[]): Promise<boolean> {
    const stamp = rfc3339(new Date(this.now()));
    try {
      await this.nodeClient.update('', name, (n) => {
        const spec = ((n as Node).spec ??= {});
        let taints: Taint[] = (spec.taints ?? []).filter((t: Taint) => !remove.some((r) => matchTaint(r, t)));
        for (const t of add) {
          const i = taints.findIndex((x) => matchTaint(x, t));
          const next = { ...t, timeAdded: stamp };
          if (i >= 0) taints[i] = next; else taints = [...taints, next];
        }
        if (taints.length) spec.taints = taints; else delete spec.taints;
        return n;
      }, { fieldManager: MANAGER });
      return true;
    } catch (e) {
      if (e instanceof StatusError && e.status.code === 404) return true;
      this.log(`node lifecycle: swapping taints of node ${name}: ${(e as Error).message}`);
      return false;
    }
  }

  /** doNoScheduleTaintingPass. */
  private async doNoScheduleTaintingPass(name: string): Promise<void> {
    const node = this.nodes.get(name);
    if (!node) return;
    const { add, remove } = noScheduleTaintDiff(node);
    if (!add.length && !remove.length) return;
    if (!(await this.swapTaints(name, add, remove))) throw new Error(`failed to swap taints of node ${name}`);
  }

  /** doNoExecuteTaintingPass, with each zone's token bucket (burst 1) as the rate limiter. */
  private async doNoExecuteTaintingPass(): Promise<void> {
    for (const [zone, queue] of this.taintQueues) {
      for (const name of [...queue]) {
        const rate = this.zoneRate(zone);
        if (rate <= 0) break;
        const bucket = this.zoneTokens.get(zone) ?? { tokens: 1, at: this.now() };
        const now = this.now();
        bucket.tokens = Math.min(1, bucket.tokens + ((now - bucket.at) / 1000) * rate);
        bucket.at = now;
        this.zoneTokens.set(zone, bucket);
        if (bucket.tokens < 1) break;
        const node = this.nodes.get(name);
        const ready = node && readyOf(node);
        if (!node) { queue.delete(name); continue; }
        if (!ready) continue; // retried on the next pass
        let add: Taint;
        let opposite: Taint;
        if (ready.status === 'False') { add = NOT_READY_NO_EXECUTE; opposite = UNREACHABLE_NO_EXECUTE; }
        else if (ready.status === 'Unknown') { add = UNREACHABLE_NO_EXECUTE; opposite = NOT_READY_NO_EXECUTE; }
        else { queue.delete(name); continue; }
        bucket.tokens -= 1;
        if (await this.swapTaints(name, [add], [opposite])) queue.delete(name);
      }
    }
  }

  private zoneRate(zone: string): number {
    switch (this.zoneStates.get(zone) ?? 'Normal') {
      case 'PartialDisruption': {
        const size = [...this.nodes.values()].filter((n) => zoneKey(n) === zone).length;
        return size > this.opts.largeClusterSizeThreshold ? this.opts.secondaryEvictionRate : 0;
      }
      case 'FullDisruption': return this.allFullyDisrupted ? 0 : this.opts.evictionRate;
      default: return this.opts.evictionRate;
    }
  }

  private allFullyDisrupted = false;

  /** ComputeZoneState. */
  private zoneState(conditions: (Condition | undefined)[]): ZoneState {
    let ready = 0;
    let notReady = 0;
    for (const c of conditions) if (c && c.status === 'True') ready++; else notReady++;
    if (ready === 0 && notReady > 0) return 'FullDisruption';
    if (notReady > 2 && notReady / (notReady + ready) >= this.opts.unhealthyZoneThreshold) return 'PartialDisruption';
    return 'Normal';
  }

  /** handleDisruption: when every zone is fully disrupted, evictions stop and the NoExecute taints come off. */
  private async handleDisruption(zoneConditions: Map<string, (Condition | undefined)[]>, nodes: Node[]): Promise<void> {
    const newStates = new Map<string, ZoneState>();
    for (const [z, conds] of zoneConditions) newStates.set(z, this.zoneState(conds));
    const allAre = newStates.size > 0 && [...newStates.values()].every((s) => s === 'FullDisruption');
    const allWere = this.allFullyDisrupted;
    if (allAre && !allWere) {
      this.log('node lifecycle: Controller detected that all Nodes are not-Ready. Entering master disruption mode');
      for (const n of nodes) await this.markNodeAsReachable(n.metadata.name!);
    } else if (!allAre && allWere) {
      this.log('node lifecycle: Controller detected that some Nodes are Ready. Exiting master disruption mode');
      const now = this.now();
      for (const h of this.health.values()) { h.probe = now; h.readyTransition = now; }
    }
    this.allFullyDisrupted = allAre;
    this.zoneStates.clear();
    for (const [z, s] of newStates) this.zoneStates.set(z, s);
  }

  /** MarkPodsNotReady: each pod's Ready condition turns False, with a NodeNotReady event. */
  private async markPodsNotReady(pods: KObject[], nodeName: string): Promise<void> {
    const errs: string[] = [];
    for (const pod of pods) {
      if ((pod.spec as any)?.nodeName !== nodeName) continue;
      const ready = ((pod.status as any)?.conditions ?? []).find((c: any) => c?.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      const ns = pod.metadata.namespace!;
      try {
        const updated = await this.podClient.updateStatus(ns, pod.metadata.name!, (p) => {
          const st = ((p as any).status ??= {});
          st.conditions = (st.conditions ?? []).map((c: any) => (c?.type === 'Ready' && c.status !== 'False'
            ? { ...c, status: 'False', lastTransitionTime: rfc3339(new Date(this.now())) } : c));
          return p;
        }, { fieldManager: MANAGER });
        void this.events.record(refTo(updated), 'Warning', 'NodeNotReady', 'Node is not ready', COMPONENT);
      } catch (e) {
        if (e instanceof StatusError && e.status.code === 404) continue;
        errs.push((e as Error).message);
      }
    }
    if (errs.length) throw new Error(errs.join('; '));
  }
}

function refTo(obj: KObject): ObjectReference {
  const ref: ObjectReference = { kind: obj.kind!, apiVersion: obj.apiVersion!, name: obj.metadata.name!, namespace: obj.metadata.namespace };
  if (obj.metadata.uid) ref.uid = obj.metadata.uid;
  if (obj.metadata.resourceVersion) ref.resourceVersion = obj.metadata.resourceVersion;
  return ref;
}
