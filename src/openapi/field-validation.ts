/**
 * fieldValidation=Strict|Warn|Ignore on create, update and patch, as
 * kube-apiserver does it (k8s.io/apiserver/pkg/endpoints/handlers create.go,
 * update.go, patch.go): unknown and duplicate fields against the kind's
 * schema; Strict fails the request, Warn adds one warning per problem, and in
 * both Warn and Ignore unknown fields are dropped from the object. Absent
 * means Warn.
 */
import { isMap, isScalar, LineCounter, parseDocument, visit } from 'yaml';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import { errors, StatusError } from '../apimachinery/errors.js';
import { shapes, type ShapeNode } from './schema.js';
import { goSprintValue, hasUnknownFields, pruneUnknown, scanJSON, UNTYPED, unknownFields, type UnknownField } from './strict.js';
import { goQuote } from '../apimachinery/go-quote.js';
import { goMarshal } from '../apimachinery/go-json.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

const DIRECTIVES = ['Ignore', 'Strict', 'Warn'];

/**
 * The request's fieldValidation directive. Anything but "", Ignore, Warn and
 * Strict is a 422 on the options kind, worded as ValidateFieldValidation does.
 */
export function fieldValidationOf(q: URLSearchParams, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): FieldValidation {
  const v = q.get('fieldValidation') ?? '';
  if (v === '') return 'Warn';
  if (DIRECTIVES.includes(v)) return v as FieldValidation;
  throw errors.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', [{
    type: 'FieldValueNotSupported', field: 'fieldValidation', value: v,
    detail: 'supported values: "", "Ignore", "Strict", "Warn"',
  }]);
}

const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/yaml';

function mediaTypeOf(contentType: string | undefined): string {
  return ((contentType ?? '').split(';', 1)[0] ?? '').trim().toLowerCase() || JSON_TYPE;
}

function shapeOf(def: ResourceInfo): ShapeNode | undefined {
  return shapes().forKind(def.group, def.version, def.kind);
}

/** The problems of one strict check: messages in upstream's order, and the unknown fields to drop. */
interface Findings { messages: string[]; warnings: string[]; unknown: UnknownField[] }

/** yaml.v2's duplicate-key errors: "line N: key \"k\" already set in map", in document order. */
function yamlDuplicateKeys(text: string): string[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  const found: { offset: number; msg: string }[] = [];
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        const k = typeof key === 'string' ? key : JSON.stringify(key);
        if (seen.has(k)) {
          const offset = (pair.key as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
          const shown = typeof key === 'string' ? goQuote(key) : String(key);
          found.push({ offset, msg: `line ${lines.linePos(offset).line}: key ${shown} already set in map` });
        }
        seen.add(k);
      }
    },
  });
  return found.sort((a, b) => a.offset - b.offset).map((f) => f.msg);
}

/** What decoding a create or update body strictly into the kind's type reports. */
function bodyFindings(node: ShapeNode, raw: string, mediaType: string, obj: Record<string, unknown>): Findings {
  if (mediaType === YAML_TYPE) {
    // The YAML is converted to JSON through a map (keys sorted); duplicates are the converter's errors.
    const dups = yamlDuplicateKeys(raw);
    const unknown = unknownFields(obj, node, { sortKeys: true, mapKeysInPath: true });
    const unknownMsgs = unknown.map((u) => `unknown field "${u.path}"`);
    const messages = [...(dups.length ? [`yaml: unmarshal errors:\n  ${dups.join('\n  ')}`] : []), ...unknownMsgs];
    return { messages, warnings: [...dups, ...unknownMsgs], unknown };
  }
  const errs = scanJSON(raw, node).messages;
  return { messages: errs, warnings: errs, unknown: unknownFields(obj, node, { sortKeys: false, mapKeysInPath: true }) };
}

/**
 * Checks a create or update body (already decoded into `obj`, which had its
 * apiVersion/kind checked) against the kind's schema: Strict throws upstream's
 * 400, Warn warns; unknown fields are dropped from `obj` unless Strict failed.
 * Bodies in other encodings (protobuf) have nothing to check.
 */
export function checkBodyFields(def: ResourceInfo, raw: Buffer, contentType: string | undefined, obj: Record<string, unknown>,
  directive: FieldValidation, warn: (message: string) => void): void {
  const mediaType = mediaTypeOf(contentType);
  if (mediaType !== JSON_TYPE && mediaType !== YAML_TYPE) return;
  const node = shapeOf(def);
  if (!node) return;
  let found: Findings;
  if (directive === 'Ignore') {
    found = { messages: [], warnings: [], unknown: unknownFields(obj, node, { sortKeys: false, mapKeysInPath: true }) };
  } else {
    try {
      found = bodyFindings(node, raw.toString('utf8'), mediaType, obj);
    } catch {
      // Text the scanner cannot follow (nested deeper than its recursion goes) was accepted by the
      // decoder: nothing to report, but its unknown fields are still dropped.
      found = { messages: [], warnings: [], unknown: unknownFields(obj, node, { sortKeys: false, mapKeysInPath: true }) };
    }
  }
  if (directive === 'Strict' && found.messages.length) {
    const kind = typeof obj.kind === 'string' && obj.kind ? obj.kind : def.kind;
    const version = typeof obj.apiVersion === 'string' && obj.apiVersion ? obj.apiVersion.split('/').pop()! : def.version;
    throw errors.badRequest(`${kind} in version "${version}" cannot be handled as a ${def.kind}: strict decoding error: ${found.messages.join(', ')}`);
  }
  if (directive === 'Warn') for (const w of found.warnings) warn(w);
  pruneUnknown(found.unknown);
}

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

