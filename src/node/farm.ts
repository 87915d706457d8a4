/**
 * The node farm: every emulated kubelet of the cluster in this one process
 * (KWOK-style), writing in-process through the Store. Each node registers,
 * posts its status, holds its Lease and heartbeats on one shared timer wheel.
 */
import { StatusError } from '../api/status.js';
import { controllerContext } from '../controllers/context.js';
import type { Store } from '../registry/store.js';
import type { KObject, ResourceDef } from '../registry/types.js';
import { conditionsChanged, type NodeCondition } from './conditions.js';
import { machineIdentity, type MachineIdentity } from './identity.js';
import { NODE_LEASE_NAMESPACE, NODE_LEASE_RENEW_INTERVAL_MS, NODE_STATUS_REPORT_FREQUENCY_MS, microTime, nodeLease, rfc3339Seconds } from './lease.js';
import { buildNode, nodeStatus } from './node-object.js';
import type { NodeConfig } from './pool.js';
import { TimerWheel, type WheelTask } from './timer-wheel.js';

const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';

interface Agent { cfg: NodeConfig; index: number; id: MachineIdentity; uid: string; tasks: WheelTask[] }

export class NodeFarm {
  private readonly agents: Agent[] = [];
  private readonly wheel: TimerWheel;
  private inflight = new Set<Promise<unknown>>();
  private stopped = false;
  private readonly nodeDef: ResourceDef;
  private readonly leaseDef: ResourceDef;

  constructor(private readonly store: Store, private readonly nodes: NodeConfig[],
    private readonly log: (m: string) => void = () => {}, wheel?: TimerWheel) {
    this.wheel = wheel ?? new TimerWheel(1000);
    this.nodeDef = store.find('', 'v1', 'nodes')!;
    this.leaseDef = store.find('coordination.k8s.io', 'v1', 'leases')!;
  }

  /** Registers every node, Ready, with its Lease; then starts the heartbeats. */
  async start(): Promise<void> {
    await Promise.all(this.nodes.map(async (cfg, index) => {
      const agent: Agent = { cfg, index, id: machineIdentity(cfg.name, cfg.os), uid: '', tasks: [] };
      await this.register(agent);
      await this.renewLease(agent);
      this.agents.push(agent);
    }));
    for (const agent of this.agents) {
      agent.tasks.push(this.wheel.every(NODE_LEASE_RENEW_INTERVAL_MS, () => this.track(this.renewLease(agent))));
      agent.tasks.push(this.wheel.every(NODE_STATUS_REPORT_FREQUENCY_MS, () => this.track(this.postStatus(agent))));
    }
  }

  /** Stops every heartbeat and waits for writes in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const a of this.agents) for (const t of a.tasks) t.cancel();
    this.wheel.stop();
    await Promise.allSettled([...this.inflight]);
  }

  get nodeNames(): string[] { return this.nodes.map((n) => n.name); }

  private track(p: Promise<unknown>): void {
    const q = p.catch((e) => { if (!this.stopped) this.log(`node farm: ${(e as Error).message}`); }).finally(() => this.inflight.delete(q));
    this.inflight.add(q);
  }

  private async register(agent: Agent): Promise<void> {
    const now = new Date();
    const ctx = controllerContext('kubelet');
    let node: KObject;
    try {
      node = await this.store.create(this.nodeDef, '', buildNode(agent.cfg, agent.index, agent.id, rfc3339Seconds(now)) as KObject, ctx);
    } catch (e) {
      if (!(e instanceof StatusError && e.status.reason === 'AlreadyExists')) throw e;
      // A node already registered (a restart): the kubelet posts a fresh status over it. Windows
      // counts boots in its BootId registry value: one more than the last boot this node reported.
      const prevBoot = ((await this.store.get('', 'nodes', '', agent.cfg.name))?.status as any)?.nodeInfo?.bootID;
      if (agent.cfg.os === 'windows' && /^\d+$/.test(prevBoot ?? '')) agent.id = { ...agent.id, bootID: String(Number(prevBoot) + 1) };
      node = await this.postStatus(agent, true);
    }
    agent.uid = node.metadata.uid!;
    await this.clearNotReadyTaint(agent);
  }

  /**
   * TaintNodesByCondition admission tainted the node not-ready at
   * registration. Upstream the node lifecycle controller removes that taint
   * once the node reports Ready; winkube has no such controller yet (it
   * comes with the controllers issue), so the node agent does what that
   * controller would do, right after posting Ready status.
   */
  private async clearNotReadyTaint(agent: Agent): Promise<void> {
    const cur = await this.store.get('', 'nodes', '', agent.cfg.name);
    if (!((cur?.spec as any)?.taints ?? []).some((t: any) => t?.key === NOT_READY_TAINT)) return;
    await this.store.update(this.nodeDef, '', agent.cfg.name, (n) => {
      const spec = (n.spec ??= {}) as Record<string, any>;
      const taints = (spec.taints ?? []).filter((t: any) => t?.key !== NOT_READY_TAINT);
      if (taints.length) spec.taints = taints; else delete spec.taints;
      return n;
    }, controllerContext('node-lifecycle-controller'));
  }

  /** Posts the node status (every nodeStatusReportFrequency, or at once when something changed). */
  async postStatus(agent: Agent, force = false): Promise<KObject> {
    const now = rfc3339Seconds(new Date());
    return this.store.update(this.nodeDef, '', agent.cfg.name, (n) => {
      const prev: NodeCondition[] = ((n.status as any)?.conditions ?? []) as NodeCondition[];
      const status = nodeStatus(agent.cfg, agent.index, agent.id, now, prev);
      if (!force && !conditionsChanged(prev, status.conditions as NodeCondition[])) {
        // Unchanged: only the heartbeat times move.
        (n.status as any).conditions = status.conditions;
        return n;
      }
      n.status = { ...(n.status as object), ...status };
      return n;
    }, controllerContext('kubelet'), 'status');
  }

  private async renewLease(agent: Agent): Promise<void> {
    const now = new Date();
    const ctx = { ...controllerContext('kubelet'), namespace: NODE_LEASE_NAMESPACE };
    const existing = await this.store.get('coordination.k8s.io', 'leases', NODE_LEASE_NAMESPACE, agent.cfg.name);
    if (!existing) {
      try {
        await this.store.create(this.leaseDef, NODE_LEASE_NAMESPACE, nodeLease(agent.cfg.name, agent.uid, now) as KObject, ctx);
        return;
      } catch (e) {
        if (!(e instanceof StatusError && e.status.reason === 'AlreadyExists')) throw e;
      }
    }
    await this.store.update(this.leaseDef, NODE_LEASE_NAMESPACE, agent.cfg.name, (l) => {
      const spec = (l.spec ??= {}) as Record<string, any>;
      spec.holderIdentity = agent.cfg.name;
      spec.leaseDurationSeconds = 40;
      spec.renewTime = microTime(now);
      if (!(l.metadata.ownerReferences ?? []).length) l.metadata.ownerReferences = nodeLease(agent.cfg.name, agent.uid, now).metadata.ownerReferences;
      return l;
    }, ctx);
  }
}
