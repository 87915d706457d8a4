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

import { isObject, pruneEmpty } from '../../meta/json.js';

export { isObject, pruneEmpty };

/** ObjectMeta as Go writes it back: empty maps, lists and strings of omitempty fields disappear. */
export function normalizeMeta(obj: { metadata?: Record<string, any> }): void {
  const m = obj.metadata;
  if (!isObject(m)) return;
  pruneEmpty(m, 'labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields');
  for (const k of ['generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion']) if (m[k] === '') delete m[k];
}
