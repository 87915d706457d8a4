import { errors } from './status.js';
import { exceededDepthAt, maxDepthMessage } from '../openapi/go-decode.js';
import type { FieldValidation } from '../openapi/field-validation.js';

/**
 * A patch body nested past encoding/json's limit, answered as patch.go does:
 * with fieldValidation Warn or Strict (the default) the body is first decoded
 * strictly, "error decoding patch: <err>" for JSON and merge patches and the
 * bare error for strategic merge patches; with Ignore the patch libraries
 * decode it: jsonpatch.DecodePatch's bare error, MergePatch's "Invalid JSON
 * Patch", and the strategic merge patch's bare error again.
 */
export function checkPatchDepth(contentType: string, body: string, directive: FieldValidation): void {
  const bracket = exceededDepthAt(body);
  if (!bracket) return;
  const err = maxDepthMessage(bracket);
  const strict = directive !== 'Ignore';
  switch (contentType) {
    case 'application/json-patch+json': throw errors.badRequest(strict ? `error decoding patch: ${err}` : err);
    case 'application/merge-patch+json': throw errors.badRequest(strict ? `error decoding patch: ${err}` : 'Invalid JSON Patch');
    case 'application/strategic-merge-patch+json': throw errors.badRequest(err);
  }
}
