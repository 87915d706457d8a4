/**
 * Field management's side of a write: the manager a request names, and the
 * hook the store calls on every create and update to record managedFields
 * (keeping what an apply computed for the same request).
 */
import type { KObject } from '../apimachinery/object.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import { FIELD_MANAGER_MAX, PRINTABLE } from '../meta/write-options.js';
import { recordUpdate } from './index.js';

/**
 * The manager of a write: the fieldManager parameter, else the User-Agent up
 * to its first "/" (printable characters, at most 128 bytes), as upstream's
 * managerOrUserAgent. A request without User-Agent is "unknown".
 */
export function managerOrUserAgent(fieldManager: string | null, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  let out = '';
  for (const ch of (userAgent ?? 'unknown').split('/', 1)[0] ?? '') {
    if (!PRINTABLE.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX) break;
    out += ch;
  }
  return out;
}

/** managedFields an apply computed for the write in progress, by request. */
const applied = new WeakMap<WriteContext, unknown>();

/** Records the managedFields the apply of this request computed: trackManagedFields then keeps them. */
export function rememberAppliedFields(ctx: WriteContext, managedFields: unknown): void {
  applied.set(ctx, managedFields);
}

/**
 * The store's hook, after defaulting and before the strategy: sets
 * next.metadata.managedFields for this write. `sent` is what the request
 * carried before defaulting; `live` the stored object (undefined on create).
 */
export function trackManagedFields(def: ResourceInfo, live: KObject | undefined, next: KObject, sent: unknown,
  ctx: WriteContext, subresource?: string): void {
  // pods/binding writes the object directly in storage upstream, without field management.
  if (subresource === 'binding') return;
  if (applied.has(ctx)) {
    const mf = applied.get(ctx);
    if (Array.isArray(mf) && mf.length) next.metadata.managedFields = mf; else delete next.metadata.managedFields;
    return;
  }
  recordUpdate(def, live, next, sent, ctx.fieldManager, subresource, ctx.now);
}
