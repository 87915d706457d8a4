/**
 * The node farm: every emulated kubelet of the cluster in this one process
 * (KWOK-style), each writing through the client as its own kubelet
 * (system:node:<name>): in-process, or over HTTPS for `winkube agent`. Each
 * node registers, posts its status, holds its Lease and heartbeats on one
 * shared timer wheel.
 * Nodes can be added, removed, stopped and started while the cluster runs;
 * listeners (the kubelet's pod workers) hear about each change.
 */
import { randomUUID } from 'node:crypto';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, NodeStatus } from 'kubernetes-types/core/v1.js';
import { errors, isAlreadyExists, isNotFound } from '../apimachinery/errors.js';
import { nodeUser } from '../client/identities.js';
import { leases, nodes as nodeResource } from '../client/resources.js';
import type { Client, ResourceClient } from '../client/types.js';
import { conditionEvents, conditionsChanged, type NodeCondition } from './conditions.js';
import type { EventRecorder, EventType, ObjectReference } from '../events/recorder.js';
import { machineIdentity, type MachineIdentity } from './identity.js';
import { NODE_LEASE_NAMESPACE, NODE_STATUS_REPORT_FREQUENCY_MS, leaseRenewIntervalMs, nodeLease } from './lease.js';
import { rfc3339Micro, rfc3339 } from '../apimachinery/time.js';
import { buildNode, nodeStatus } from './node-object.js';
import { isNodeForbiddenLabel } from '../component-helpers/node-labels.js';
import type { NodeConfig, NodePool } from './pool.js';
import { TimerWheel, type WheelTask } from './timer-wheel.js';
import { podSubnetCapacity } from './network.js';
import { nodeStatusImages, type ContainerImage } from './kubelet/images.js';
import { prePulledImages } from './kubelet/kubelet.js';

/** KubeletConfiguration nodeStatusUpdateFrequency: a changed status (new images) is posted within this. */
const NODE_STATUS_UPDATE_FREQUENCY_MS = 10_000;

/** The images a node's runtime holds; undefined when unknown (the pre-pulled sandbox image is reported then). */
export type NodeImageSource = (nodeName: string) => ContainerImage[] | undefined;

/** Node events written at once, at most. */
const EVENT_CONCURRENCY = 4;
const NODES = { group: '', resource: 'nodes' };

/**
 * What the rest of winkube hears from the farm. `onNodeAdded` fires for
 * every node once it is registered (the nodes the farm starts with too),
 * `onNodeRemoved` after its Node and Lease are deleted, `onNodeStopped`
 * when its kubelet stops (no more heartbeats; its pods stay as they are),
 * `onNodeStarted` when it boots again with a new boot ID.
 */
export interface FarmListener {
  onNodeAdded?(cfg: NodeConfig): void;
  onNodeRemoved?(name: string): void;
  onNodeStopped?(name: string): void;
  onNodeStarted?(name: string): void;
}

/** One node of the farm as `winkube node list` shows it. */
export interface FarmNode { name: string; pool: string; os: string; index: number; running: boolean; bootID: string }

const renewMs = (a: { cfg: NodeConfig }) => leaseRenewIntervalMs(a.cfg.nodeLeaseDurationSeconds);

interface Agent {
  cfg: NodeConfig; index: number; id: MachineIdentity; uid: string; tasks: WheelTask[];
  /** Its kubelet's handles: writes as system:node:<name>, field manager "kubelet". */
  nodes: ResourceClient<Node>; leases: ResourceClient<Lease>;
  /** Its kubelet's node events, created as system:node:<name>; none when the farm records none. */
  events?: EventRecorder;
  running: boolean; leaseExists: boolean;
  /** When the machine (and its kubelet) last booted. */
  bootedAt: Date;
  /** kl.lastNodeUnschedulable: spec.unschedulable as this kubelet process last saw it (false when it starts). */
  lastUnschedulable: boolean;
  /** The eviction manager's IsUnderMemoryPressure, which the MemoryPressure setter reads. */
  memoryPressure: boolean;
}

