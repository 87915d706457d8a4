/**
 * A shared informer (client-go's sharedIndexInformer): one list+watch and
 * one indexed cache of a resource, whatever number of components read it.
 * A watch the server ends is started again from the newest version seen;
 * one it ends as expired (410) is replaced by a new list, whose differences
 * from the cache reach the handlers as events (the Reflector's relist).
 */
import { reasonOf } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import type { Clock } from '../apimachinery/clock.js';
import { realClock } from '../apimachinery/clock.js';
import { keyOf } from './keys.js';
import { ObjectCache } from './object-cache.js';
import type { ResourceClient, ResourceRef, Watch, WatchEventType } from './types.js';

export type InformerHandler = (type: WatchEventType, obj: KObject, old?: KObject) => void;

/** How long the informer waits before watching again after a failed watch (the Reflector's back-off floor). */
const REWATCH_DELAY_MS = 1000;

export class SharedInformer {
  readonly cache = new ObjectCache();
  private readonly handlers = new Set<InformerHandler>();
  private started?: Promise<void>;
  private watch?: Watch;
  /** The initial list is in the cache (handlers added later are told about it themselves). */
  private listed = false;
  private stopped = false;
  /** The newest resourceVersion seen, and who waits for a newer one. */
  private revision = 0;
  private waiters: { revision: number; resolve: () => void }[] = [];

  constructor(private readonly resource: ResourceClient<KObject>, private readonly clock: Clock = realClock) {}

  get ref(): ResourceRef<KObject> { return this.resource.ref; }

  /**
   * AddEventHandler: a handler added once the informer has listed first
   * hears of every cached object as ADDED. Returns its removal.
   */
  onEvent(h: InformerHandler): () => void {
    this.handlers.add(h);
    if (this.listed) for (const o of this.cache.list('*')) h('ADDED', o);
    return () => { this.handlers.delete(h); };
  }

  /** Lists (once, whoever asks first) and watches; resolves once the cache holds the list (HasSynced). */
  start(): Promise<void> {
    this.started ??= (async () => {
      await this.list();
      void this.keepWatching();
    })();
    return this.started;
  }

  /**
   * Resolves once the cache reflects every write of this resource up to the
   * revision (one the caller's own write returned): a controller reading its
   * own writes back from the cache instead of listing. Resolves at once when
   * the informer is stopped.
   */
  waitFor(revision: number): Promise<void> {
    if (this.revision >= revision || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ revision, resolve }));
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  /** The list, and the differences from the cache as events (none but ADDED the first time). */
  private async list(): Promise<void> {
    const list = await this.resource.list('');
    const present = new Set<string>();
    for (const o of list.items) {
      present.add(keyOf(o));
      this.apply('ADDED', o);
    }
    for (const o of this.cache.list('*')) if (!present.has(keyOf(o))) this.apply('DELETED', o);
    this.listed = true;
    this.observed(Number(list.resourceVersion) || 0);
  }

  private async keepWatching(): Promise<void> {
    while (!this.stopped) {
      try {
        this.watch = await this.resource.watch('', { resourceVersion: String(this.revision) }, (type, obj) => this.observe(type, obj));
        if (this.stopped) this.watch.stop();
        await this.watch.done;
      } catch (e) {
        if (this.stopped) return;
        if (reasonOf(e) === 'Expired' || reasonOf(e) === 'Gone') {
          await this.list().catch(() => this.pause());
        } else {
          await this.pause();
        }
      }
    }
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => { this.clock.after(REWATCH_DELAY_MS, resolve); });
  }

  private observed(revision: number): void {
    if (!(revision > this.revision)) return;
    this.revision = revision;
    if (!this.waiters.length) return;
    const due = this.waiters.filter((w) => w.revision <= revision);
    this.waiters = this.waiters.filter((w) => w.revision > revision);
    for (const w of due) w.resolve();
  }

  private apply(type: WatchEventType, obj: KObject): void {
    if (type === 'DELETED') {
      const old = this.cache.remove(obj);
      for (const h of this.handlers) h('DELETED', obj, old);
    } else {
      const { old, applied } = this.cache.upsert(obj);
      if (applied) for (const h of this.handlers) h(old ? 'MODIFIED' : 'ADDED', obj, old);
    }
  }

  private observe(type: WatchEventType, obj: KObject): void {
    this.apply(type, obj);
    this.observed(Number(obj.metadata.resourceVersion ?? 0));
  }
}
