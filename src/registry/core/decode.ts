import { errors } from '../../apimachinery/errors.js';
import { DecodeError } from '../../apimachinery/quantity.js';

/**
 * Runs a defaulting step and turns a DecodeError (a value Go's typed decoder
 * would have refused, e.g. a bad quantity or base64) into upstream's 400:
 * `<Kind> in version "<version>" cannot be handled as a <Kind>: <reason>`.
 */
export function decoding<T>(kind: string, fn: () => T, version = 'v1'): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof DecodeError) {
      throw errors.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${e.message}`);
    }
    throw e;
  }
}

import { isObject } from '../../meta/json.js';

export { isObject };

/** Deletes `key` when it holds an empty array or map: Go's omitempty drops it on the way out. */
export function pruneEmpty(obj: Record<string, any> | undefined, ...keys: string[]): void {
  if (!obj) return;
  for (const k of keys) {
    const v = obj[k];
    if (v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0)) delete obj[k];
  }
}

/** ObjectMeta as Go writes it back: empty maps, lists and strings of omitempty fields disappear. */
export function normalizeMeta(obj: { metadata?: Record<string, any> }): void {
  const m = obj.metadata;
  if (!isObject(m)) return;
  pruneEmpty(m, 'labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields');
  for (const k of ['generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion']) if (m[k] === '') delete m[k];
}