export class NodeFarm {
  private readonly agents = new Map<string, Agent>();
  private readonly wheel: TimerWheel;
  private readonly listeners: FarmListener[] = [];
  private inflight = new Set<Promise<unknown>>();
  private stopped = false;
  private nextIndex = 0;
  private readonly eventQueue: Array<() => Promise<void>> = [];
  private eventsInFlight = 0;
  /** The farm's own reads and the machines' removal (`winkube node remove`). */
  private readonly nodes: ResourceClient<Node>;
  private readonly leases: ResourceClient<Lease>;
  private imageSource: NodeImageSource = () => undefined;
  private readonly imagesDirty = new Set<string>();

  constructor(private readonly client: Client, private readonly configs: ReadonlyArray<NodeConfig & { index?: number }>,
    private readonly log: (m: string) => void = () => {}, wheel?: TimerWheel,
    /** The pools `winkube node add --pool` draws from. */
    readonly pools: readonly NodePool[] = [],
    /** Where the kubelets' node events go (Starting, NodeHasSufficientMemory, Rebooted, ...); none without it. */
    private readonly events?: EventRecorder) {
    // 100 ms ticks: 5,000 nodes' renewals spread over 100 ticks of a 10 s interval, 50 a tick.
    this.wheel = wheel ?? new TimerWheel(100, 128);
    this.nodes = client.resource(nodeResource);
    this.leases = client.resource(leases);
  }

  addListener(l: FarmListener): void { this.listeners.push(l); }

  /** Where the nodes' status.images come from (the kubelets' image stores). */
  setImageSource(source: NodeImageSource): void { this.imageSource = source; }

  /**
   * A node's image set changed: its kubelet computes the status every
   * nodeStatusUpdateFrequency and posts it when it differs, so the new
   * images show within 10 s (one post however many images arrived meanwhile).
   */
  imagesChanged(name: string): void { this.statusChanged(name); }

  /**
   * The node's eviction manager says whether it is under memory pressure:
   * the MemoryPressure setter reads that at the next status update (within
   * nodeStatusUpdateFrequency), and the changed condition is posted then.
   */
  setMemoryPressure(name: string, underPressure: boolean): void {
    const agent = this.agents.get(name);
    if (!agent || agent.memoryPressure === underPressure) return;
    agent.memoryPressure = underPressure;
    this.statusChanged(name);
  }

  private statusChanged(name: string): void {
    if (this.imagesDirty.has(name) || this.stopped) return;
    this.imagesDirty.add(name);
    this.wheel.schedule(NODE_STATUS_UPDATE_FREQUENCY_MS, () => {
      this.imagesDirty.delete(name);
      const agent = this.agents.get(name);
      if (agent?.running) this.track(this.postStatus(agent));
    });
  }

  /** The images a node's runtime holds (the pre-pulled sandbox image when its kubelet has not said). */
  heldImages(name: string): ContainerImage[] {
    const agent = this.agents.get(name);
    return agent ? this.imageSource(name) ?? prePulledImages(agent.cfg) : [];
  }

  /** nodestatus.Images: the biggest 50 images of the node, omitted when there are none. */
  private statusImages(agent: Agent): ContainerImage[] {
    return nodeStatusImages(this.imageSource(agent.cfg.name) ?? prePulledImages(agent.cfg));
  }

