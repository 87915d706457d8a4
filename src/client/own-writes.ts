/**
 * Read-your-writes for a controller that reads a resource from its shared
 * informer rather than listing on every sync: the handle it writes through
 * notes the revision of each write, and the sync waits until the informer
 * has seen it (the role upstream gives to expectations), so it never acts
 * on a cache that lacks its own pods.
 */
import type { KObject } from '../apimachinery/object.js';
import type { SharedInformer } from './shared-informer.js';
import type { ResourceClient } from './types.js';

const revisionOf = (o: KObject | undefined): number => Number(o?.metadata?.resourceVersion ?? 0) || 0;

export class OwnWrites {
  /** The handle to write through: its create, update and delete are noted. */
  readonly resource: ResourceClient<KObject>;
  private revision = 0;

  constructor(inner: ResourceClient<KObject>, private readonly informer: SharedInformer) {
    const note = (o: KObject | undefined) => { this.revision = Math.max(this.revision, revisionOf(o)); };
    const r: ResourceClient<KObject> = Object.create(inner);
    r.create = async (...args) => { const out = await inner.create(...args); note(out); return out; };
    r.update = async (...args) => { const out = await inner.update(...args); note(out); return out; };
    r.updateStatus = async (...args) => { const out = await inner.updateStatus(...args); note(out); return out; };
    r.patch = async (...args) => { const out = await inner.patch(...args); note(out); return out; };
    r.delete = async (...args) => { const out = await inner.delete(...args); note(out.object); return out; };
    this.resource = r;
  }

  /** The informer's objects of a namespace, once it has seen every write made through `resource`. */
  async list(namespace: string): Promise<KObject[]> {
    await this.informer.start();
    await this.informer.waitFor(this.revision);
    return this.informer.cache.list(namespace);
  }
}
