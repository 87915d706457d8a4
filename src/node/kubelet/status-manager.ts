/**
 * The status manager (pkg/kubelet/status/status_manager.go): the single
 * writer of pod status for the emulated kubelets. A pod worker reports
 * that its pod's status changed (SetPodStatus); the manager writes it
 * through one path: changes made in one turn are coalesced into one write,
 * the status is generated over the stored one inside the update (as
 * syncPod merges with mergePodStatus) with timestamps from the kubelet's
 * clock, a write is skipped when nothing changed since the last one, and
 * the latest status written is kept per pod.
 */
import type { Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../apimachinery/errors.js';
import type { KObject } from '../../apimachinery/object.js';
import type { ResourceClient } from '../../client/types.js';
import type { Clock } from './clock.js';
import { rfc3339 } from '../../apimachinery/time.js';

type Obj = Record<string, unknown>;

/** The stored pod has another UID: the pod was deleted and re-created under its name; its status is not ours. */
class PodReplaced extends Error {}

/** What the manager needs from a pod worker. */
export interface PodStatusSource {
  readonly uid: string;
  /** The pod as last seen (namespace and name to write to). */
  readonly pod: KObject;
  /** False once nothing more may be written (the node stopped). */
  active(): boolean;
  /** generateAPIPodStatus merged over the stored status, conditions timed at `now` (RFC 3339). */
  generate(stored: Obj, now: string): Obj;
}

interface Entry {
  source: PodStatusSource;
  dirty: boolean;
  writing: boolean;
  /** The JSON of the last status written (or found final). */
  lastWritten: string;
  latest?: Obj;
}

export class StatusManager {
  private readonly pods = new Map<string, Entry>();

  /** `podApi` writes as the node's kubelet (its client's identity and field manager). */
  constructor(private readonly podApi: ResourceClient<Pod>, private readonly clock: Clock,
    private readonly log: (m: string) => void) {}

  /** A pod worker starts: the manager tracks its pod from scratch. */
  register(source: PodStatusSource): void {
    this.pods.set(source.uid, { source, dirty: false, writing: false, lastWritten: '' });
  }

  /** A pod found already terminal: its stored status is final, nothing is written unless it changes. */
  seed(uid: string, status: Obj): void {
    const e = this.pods.get(uid);
    if (e) { e.lastWritten = JSON.stringify(status); e.latest = status; }
  }

  /** SetPodStatus: the pod's status changed; it is written after this turn, once however many changes it had. */
  setPodStatus(uid: string): void {
    const e = this.pods.get(uid);
    if (!e || !e.source.active()) return;
    e.dirty = true;
    if (e.writing) return;
    e.writing = true;
    setImmediate(() => void this.flush(e));
  }

  /** Writes now, even when unchanged (the final status before the pod is deleted). */
  async writeFinal(uid: string): Promise<void> {
    const e = this.pods.get(uid);
    if (e) await this.write(e, true);
  }

  /** The latest status written for a pod. */
  latest(uid: string): Obj | undefined { return this.pods.get(uid)?.latest; }

  /** The pod is gone. */
  forget(uid: string): void { this.pods.delete(uid); }

  private async flush(e: Entry): Promise<void> {
    while (e.dirty && e.source.active()) {
      e.dirty = false;
      await this.write(e, false);
    }
    e.writing = false;
  }

  private async write(e: Entry, force: boolean): Promise<void> {
    const pod = e.source.pod;
    const ns = pod.metadata.namespace!;
    try {
      await this.podApi.updateStatus(ns, pod.metadata.name!, (cur) => {
        if (cur.metadata?.uid !== e.source.uid) throw new PodReplaced();
        const next = e.source.generate((cur.status ?? {}) as Obj, rfc3339(new Date(this.clock.now())));
        const text = JSON.stringify(next);
        if (!force && text === e.lastWritten) return cur;
        e.lastWritten = text;
        e.latest = next;
        return { ...cur, status: next as PodStatus };
      });
    } catch (err) {
      if (!e.source.active() || err instanceof PodReplaced || (err instanceof StatusError && (err.status.code === 404 || err.status.code === 409))) return;
      this.log(`kubelet: status of pod ${ns}/${pod.metadata.name}: ${(err as Error).message}`);
    }
  }
}