  /**
   * Registers every node, Ready, with its Lease; then starts the heartbeats.
   * `stoppedNames` register nothing and stay stopped (nodes stopped in an earlier run).
   */
  async start(stoppedNames: ReadonlySet<string> = new Set()): Promise<void> {
    const fresh: Agent[] = [];
    // Nodes carry their index when they were added at run time (their pod CIDR must not move); the rest count by position.
    this.nextIndex = Math.max(0, ...this.configs.map((n) => (n.index ?? -1) + 1));
    this.configs.forEach((n, position) => {
      const { index, ...cfg } = n;
      const agent = this.newAgent(cfg, index ?? position);
      this.nextIndex = Math.max(this.nextIndex, agent.index + 1);
      this.agents.set(cfg.name, agent);
      if (!stoppedNames.has(cfg.name)) fresh.push(agent);
    });
    await Promise.all(fresh.map((a) => this.boot(a)));
    // Renewals spread evenly over the first interval, and status reports over the first report period,
    // as kubelets started at different times are: thousands of nodes booted at once do not all post at the same tick.
    fresh.forEach((a, i) => this.schedule(a, Math.max(1, Math.floor(((i + 1) * renewMs(a)) / fresh.length)),
      Math.max(1, Math.floor(((i + 1) * NODE_STATUS_REPORT_FREQUENCY_MS) / fresh.length))));
    this.wheel.every(NODE_STATUS_UPDATE_FREQUENCY_MS, () => { if (!this.stopped) this.track(this.syncStatuses()); });
    for (const a of this.agents.values()) {
      this.emit((l) => l.onNodeAdded?.(a.cfg));
      if (!a.running) this.emit((l) => l.onNodeStopped?.(a.cfg.name));
    }
  }

  /** Stops every heartbeat and waits for writes in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.eventQueue.length = 0;
    for (const a of this.agents.values()) this.cancel(a);
    this.wheel.stop();
    await Promise.allSettled([...this.inflight]);
  }

  get nodeNames(): string[] { return [...this.agents.keys()]; }

  get nodeConfigs(): NodeConfig[] { return [...this.agents.values()].map((a) => a.cfg); }

  list(): FarmNode[] {
    return [...this.agents.values()].map((a) => ({ name: a.cfg.name, pool: a.cfg.pool, os: a.cfg.os, index: a.index, running: a.running, bootID: a.id.bootID }));
  }

  has(name: string): boolean { return this.agents.has(name); }

  isRunning(name: string): boolean { return this.agents.get(name)?.running === true; }

  /** A node's configuration, index and boot time while its kubelet runs; undefined for a stopped or unknown node. */
  runningNode(name: string): { cfg: NodeConfig; index: number; bootedAt: Date } | undefined {
    const a = this.agents.get(name);
    return a?.running ? { cfg: a.cfg, index: a.index, bootedAt: a.bootedAt } : undefined;
  }

  /** The pod CIDR / address index of a node (stable for the node's life). */
  indexOf(name: string): number | undefined { return this.agents.get(name)?.index; }

  /**
   * Joins new machines to the cluster: each registers, gets its Lease and
   * heartbeats. `index` keeps a node's pod CIDR and address across restarts.
   */
  async addNodes(configs: ReadonlyArray<NodeConfig & { index?: number }>): Promise<void> {
    for (const cfg of configs) {
      if (this.agents.has(cfg.name) || (await this.nodes.find('', cfg.name))) {
        throw errors.alreadyExists(NODES, cfg.name);
      }
    }
    const agents = configs.map((cfg) => {
      const index = cfg.index ?? this.nextIndex;
      this.nextIndex = Math.max(this.nextIndex, index + 1);
      const { index: _drop, ...plain } = cfg as NodeConfig & { index?: number };
      const agent = this.newAgent(plain, index);
      return agent;
    });
    for (const a of agents) {
      const room = podSubnetCapacity(a.cfg.network.podSubnet)!;
      if (a.index >= room) throw errors.badRequest(`the pod subnet ${a.cfg.network.podSubnet} has no /24 left for node ${a.cfg.name} (room for ${room} nodes)`);
    }
    for (const a of agents) this.agents.set(a.cfg.name, a);
    try {
      await Promise.all(agents.map((a) => this.boot(a)));
    } catch (e) {
      for (const a of agents) if (!a.running) this.agents.delete(a.cfg.name);
      throw e;
    }
    for (const a of agents) { this.schedule(a, renewMs(a)); this.emit((l) => l.onNodeAdded?.(a.cfg)); }
  }

