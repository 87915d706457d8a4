/**
 * The kubelets of every emulated node, KWOK-style: one pod informer for
 * the whole farm, dispatching by spec.nodeName to per-node state (IP
 * allocation, image store, pod workers). Configmaps, secrets and services
 * are informed once for all nodes (the kubelet's configmap/secret managers
 * and service lister). Each node writes as its own kubelet
 * (system:node:<name>).
 */
import { nodeUser } from '../../client/identities.js';
import { InformerFactory } from '../../client/informer-factory.js';
import {
  configmaps, endpointslices, namespaces, networkpolicies, nodes as nodeResource, persistentvolumeclaims, persistentvolumes, pods as podResource, runtimeclasses,
  secrets, services,
} from '../../client/resources.js';
import { ClusterNetwork, type APIServerEndpoint } from '../net/cluster-network.js';
import type { SharedInformer } from '../../client/shared-informer.js';
import type { Client } from '../../client/types.js';
import type { EventRecorder } from '../../events/recorder.js';
import type { ContainerLogs } from '../logs/container-logs.js';
import type { ServedWorkStore } from '../usage/served-work.js';
import type { KObject } from '../../apimachinery/object.js';
import { LINUX_KERNEL_VERSION } from '../node-object.js';
import { DEFAULT_NETWORK } from '../network.js';
import type { NodeConfig } from '../pool.js';
import type { EnvSources } from '../runtime/env.js';
import type { TokenSource } from '../runtime/volumes.js';
import { parse as parseYaml } from 'yaml';
import type { UserImage } from '../../os/images.js';
import { Backoff } from './backoff.js';
import { REAL_CLOCK, type Clock } from './clock.js';
import { NodeImages, type ContainerImage } from './images.js';
import { StatusManager } from './status-manager.js';
import { HostDirs } from './host-dirs.js';
import type { ConfigMap, Namespace, Node, Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { nodeNetworkFiles } from '../net/node-network-model.js';
import { CoreDNS } from '../net/coredns.js';
import { egressContext } from '../net/outside-access.js';
import { OutsideWorld } from '../net/outside-world.js';
import type { NodeFile } from '../net/flannel-files.js';
import { PodWorker, type NodeContext } from './pod-worker.js';
import { EvictionManager } from './eviction/eviction-manager.js';
import { evictionAdmission } from './eviction/admission.js';
import { DEFAULT_EVICTION_MONITORING_PERIOD_MS, DEFAULT_PRESSURE_TRANSITION_PERIOD_MS, type EvictionTimings } from './eviction/timings.js';
import { buildSummary } from '../kubelet-server/stats-summary.js';
import { referenceTo, type ObjectReference } from '../../events/recorder.js';
import type { PodSandbox } from '../exec/port-forward.js';

type Obj = Record<string, any>;

/**
 * Images users declare with their platforms: every data value of the
 * ConfigMap kube-system/winkube-images is a YAML list of
 * `{ref, platforms: [{os, architecture, os.version}], manifestList?}`.
 */
export const USER_IMAGES_CONFIGMAP = { namespace: 'kube-system', name: 'winkube-images' };

export function parseUserImages(cm: KObject | undefined): UserImage[] {
  const out: UserImage[] = [];
  for (const text of Object.values(((cm as Obj | undefined)?.data ?? {}) as Record<string, string>)) {
    let list: unknown;
    try { list = parseYaml(text); } catch { continue; }
    if (!Array.isArray(list)) continue;
    for (const e of list) {
      if (!e || typeof e.ref !== 'string' || !Array.isArray(e.platforms)) continue;
      const platforms = e.platforms.filter((p: Obj) => p && (p.os === 'linux' || p.os === 'windows') && typeof p.architecture === 'string')
        .map((p: Obj) => ({ os: p.os, architecture: p.architecture, ...(p.variant ? { variant: String(p.variant) } : {}), ...(p['os.version'] ? { 'os.version': String(p['os.version']) } : {}) }));
      if (platforms.length) out.push({ ref: e.ref, platforms, ...(typeof e.manifestList === 'boolean' ? { manifestList: e.manifestList } : {}) });
    }
  }
  return out;
}

/** The sandbox image of containerd 1.7 / kubelet v1.32. */
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

/** What a node's runtime holds before any pod ran: the sandbox image, pre-pulled. */
export function prePulledImages(cfg: NodeConfig): ContainerImage[] {
  const images = new NodeImages({ os: cfg.os, arch: cfg.arch, build: cfg.windows?.build }, 0);
  images.add(PAUSE_IMAGE);
  return images.images();
}

export interface KubeletOptions {
  logs: ContainerLogs;
  /** Where the pods' servers count the CPU their requests cost (the stats read it). */
  servedWork?: ServedWorkStore;
  events: EventRecorder;
  log?: (m: string) => void;
  /** Simulated time of a first image pull on a node (ms); 0 = instant. Default 100. */
  pullMs?: number;
  /** Mints projected service account tokens for kube-api-access volumes. */
  token?: TokenSource;
  /** A node holds a new image: its status.images changes (the node farm posts the node status). */
  onImagesChanged?: (nodeName: string) => void;
  /** The clock of every pod worker, prober and back-off (default: the process's clock). */
  clock?: Clock;
  /** The API server behind the kubernetes Service, as the pods reach it; unreachable without. */
  apiServer?: APIServerEndpoint;
  /** A node's eviction manager says whether it is under memory pressure (its MemoryPressure condition). */
  onMemoryPressure?: (nodeName: string, underPressure: boolean) => void;
  /** The eviction manager's periods (10 s and 5 m by default). */
  eviction?: Partial<EvictionTimings>;
}

interface NodeState {
  cfg: NodeConfig;
  running: boolean;
  workers: Map<string, PodWorker>;
  ips: Map<string, string>;
  nextIP: number;
  ctx: NodeContext;
  eviction: EvictionManager;
}

/**
 * Pod workers started in one turn of the event loop at most, by time: a
 * watch batch that binds thousands of pods (a DaemonSet over every node)
 * starts their workers in slices, with timers (the nodes' Lease renewals)
 * and I/O running between slices, as each real kubelet starts its own pods
 * on its own machine.
 */
const START_SLICE_MS = 25;

export class Kubelet {
  private readonly nodes = new Map<string, NodeState>();
  /** The pods bound to this kubelet's nodes, by UID. */
  private readonly pods = new Map<string, KObject>();
  /** The same pods by spec.nodeName (immutable once bound): each node's kubelet server reads its own. */
  private readonly podsByNode = new Map<string, Map<string, KObject>>();
  private readonly informers: InformerFactory;
  private readonly configMaps: SharedInformer;
  private readonly secrets: SharedInformer;
  private readonly services: SharedInformer;
  private readonly claims: SharedInformer;
  private readonly volumes: SharedInformer;
  private readonly runtimeClasses: SharedInformer;
  private readonly nodeObjects: SharedInformer;
  private readonly endpointSlices: SharedInformer;
  private readonly networkPolicies: SharedInformer;
  private readonly namespaces: SharedInformer;
  /** The pod network of every node: what the containers listen on and connect to. */
  readonly network: ClusterNetwork;
  private readonly log: (m: string) => void;
  private readonly backoff = new Backoff();
  private started = false;
  private readonly sources: EnvSources;
  private userImagesCache: { rv?: string; images: UserImage[] } = { images: [] };
  /** Pods waiting for their worker to start, by UID, in arrival order (with their latest version). */
  private readonly toStart = new Map<string, { node: NodeState; pod: KObject }>();
  private starting = false;

  /**
   * `client` reads (the informers) for every node; each node writes through
   * `client.as(system:node:<name>)`, field manager "kubelet".
   */
  constructor(private readonly client: Client, nodes: NodeConfig[], private readonly opts: KubeletOptions) {
    this.log = opts.log ?? (() => {});
    this.informers = new InformerFactory(client);
    this.configMaps = this.informers.forResource(configmaps);
    this.secrets = this.informers.forResource(secrets);
    this.services = this.informers.forResource(services);
    this.claims = this.informers.forResource(persistentvolumeclaims);
    this.volumes = this.informers.forResource(persistentvolumes);
    this.runtimeClasses = this.informers.forResource(runtimeclasses);
    this.nodeObjects = this.informers.forResource(nodeResource);
    // kube-proxy's view: Services and their EndpointSlices.
    this.endpointSlices = this.informers.forResource(endpointslices);
    const world = new OutsideWorld();
    // The policy engine's view (calico-node's Felix): pods, namespaces and NetworkPolicies.
    this.networkPolicies = this.informers.forResource(networkpolicies);
    this.namespaces = this.informers.forResource(namespaces);
    const podCache = this.informers.forResource(podResource).cache;
    this.network = new ClusterNetwork({
      services: () => this.services.cache.list('*'),
      service: (ns, name) => this.services.cache.get(ns, name),
      endpointSlices: (ns) => this.endpointSlices.cache.list(ns),
      nodes: () => this.nodeObjects.cache.list('*'),
      // One CNI and mode for the whole cluster: any node's says it.
      podNetwork: () => nodes[0]?.network ?? this.nodes.values().next().value?.cfg.network ?? DEFAULT_NETWORK,
      onChange: (changed) => { for (const i of [this.services, this.endpointSlices, this.nodeObjects]) i.onEvent(() => changed()); },
      policy: {
        enforces: (node) => this.nodes.get(node)?.cfg.network.plugin === 'calico',
        pod: (ns, name) => podCache.get(ns, name) as Pod | undefined,
        namespace: (name) => this.namespaces.cache.get('', name) as Namespace | undefined,
        networkPolicies: (ns) => this.networkPolicies.cache.list(ns) as unknown as NetworkPolicy[],
      },
    }, Math.random, opts.apiServer, {
      world,
      coreDNS: new CoreDNS(() => this.configMaps.cache.get('kube-system', 'coredns') as ConfigMap | undefined, world, (m) => this.log(`coredns: ${m}`)),
      egress: (pod) => {
        const cfg = this.nodes.get(pod.node)?.cfg;
        const ip = (this.nodeObjects.cache.get('', pod.node) as Node | undefined)?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
        return cfg && ip ? egressContext(cfg.os, ip, cfg.network) : undefined;
      },
    }, { now: () => (opts.clock ?? REAL_CLOCK).now() });
    this.sources = {
      configMap: (ns, name) => this.configMaps.cache.get(ns, name),
      secret: (ns, name) => this.secrets.cache.get(ns, name),
      services: () => this.services.cache.list('*'),
      pvc: (ns, name) => this.claims.cache.get(ns, name),
      pv: (name) => this.volumes.cache.get('', name),
    };
    for (const n of nodes) this.addNodeState(n);
  }

  async start(): Promise<void> {
    await Promise.all([this.configMaps, this.secrets, this.services, this.claims, this.volumes, this.runtimeClasses, this.nodeObjects, this.endpointSlices,
      this.networkPolicies, this.namespaces]
      .map((i) => i.start()));
    this.started = true;
    for (const n of this.nodes.values()) if (n.running) this.startEviction(n);
    await this.informers.inform(podResource, (type, o) => this.onPod(type, o));
  }

  async stop(): Promise<void> {
    this.started = false;
    this.toStart.clear();
    this.informers.stop();
    for (const n of this.nodes.values()) { n.eviction.stop(); for (const w of n.workers.values()) w.stop(); }
  }

  /** A node joins the farm (running). */
  addNode(cfg: NodeConfig): void {
    if (this.nodes.has(cfg.name)) return;
    this.addNodeState(cfg);
    if (this.started) this.startEviction(this.nodes.get(cfg.name)!);
    this.resyncNode(cfg.name);
  }

  /** A node leaves: its pods' processes are gone; nothing more is written for them. */
  removeNode(name: string): void {
    const n = this.nodes.get(name);
    if (!n) return;
    n.eviction.stop();
    for (const w of n.workers.values()) w.stop();
    this.dropQueued(n);
    this.nodes.delete(name);
  }

  /** A stopped node does nothing; started again, it re-creates its pods' sandboxes and containers. */
  setNodeRunning(name: string, running: boolean): void {
    const n = this.nodes.get(name);
    if (!n || n.running === running) return;
    n.running = running;
    if (!running) { n.eviction.stop(); for (const w of n.workers.values()) w.stop(); this.dropQueued(n); return; }
    if (this.started) this.startEviction(n);
    for (const w of n.workers.values()) w.restartAfterNodeStop();
    this.resyncNode(name);
  }

  /** The images a node's runtime holds (for its status.images); undefined for a node this kubelet does not run. */
  imagesOf(nodeName: string): ContainerImage[] | undefined {
    return this.nodes.get(nodeName)?.ctx.images.images();
  }

  /** The pods bound to a node, as its kubelet knows them (its pod manager's pods: what `/pods` and the stats list). */
  podsOn(nodeName: string): KObject[] {
    return [...(this.podsByNode.get(nodeName)?.values() ?? [])];
  }

  /** The sandbox a pod's node gives it: the node's OS and sandbox image (undefined for a node this kubelet does not run). */
  sandboxOf(pod: KObject): PodSandbox | undefined {
    const n = this.nodes.get(String((pod.spec as Obj | undefined)?.nodeName ?? ''));
    return n ? { os: n.cfg.os, image: n.ctx.pauseImage } : undefined;
  }

  /** The worker of a pod (for exec: its containers' env and filesystem). */
  worker(namespace: string, name: string): PodWorker | undefined {
    for (const n of this.nodes.values()) for (const w of n.workers.values()) {
      if (w.pod.metadata.namespace === namespace && w.pod.metadata.name === name) return w;
    }
    return undefined;
  }

  /** The declared user images (cached per ConfigMap version). */
  private userImages(): UserImage[] {
    const cm = this.configMaps.cache.get(USER_IMAGES_CONFIGMAP.namespace, USER_IMAGES_CONFIGMAP.name);
    const rv = cm?.metadata.resourceVersion;
    if (rv !== this.userImagesCache.rv) this.userImagesCache = { rv, images: parseUserImages(cm) };
    return this.userImagesCache.images;
  }

  private addNodeState(cfg: NodeConfig): void {
    const state: NodeState = {
      cfg, running: true, workers: new Map(), ips: new Map(), nextIP: 2, ctx: undefined as unknown as NodeContext,
      eviction: this.evictionManager(cfg),
    };
    const build = cfg.windows ? cfg.windows.build : undefined;
    const images = new NodeImages({ os: cfg.os, arch: cfg.arch, build }, this.opts.pullMs ?? 100, () => this.userImages(),
      () => this.opts.onImagesChanged?.(cfg.name), this.opts.clock ?? REAL_CLOCK);
    images.add(PAUSE_IMAGE);
    const cpus = Math.max(1, Math.round(Number(String(cfg.cpu).replace(/m$/, '')) / (String(cfg.cpu).endsWith('m') ? 1000 : 1)));
    const nodeObjects = this.nodeObjects.cache;
    const kubelet = this.client.as(nodeUser(cfg.name), 'kubelet');
    const pods = kubelet.resource(podResource);
    state.ctx = {
      name: cfg.name, os: cfg.os, cpus,
      get kernelVersion() {
        return String((nodeObjects.get('', cfg.name)?.status as Obj)?.nodeInfo?.kernelVersion ?? (cfg.os === 'windows' ? `10.0.${build}` : LINUX_KERNEL_VERSION));
      },
      node: () => nodeObjects.get('', cfg.name),
      hostIPs: () => {
        const addrs: Obj[] = (nodeObjects.get('', cfg.name)?.status as Obj)?.addresses ?? [];
        const ip = addrs.find((a) => a.type === 'InternalIP')?.address;
        return ip ? [ip] : [];
      },
      images, pauseImage: cfg.sandboxImage ?? PAUSE_IMAGE,
      allocIP: (uid, preferred) => this.allocIP(state, uid, preferred),
      releaseIP: (uid) => { state.ips.delete(uid); },
      sources: this.sources, token: this.opts.token,
      events: this.opts.events.as(nodeUser(cfg.name)), logs: this.opts.logs, servedWork: this.opts.servedWork,
      pods, log: this.log,
      admitted: (except) => [...state.workers.values()].filter((w) => w.uid !== except && w.admitted && !w.terminal).map((w) => w.pod),
      evictionAdmission: (pod) => evictionAdmission(pod as unknown as Pod, state.eviction.isUnderMemoryPressure()),
      finished: (uid) => { state.workers.delete(uid); this.opts.servedWork?.forget(uid); },
      backoff: this.backoff,
      status: new StatusManager(pods, this.opts.clock ?? REAL_CLOCK, this.log),
      clock: this.opts.clock ?? REAL_CLOCK,
      stopTimeoutSeconds: cfg.runtime.fixedStopTimeoutSeconds,
      runtime: cfg.runtime,
      runtimeClass: (name) => this.runtimeClasses.cache.get('', name),
      hostDirs: new HostDirs(cfg.os, () => this.nodeFiles(cfg)),
      network: this.network,
    };
    this.nodes.set(cfg.name, state);
  }

  /**
   * Starts a node's eviction loop, its first sync at a point of the first
   * period that depends on the node's name: thousands of nodes do not all
   * read their stats in the same tick.
   */
  private startEviction(n: NodeState): void {
    const period = this.opts.eviction?.monitoringPeriodMs ?? DEFAULT_EVICTION_MONITORING_PERIOD_MS;
    let h = 0;
    for (const ch of n.cfg.name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    n.eviction.start(1 + (h % period));
  }

  /** The node's eviction manager, reading the node's Summary and acting on its pod workers. */
  private evictionManager(cfg: NodeConfig): EvictionManager {
    const clock = this.opts.clock ?? REAL_CLOCK;
    const events = this.opts.events.as(nodeUser(cfg.name));
    const bootTime = new Date(clock.now());
    return new EvictionManager({
      name: cfg.name, os: cfg.os, evictionHard: cfg.evictionHard,
      summary: (now) => buildSummary({
        cfg, bootTime, kubeletStartTime: bootTime, now, pods: this.podsOn(cfg.name), imageBytes: 0, cpuAndMemoryOnly: true,
        ...(this.opts.servedWork ? { served: this.opts.servedWork } : {}),
      }),
      activePods: () => [...(this.nodes.get(cfg.name)?.workers.values() ?? [])]
        .filter((w) => w.admitted && !w.terminal)
        .map((w) => ({ pod: w.pod as Pod, evict: (...args) => w.evict(...args), cleanedUp: () => w.cleanedUp() })),
      setMemoryPressure: (underPressure) => this.opts.onMemoryPressure?.(cfg.name, underPressure),
      // kl.nodeRef: the node's name as its UID, no apiVersion.
      nodeEvent: (type, reason, message) => void events.record({ kind: 'Node', name: cfg.name, uid: cfg.name } as ObjectReference, type, reason, message, 'kubelet', cfg.name),
      podEvent: (pod, type, reason, message) => void events.record(referenceTo(pod as unknown as KObject), type, reason, message, 'kubelet', cfg.name),
    }, clock, {
      monitoringPeriodMs: this.opts.eviction?.monitoringPeriodMs ?? DEFAULT_EVICTION_MONITORING_PERIOD_MS,
      pressureTransitionPeriodMs: this.opts.eviction?.pressureTransitionPeriodMs ?? DEFAULT_PRESSURE_TRANSITION_PERIOD_MS,
    });
  }

  /** The files the node's CNI wrote (known once the Node has its pod CIDR and address). */
  private nodeFiles(cfg: NodeConfig): NodeFile[] {
    const node = this.nodeObjects.cache.get('', cfg.name) as Node | undefined;
    const podCIDR = node?.spec?.podCIDR;
    const internalIP = node?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
    return podCIDR && internalIP ? nodeNetworkFiles({ node: { name: cfg.name, os: cfg.os, podCIDR, internalIP }, network: cfg.network }) : [];
  }

  /** host-local IPAM over the node's podCIDR (x.y.z.0/24: .2 to .254, round robin). */
  private allocIP(state: NodeState, uid: string, preferred?: string): string | undefined {
    const existing = state.ips.get(uid);
    if (existing) return existing;
    const cidr: string | undefined = (this.nodeObjects.cache.get('', state.cfg.name)?.spec as Obj)?.podCIDR;
    const m = cidr ? /^(\d+\.\d+\.\d+)\.0\/24$/.exec(cidr) : null;
    if (!m) return undefined;
    const used = new Set(state.ips.values());
    // On Windows .2 is the host's (flannel's source VIP or bridge endpoint, Calico_ep): pods start at .3.
    if (state.cfg.os === 'windows') used.add(`${m[1]}.2`);
    if (preferred && preferred.startsWith(m[1] + '.') && !used.has(preferred)) { state.ips.set(uid, preferred); return preferred; }
    for (let i = 0; i < 253; i++) {
      const host = ((state.nextIP - 2 + i) % 253) + 2;
      const ip = `${m[1]}.${host}`;
      if (!used.has(ip)) { state.ips.set(uid, ip); state.nextIP = host + 1; return ip; }
    }
    return undefined;
  }

  private onPod(type: string, pod: KObject): void {
    const uid = pod.metadata.uid!;
    const nodeName = (pod.spec as Obj)?.nodeName as string | undefined;
    if (type === 'DELETED') {
      this.forgetPod(uid);
      this.toStart.delete(uid);
      for (const n of this.nodes.values()) {
        const w = n.workers.get(uid);
        if (w) { w.destroy(); n.workers.delete(uid); }
      }
      return;
    }
    if (!nodeName || !this.nodes.has(nodeName)) { this.forgetPod(uid); this.toStart.delete(uid); return; }
    this.pods.set(uid, pod);
    let onNode = this.podsByNode.get(nodeName);
    if (!onNode) this.podsByNode.set(nodeName, onNode = new Map());
    onNode.set(uid, pod);
    const n = this.nodes.get(nodeName)!;
    if (!n.running) return;
    const w = n.workers.get(uid);
    if (w) { w.update(pod); return; }
    this.queueStart(n, pod);
  }

  private forgetPod(uid: string): void {
    const nodeName = (this.pods.get(uid)?.spec as Obj | undefined)?.nodeName as string | undefined;
    this.pods.delete(uid);
    const onNode = nodeName === undefined ? undefined : this.podsByNode.get(nodeName);
    onNode?.delete(uid);
    if (onNode?.size === 0) this.podsByNode.delete(nodeName!);
  }

  /** The pod's worker starts from the queue, with the pod's latest version then (an update meanwhile replaces it in place). */
  private queueStart(n: NodeState, pod: KObject): void {
    const uid = pod.metadata.uid!;
    const queued = this.toStart.get(uid);
    if (queued) { queued.pod = pod; return; }
    this.toStart.set(uid, { node: n, pod });
    if (!this.starting) { this.starting = true; setImmediate(() => this.startQueued()); }
  }

  /** Starts queued workers for up to START_SLICE_MS, then yields to the event loop for the rest. */
  private startQueued(): void {
    const t0 = performance.now();
    for (const [uid, { node, pod }] of this.toStart) {
      if (performance.now() - t0 >= START_SLICE_MS) { setImmediate(() => this.startQueued()); return; }
      this.toStart.delete(uid);
      if (!this.started || this.nodes.get(node.cfg.name) !== node || !node.running || node.workers.has(uid)) continue;
      this.startWorker(node, pod);
    }
    this.starting = false;
  }

  private dropQueued(n: NodeState): void {
    for (const [uid, q] of this.toStart) if (q.node === n) this.toStart.delete(uid);
  }

  private startWorker(n: NodeState, pod: KObject): void {
    const w = new PodWorker(pod, n.ctx);
    n.workers.set(pod.metadata.uid!, w);
    try { w.start(); } catch (e) { this.log(`kubelet ${n.cfg.name}: pod ${pod.metadata.namespace}/${pod.metadata.name}: ${(e as Error).stack}`); }
  }

  /** Pods bound to a node that (re)joined and have no worker yet, oldest first (HandlePodAdditions sorts by creation time). */
  private resyncNode(name: string): void {
    if (!this.started) return;
    const n = this.nodes.get(name)!;
    const pods = [...this.pods.values()].filter((p) => (p.spec as Obj)?.nodeName === name && !n.workers.has(p.metadata.uid!))
      .sort((a, b) => String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)));
    for (const p of pods) this.queueStart(n, p);
  }
}
