/**
 * The pod garbage collector of kube-controller-manager
 * (pkg/controller/podgc/gc_controller.go, v1.32), in-process. Every
 * gcCheckPeriod (20 s) it force-deletes (grace period 0): the oldest
 * terminated pods beyond --terminated-pod-gc-threshold (12500); pods bound
 * to nodes that no longer exist (after a 40 s quarantine, with the
 * DisruptionTarget condition DeletionByPodGC); terminating pods never
 * scheduled; terminating pods on NotReady nodes tainted
 * `node.kubernetes.io/out-of-service`. Pods not yet terminal are first
 * marked Failed, since no kubelet will ever do it.
 */
import { StatusError } from '../apimachinery/errors.js';
import { rfc3339 } from '../apimachinery/time.js';
import type { KObject } from '../apimachinery/object.js';
import { plain } from '../client/plain.js';
import { nodes, pods } from '../client/resources.js';
import type { ResourceClient } from '../client/types.js';
import type { ControllerContext } from './runtime/controller-context.js';
import { TAINT_OUT_OF_SERVICE } from './node-lifecycle/taints.js';

const MANAGER = 'pod-garbage-collector';

export interface PodGCOptions {
  /** --terminated-pod-gc-threshold; 0 turns the terminated-pod collection off. */
  terminatedPodThreshold: number;
  gcCheckPeriodMs: number;
  quarantineMs: number;
}

export const DEFAULT_PODGC_OPTIONS: PodGCOptions = { terminatedPodThreshold: 12500, gcCheckPeriodMs: 20_000, quarantineMs: 40_000 };

type Obj = KObject & { spec?: any; status?: any };

/** isPodTerminated: any phase but Pending, Running and Unknown. */
const isTerminated = (p: Obj) => !['Pending', 'Running', 'Unknown', undefined].includes(p.status?.phase);

export class PodGCController {
  private readonly opts: PodGCOptions;
  private readonly pods = new Map<string, Obj>();
  private readonly nodes = new Map<string, Obj>();
  /** Nodes seen missing, and when (the quarantine of nodeQueue). */
  private readonly missingSince = new Map<string, number>();
  private readonly podClient: ResourceClient<KObject>;
  private readonly nodeClient: ResourceClient<KObject>;
  private timer?: NodeJS.Timeout;
  private running = false;

  private readonly log: (m: string) => void;
  private readonly now: () => number;

  constructor(private readonly ctx: ControllerContext, opts: Partial<PodGCOptions> = {}) {
    this.log = ctx.log;
    this.now = () => ctx.clock.now();
    this.opts = { ...DEFAULT_PODGC_OPTIONS, ...opts };
    this.podClient = ctx.client.resource(plain(pods));
    this.nodeClient = ctx.client.resource(plain(nodes));
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(pods, (type, pod) => {
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      if (type === 'DELETED') this.pods.delete(key); else this.pods.set(key, pod);
    });
    await this.ctx.informers.inform(nodes, (type, node) => {
      if (type === 'DELETED') this.nodes.delete(node.metadata.name!); else this.nodes.set(node.metadata.name!, node);
    });
    this.timer = setInterval(() => void this.gc(), this.opts.gcCheckPeriodMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One pass of gc(). */
  async gc(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const pods = [...this.pods.values()];
      if (this.opts.terminatedPodThreshold > 0) await this.gcTerminated(pods);
      await this.gcTerminating(pods);
      await this.gcOrphaned(pods);
      await this.gcUnscheduledTerminating(pods);
    } catch (e) {
      this.log(`pod gc: ${(e as Error).message}`);
    } finally {
      this.running = false;
    }
  }

  private async gcTerminated(pods: Obj[]): Promise<void> {
    const terminated = pods.filter(isTerminated);
    const count = terminated.length - this.opts.terminatedPodThreshold;
    if (count <= 0) return;
    // byEvictionAndCreationTimestamp: evicted pods first, then the oldest.
    const evicted = (p: Obj) => p.status?.phase === 'Failed' && p.status?.reason === 'Evicted';
    terminated.sort((a, b) => {
      if (evicted(a) !== evicted(b)) return evicted(a) ? -1 : 1;
      const ta = a.metadata.creationTimestamp ?? '';
      const tb = b.metadata.creationTimestamp ?? '';
      return ta === tb ? (a.metadata.name! < b.metadata.name! ? -1 : 1) : ta < tb ? -1 : 1;
    });
    for (const p of terminated.slice(0, count)) await this.markFailedAndDelete(p);
  }

  private async gcTerminating(pods: Obj[]): Promise<void> {
    for (const p of pods) {
      // isPodTerminating: deleting and not yet terminal.
      if (!p.metadata.deletionTimestamp || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
      const node = this.nodes.get(p.spec?.nodeName ?? '');
      if (!node) continue;
      const ready = (node.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c.status === 'True');
      const outOfService = (node.spec?.taints ?? []).some((t: any) => t?.key === TAINT_OUT_OF_SERVICE);
      if (!ready && outOfService) await this.markFailedAndDelete(p);
    }
  }

  private async gcOrphaned(pods: Obj[]): Promise<void> {
    const now = this.now();
    const missing = new Set<string>();
    for (const p of pods) {
      const n = p.spec?.nodeName;
      if (n && !this.nodes.has(n)) missing.add(n);
    }
    for (const n of [...this.missingSince.keys()]) if (!missing.has(n)) this.missingSince.delete(n);
    for (const n of missing) {
      if (!this.missingSince.has(n)) { this.missingSince.set(n, now); continue; }
      if (now - this.missingSince.get(n)! < this.opts.quarantineMs) continue;
      // After the quarantine, the node's absence is confirmed against storage, not the cache.
      if (await this.nodeClient.find('', n)) { this.missingSince.delete(n); continue; }
      for (const p of pods) {
        if (p.spec?.nodeName !== n) continue;
        await this.markFailedAndDelete(p, { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
      }
    }
  }

  private async gcUnscheduledTerminating(pods: Obj[]): Promise<void> {
    for (const p of pods) if (p.metadata.deletionTimestamp && !p.spec?.nodeName) await this.markFailedAndDelete(p);
  }

  /** markFailedAndDeletePodWithCondition. */
  private async markFailedAndDelete(pod: Obj, condition?: Record<string, string>): Promise<void> {
    const ns = pod.metadata.namespace!;
    const name = pod.metadata.name!;
    const write = { fieldManager: MANAGER };
    this.log(`PodGC is force deleting Pod ${ns}/${name}`);
    try {
      if (pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') {
        const stamp = rfc3339(new Date(this.now()));
        await this.podClient.updateStatus(ns, name, (p) => {
          const st = ((p as Obj).status ??= {});
          st.phase = 'Failed';
          if (condition) {
            const conds: any[] = st.conditions ?? [];
            const i = conds.findIndex((c) => c?.type === condition.type);
            const next = { ...condition, lastProbeTime: null, lastTransitionTime: i >= 0 && conds[i].status === condition.status ? conds[i].lastTransitionTime : stamp };
            st.conditions = i >= 0 ? conds.map((c, j) => (j === i ? next : c)) : [...conds, next];
          }
          return p;
        }, write);
      }
      await this.podClient.delete(ns, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid }, ...write });
    } catch (e) {
      if (e instanceof StatusError && (e.status.code === 404 || e.status.code === 409)) return;
      throw e;
    }
  }
}