  /** The machine leaves: its heartbeats end and its Node and Lease are deleted. */
  async removeNode(name: string): Promise<void> {
    const agent = this.agents.get(name);
    const node = await this.nodes.find('', name);
    if (!agent && !node) throw errors.notFound(NODES, name);
    if (agent) { this.cancel(agent); agent.running = false; this.agents.delete(name); }
    await Promise.allSettled([...this.inflight]);
    if (node) await this.ignoreNotFound(this.nodes.delete('', name, { fieldManager: 'winkube' }));
    await this.ignoreNotFound(this.leases.delete(NODE_LEASE_NAMESPACE, name, { fieldManager: 'winkube' }));
    this.emit((l) => l.onNodeRemoved?.(name));
  }

  /** The kubelet stops: no more Lease renewals or status posts; the Node and its pods stay as they are. */
  async stopNode(name: string): Promise<void> {
    const agent = this.mustGet(name);
    if (!agent.running) return;
    this.cancel(agent);
    agent.running = false;
    this.emit((l) => l.onNodeStopped?.(name));
  }

  /**
   * The machine boots again: a new boot ID (Linux: a new random UUID;
   * Windows: the BootId counter one higher), a fresh status and Lease renewal.
   */
  async startNode(name: string): Promise<void> {
    const agent = this.mustGet(name);
    if (agent.running) return;
    agent.id = { ...agent.id, bootID: agent.cfg.os === 'windows' ? String(Number(agent.id.bootID) + 1) : randomUUID() };
    await this.boot(agent, true);
    this.schedule(agent, renewMs(agent));
    this.emit((l) => l.onNodeStarted?.(name));
  }

  private newAgent(cfg: NodeConfig, index: number): Agent {
    const user = nodeUser(cfg.name);
    const kubelet = this.client.as(user, 'kubelet');
    return {
      cfg, index, id: machineIdentity(cfg.name, cfg.os), uid: '', tasks: [], nodes: kubelet.resource(nodeResource), leases: kubelet.resource(leases),
      events: this.events?.as(user),
      running: false, leaseExists: false, bootedAt: new Date(), lastUnschedulable: false, memoryPressure: false,
    };
  }

  private mustGet(name: string): Agent {
    const agent = this.agents.get(name);
    if (!agent) throw errors.notFound(NODES, name);
    return agent;
  }

  private async ignoreNotFound(p: Promise<unknown>): Promise<void> {
    try { await p; } catch (e) { if (!(isNotFound(e))) throw e; }
  }

  private emit(fn: (l: FarmListener) => void): void {
    for (const l of this.listeners) {
      try { fn(l); } catch (e) { this.log(`node farm listener: ${(e as Error).message}`); }
    }
  }

  private async boot(agent: Agent, restart = false): Promise<void> {
    agent.bootedAt = new Date();
    agent.lastUnschedulable = false;
    agent.memoryPressure = false;
    const created = await this.register(agent, restart);
    // A node just created has no Lease yet (or an orphan one, which the create below finds): no need to read first.
    if (created) agent.leaseExists = false;
    await this.renewLease(agent, created);
    agent.running = true;
  }

  /**
   * Lease renewals every 10 s (the first after `firstDelayMs`), status every
   * nodeStatusReportFrequency (the first after `firstStatusMs`, one period by default).
   */
  private schedule(agent: Agent, firstDelayMs: number, firstStatusMs = NODE_STATUS_REPORT_FREQUENCY_MS): void {
    const lease = { cancel: () => {} } as WheelTask;
    let periodic: WheelTask | undefined;
    const first = this.wheel.schedule(firstDelayMs, () => {
      this.track(this.renewLease(agent));
      periodic = this.wheel.every(renewMs(agent), () => this.track(this.renewLease(agent)));
    });
    lease.cancel = () => { first.cancel(); periodic?.cancel(); };
    agent.tasks.push(lease);
    const status = { cancel: () => {} } as WheelTask;
    let periodicStatus: WheelTask | undefined;
    const firstStatus = this.wheel.schedule(firstStatusMs, () => {
      this.track(this.postStatus(agent));
      periodicStatus = this.wheel.every(NODE_STATUS_REPORT_FREQUENCY_MS, () => this.track(this.postStatus(agent)));
    });
    status.cancel = () => { firstStatus.cancel(); periodicStatus?.cancel(); };
    agent.tasks.push(status);
  }

