/**
 * (Until every controller writes through the client: client/own-writes.ts replaces this.)
 * Read-your-writes for a controller that reads a resource from its shared
 * informer rather than listing storage on every sync: the store it writes
 * through notes the revision of each write of that resource, and the sync
 * waits until the informer has seen it (the role upstream gives to
 * expectations), so it never acts on a cache that lacks its own pods.
 */
import type { Store } from '../../registry/store.js';
import type { KObject } from '../../apimachinery/object.js';
import type { ResourceDef } from '../../registry/types.js';
import type { SharedInformer } from '../../client/shared-informer.js';

const revisionOf = (o: KObject | undefined): number => Number(o?.metadata.resourceVersion ?? 0) || 0;

export class OwnWrites {
  /** The store to write through: its create, update and delete of the resource are noted. */
  readonly store: Store;
  private revision = 0;

  constructor(inner: Store, private readonly informer: SharedInformer) {
    const def = informer.ref;
    const note = (o: KObject | undefined) => { this.revision = Math.max(this.revision, revisionOf(o)); };
    const store: Store = Object.create(inner);
    store.create = async (d, ...rest) => {
      const out = await inner.create(d, ...rest);
      if (d.resource === def.resource && d.group === def.group) note(out);
      return out;
    };
    store.update = async (d, ...rest) => {
      const out = await inner.update(d, ...rest);
      if (d.resource === def.resource && d.group === def.group) note(out);
      return out;
    };
    store.delete = async (d, ...rest) => {
      const out = await inner.delete(d, ...rest);
      if (d.resource === def.resource && d.group === def.group) note(out.obj);
      return out;
    };
    this.store = store;
  }

  /** The informer's objects of a namespace, once it has seen every write made through `store`. */
  async list(namespace: string): Promise<KObject[]> {
    await this.informer.start();
    await this.informer.waitFor(this.revision);
    return this.informer.cache.list(namespace);
  }
}
