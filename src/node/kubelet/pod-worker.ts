/**
 * One pod on one emulated node: the kubelet's pod worker (syncPod /
 * kuberuntime SyncPod / startContainer / killContainer) over the container
 * model of src/node/shell. What to do is decided elsewhere, as pure
 * functions: pod-actions.ts (computePodActions, back-off, restart policy),
 * prober.ts (probe results), termination.ts (grace periods, stops, OOM);
 * status-manager.ts writes the status; every time comes from the injected
 * clock (clock.ts). All strings are upstream's; see the functions named in
 * each comment.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../apimachinery/errors.js';
import type { ContainerLogs } from '../logs/container-logs.js';
import type { ServedWorkStore } from '../usage/served-work.js';
import type { EventRecorder, EventType, ObjectReference } from '../../events/recorder.js';
import { referenceTo } from '../../events/recorder.js';
import { hintFor, type ImageFailure } from '../../os/images.js';
import { isHostProcessContainer } from '../../os/windows-rules.js';
import type { KObject } from '../../apimachinery/object.js';
import type { ResourceClient } from '../../client/types.js';
import { collect, interpret, LineSplitter, posixShellOf, ProgramRunner, startError, type Program, type Step } from '../shell/index.js';
import type { Listening, PodNetAccess } from '../shell/net-types.js';
import type { ProcessIdentity } from '../shell/types.js';
import { processIdentity } from '../runtime/process-identity.js';
import { ETC_HOSTS, nodeHostsFile } from '../runtime/etc-hosts.js';
import { keepOutputTail, terminationMessage } from './termination-message.js';
import { prepareMounts } from './subpath-expr.js';
import type { PodNetwork } from '../shell/windows-net.js';
import type { ClusterNetwork } from '../net/cluster-network.js';
import { podNetwork } from '../exec/pod-network.js';
import { ContainerConfigError, podHostname, processEnv, type EnvSources, type PodNetworkInfo } from '../runtime/env.js';
import { containerFS, refreshVolumeFiles, volumeFiles, VolumeNotReadyError, VolumeSetUpError, type TokenSource, type VolumeFiles } from '../runtime/volumes.js';
import { volumeInputsKey, volumesToRewrite, volumeTokenExpiration, type WrittenVolume } from './volume-inputs.js';
import { ContainerFS, HostDir } from '../shell/fs.js';
import { applicationFor } from '../apps/registry.js';
import { listenScripted } from '../apps/scripted-http.js';
import { admitPod, type Rejection } from './admission.js';
import { sysctlAdmission } from './sysctls.js';
import { applyRuntimeFS } from './runtime-fs.js';
import { Backoff } from './backoff.js';
import { timersOf, type Clock, type Timer } from './clock.js';
import { httpProbeOver } from './http-probe.js';
import { ProbeWorker, type ProbeKind, type ProbeOutcome, type ProbeTarget } from './prober.js';
import { computeExitActions, computePodActions, computePodCompletion, restartPolicyOf, type PodView, type Restart } from './pod-actions.js';
import { isRunning, stateToAPI, succeeded, terminatedFromAPI, waiting, type ContainerState, type Running, type Terminated } from './container-state.js';
import { targetContainerFailure, type TargetFailure } from './ephemeral-target.js';
import { verifyRunAsNonRoot } from './security.js';
import { sandboxRuntimeError } from './runtime-class.js';
import type { HostDirs } from './host-dirs.js';
import { singleFileMountError } from './docker-mounts.js';

import { execHookResult, FAILED_POST_START_EVENT, FAILED_PRE_STOP_EVENT, graceAfterPreStop, httpHookResult, POST_START_HOOK_ERROR, POST_START_KILL_MESSAGE, type HookRun } from './lifecycle-hooks.js';
import type { ContainerRuntime } from '../container-runtime.js';
import { formatPod, runtimeID } from './format.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { NodeImages } from './images.js';
import { containerScript, scriptedExitCode, scriptedProbe, type ContainerScript } from './script.js';
import { podConditions, podPhase } from './status.js';
import type { PodStatusSource, StatusManager } from './status-manager.js';
import { afterSignal, GRACE_KILL_EXIT, OOM_KILL, oomKillAfterMs, podGracePeriodSeconds, specGracePeriodSeconds, stopSignal, type StopInput } from './termination.js';

/** The kubelet's --sync-frequency default: how often a running pod is synced (and its volumes remounted) without an event. */
const RESYNC_INTERVAL_MS = 60_000;

type Obj = Record<string, any>;

/** What a pod worker needs from its node. */
export interface NodeContext {
  name: string;
  os: 'linux' | 'windows';
  cpus: number;
  kernelVersion: string;
  node(): KObject | undefined;
  hostIPs(): string[];
  images: NodeImages;
  /** The sandbox (pause) image of the node's runtime. */
  pauseImage: string;
  allocIP(podUID: string, preferred?: string): string | undefined;
  releaseIP(podUID: string): void;
  sources: EnvSources;
  token?: TokenSource;
  events: EventRecorder;
  logs: ContainerLogs;
  servedWork?: ServedWorkStore;
  /** The pods, written as this node's kubelet. */
  pods: ResourceClient<Pod>;
  log(m: string): void;
  /** The node's other admitted, non-terminal pods. */
  admitted(except: string): KObject[];
  /** The eviction manager's admission, asked before the others (undefined: admitted). */
  evictionAdmission?(pod: KObject): { reason: string; message: string } | undefined;
  /** The worker is finished with the pod (deleted from the API). */
  finished(uid: string): void;
  backoff: Backoff;
  /** The single writer of the node's pod statuses. */
  status: StatusManager;
  /** Every timer and timestamp of the worker comes from this clock. */
  clock: Clock;
  /**
   * The runtime stops containers after this many seconds whatever the grace
   * period (Docker on Windows: CTRL_SHUTDOWN_EVENT, then Windows' own 5 s);
   * undefined when it honours terminationGracePeriodSeconds (containerd).
   */
  stopTimeoutSeconds?: number;
  /** The node's container runtime and its documented differences. */
  runtime: ContainerRuntime;
  /** The RuntimeClass of that name in the kubelet's informer cache. */
  runtimeClass(name: string): KObject | undefined;
  /** The node's hostPath directories, shared by its pods. */
  hostDirs: HostDirs;
  /** The cluster network the pods' processes connect and listen through; none: only each container itself answers. */
  network?: ClusterNetwork;
}



interface CRun {
  spec: Obj;
  init: boolean;
  sidecar: boolean;
  /** The last of what the running instance wrote (stdout and stderr as written), for FallbackToLogsOnError. */
  outputTail?: string;
  /** One of spec.ephemeralContainers: started once, never restarted. */
  ephemeral: boolean;
  state: ContainerState;
  lastState: Terminated | undefined;
  restartCount: number;
  containerID?: string;
  image?: string;
  imageID?: string;
  /** An instance exists (created at least once). */
  created: boolean;
  /** Something is in progress for it (pull, back-off, start). */
  busy: boolean;
  runner?: ProgramRunner;
  program?: Program;
  fs?: ContainerFS;
  env?: Record<string, string>;
  /** The program is a known application (image entrypoint): it listens on its ports. */
  application: boolean;
  /** The application is one the model serves (apps/registry.ts): it listens where it binds, not on containerPorts. */
  served?: boolean;
  script?: ContainerScript;
  probes: ProbeWorker[];
  timers: Set<Timer>;
  hinted: boolean;
  killing: boolean;
  /** Set when the kubelet kills it for a reason (liveness, OOM): the exit is not the program's own. */
  killReason?: { reason: string; exitCode: number };
  /** The postStart hook failed with this message: the start failed with PostStartHookError. */
  hookError?: string;
  /** The container runs but its postStart hook has not returned yet (the state shows ContainerCreating). */
  hookPending?: Running;
  /** What the container's processes listen on: closed when it stops. */
  listening: Set<Listening>;
}


