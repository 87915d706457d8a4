import type { Store } from '../registry/store.js';
import type { WriteContext } from '../apimachinery/write-context.js';

/** The write context of an in-process controller. */
export function controllerContext(manager: string): WriteContext {
  return { namespace: '', now: new Date(), dryRun: false, fieldManager: manager, warn: () => {} };
}

/**
 * A write context whose caller never changes the object the write returns
 * (Store.readOnlyResult): the write's watch event then shares it instead of
 * a copy. A store reached over the node connection (the kubelet's) sends a
 * copy anyway and has no such declaration.
 */
export function readOnlyContext(store: Store, ctx: WriteContext): WriteContext {
  return typeof store.readOnlyResult === 'function' ? store.readOnlyResult(ctx) : ctx;
}
