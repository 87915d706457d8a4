import { applyPatch, PatchError, patchErrorStatus, type JsonObject } from '../patch/index.js';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef } from '../registry/types.js';
import { StatusError, errors } from '../apimachinery/errors.js';

const PATCH_TYPES = new Set([
  'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json',
]);

/**
 * Applies a PATCH body of the given media type to the current object; `owned`:
 * current is the caller's own copy, which the patch may change and return.
 */
export function applyPatchRequest(contentType: string, current: KObject, body: string, def: ResourceDef, owned = false): KObject {
  if (!PATCH_TYPES.has(contentType)) throw errors.unsupportedMediaType('415: Unsupported Media Type');
  try {
    return applyPatch(contentType, current as unknown as JsonObject, body, { group: def.group, version: def.version, kind: def.kind }, owned) as unknown as KObject;
  } catch (e) {
    if (e instanceof PatchError) {
      const s = patchErrorStatus(e);
      throw new StatusError({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: s.message,
        ...(s.reason ? { reason: s.reason } : {}), ...(s.details ? { details: s.details } : {}), code: s.code,
      });
    }
    throw e;
  }
}