/** The fields of a JSON patch operation (patch.go's jsonPatchOp). */
const JSON_PATCH_OP: ShapeNode = {
  kind: 'list',
  items: () => ({
    kind: 'struct',
    fields: new Map(['op', 'path', 'from', 'value'].map((f) => [f, () => (f === 'value' ? { kind: 'any' } : { kind: 'scalar' }) as ShapeNode])),
  }),
};

/** 422 with the "patch" field, as patch.go words a strict failure (or a patched object its type does not decode). */
export function patchInvalid(value: string, detail: string): StatusError {
  const message = `Invalid value: ${goQuote(value)}: ${detail}`;
  return new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: ` "" is invalid: patch: ${message}`,
    reason: 'Invalid',
    details: { causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }] },
    code: 422,
  });
}

const messageOf = (u: UnknownField) => `unknown field "${u.path}"`;

/**
 * Checks a patched object as patch.go does, and returns it with unknown fields
 * dropped. JSON and merge patches: problems in the patch body (merge: duplicate
 * keys; JSON patch: its operations' unknown and duplicate fields, prefixed
 * "json patch"), then the unknown fields of the patched object. Strategic
 * merge patches: duplicate keys in the patch, then the patched object's
 * unknown fields sorted. Strict fails with 422 on the field "patch". Fields
 * already unknown in the current object (which upstream could never have
 * stored) are neither reported nor dropped; `current` undefined says it has
 * none (see hasUnknownFieldsOf), which lets the patch reuse the current object.
 */
export function checkPatchedFields(def: ResourceInfo, contentType: string, patchBody: string, current: KObject | undefined, patched: KObject,
  directive: FieldValidation, warn: (message: string) => void): KObject {
  const type = mediaTypeOf(contentType);
  if (type === APPLY_PATCH) {
    checkApplyPatchYAML(patchBody, directive, warn);
    return patched;
  }
  if (type !== JSON_PATCH && type !== MERGE_PATCH && type !== STRATEGIC_MERGE_PATCH) return patched;
  const node = shapeOf(def);
  if (!node) return patched;
  const smp = type === STRATEGIC_MERGE_PATCH;
  const opts = smp ? { sortKeys: true, mapKeysInPath: false } : { sortKeys: true, mapKeysInPath: true };
  // Most patched objects have no unknown field: one plain walk decides, and
  // the current object is only walked when there is something to compare.
  let unknown: UnknownField[] = [];
  if (hasUnknownFields(patched, node)) {
    const already = new Set(current ? unknownFields(current, node, opts).map(messageOf) : []);
    unknown = unknownFields(patched, node, opts).filter((u) => !already.has(messageOf(u)));
  }
  if (directive !== 'Ignore') {
    let bodyErrors: string[] = [];
    try {
      if (type === JSON_PATCH) bodyErrors = scanJSON(patchBody, JSON_PATCH_OP).messages.map((m) => `json patch ${m}`);
      else bodyErrors = scanJSON(patchBody, UNTYPED).messages;
    } catch { /* the patch engine accepted it; nothing to add */ }
    const unknownMsgs = unknown.map(messageOf);
    if (smp) unknownMsgs.sort();
    const messages = [...bodyErrors, ...new Set(unknownMsgs)];
    if (messages.length) {
      if (directive === 'Warn') {
        for (const m of messages) warn(m);
      } else {
        let value: string;
        try {
          value = smp ? goSprintValue(patchBody) : goMarshal(patched);
        } catch {
          value = patchBody;
        }
        throw patchInvalid(value, `strict decoding error: ${messages.join(', ')}`);
      }
    }
  }
  pruneUnknown(unknown);
  return patched;
}

/** Whether a stored object has fields its kind's schema does not know (which a patch check must tell apart). */
export function hasUnknownFieldsOf(def: ResourceInfo, obj: KObject): boolean {
  const node = shapeOf(def);
  return !!node && hasUnknownFields(obj, node);
}

/**
 * Server-side apply bodies are YAML: Strict rejects duplicate keys with 400
 * (after the apply itself succeeded), Warn warns once per duplicate. Unknown
 * fields are the apply machinery's business.
 */
export function checkApplyPatchYAML(body: string, directive: FieldValidation, warn: (message: string) => void): void {
  if (directive === 'Ignore') return;
  let dups: string[];
  try { dups = yamlDuplicateKeys(body); } catch { return; }
  if (!dups.length) return;
  if (directive === 'Warn') {
    for (const d of dups) warn(d);
    return;
  }
  throw errors.badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${dups.join('\n  ')}`);
}