  /**
   * updateNodeStatus between posts, every nodeStatusUpdateFrequency: the
   * setters that only record events (recordNodeSchedulableEvent). Each
   * kubelet reads its Node from its informer; the farm reads them all in one list.
   */
  private async syncStatuses(): Promise<void> {
    const { items } = await this.nodes.list('');
    for (const node of items) {
      const agent = this.agents.get(node.metadata?.name ?? '');
      if (agent?.running) this.recordSchedulableEvent(agent, node);
    }
  }

  /**
   * kubelet_node_status.go recordNodeSchedulableEvent: NodeNotSchedulable /
   * NodeSchedulable when spec.unschedulable differs from what this kubelet last saw.
   */
  private recordSchedulableEvent(agent: Agent, node: Node): void {
    const unschedulable = node.spec?.unschedulable === true;
    if (unschedulable === agent.lastUnschedulable) return;
    agent.lastUnschedulable = unschedulable;
    this.recordStatusEvents(agent, [unschedulable ? 'NodeNotSchedulable' : 'NodeSchedulable']);
  }

  private cancel(agent: Agent): void {
    for (const t of agent.tasks) t.cancel();
    agent.tasks = [];
  }

  private track(p: Promise<unknown>): void {
    const q = p.catch((e) => { if (!this.stopped) this.log(`node farm: ${(e as Error).message}`); }).finally(() => this.inflight.delete(q));
    this.inflight.add(q);
  }

  /**
   * The kubelet's node events (pkg/kubelet: "Starting kubelet." at start,
   * the nodestatus setters' "Node <name> status is now: <event>", Rebooted
   * when the boot ID changed). The kubelet's node reference has the node
   * name as UID. Written without waiting: events never hold a kubelet up.
   */
  private recordEvent(agent: Agent, type: EventType, reason: string, message: string): void {
    const events = agent.events;
    if (!events) return;
    const name = agent.cfg.name;
    // kl.nodeRef has no apiVersion: the event's involvedObject omits it.
    this.eventQueue.push(() => events.record({ kind: 'Node', name, uid: name } as ObjectReference, type, reason, message, 'kubelet', name));
    this.pumpEvents();
  }

  /**
   * Events go out behind the kubelets' own writes, a few at a time, as
   * client-go's broadcaster sends them from its own goroutine: thousands of
   * nodes booting at once register first and tell about it after.
   */
  private pumpEvents(): void {
    while (this.eventsInFlight < EVENT_CONCURRENCY && this.eventQueue.length) {
      const send = this.eventQueue.shift()!;
      this.eventsInFlight++;
      this.track(send().finally(() => { this.eventsInFlight--; this.pumpEvents(); }));
    }
  }

  private recordStatusEvents(agent: Agent, reasons: string[]): void {
    for (const r of reasons) this.recordEvent(agent, 'Normal', r, `Node ${agent.cfg.name} status is now: ${r}`);
  }

  /** Registers the node; true when it was created, false when it existed and got a fresh status. */
  private async register(agent: Agent, restart: boolean): Promise<boolean> {
    const now = new Date();
    let node: Node;
    let created = true;
    this.recordEvent(agent, 'Normal', 'Starting', 'Starting kubelet.');
    try {
      const built = buildNode(agent.cfg, agent.index, agent.id, rfc3339(now), this.statusImages(agent)) as Node;
      // The kubelet registers with the labels it may set; the others (the control plane's role, the
      // pool's own) come from the administrator once it is registered, as kubeadm applies them.
      const all = built.metadata!.labels!;
      const administered = Object.fromEntries(Object.entries(all).filter(([k]) => isNodeForbiddenLabel(k)));
      built.metadata!.labels = Object.fromEntries(Object.entries(all).filter(([k]) => !isNodeForbiddenLabel(k)));
      node = await agent.nodes.create('', built);
      if (Object.keys(administered).length) {
        node = await this.client.resource(nodeResource).patch('', agent.cfg.name, 'application/merge-patch+json',
          { metadata: { labels: administered } }, { fieldManager: 'kubeadm' });
      }
      this.recordStatusEvents(agent, conditionEvents([], (node.status?.conditions ?? []) as NodeCondition[]));
    } catch (e) {
      created = false;
      if (!(isAlreadyExists(e))) throw e;
      // A node already registered (a restart): the kubelet posts a fresh status over it. Windows
      // counts boots in its BootId registry value: one more than the last boot this node reported.
      if (!restart) {
        const prevBoot = (await agent.nodes.find('', agent.cfg.name))?.status?.nodeInfo?.bootID;
        if (agent.cfg.os === 'windows' && /^\d+$/.test(prevBoot ?? '')) agent.id = { ...agent.id, bootID: String(Number(prevBoot) + 1) };
      }
      node = await this.postStatus(agent, true);
    }
    agent.uid = node.metadata?.uid ?? '';
    // Linux enforces node allocatable on the kubepods cgroup; the Windows kubelet does not ("not implemented").
    if (agent.cfg.os === 'linux') this.recordEvent(agent, 'Normal', 'NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods');
    return created;
  }