export class PodWorker implements PodStatusSource {
  pod: KObject;
  readonly uid: string;
  rejected?: Rejection;
  admitted = false;
  terminal = false;
  private sandboxReady = false;
  private podIPs: string[] = [];
  private startTime?: string;
  private readonly cs = new Map<string, CRun>();
  private readonly timers = new Set<Timer>();
  private stopped = false;
  private terminating = false;
  private deleting = false;
  /** Volume files, set up once per sandbox (MountVolume.SetUp), shared by the containers' filesystems. */
  private volumeFiles: VolumeFiles = new Map();
  /** The inputs each volume's files were last written from: a resync rewrites only the volumes whose inputs moved. */
  private readonly volumesWritten = new Map<string, WrittenVolume>();
  /** The pod's emptyDir volumes: one directory each, which every container mounting it shares and container restarts keep. */
  private readonly emptyDirs = new Map<string, HostDir>();
  private hintedSandbox = false;
  /** activeDeadlineSeconds passed (active_deadline.go ShouldEvict). */
  /** Failed by the kubelet itself (activeDeadlineSeconds, node-pressure eviction), with the condition an eviction adds. */
  private evicted?: { reason: string; message: string; condition?: { type: string; reason: string } };
  /** Takes the sandbox's address off the cluster network. */
  private detachIP?: () => void;

  constructor(pod: KObject, private readonly node: NodeContext) {
    this.pod = pod;
    this.uid = pod.metadata.uid!;
    const spec = pod.spec as Obj;
    const prev = (pod.status ?? {}) as Obj;
    for (const [list, init] of [[spec.initContainers ?? [], true], [spec.containers ?? [], false]] as const) {
      for (const c of list as Obj[]) {
        const old = ((init ? prev.initContainerStatuses : prev.containerStatuses) ?? []).find((s: Obj) => s.name === c.name);
        const run = this.newRun(c, init, false);
        run.lastState = old?.lastState?.terminated ? terminatedFromAPI(old.lastState.terminated) : undefined;
        run.restartCount = old?.restartCount ?? 0;
        this.cs.set(c.name, run);
        // A kubelet restart finds a container that had finished: it stays finished.
        if (old?.state?.terminated && (init || spec.restartPolicy === 'Never' || (spec.restartPolicy === 'OnFailure' && old.state.terminated.exitCode === 0))) {
          run.state = terminatedFromAPI(old.state.terminated); run.created = true; run.containerID = old.containerID; run.image = old.image; run.imageID = old.imageID;
        }
      }
    }
    this.adoptEphemeralContainers(prev.ephemeralContainerStatuses ?? []);
    if (prev.startTime) this.startTime = prev.startTime;
    if (prev.podIP) this.podIPs = [prev.podIP];
    node.status.register(this);
  }

  /** A container's run before its first start: waiting as convertToAPIContainerStatuses' default state says. */
  private newRun(spec: Obj, init: boolean, ephemeral: boolean): CRun {
    const hasInit = ((this.pod.spec as Obj).initContainers ?? []).length > 0;
    return {
      spec, init, sidecar: init && spec.restartPolicy === 'Always', ephemeral,
      state: waiting(init || hasInit ? 'PodInitializing' : 'ContainerCreating'),
      lastState: undefined, restartCount: 0, created: false, busy: false,
      application: false, probes: [], timers: new Set(), hinted: false, killing: false, listening: new Set(),
      script: containerScript(this.pod.metadata.annotations, spec.name),
    };
  }

  /**
   * The ephemeral containers of the spec the worker does not track yet
   * (kubectl debug added them through pods/ephemeralcontainers); true when
   * there were any. One that ran before, as `previous` statuses record, had
   * an instance: it is never started again (an instance the node lost while
   * running is one that exited, as containerd reports after a reboot).
   */
  private adoptEphemeralContainers(previous: Obj[] = []): boolean {
    let added = false;
    for (const ec of (this.spec.ephemeralContainers ?? []) as Obj[]) {
      if (this.cs.has(ec.name)) continue;
      const run = this.newRun(ec, false, true);
      const old = previous.find((s) => s.name === ec.name);
      if (old?.containerID) {
        run.created = true; run.containerID = old.containerID; run.image = old.image; run.imageID = old.imageID;
        if (old.state?.terminated) run.state = terminatedFromAPI(old.state.terminated);
        else if (old.state?.running) run.state = lostWhileRunning(old.state.running.startedAt, this.nowDate(), old.containerID);
      }
      this.cs.set(ec.name, run);
      added = true;
    }
    return added;
  }

  private get spec(): Obj { return this.pod.spec as Obj; }
  private get os() { return this.node.os; }
  private get clock(): Clock { return this.node.clock; }
  /** The clock's now as a Date. */
  private nowDate(): Date { return new Date(this.clock.now()); }

  // ---------------------------------------------------------------------
  // Entry points

  /** A new version of the pod from the watch. */
  update(pod: KObject): void {
    const deadline = this.spec.activeDeadlineSeconds;
    this.pod = pod;
    if (this.stopped) return;
    if (pod.metadata.deletionTimestamp && this.terminal && !this.terminating && !this.deleting && (this.rejected || !this.admitted)) {
      this.deleting = true; void this.deletePod(); return;
    }
    if (pod.metadata.deletionTimestamp && !this.terminating) { this.terminate(); return; }
    if (pod.metadata.deletionTimestamp && this.terminating) { this.shortenGrace(); return; }
    // A finished pod takes no more updates; a running one starts the ephemeral containers added to it.
    if (this.terminal || !this.admitted) return;
    // The pod sync an update triggers remounts its volumes: downward API files follow labels and annotations.
    this.refreshVolumes();
    // activeDeadlineSeconds may be set or lowered on a running pod: the kubelet checks it at every sync.
    if (this.spec.activeDeadlineSeconds !== deadline) this.armDeadline();
    if (this.adoptEphemeralContainers()) { this.scheduleStatus(); this.sync(); }
  }

  /**
   * Remounts the running containers' configMap, secret, downwardAPI and projected volumes with
   * their sources' current data, as each pod sync does; a source that fails now keeps its files.
   */
  private refreshVolumes(): void {
    if (this.stopped || this.terminal || !this.sandboxReady) return;
    const now = this.clock.now();
    const inputs = this.volumeInputs();
    const stale = volumesToRewrite(this.volumesWritten, inputs.keys, inputs.tokenTtl, now);
    if (!stale.size) return;
    const files: VolumeFiles = new Map();
    const ctx = this.volumeContext();
    try {
      for (const name of stale) files.set(name, volumeFiles(this.pod, inputs.volumes.get(name)!, ctx));
    } catch (e) {
      if (!(e instanceof VolumeSetUpError)) throw e;
      return;
    }
    for (const [name, f] of files) this.volumeFiles.set(name, f);
    for (const name of stale) this.volumesWritten.set(name, { key: inputs.keys.get(name)!, atMs: now });
    for (const c of this.cs.values()) if (c.fs && isRunning(c.state)) refreshVolumeFiles(c.fs, this.pod, c.spec, this.os, files);
  }

  /** The containers' mounted volumes that have files of their own: their input keys and token lifetimes. */
  private volumeInputs(): { volumes: Map<string, Obj>; keys: Map<string, string>; tokenTtl: Map<string, number> } {
    const mounted = new Set<string>();
    for (const c of this.cs.values()) for (const m of c.spec.volumeMounts ?? []) mounted.add(m.name);
    const volumes = new Map<string, Obj>(); const keys = new Map<string, string>(); const tokenTtl = new Map<string, number>();
    const ctx = { sources: this.node.sources, net: this.netInfo() };
    for (const v of this.spec.volumes ?? []) {
      if (!mounted.has(v.name)) continue;
      const key = volumeInputsKey(this.pod, v, ctx);
      if (key === undefined) continue;
      volumes.set(v.name, v); keys.set(v.name, key);
      const ttl = volumeTokenExpiration(v);
      if (ttl !== undefined) tokenTtl.set(v.name, ttl);
    }
    return { volumes, keys, tokenTtl };
  }

  /** The pod worker's periodic resync (the kubelet's syncFrequency, 1m): volumes pick up changed sources. */
  private armResync(): void {
    this.later(RESYNC_INTERVAL_MS, () => { if (this.terminal || this.terminating) return; this.refreshVolumes(); this.armResync(); });
  }

