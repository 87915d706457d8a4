import { errors } from '../apimachinery/errors.js';
import { exceededDepthAt, maxDepthMessage, overflowingNumber } from '../openapi/go-decode.js';
import type { FieldValidation } from '../openapi/field-validation.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/**
 * Decoding failures of a patch body before it is applied, answered as
 * patch.go does. With fieldValidation Warn or Strict (the default) the body is
 * first decoded strictly (JSON patch: into []jsonPatchOp; merge patch: into a
 * map) and a failure is "error decoding patch: <err>"; a strategic merge patch
 * is always decoded into a map, its failure bare. With Ignore the patch
 * libraries decode it: jsonpatch.DecodePatch's bare error, MergePatch's
 * "Invalid JSON Patch", and they keep numbers as text.
 *
 * Two failures: nesting past encoding/json's 10000 levels, and a number that
 * overflows float64 (what a value decoded into interface{} becomes).
 */
export function checkPatchBody(contentType: string, body: string, directive: FieldValidation): void {
  const strict = directive !== 'Ignore';
  const bracket = exceededDepthAt(body);
  if (bracket) {
    const err = maxDepthMessage(bracket);
    switch (contentType) {
      case JSON_PATCH: throw errors.badRequest(strict ? `error decoding patch: ${err}` : err);
      case MERGE_PATCH: throw errors.badRequest(strict ? `error decoding patch: ${err}` : 'Invalid JSON Patch');
      case STRATEGIC_MERGE_PATCH: throw errors.badRequest(err);
    }
    return;
  }
  if (!strict && contentType !== STRATEGIC_MERGE_PATCH) return;
  const number = overflowingNumber(body);
  if (number === undefined) return;
  switch (contentType) {
    // jsonPatchOp.Value is an interface{}: the struct and field name the error.
    case JSON_PATCH: throw errors.badRequest(`error decoding patch: json: cannot unmarshal number ${number} into Go struct field jsonPatchOp.value of type float64`);
    case MERGE_PATCH: throw errors.badRequest(`error decoding patch: json: cannot unmarshal number ${number} into Go value of type float64`);
    case STRATEGIC_MERGE_PATCH: throw errors.badRequest(`json: cannot unmarshal number ${number} into Go value of type float64`);
  }
}
