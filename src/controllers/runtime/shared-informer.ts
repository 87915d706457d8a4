/**
 * A shared informer (client-go's sharedIndexInformer): one list+watch and
 * one indexed cache of a resource, whatever number of controllers read it.
 */
import type { Store } from '../../registry/store.js';
import type { KObject } from '../../apimachinery/object.js';
import type { ResourceDef } from '../../registry/types.js';
import { ObjectCache } from '../controller-utils.js';

export type InformerHandler = (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KObject, old?: KObject) => void;

export class SharedInformer {
  readonly cache = new ObjectCache();
  private readonly handlers = new Set<InformerHandler>();
  private started?: Promise<void>;
  private handle?: { cancel(): void };
  /** The initial list is in the cache (handlers added later are told about it themselves). */
  private listed = false;
  private stopped = false;
  /** The newest resourceVersion seen, and who waits for a newer one. */
  private revision = 0;
  private waiters: { revision: number; resolve: () => void }[] = [];

  constructor(private readonly store: Store, readonly def: ResourceDef) {}

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
      const list = await this.store.list(this.def, '');
      for (const o of list.items) this.cache.upsert(o);
      this.listed = true;
      this.observed(list.revision);
      for (const o of list.items) for (const h of this.handlers) h('ADDED', o);
      if (this.stopped) return;
      this.handle = await this.store.watch(this.def, '', list.revision, {}, (type, obj) => this.observe(type, obj));
      if (this.stopped) this.handle.cancel();
    })();
    return this.started;
  }

  /**
   * Resolves once the cache reflects every write of this resource up to the
   * revision (one the caller's own write returned): a controller reading its
   * own writes back from the cache instead of listing storage. Resolves at
   * once when the informer is stopped.
   */
  waitFor(revision: number): Promise<void> {
    if (this.revision >= revision || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ revision, resolve }));
  }

  stop(): void {
    this.stopped = true;
    this.handle?.cancel();
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  private observed(revision: number): void {
    if (!(revision > this.revision)) return;
    this.revision = revision;
    if (!this.waiters.length) return;
    const due = this.waiters.filter((w) => w.revision <= revision);
    this.waiters = this.waiters.filter((w) => w.revision > revision);
    for (const w of due) w.resolve();
  }

  private observe(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KObject): void {
    const revision = Number(obj.metadata.resourceVersion ?? 0);
    if (type === 'DELETED') {
      const old = this.cache.remove(obj);
      for (const h of this.handlers) h('DELETED', obj, old);
    } else {
      const { old, applied } = this.cache.upsert(obj);
      if (applied) for (const h of this.handlers) h(old ? 'MODIFIED' : 'ADDED', obj, old);
    }
    this.observed(revision);
  }
}
