/**
 * The taint eviction controller of kube-controller-manager
 * (pkg/controller/tainteviction, v1.32; SeparateTaintEvictionController):
 * a pod on a node with NoExecute taints it does not tolerate is deleted at
 * once; one tolerating them for tolerationSeconds is deleted when the
 * shortest of those runs out (counted from when the taint was seen), unless
 * the taints go first. Before deleting, the pod gets the DisruptionTarget
 * condition; a TaintManagerEviction event says "Marking for deletion Pod
 * ns/name" (and "Cancelling deletion of Pod ns/name" when a scheduled
 * deletion is called off).
 */
import { StatusError } from '../../apimachinery/errors.js';
import type { EventRecorder, ObjectReference } from '../../events/recorder.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { KObject } from '../../apimachinery/object.js';
import { plain } from '../../client/plain.js';
import { nodes, pods } from '../../client/resources.js';
import type { ResourceClient } from '../../client/types.js';
import type { ControllerContext } from '../runtime/controller-context.js';
import { matchingTolerations, minTolerationMs, type Taint, type Toleration } from './taints.js';

export const TAINT_EVICTION_CONTROLLER = 'taint-eviction-controller';

interface Work { createdAt: number; fireAt: number; timer: NodeJS.Timeout }

export class TaintEvictionController {
  private readonly tainted = new Map<string, Taint[]>();
  private readonly podsByNode = new Map<string, Map<string, KObject>>();
  private readonly podNode = new Map<string, string>();
  private readonly work = new Map<string, Work>();
  private readonly podClient: ResourceClient<KObject>;
  private stopped = false;
  private readonly unsubscribe: (() => void)[] = [];

  private readonly events: EventRecorder;
  private readonly log: (m: string) => void;
  private readonly now: () => number;

  constructor(private readonly ctx: ControllerContext) {
    this.events = ctx.events;
    this.log = ctx.log;
    this.now = () => ctx.clock.now();
    this.podClient = ctx.client.resource(plain(pods));
  }

  async start(): Promise<void> {
    // Nodes and pods from the shared informers (upstream's factory): one cache of thousands of pods, not one more.
    const nodeInformer = this.ctx.informers.forResource(nodes);
    this.unsubscribe.push(nodeInformer.onEvent((type, node) => {
      const name = node.metadata.name!;
      const taints: Taint[] = (((node.spec as any)?.taints ?? []) as Taint[]).filter((t) => t?.effect === 'NoExecute');
      const before = JSON.stringify(this.tainted.get(name) ?? []);
      if (type === 'DELETED' || !taints.length) this.tainted.delete(name); else this.tainted.set(name, taints);
      if (type !== 'DELETED' && before !== JSON.stringify(taints.length ? taints : [])) this.handleNodeUpdate(name);
    }));
    await nodeInformer.start();
    const podInformer = this.ctx.informers.forResource(pods);
    this.unsubscribe.push(podInformer.onEvent((type, pod) => {
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      const node = ((pod.spec as any)?.nodeName ?? '') as string;
      const oldNode = this.podNode.get(key);
      const old = oldNode ? this.podsByNode.get(oldNode)?.get(key) : undefined;
      if (oldNode && (oldNode !== node || type === 'DELETED')) this.podsByNode.get(oldNode)?.delete(key);
      if (type === 'DELETED') {
        this.podNode.delete(key);
        this.cancel(key, pod.metadata.namespace!, pod.metadata.name!);
        return;
      }
      if (node) {
        if (!this.podsByNode.has(node)) this.podsByNode.set(node, new Map());
        this.podsByNode.get(node)!.set(key, pod);
        this.podNode.set(key, node);
      }
      // PodUpdated: only tolerations or the node matter.
      if (old && oldNode === node && JSON.stringify((old.spec as any)?.tolerations ?? []) === JSON.stringify((pod.spec as any)?.tolerations ?? [])) return;
      if (!node) return;
      const taints = this.tainted.get(node);
      if (!taints) return;
      this.processPodOnNode(pod, taints, this.now());
    }));
    await podInformer.start();
  }

  stop(): void {
    this.stopped = true;
    for (const u of this.unsubscribe.splice(0)) u();
    for (const w of this.work.values()) clearTimeout(w.timer);
    this.work.clear();
  }

  private handleNodeUpdate(node: string): void {
    const pods = [...(this.podsByNode.get(node)?.values() ?? [])];
    const taints = this.tainted.get(node);
    if (!taints) {
      for (const p of pods) this.cancel(`${p.metadata.namespace}/${p.metadata.name}`, p.metadata.namespace!, p.metadata.name!);
      return;
    }
    const now = this.now();
    for (const p of pods) this.processPodOnNode(p, taints, now);
  }

  /** processPodOnNode. */
  private processPodOnNode(pod: KObject, taints: Taint[], now: number): void {
    const ns = pod.metadata.namespace!;
    const name = pod.metadata.name!;
    const key = `${ns}/${name}`;
    if (!taints.length) this.cancel(key, ns, name);
    const { all, used } = matchingTolerations(taints, ((pod.spec as any)?.tolerations ?? []) as Toleration[]);
    if (!all) {
      this.cancel(key, ns, name);
      this.schedule(key, ns, name, now, now);
      return;
    }
    const min = minTolerationMs(used);
    if (min < 0) { this.cancel(key, ns, name); return; }
    let start = now;
    const existing = this.work.get(key);
    if (existing) {
      start = existing.createdAt;
      if (start + min < now + min) return;
      this.cancel(key, ns, name);
    }
    this.schedule(key, ns, name, start, start + min);
  }

  private schedule(key: string, ns: string, name: string, createdAt: number, fireAt: number): void {
    const timer = setTimeout(() => {
      this.work.delete(key);
      void this.evict(ns, name);
    }, Math.max(0, fireAt - this.now()));
    timer.unref();
    this.work.set(key, { createdAt, fireAt, timer });
  }

  private cancel(key: string, ns: string, name: string): void {
    const w = this.work.get(key);
    if (!w) return;
    clearTimeout(w.timer);
    this.work.delete(key);
    void this.events.record(podRef(ns, name), 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${ns}/${name}`, TAINT_EVICTION_CONTROLLER);
  }

  /** deletePodHandler / addConditionAndDeletePod. */
  private async evict(ns: string, name: string): Promise<void> {
    if (this.stopped) return;
    void this.events.record(podRef(ns, name), 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${ns}/${name}`, TAINT_EVICTION_CONTROLLER);
    const write = { fieldManager: TAINT_EVICTION_CONTROLLER };
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const stamp = rfc3339(new Date(this.now()));
        await this.podClient.updateStatus(ns, name, (p) => {
          const st = ((p as any).status ??= {});
          const conds: any[] = st.conditions ?? [];
          const next = { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: stamp,
            reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' };
          const i = conds.findIndex((c) => c?.type === 'DisruptionTarget');
          if (i < 0) st.conditions = [...conds, next];
          else if (conds[i].status !== 'True' || conds[i].reason !== next.reason || conds[i].message !== next.message) {
            st.conditions = conds.map((c, j) => (j === i ? { ...next, lastTransitionTime: c.status === 'True' ? c.lastTransitionTime : stamp } : c));
          }
          return p;
        }, write);
        await this.podClient.delete(ns, name, write);
        return;
      } catch (e) {
        if (e instanceof StatusError && e.status.code === 404) return;
        if (attempt === 4) this.log(`taint eviction: deleting pod ${ns}/${name}: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  }
}

function podRef(namespace: string, name: string): ObjectReference {
  return { apiVersion: 'v1', kind: 'Pod', name, namespace };
}
