/**
 * PATCH bodies as kube-apiserver applies them
 * (k8s.io/apiserver/pkg/endpoints/handlers/patch.go), as pure functions.
 */
import { badRequest, PatchError, type PatchErrorKind } from './errors.js';
import { goJSONParse, GoJSONError, goTypeMismatch } from './go-json.js';
import { applyJsonPatch, decodeJsonPatch } from './json-patch.js';
import { isObject, type Json, type JsonObject } from './json.js';
import { applyMergePatch, decodeMergePatch } from './merge-patch.js';
import { patchSchemaFor } from './schema.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

export { PatchError, type PatchErrorKind } from './errors.js';
export { applyJsonPatch } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export { EMPTY_SCHEMA, hasPatchSchema, PatchSchema, patchSchemaFor } from './schema.js';
export type { Json, JsonObject } from './json.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

/** The handler's maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

export interface GroupVersionKind { group: string; version: string; kind: string }

function decodeSMP(body: string): Json {
  let v: Json;
  try { v = goJSONParse(body); } catch (e) {
    if (e instanceof GoJSONError) throw badRequest(e.message);
    throw e;
  }
  if (v !== null && !isObject(v)) throw badRequest(goTypeMismatch(v, 'map[string]interface {}'));
  return v;
}

/**
 * Applies a PATCH body of the given media type (parameters such as "; charset=" are ignored) to original.
 * Returns the new object; throws PatchError, which patchErrorStatus turns into upstream's Status.
 * With `owned`, the caller gives original up: merge and strategic merge patches change it in place
 * (and return it) instead of copying it first.
 */
export function applyPatch(contentType: string, original: JsonObject, patchBody: string, gvk: GroupVersionKind, owned = false): Json {
  const type = contentType.split(';')[0]!.trim();
  switch (type) {
    case JSON_PATCH: {
      const ops = decodeJsonPatch(patchBody);
      if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
        throw new PatchError(
          `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`, 'TooLarge');
      }
      return applyJsonPatch(original, ops);
    }
    case MERGE_PATCH:
      return applyMergePatch(original, decodeMergePatch(patchBody), owned);
    case STRATEGIC_MERGE_PATCH:
      return applyStrategicMergePatch(original, decodeSMP(patchBody), patchSchemaFor(gvk.group, gvk.version, gvk.kind), owned);
    default:
      throw new PatchError(`unknown Content-Type header for patch: ${type}`, 'Unknown');
  }
}

export interface PatchStatus {
  code: number;
  /** Empty for upstream's StatusReasonUnknown, which the Status JSON omits. */
  reason: string;
  message: string;
  /** Present (and empty) where upstream's Status carries an empty details object. */
  details?: Record<string, never>;
}

const STATUS: Record<PatchErrorKind, (message: string) => PatchStatus> = {
  BadRequest: (message) => ({ code: 400, reason: 'BadRequest', message }),
  Invalid: () => ({
    code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {},
  }),
  TooLarge: (message) => ({ code: 413, reason: 'RequestEntityTooLarge', message: `Request entity too large: ${message}` }),
  Unknown: (message) => ({ code: 500, reason: '', message }),
};

/** The Status fields upstream answers a failed patch with. */
export function patchErrorStatus(err: PatchError): PatchStatus {
  return STATUS[err.kind](err.message);
}

/**
 * Upstream's 415 for a Content-Type the endpoint does not accept; custom
 * resources (builtin = false) do not accept strategic merge patches.
 */
export function unsupportedPatchTypeStatus(builtin: boolean): PatchStatus {
  const accepted = builtin ? [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH] : [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
  return {
    code: 415,
    reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  };
}