  /** Posts the node status (every nodeStatusReportFrequency, or at once when something changed). */
  async postStatus(agent: Agent, force = false): Promise<Node> {
    const now = rfc3339(new Date());
    let events: string[] = [];
    let previousBoot = '';
    const node = await agent.nodes.updateStatus('', agent.cfg.name, (n) => {
      const prev = (n.status?.conditions ?? []) as NodeCondition[];
      const status = nodeStatus(agent.cfg, agent.index, agent.id, now, prev, this.statusImages(agent), { memory: agent.memoryPressure });
      const conditions = status.conditions as NodeCondition[];
      events = conditionEvents(prev, conditions);
      previousBoot = n.status?.nodeInfo?.bootID ?? '';
      const imagesChanged = JSON.stringify(n.status?.images ?? []) !== JSON.stringify(status.images ?? []);
      if (!force && !imagesChanged && !conditionsChanged(prev, conditions)) {
        // Unchanged: only the heartbeat times move.
        return { ...n, status: { ...n.status, conditions } };
      }
      const next: NodeStatus = { ...n.status, ...status };
      if (!status.images) delete next.images;
      return { ...n, status: next };
    });
    if (previousBoot && previousBoot !== agent.id.bootID) {
      this.recordEvent(agent, 'Warning', 'Rebooted', `Node ${agent.cfg.name} has been rebooted, boot id: ${agent.id.bootID}`);
    }
    this.recordStatusEvents(agent, events);
    this.recordSchedulableEvent(agent, node);
    return node;
  }

  /**
   * component-helpers' lease controller: the first time it creates (or
   * reads) the Lease, afterwards it updates the Lease it holds, without a read.
   */
  private async renewLease(agent: Agent, surelyNew = false): Promise<void> {
    const now = new Date();
    if (!agent.leaseExists && (surelyNew || !(await agent.leases.find(NODE_LEASE_NAMESPACE, agent.cfg.name)))) {
      try {
        await agent.leases.create(NODE_LEASE_NAMESPACE, nodeLease(agent.cfg.name, agent.uid, now, agent.cfg.nodeLeaseDurationSeconds) as Lease);
        agent.leaseExists = true;
        return;
      } catch (e) {
        if (!(isAlreadyExists(e))) throw e;
      }
    }
    try {
      await agent.leases.update(NODE_LEASE_NAMESPACE, agent.cfg.name, (l) => {
        const spec = (l.spec ??= {});
        spec.holderIdentity = agent.cfg.name;
        spec.leaseDurationSeconds = agent.cfg.nodeLeaseDurationSeconds;
        spec.renewTime = rfc3339Micro(now);
        const meta = (l.metadata ??= {});
        if (!(meta.ownerReferences ?? []).length) meta.ownerReferences = nodeLease(agent.cfg.name, agent.uid, now).metadata.ownerReferences;
        return l;
      });
      agent.leaseExists = true;
    } catch (e) {
      // Deleted behind our back (kubectl delete lease): create it again next time.
      if (isNotFound(e)) agent.leaseExists = false;
      throw e;
    }
  }
}
