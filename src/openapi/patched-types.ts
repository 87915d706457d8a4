/**
 * The typed decode of a patched object (k8s.io/apiserver patch.go): after a
 * JSON or merge patch the patched JSON is decoded into the kind's Go type
 * (runtime.DecodeInto), after a strategic merge patch the patched map is
 * converted into it; a value of the wrong type is a 422 on the field "patch"
 * whose value is the patched JSON (JSON and merge patches) or the patch map
 * as %+v prints it (strategic merge patches), with the decoder's error as detail.
 */
import type { KObject } from '../apimachinery/object.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import { patchInvalid } from './field-validation.js';
import { goTypes } from './go-types.js';
import { goDecode, normalizeDecoded } from './go-decode.js';
import { stringifyAnyDepth } from '../meta/json-text.js';
import { goMarshal } from '../apimachinery/go-json.js';
import { goSprintValue } from './strict.js';

const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

/**
 * Throws upstream's 422 when the patched object does not decode into the
 * kind's Go type; else gives it Go's zero values for nulls.
 *
 * A merge or strategic merge patch object changes the object exactly where it
 * has values, and the object it patched decoded: decoding the patch body
 * against the type finds what decoding the patched object would (directive
 * keys are unknown fields, nulls deletions), and reads numbers as the patch
 * wrote them (1.0 is no int32), as upstream's raw JSON merge does. JSON
 * patches, which can move values anywhere, have the patched object decoded.
 */
export function checkPatchedGoTypes(def: ResourceInfo, contentType: string, patchBody: string, patched: KObject): void {
  const t = goTypes().forKind(def.group, def.version, def.kind);
  if (!t) return;
  const byBody = contentType !== JSON_PATCH && /^\s*\{/.test(patchBody);
  const text = byBody ? patchBody : stringifyAnyDepth(patched);
  const { error: err } = goDecode(text, t, byBody && contentType === STRATEGIC_MERGE_PATCH);
  if (err === undefined) {
    if (text.includes('null')) normalizeDecoded(patched, t, []);
    return;
  }
  let value: string;
  try {
    value = contentType === STRATEGIC_MERGE_PATCH ? goSprintValue(patchBody) : goMarshal(patched);
  } catch {
    value = patchBody;
  }
  throw patchInvalid(value, err);
}