  /** Admission, then the first sync. */
  start(): void {
    const phase = (this.pod.status as Obj)?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      this.terminal = true;
      this.node.status.seed(this.uid, this.pod.status as Obj);
      // A finished pod being deleted: nothing runs, the kubelet only removes it.
      if (this.pod.metadata.deletionTimestamp) { this.deleting = true; void this.deletePod(); }
      return;
    }
    if (this.pod.metadata.deletionTimestamp) { this.admitted = true; this.terminate(); return; }
    const node = this.node.node();
    // The kubelet's admit handlers in order: eviction, the sysctl allowlist, then the predicates.
    const rej = this.node.evictionAdmission?.(this.pod) ?? sysctlAdmission(this.pod as Pod, this.os) ??
      (node ? admitPod(this.pod, node, this.os, this.node.admitted(this.uid)) : { reason: 'InvalidNodeInfo', message: 'Kubelet cannot get node info.' });
    if (rej) { this.reject(rej); return; }
    this.admitted = true;
    this.startTime ??= rfc3339(this.nowDate());
    this.armDeadline();
    this.armResync();
    this.sync();
    this.scheduleStatus();
  }

  /** activeDeadlineSeconds counted from startTime: then the pod is Failed with DeadlineExceeded and its containers stopped. */
  private armDeadline(): void {
    const ads = this.spec.activeDeadlineSeconds;
    if (typeof ads !== 'number' || !this.startTime) return;
    const due = Date.parse(this.startTime) + ads * 1000;
    this.later(Math.max(0, due - this.clock.now()), () => {
      if (this.terminal || this.terminating) return;
      this.evicted = { reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' };
      this.event(undefined, 'Normal', this.evicted.reason, this.evicted.message);
      this.failAndStop(specGracePeriodSeconds(this.spec));
    });
  }

  /**
   * The eviction manager's killPodFunc: the pod is Failed with `reason` and
   * `message` (and the DisruptionTarget condition), its containers stopped
   * within `graceSeconds`. False when the pod is already finishing.
   */
  evict(reason: string, message: string, graceSeconds: number, condition?: { type: string; reason: string }): boolean {
    if (this.stopped || this.terminal || this.terminating || !this.admitted) return false;
    this.evicted = { reason, message, ...(condition ? { condition } : {}) };
    this.failAndStop(graceSeconds);
    return true;
  }

  /** Whether nothing of the pod runs any more (the eviction manager waits for that before its next sync). */
  cleanedUp(): boolean {
    return this.stopped || (this.terminal && [...this.cs.values()].every((c) => !c.runner || c.runner.exited));
  }

  private failAndStop(grace: number): void {
    this.terminal = true;
    for (const t of this.timers) t.stop();
    this.timers.clear();
    for (const c of this.cs.values()) { c.busy = false; this.stopContainerTimers(c); this.killContainer(c, grace, `Stopping container ${c.spec.name}`); }
    this.sandboxReady = false;
    this.releaseSandboxIP();
    this.scheduleStatus();
  }

  /** The node stops: every process is gone, nothing is written. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) t.stop();
    this.timers.clear();
    for (const c of this.cs.values()) this.stopContainerTimers(c);
    for (const c of this.cs.values()) { if (c.runner && !c.runner.exited) { c.killing = true; c.runner.kill(GRACE_KILL_EXIT[this.os]); } }
    // The machine is down: its pods' addresses answer nothing.
    this.detachIP?.();
    this.detachIP = undefined;
  }

  /** The node starts again after a stop: the sandbox and running containers are re-created (SandboxChanged). */
  restartAfterNodeStop(): void {
    this.stopped = false;
    if (this.terminal || !this.admitted) return;
    const now = this.nowDate();
    let hadSandbox = this.sandboxReady;
    for (const c of this.cs.values()) {
      c.killing = false; c.busy = false; c.runner = undefined;
      const wasRunning = isRunning(c.state) ? c.state : c.hookPending;
      c.hookPending = undefined;
      if (wasRunning && c.ephemeral) {
        // Never restarted: its instance stays, exited.
        c.state = lostWhileRunning(wasRunning.startedAt, now, c.containerID);
        hadSandbox = true;
      } else if (wasRunning) {
        c.lastState = lostWhileRunning(wasRunning.startedAt, now, c.containerID);
        // startContainer: the new instance is the lost one's attempt + 1 (from the runtime, or its log files after a reboot).
        c.restartCount++;
        c.state = waiting('ContainerCreating');
        c.created = false;
        hadSandbox = true;
      }
    }
    this.sandboxReady = false;
    if (hadSandbox) this.event(undefined, 'Normal', 'SandboxChanged', 'Pod sandbox changed, it will be killed and re-created.');
    if (this.pod.metadata.deletionTimestamp) { this.terminate(); return; }
    this.adoptEphemeralContainers();
    this.sync();
    this.scheduleStatus();
  }

  /** The sandbox is gone: its address is free and no longer answers. */
  private releaseSandboxIP(): void {
    this.detachIP?.();
    this.detachIP = undefined;
    this.node.releaseIP(this.uid);
  }

  /** The pod's network as its containers see and reach it. */
  private podNet(c: CRun): { network: PodNetwork; net?: PodNetAccess } {
    const network = { ...podNetwork(this.pod), ...(this.podIPs[0] ? { podIP: this.podIPs[0] } : {}) };
    const ip = this.podIPs[0];
    if (!this.node.network || !ip) return { network };
    const ndots = ((this.spec.dnsConfig?.options ?? []) as Obj[]).find((o) => o.name === 'ndots')?.value;
    const resolver = { os: this.os, searches: network.searches ?? [], ...(ndots !== undefined && /^\d+$/.test(String(ndots)) ? { ndots: Number(ndots) } : {}) };
    return { network, net: this.node.network.forPod(ip, resolver, c.listening) };
  }

  /** The pod is gone from the API: stop everything at once. */
  destroy(): void {
    this.stop();
    this.releaseSandboxIP();
    this.node.images.forgetPod(this.uid);
    this.node.backoff.deletePrefix(`${this.uid}/`);
    this.node.logs.dropPod(this.uid);
    this.node.status.forget(this.uid);
  }

  /** The computed runtime view of a container for exec: its env and filesystem (undefined when not running). */
  execContext(container: string): { os: 'linux' | 'windows'; env: Record<string, string>; fs: ContainerFS; hostname: string; kernelVersion: string; identity?: ProcessIdentity; network: PodNetwork; net?: PodNetAccess } | undefined {
    const c = this.cs.get(container);
    if (!c || !isRunning(c.state) || !c.env || !c.fs) return undefined;
    return { os: this.os, env: c.env, fs: c.fs, hostname: podHostname(this.pod), kernelVersion: this.node.kernelVersion, identity: this.identityOf(c), ...this.podNet(c) };
  }

  /** The uid and groups the container's processes (its command, exec, hooks and probes) run as. */
  private identityOf(c: CRun): ProcessIdentity | undefined {
    return this.os === 'linux' ? processIdentity(this.pod as Pod, c.spec as Container) : undefined;
  }

  // ---------------------------------------------------------------------
  // Admission

  /** rejectPod: a Warning event and the pod Failed with "Pod was rejected: ". */
  private reject(r: Rejection): void {
    this.rejected = r;
    this.terminal = true;
    this.event(undefined, 'Warning', r.reason, r.message);
    this.startTime ??= rfc3339(this.nowDate());
    this.scheduleStatus();
  }

  // ---------------------------------------------------------------------
  // Sync

  private later(ms: number, fn: () => void, owner?: CRun): void {
    const t = this.clock.afterFunc(ms, () => { this.timers.delete(t); owner?.timers.delete(t); if (!this.stopped) fn(); });
    this.timers.add(t);
    owner?.timers.add(t);
  }

  /** SyncPod: computePodActions, then the sandbox, restarts and starts it asks for. */
  private sync(): void {
    if (this.stopped || this.terminal || this.terminating || !this.admitted) return;
    const actions = computePodActions(this.view(), this.clock.now(), this.node.backoff);
    if (actions.createSandbox && !this.setupSandbox()) return;
    if (actions.killPod) { this.finishPod(); return; }
    for (const name of actions.ephemeralContainersToStart) {
      const c = this.cs.get(name)!;
      if (!c.created && !c.busy) this.startContainer(c);
    }
    for (const r of actions.containersToRestart) this.restart(this.cs.get(r.name)!, r);
    for (const name of actions.containersToStart) {
      const c = this.cs.get(name)!;
      if (!c.created && !c.busy) this.startContainer(c);
    }
    // Ephemeral containers wait for the sync after the one that created the sandbox.
    if (actions.createSandbox && [...this.cs.values()].some((c) => c.ephemeral && !c.created && !c.busy)) this.later(0, () => this.sync());
    if (actions.checkCompletion) this.checkCompletion();
  }

  /** The containers as computePodActions reads them. */
  private view(): PodView {
    return {
      display: formatPod(this.pod), uid: this.uid, restartPolicy: restartPolicyOf(this.spec.restartPolicy), sandboxReady: this.sandboxReady,
      containers: [...this.cs.values()].map((c) => ({ name: c.spec.name, init: c.init, sidecar: c.sidecar, ephemeral: c.ephemeral, state: c.state, created: c.created, busy: c.busy,
        alive: !!c.runner && !c.runner.exited })),
    };
  }

  /** MountVolume.SetUp of every container's volumes from their sources' current data; throws VolumeSetUpError. */
  private mountVolumeFiles(): VolumeFiles {
    const files: VolumeFiles = new Map();
    for (const c of this.cs.values()) containerFS(this.pod, c.spec, this.os, this.volumeContext(), files);
    return files;
  }

  /** Volumes (FailedMount) and the sandbox (FailedCreatePodSandBox); true when ready. */
  private setupSandbox(): boolean {
    // Volumes: every container's files are built from the pod's volumes (per-container filesystems later).
    try {
      const inputs = this.volumeInputs();
      this.volumeFiles = this.mountVolumeFiles();
      const now = this.clock.now();
      this.volumesWritten.clear();
      for (const [name, key] of inputs.keys) this.volumesWritten.set(name, { key, atMs: now });
    } catch (e) {
      if (!(e instanceof VolumeSetUpError)) throw e;
      if (!(e instanceof VolumeNotReadyError)) this.event(undefined, 'Warning', 'FailedMount', e.eventMessage);
      this.later(2000, () => this.sync());
      return false;
    }
    const hostNetworkErr = this.spec.hostNetwork ? this.node.runtime.hostNetworkSandboxError?.replace('%s', this.pod.metadata.name ?? '') : undefined;
    const runtimeErr = sandboxRuntimeError(this.spec.runtimeClassName, (n) => this.node.runtimeClass(n), this.node.runtime, this.os)
      ?? (hostNetworkErr && `rpc error: code = Unknown desc = ${hostNetworkErr}`);
    if (runtimeErr) {
      this.event(undefined, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${runtimeErr}`);
      this.later(10_000, () => this.sync());
      return false;
    }
    const pause = this.node.images.resolve(this.node.pauseImage);
    if (!pause.ok && this.os === 'windows') {
      this.sandboxFailure(pause.failure);
      return false;
    }
    this.node.images.add(this.node.pauseImage);
    if (this.spec.hostNetwork) this.podIPs = this.node.hostIPs().slice(0, 1);
    else {
      const ip = this.node.allocIP(this.uid, this.podIPs[0]);
      if (!ip) {
        this.event(undefined, 'Warning', 'FailedCreatePodSandBox',
          `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "${runtimeID(this.uid)}": plugin type="host-local" failed (add): failed to allocate for range 0: no IP addresses available in range set`);
        this.later(5000, () => this.sync());
        return false;
      }
      this.podIPs = [ip];
      this.detachIP?.();
      this.detachIP = this.node.network?.attach(ip, { namespace: this.pod.metadata.namespace ?? 'default', name: this.pod.metadata.name ?? '', node: this.node.name });
    }
    this.sandboxReady = true;
    return true;
  }

  private sandboxFailure(f: ImageFailure): void {
    const id = runtimeID(this.uid, 'sandbox');
    this.event(undefined, 'Warning', 'FailedCreatePodSandBox',
      `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem ${id}: ${f.message}: unknown`);
    if (!this.hintedSandbox) { this.hintedSandbox = true; this.event(undefined, 'Normal', 'WinkubeHint', `sandbox image: ${hintFor(f)}`); }
    this.later(10_000, () => this.sync());
  }

  private volumeContext() {
    return { sources: this.node.sources, net: this.netInfo(), token: this.node.token, hostDir: (path: string) => this.node.hostDirs.get(path),
      emptyDir: (volume: string) => { let d = this.emptyDirs.get(volume); if (!d) { d = new HostDir(); this.emptyDirs.set(volume, d); } return d; },
      hostFile: (path: string) => (this.os === 'linux' && path === ETC_HOSTS ? nodeHostsFile(this.node.name) : undefined) };
  }

  private netInfo(): PodNetworkInfo {
    const alloc = ((this.node.node()?.status as Obj)?.allocatable ?? {}) as Record<string, string>;
    return { nodeName: this.node.name, hostIPs: this.node.hostIPs(), podIPs: this.podIPs,
      allocatable: { cpu: alloc.cpu ?? '0', memory: alloc.memory ?? '0', 'ephemeral-storage': alloc['ephemeral-storage'] }, os: this.os };
  }

  /** kubecontainer.GenerateContainerRef's fieldPath. */
  private fieldPath(c: CRun): string {
    return `${c.init ? 'spec.initContainers' : c.ephemeral ? 'spec.ephemeralContainers' : 'spec.containers'}{${c.spec.name}}`;
  }

  private event(c: CRun | undefined, type: EventType, reason: string, message: string): void {
    const ref: ObjectReference = referenceTo(this.pod, c ? this.fieldPath(c) : undefined);
    void this.node.events.record(ref, type, reason, message, 'kubelet', this.node.name);
  }

  private waiting(c: CRun, reason: string, message?: string): void {
    c.state = waiting(reason, message);
  }

  // ---------------------------------------------------------------------
  // Containers

  /** startContainer: image, config (env, mounts), create, start. */
  private startContainer(c: CRun): void {
    c.busy = true;
    const hostProcess = this.os === 'windows' && isHostProcessContainer(this.spec, c.spec);
    const policy = c.spec.imagePullPolicy ?? 'IfNotPresent';
    const r = this.node.images.ensure(this.uid, c.spec.image, policy, hostProcess);
    for (const e of r.events) this.event(c, e.type, e.reason, e.message);
    const onResult = (res: typeof r) => {
      if (this.stopped || this.terminating) { c.busy = false; return; }
      if (res.kind === 'pulling') return;
      if (res.kind === 'failed') {
        this.event(c, 'Warning', 'Failed', `Error: ${res.reason}`);
        this.waiting(c, res.reason, res.message);
        if (res.failure && !c.hinted) { c.hinted = true; this.event(c, 'Normal', 'WinkubeHint', hintFor(res.failure)); }
        // The pod worker syncs again; the image back-off decides whether it pulls.
        this.later(res.reason === 'ErrImagePull' ? 1000 : 10_000, () => { c.busy = false; this.sync(); }, c);
        this.scheduleStatus();
        return;
      }
      c.image = res.image; c.imageID = res.imageID;
      this.createAndStart(c, hostProcess);
    };
    if (r.kind === 'pulling') {
      if (r.ms <= 0) { const done = r.finish(); for (const e of done.events) this.event(c, e.type, e.reason, e.message); onResult(done); }
      else this.later(r.ms, () => { const done = r.finish(); for (const e of done.events) this.event(c, e.type, e.reason, e.message); onResult(done); }, c);
      return;
    }
    onResult(r);
  }

  private createAndStart(c: CRun, hostProcess: boolean): void {
    // startSpec.getTargetID, then (containerd on Linux) CreateContainer joining the target's PID namespace.
    const target = this.targetFailure(c);
    if (target?.reason === 'CreateContainerConfigError') { this.failStart(c, target.reason, target.message); return; }
    // generateContainerConfig: environment and mounts.
    let env: Record<string, string>;
    let fs: ContainerFS;
    try {
      const nonRoot = verifyRunAsNonRoot(this.pod, c.spec, this.os);
      if (nonRoot) throw new ContainerConfigError(nonRoot);
      env = processEnv(this.pod, c.spec, this.netInfo(), this.node.sources, podHostname(this.pod), this.node.cpus);
      // makeMounts: subPathExpr expanded and every subPath checked before anything is mounted.
      const prepared = prepareMounts(c.spec.volumeMounts ?? [], env);
      if ('error' in prepared) throw new ContainerConfigError(prepared.error);
      fs = containerFS(this.pod, { ...c.spec, volumeMounts: prepared.mounts }, this.os, this.volumeContext(), this.volumeFiles);
      applyRuntimeFS(fs, this.pod as Pod, c.spec as Container, this.os);
    } catch (e) {
      if (!(e instanceof ContainerConfigError || e instanceof VolumeSetUpError)) throw e;
      this.failStart(c, 'CreateContainerConfigError', e.message);
      return;
    }
    if (target) { this.failStart(c, target.reason, target.message); return; }
    // CreateContainer: Docker on Windows cannot bind a single file.
    const bindErr = this.os === 'windows' && !this.node.runtime.singleFileMounts
      ? singleFileMountError(this.uid, this.spec.volumes ?? [], c.spec, this.volumeFiles) : undefined;
    if (bindErr) { this.failStart(c, 'CreateContainerError', bindErr); return; }
    // CreateContainer: the image must run on this host (Windows build / OS rules).
    const res = this.node.images.resolve(c.spec.image, hostProcess);
    if (!res.ok && res.failure.stage === 'create') {
      const id = runtimeID(this.uid, c.spec.name);
      const msg = `failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem ${id}: ${res.failure.message}: unknown`;
      this.event(c, 'Warning', 'Failed', `Error: ${msg}`);
      this.waiting(c, 'CreateContainerError', msg);
      if (!c.hinted) { c.hinted = true; this.event(c, 'Normal', 'WinkubeHint', hintFor(res.failure)); }
      this.later(10_000, () => { c.busy = false; this.sync(); }, c);
      this.scheduleStatus();
      return;
    }
    const argv = this.argv(c, env);
    const ctx = { os: this.os, env, hostname: podHostname(this.pod), fs, kernelVersion: this.node.kernelVersion,
      posixShell: posixShellOf(c.spec.image),
      image: c.spec.image,
      identity: this.identityOf(c),
      ...this.podNet(c) };
    const startErr = startError(argv, ctx);
    c.containerID = `containerd://${runtimeID(this.uid, c.spec.name, c.restartCount)}`;
    c.created = true;
    this.event(c, 'Normal', 'Created', `Created container: ${c.spec.name}`);
    if (startErr) {
      // StartContainer fails: the instance exists and has exited (StartError, 128).
      this.event(c, 'Warning', 'Failed', `Error: ${startErr}`);
      const now = this.nowDate();
      c.state = { kind: 'terminated', exitCode: 128, reason: 'StartError', message: startErr, startedAt: '1970-01-01T00:00:00Z', finishedAt: rfc3339(now), finishedAtMs: now.getTime(), containerID: c.containerID };
      c.busy = false;
      this.node.logs.end(this.uid, c.spec.name, c.restartCount);
      this.afterExit(c);
      return;
    }
    const scripted = scriptedExitCode(c.script, c.restartCount);
    c.application = !argv.length || (scripted === undefined && isApplication(argv, this.os));
    // An init container's own program (an installer the model cannot know, such as flannel's `cp` or
    // calico's `install`) runs to completion: init containers exist to finish.
    const exitCode = scripted ?? (c.init && !c.sidecar && c.application ? 0 : undefined);
    const app = exitCode === undefined && !c.script?.http ? applicationFor({ image: c.spec.image, ...this.commandAndArgs(c, env) }) : undefined;
    c.served = !!app;
    const work = app ? this.node.servedWork?.start(this.uid, c.spec.name, c.restartCount) : undefined;
    const identity = this.identityOf(c);
    const program = exitCode !== undefined ? this.scriptedProgram(c, exitCode)
      : app ? app({ net: ctx.net, now: () => this.nowDate(), hostname: ctx.hostname, kernelVersion: ctx.kernelVersion, cpus: this.node.cpus, env,
        fs, ...(identity ? { user: identity } : {}),
        after: (ms: number, fn: () => void) => this.later(ms, fn, c),
        ...(work ? { served: (cpuNs: number) => work.record(this.nowDate().getTime(), cpuNs) } : {}) })
      : interpret(argv, ctx);
    c.env = env; c.fs = fs; c.program = program;
    const now = this.nowDate();
    const started = !c.spec.startupProbe;
    // Readiness is the prober's, which knows regular containers and sidecars only.
    c.state = { kind: 'running', startedAt: rfc3339(now), startedAtMs: now.getTime(), started, ready: started && !c.spec.readinessProbe && !(c.init && !c.sidecar) && !c.ephemeral };
    this.event(c, 'Normal', 'Started', `Started container ${c.spec.name}`);
    const restartCount = c.restartCount;
    const out = new LineSplitter((l) => this.node.logs.append(this.uid, c.spec.name, restartCount, 'stdout', l));
    const err = new LineSplitter((l) => this.node.logs.append(this.uid, c.spec.name, restartCount, 'stderr', l));
    for (const l of c.script?.stdout ?? []) out.write(l + '\n');
    c.outputTail = '';
    c.runner = new ProgramRunner(program, {
      stdout: (t) => { c.outputTail = keepOutputTail(c.outputTail ?? '', t); out.write(t); },
      stderr: (t) => { c.outputTail = keepOutputTail(c.outputTail ?? '', t); err.write(t); },
      exit: (code) => {
        // The process is gone: its sockets with it.
        for (const l of [...c.listening]) l.close();
        out.flush(); err.flush(); this.node.logs.end(this.uid, c.spec.name, restartCount); this.onExit(c, code);
      },
    }, timersOf(this.clock));
    c.runner.start();
    // A scripted server is the container's process's socket: bound now, closed with the process (c.listening).
    if (c.script?.http && ctx.net) listenScripted(ctx.net, c.script.http, () => this.nowDate());
    const postStart: Obj | undefined = c.spec.lifecycle?.postStart;
    if (postStart) { this.runPostStart(c, postStart); return; }
    this.afterStart(c);
  }

  /**
   * A start that failed before the container was created: the Failed event, the waiting reason the
   * kubelet's reason cache shows, and another try at a later sync.
   */
  private failStart(c: CRun, reason: string, message: string): void {
    this.event(c, 'Warning', 'Failed', `Error: ${message}`);
    this.waiting(c, reason, message);
    this.later(10_000, () => { c.busy = false; this.sync(); }, c);
    this.scheduleStatus();
  }

  /** What an ephemeral container's targetContainerName stops, if anything (ephemeral-target.ts). */
  private targetFailure(c: CRun): TargetFailure | undefined {
    if (!c.ephemeral) return undefined;
    const target: string | undefined = c.spec.targetContainerName || undefined;
    const t = target === undefined ? undefined : this.cs.get(target);
    return targetContainerFailure({
      target, os: this.os, runtime: this.node.runtime.name,
      instance: t?.containerID ? { containerID: t.containerID, running: !!t.runner && !t.runner.exited } : undefined,
      newContainerID: runtimeID(this.uid, c.spec.name, c.restartCount),
    });
  }

  /** The container runs (and its postStart hook, if any, succeeded): probes, memory watch, status. */
  private afterStart(c: CRun): void {
    c.busy = false;
    c.hookError = undefined;
    this.startProbes(c);
    this.watchMemory(c);
    this.scheduleStatus();
    if (c.sidecar) this.sync();
  }

  /**
   * startContainer step 4: the postStart hook runs while the start is still in progress, so the
   * container shows as ContainerCreating until the hook returns; a failed hook kills the container.
   */
  private runPostStart(c: CRun, hook: Obj): void {
    if (c.state.kind !== 'running') return;
    const running = c.state;
    c.hookPending = running;
    c.state = waiting('ContainerCreating');
    const result = this.runHook(c, hook);
    if (result.forever) return;
    this.later(result.ms, () => {
      c.hookPending = undefined;
      if (!c.runner || c.runner.exited) return;
      c.state = running;
      if (result.ok) { this.afterStart(c); return; }
      this.event(c, 'Warning', FAILED_POST_START_EVENT.reason, FAILED_POST_START_EVENT.message);
      c.hookError = result.message;
      c.busy = false;
      this.killContainer(c, specGracePeriodSeconds(this.spec), POST_START_KILL_MESSAGE);
    }, c);
  }

  /** One lifecycle hook (exec or httpGet) against the container model. */
  private runHook(c: CRun, hook: Obj): HookRun {
    const podName = formatPod(this.pod);
    if (hook.exec) {
      const command: string[] = hook.exec.command ?? [];
      // The hook runs in the container: its network too (a hook that curls another pod reaches it).
      const r = collect(interpret(command, { os: this.os, env: c.env ?? {}, hostname: podHostname(this.pod), fs: c.fs!, kernelVersion: this.node.kernelVersion, identity: this.identityOf(c), ...this.podNet(c) }), 10_000);
      return execHookResult(command, c.spec.name, podName, r);
    }
    if (hook.httpGet) {
      const port = this.resolvePort(c, hook.httpGet.port);
      const host = String(hook.httpGet.host ?? this.podIPs[0] ?? '');
      const path = String(hook.httpGet.path ?? '');
      const sent = String(hook.httpGet.scheme ?? 'HTTP').toUpperCase() === 'HTTP' ? this.httpHookRequest(host, port, path.startsWith('/') ? path : `/${path}`) : undefined;
      // The pod's own programs the network model cannot serve still answer on their container ports.
      const answered = sent === true || ((sent === undefined || host === this.podIPs[0]) && this.listens(port));
      return httpHookResult(path, c.spec.name, podName, { scheme: String(hook.httpGet.scheme ?? 'HTTP'), host, port }, answered);
    }
    if (hook.sleep) return { ok: true, ms: Number(hook.sleep.seconds ?? 0) * 1000 };
    return { ok: true, ms: 0 };
  }

  /** command/args as the runtime execs them: $(VAR) expanded (ExpandContainerCommandAndArgs); none = the image's entrypoint. */
  private argv(c: CRun, env: Record<string, string>): string[] {
    const { command: cmd, args } = this.commandAndArgs(c, env);
    if (cmd.length) return [...cmd, ...args];
    // Args without command run under the image's entrypoint; for the model's images that is a shell-less exec of args.
    return args;
  }

  /** command and args with $(VAR) expanded (ExpandContainerCommandAndArgs). */
  private commandAndArgs(c: CRun, env: Record<string, string>): { command: string[]; args: string[] } {
    const exp = (s: string) => s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, n?: string) => (m === '$$' ? '$' : env[n!] ?? m));
    return { command: (c.spec.command ?? []).map(exp), args: (c.spec.args ?? []).map(exp) };
  }

  private scriptedProgram(c: CRun, code: number): Program {
    const ms = Math.round((c.script?.runSeconds ?? 0) * 1000);
    const steps: Step[] = [];
    if (ms > 0) steps.push({ kind: 'sleep', ms });
    steps.push({ kind: 'exit', code });
    const it = steps[Symbol.iterator]();
    return { next: () => it.next(), terminate: () => [{ kind: 'exit', code: 0 } as Step][Symbol.iterator]() };
  }

  /** Scripted memory use: over the limit on Linux, the kernel OOM-kills the container. */
  private watchMemory(c: CRun): void {
    const afterMs = oomKillAfterMs(this.os, c.script, c.spec);
    if (afterMs === undefined) return;
    this.later(afterMs, () => {
      if (!c.runner || c.runner.exited) return;
      c.killReason = { ...OOM_KILL };
      c.runner.kill(OOM_KILL.exitCode);
    }, c);
  }

  private stopContainerTimers(c: CRun): void {
    for (const t of c.timers) { t.stop(); this.timers.delete(t); }
    c.timers.clear();
    for (const p of c.probes) p.stop();
    c.probes = [];
  }

  /** The program ended: terminated state, then restart, completion or deletion. */
  private onExit(c: CRun, code: number): void {
    this.stopContainerTimers(c);
    // The node stopped and took the process with it: no kubelet saw an exit, and the container is
    // still the one that was running when the node comes back (restartAfterNodeStop).
    if (this.stopped) { c.runner = undefined; return; }
    const now = this.nowDate();
    const startedAt = isRunning(c.state) ? c.state.startedAt : c.hookPending?.startedAt ?? rfc3339(now);
    c.hookPending = undefined;
    const kill = c.killReason;
    c.killReason = undefined;
    const exitCode = kill?.exitCode ?? code;
    const reason = kill?.reason ?? (exitCode === 0 ? 'Completed' : 'Error');
    const message = terminationMessage({ policy: c.spec.terminationMessagePolicy, exitCode, reason,
      file: c.spec.terminationMessagePath ? c.fs?.read(c.fs.resolve(String(c.spec.terminationMessagePath))) : undefined, output: c.outputTail ?? '' });
    c.state = { kind: 'terminated', exitCode, reason, ...(message ? { message } : {}), startedAt, finishedAt: rfc3339(now), finishedAtMs: now.getTime(), containerID: c.containerID };
    c.outputTail = undefined;
    c.runner = undefined;
    if (this.terminating) { this.checkTerminated(); return; }
    if (this.evicted) { this.scheduleStatus(); return; }
    this.afterExit(c);
  }

  private afterExit(c: CRun): void {
    const next = computeExitActions(this.view(), c.spec.name, this.clock.now(), this.node.backoff);
    if (next.sync) { this.scheduleStatus(); this.sync(); return; }
    if (next.killPod) { this.finishPod(); return; }
    if (next.restart) { this.restart(c, next.restart); return; }
    this.scheduleStatus();
    this.checkCompletion();
  }

  /** When every regular container has finished and none restarts: the pod is done (sidecars stopped, sandbox removed). */
  private checkCompletion(): void {
    if (this.terminal || this.terminating) return;
    const completion = computePodCompletion(this.view());
    const grace = specGracePeriodSeconds(this.spec);
    for (const name of completion.containersToKill) this.killContainer(this.cs.get(name)!, grace, `Stopping container ${name}`);
    if (completion.complete) this.finishPod();
  }

  /** The pod reached a terminal phase: the sandbox goes, the status is final. */
  private finishPod(): void {
    this.terminal = true;
    this.sandboxReady = false;
    for (const c of this.cs.values()) this.stopContainerTimers(c);
    this.releaseSandboxIP();
    this.scheduleStatus();
  }

  /** doBackOff's answer carried out: restart now (and record the back-off), or wait in CrashLoopBackOff. */
  private restart(c: CRun, r: Restart): void {
    const bo = this.node.backoff;
    if (r.backOff) {
      const b = r.backOff;
      this.event(c, 'Warning', 'BackOff', b.event);
      this.moveToLastState(c);
      this.waiting(c, b.reason, b.message);
      c.busy = true;
      this.later(b.delayMs, () => { c.busy = false; bo.next(r.key, r.finishedAtMs); this.doRestart(c); }, c);
      this.scheduleStatus();
      return;
    }
    bo.next(r.key, r.finishedAtMs);
    this.doRestart(c);
  }

  private moveToLastState(c: CRun): void {
    if (c.state.kind === 'terminated') c.lastState = c.state;
  }

  private doRestart(c: CRun): void {
    if (this.stopped || this.terminating || this.terminal) return;
    this.moveToLastState(c);
    c.restartCount++;
    c.created = false;
    // The last start failed in its postStart hook: the kubelet's reason cache shows it until a start succeeds.
    if (c.hookError !== undefined) this.waiting(c, POST_START_HOOK_ERROR, c.hookError);
    else this.waiting(c, 'ContainerCreating');
    this.startContainer(c);
    this.scheduleStatus();
  }

  // ---------------------------------------------------------------------
  // Probes (pkg/kubelet/prober)

  private startProbes(c: CRun): void {
    const target: ProbeTarget = {
      running: () => (!this.stopped && c.runner && isRunning(c.state) ? c.state : undefined),
      probe: (kind, probe) => this.probeOnce(c, kind, probe),
      apply: (kind, outcome) => this.applyProbe(c, kind, outcome),
    };
    const kinds: [ProbeKind, Obj | undefined][] = [['Startup', c.spec.startupProbe], ['Readiness', c.spec.readinessProbe], ['Liveness', c.spec.livenessProbe]];
    for (const [kind, probe] of kinds) {
      if (!probe) continue;
      const w = new ProbeWorker(this.clock, kind, probe, { name: c.spec.name, hasReadinessProbe: !!c.spec.readinessProbe }, target);
      c.probes.push(w);
      w.start();
    }
  }

  /** A probe's outcome: the Unhealthy event, then readiness, the startup verdict, or the kill. */
  private applyProbe(c: CRun, kind: ProbeKind, outcome: ProbeOutcome): void {
    if (outcome.unhealthy) this.event(c, 'Warning', 'Unhealthy', outcome.unhealthy);
    const run = c.state;
    if (run.kind !== 'running') return;
    if (outcome.started) run.started = true;
    if (outcome.ready !== undefined) run.ready = outcome.ready;
    if (outcome.started || outcome.ready !== undefined) this.scheduleStatus();
    if (outcome.started && c.sidecar) this.sync();
    if (outcome.kill) {
      const grace = specGracePeriodSeconds(this.spec, outcome.kill.probeGraceSeconds);
      this.killContainer(c, grace, outcome.kill.message);
    }
  }

  /** One probe against the container model: exec through the shell, network probes against what it listens on. */
  private probeOnce(c: CRun, kind: string, probe: Obj): { ok: boolean; output: string } {
    const scripted = scriptedProbe((c.script as Obj | undefined)?.[kind.toLowerCase()], this.clock.now() - (isRunning(c.state) ? c.state.startedAtMs : 0));
    const ip = this.podIPs[0] ?? '';
    if (probe.exec) {
      const r = collect(interpret(probe.exec.command ?? [], { os: this.os, env: c.env ?? {}, hostname: podHostname(this.pod), fs: c.fs!, kernelVersion: this.node.kernelVersion, identity: this.identityOf(c) }), 10_000);
      const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
      let ok = r.code === 0 && r.slept <= timeoutMs;
      let output = (r.stdout + r.stderr);
      if (r.code === 'forever' || r.slept > timeoutMs) { ok = false; output = `command timed out`; }
      if (scripted !== undefined) ok = scripted;
      return { ok, output: output.replace(/\n$/, '') };
    }
    const port = this.resolvePort(c, probe.httpGet?.port ?? probe.tcpSocket?.port ?? probe.grpc?.port);
    const host = probe.httpGet?.host ?? probe.tcpSocket?.host ?? ip;
    const listening = this.listens(port);
    if (probe.httpGet) {
      const scheme = String(probe.httpGet.scheme ?? 'HTTP').toLowerCase();
      const path = probe.httpGet.path ?? '/';
      const hp = `${host}:${port}`;
      if (!listening) return { ok: false, output: `Get "${scheme}://${hp}${path.startsWith('/') ? path : '/' + path}": dial tcp ${hp}: connect: connection refused` };
      if (scripted === false) return { ok: false, output: 'HTTP probe failed with statuscode: 500' };
      if (scripted === undefined) return this.httpProbe(scheme === 'https' ? 'https' : 'http', String(host), port, path.startsWith('/') ? path : `/${path}`);
      return { ok: true, output: '' };
    }
    if (probe.tcpSocket) {
      if (!listening || scripted === false) return { ok: false, output: `dial tcp ${host}:${port}: connect: connection refused` };
      return { ok: true, output: '' };
    }
    if (probe.grpc) {
      if (!listening) return { ok: false, output: `timeout: failed to connect service "${host}:${port}" within ${probe.timeoutSeconds ?? 1}s: context deadline exceeded` };
      if (scripted === false) return { ok: false, output: 'service unhealthy (responded with "NOT_SERVING")' };
      return { ok: true, output: '' };
    }
    return { ok: scripted ?? true, output: '' };
  }

  /**
   * An HTTP(S) probe through the pod network (http-probe.ts), from the node's side of the pod's
   * bridge (x.x.x.1, the source address a server in the pod logs).
   */
  private httpProbe(scheme: 'http' | 'https', host: string, port: number, target: string): { ok: boolean; output: string } {
    const from = (this.podIPs[0] ?? host).replace(/\.\d+$/, '.1');
    const conn = this.node.network?.connect(from, host, port);
    if (conn?.kind !== 'connected') return { ok: true, output: '' };
    return httpProbeOver(conn, { scheme, host, port, target });
  }

  /**
   * An httpGet hook's request through the pod network, as the kubelet sends
   * it (lifecycle/handlers.go runHTTPHandler: `kube-lifecycle/<major>.<minor>`);
   * any answer is success, whatever its status. Undefined when the network
   * cannot tell (no network model, or the server has not answered yet).
   */
  private httpHookRequest(host: string, port: number, target: string): boolean | undefined {
    const from = (this.podIPs[0] ?? host).replace(/\.\d+$/, '.1');
    const conn = this.node.network?.connect(from, host, port);
    if (!conn || conn.kind === 'timeout') return undefined;
    if (conn.kind !== 'connected') return false;
    const reply = conn.exchange({ method: 'GET', target, body: new Uint8Array(),
      headers: [['Host', `${host}:${port}`], ['User-Agent', 'kube-lifecycle/1.32'], ['Accept', '*/*'], ['Connection', 'close']] });
    return reply.settled && reply.value !== 'reset' ? true : undefined;
  }

  private resolvePort(c: CRun, port: unknown): number {
    if (typeof port === 'number') return port;
    const named = [...this.cs.values()].flatMap((x) => x.spec.ports ?? []).find((p: Obj) => p.name === port);
    if (named) return named.containerPort;
    return Number(port);
  }

  /** Whether anything in the pod accepts connections on the port. */
  private listens(port: number): boolean {
    // A program that bound the port itself (an HttpListener script) answers there.
    const ip = this.podIPs[0];
    if (ip && this.node.network?.listening(ip, port)) return true;
    for (const c of this.cs.values()) {
      if (!c.runner || c.runner.exited) continue;
      if (c.script?.listen) { if (c.script.listen.includes(port)) return true; continue; }
      // A served application listens where it bound (the network answered above), not where containerPorts say.
      if (!c.application || c.served) continue;
      const ports: Obj[] = c.spec.ports ?? [];
      if (!ports.length || ports.some((p) => p.containerPort === port)) return true;
    }
    return false;
  }

  // ---------------------------------------------------------------------
  // Killing and graceful deletion (killContainer, killPodWithSyncResult)

  /** Killing event, SIGTERM, then SIGKILL after the grace period when the program ignores it. */
  private killContainer(c: CRun, graceSeconds: number, message: string): void {
    if (!c.runner || c.runner.exited || c.killing) return;
    c.killing = true;
    this.event(c, 'Normal', 'Killing', message);
    for (const p of c.probes) p.stop();
    c.probes = [];
    const runner = c.runner;
    const preStop: Obj | undefined = c.spec.lifecycle?.preStop;
    if (preStop && graceSeconds > 0) {
      // executePreStopHook: the hook runs first, for at most the grace period; its whole seconds are
      // taken from the grace period the stop signal then gets.
      const hook = this.runHook(c, preStop);
      const ms = hook.forever ? graceSeconds * 1000 : Math.min(hook.ms, graceSeconds * 1000);
      const failed = !hook.ok && !hook.forever;
      const stopAfterHook = () => {
        if (failed) this.event(c, 'Warning', FAILED_PRE_STOP_EVENT.reason, FAILED_PRE_STOP_EVENT.message);
        if (!runner.exited) this.stopContainer(c, runner, graceAfterPreStop(graceSeconds, Math.floor(ms / 1000)));
        else c.killing = false;
      };
      if (ms > 0) this.later(ms, stopAfterHook); else stopAfterHook();
      return;
    }
    this.stopContainer(c, runner, graceSeconds);
  }

  /** StopContainer: the stop signal, then SIGKILL when the grace period runs out. */
  private stopContainer(c: CRun, runner: ProgramRunner, graceSeconds: number): void {
    const done = () => { c.killing = false; };
    // "TerminationGracePeriod: requires containerD": under Docker on Windows the stop timeout is Windows' own.
    const stop: StopInput = { os: this.os, graceSeconds, stopTimeoutSeconds: this.node.stopTimeoutSeconds, sigterm: c.script?.sigterm, application: c.application };
    const reacts = stopSignal(stop) === 'SIGTERM' ? runner.terminate() : false;
    const next = afterSignal(stop, reacts, runner.exited);
    if (next.exitNow !== undefined) { runner.kill(next.exitNow); done(); return; }
    const kill = next.kill;
    if (!kill) { done(); return; }
    this.later(kill.afterMs, () => { if (!runner.exited) runner.kill(kill.exitCode); done(); });
  }

  private graceSeconds(): number { return podGracePeriodSeconds(this.pod); }

  /** The pod got a deletionTimestamp: stop every container, then delete the pod with grace 0. */
  private terminate(): void {
    this.terminating = true;
    for (const t of this.timers) t.stop();
    this.timers.clear();
    for (const c of this.cs.values()) { c.busy = false; this.stopContainerTimers(c); }
    const grace = this.graceSeconds();
    // Regular and ephemeral containers first; sidecars after the regular ones (in reverse order), as the kubelet's terminationOrdering does.
    const main = [...this.cs.values()].filter((c) => !c.init);
    for (const c of main) this.killContainer(c, grace, `Stopping container ${c.spec.name}`);
    if (main.filter((c) => !c.ephemeral).every((c) => !c.runner || c.runner.exited)) {
      for (const c of [...this.cs.values()].filter((x) => x.sidecar).reverse()) this.killContainer(c, grace, `Stopping container ${c.spec.name}`);
    }
    this.checkTerminated();
  }

  /** A shorter grace period (a second delete): containers still running are killed at once when it reaches 0. */
  private shortenGrace(): void {
    if (this.graceSeconds() > 0) return;
    for (const c of this.cs.values()) if (c.runner && !c.runner.exited) c.runner.kill(GRACE_KILL_EXIT[this.os]);
  }

  private checkTerminated(): void {
    const running = [...this.cs.values()].filter((c) => c.runner && !c.runner.exited);
    const regularRunning = running.filter((c) => !c.init && !c.ephemeral);
    if (!regularRunning.length) {
      for (const s of running.filter((c) => c.sidecar)) this.killContainer(s, this.graceSeconds(), `Stopping container ${s.spec.name}`);
    }
    if (running.length) { this.scheduleStatus(); return; }
    if (this.deleting) return;
    this.deleting = true;
    this.terminal = true;
    this.sandboxReady = false;
    this.releaseSandboxIP();
    // Status with every container terminated, then the final delete (status manager: canBeDeleted → Delete with grace 0).
    void this.node.status.writeFinal(this.uid).then(() => this.deletePod());
  }

  private async deletePod(): Promise<void> {
    try {
      await this.node.pods.delete(this.pod.metadata.namespace!, this.pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: this.uid } });
    } catch (e) {
      if (!(e instanceof StatusError && (e.status.code === 404 || e.status.code === 409))) this.node.log(`kubelet: delete pod ${this.pod.metadata.namespace}/${this.pod.metadata.name}: ${(e as Error).message}`);
    }
  }

  // ---------------------------------------------------------------------
  // Status (written by the status manager)

  /** The pod's status changed: the status manager writes it (SetPodStatus). */
  private scheduleStatus(): void {
    if (!this.stopped) this.node.status.setPodStatus(this.uid);
  }

  /** Whether the status manager may still write for this worker (not once the node stopped). */
  active(): boolean { return !this.stopped; }

  /** generateAPIPodStatus merged over the stored status (mergePodStatus). */
  generate(old: Obj, now: string): Obj {
    const keep: Obj = {};
    for (const k of ['nominatedNodeName', 'resize', 'resourceClaimStatuses']) if (old[k] !== undefined) keep[k] = old[k];
    const qosClass = old.qosClass;
    if (this.rejected) {
      return { ...keep, message: `Pod was rejected: ${this.rejected.message}`, phase: 'Failed', qosClass, reason: this.rejected.reason, startTime: this.startTime };
    }
    const statuses = (which: (c: CRun) => boolean) => [...this.cs.values()].filter(which).map((c) => this.containerStatus(c));
    // convertToAPIContainerStatuses: init containers in spec order, the others by name (kubetypes.SortedContainerStatuses).
    const byName = (a: Obj, b: Obj) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0);
    const initStatuses = statuses((c) => c.init);
    const containerStatuses = statuses((c) => !c.init && !c.ephemeral).sort(byName);
    const ephemeralStatuses = statuses((c) => c.ephemeral).sort(byName);
    const phase = this.evicted ? 'Failed' : podPhase(this.spec, initStatuses, containerStatuses, this.terminal && (this.deleting || this.pod.metadata.deletionTimestamp !== undefined));
    const conditions = podConditions(this.spec, old.conditions ?? [], this.sandboxReady, initStatuses, containerStatuses, phase, now);
    const disruption = this.evicted?.condition;
    if (disruption && !conditions.some((c) => c.type === disruption.type)) {
      // The eviction manager's DisruptionTarget condition, carried over from then on as a condition the kubelet does not own.
      conditions.unshift({ type: disruption.type, status: 'True', lastProbeTime: null, lastTransitionTime: now, reason: disruption.reason, message: this.evicted!.message });
    }
    const hostIPs = this.node.hostIPs();
    const status: Obj = { ...keep, conditions, hostIP: hostIPs[0], hostIPs: hostIPs.map((ip) => ({ ip })) };
    if (initStatuses.length) status.initContainerStatuses = initStatuses;
    status.containerStatuses = containerStatuses;
    if (ephemeralStatuses.length) status.ephemeralContainerStatuses = ephemeralStatuses;
    status.phase = phase;
    if (this.podIPs.length) { status.podIP = this.podIPs[0]; status.podIPs = this.podIPs.map((ip) => ({ ip })); }
    if (this.evicted) { status.message = this.evicted.message; status.reason = this.evicted.reason; }
    status.qosClass = qosClass;
    status.startTime = this.startTime;
    return status;
  }

  private containerStatus(c: CRun): Obj {
    const s: Obj = {
      containerID: c.containerID,
      image: c.image ?? c.spec.image,
      imageID: c.imageID ?? '',
      lastState: c.lastState ? stateToAPI(c.lastState) : {},
      name: c.spec.name,
      // prober_manager UpdatePodStatus: a regular init container that exited 0 is ready.
      ready: c.init && !c.sidecar ? succeeded(c.state) : isRunning(c.state) && c.state.ready,
      restartCount: c.restartCount,
      started: isRunning(c.state) && c.state.started,
      state: stateToAPI(c.state),
    };
    if (s.containerID === undefined) delete s.containerID;
    // The prober sets started on regular and init container statuses only.
    if (c.ephemeral) delete s.started;
    const mounts: Obj[] = c.spec.volumeMounts ?? [];
    if (mounts.length) {
      s.volumeMounts = mounts.map((m) => {
        const v: Obj = { mountPath: m.mountPath, name: m.name };
        if (m.readOnly) { v.readOnly = true; v.recursiveReadOnly = 'Disabled'; }
        return v;
      });
    }
    return s;
  }
}

/** An instance the node lost while it ran (a reboot): exited with 255 and reason Unknown, as containerd reports it. */
function lostWhileRunning(startedAt: string, now: Date, containerID: string | undefined): Terminated {
  return { kind: 'terminated', exitCode: 255, reason: 'Unknown', startedAt, finishedAt: rfc3339(now), finishedAtMs: now.getTime(), containerID };
}

/** Whether an argv is the image's application (not an emulated shell or program): it serves its ports. */
function isApplication(argv: string[], os: 'linux' | 'windows'): boolean {
  const r = collect(interpret(argv, { os, env: {}, hostname: 'x', fs: new ContainerFS(os) }), 3);
  return r.code === 'forever' && r.stdout === '' && r.stderr === '' && r.slept === 0 && !/^(sh|bash|ash|dash|cmd|powershell|pwsh|sleep|tail|ping|timeout)(\.exe)?$/i.test((argv[0] ?? '').replace(/^.*[\\/]/, ''));
}
