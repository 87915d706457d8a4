/**
 * The HTTP side of field management: the apply patch verb
 * (`application/apply-patch+yaml`), PatchOptions validation, and the hook
 * the store calls on every create and update to record managedFields.
 */
import { parse as parseYaml } from 'yaml';
import { dryRunErrors, fieldValidationErrors } from '../api/query.js';
import { errors } from '../apimachinery/errors.js';
import { field, type FieldError } from '../apimachinery/field-errors.js';
import type { Store } from '../registry/store.js';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef, WriteContext } from '../registry/types.js';
import { applyConfiguration, recordUpdate } from './index.js';
import { isMap } from './typed.js';

export const APPLY_PATCH = 'application/apply-patch+yaml';
const PATCH_TYPES = new Set(['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', APPLY_PATCH]);

/** Upstream's FieldManagerMaxLength. */
const FIELD_MANAGER_MAX = 128;

/** Printable as Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
export function fieldManagerErrors(manager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX) errs.push(field.tooLong('fieldManager', FIELD_MANAGER_MAX));
  let i = 0;
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0)!;
      errs.push({
        type: 'FieldValueInvalid', field: 'fieldManager', value: manager,
        detail: `invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${i})`,
      });
    }
    i += Buffer.byteLength(ch);
  }
  return errs;
}

/**
 * ValidatePatchOptions: an apply patch needs a fieldManager, other patches
 * may not say force. Called once the content type is known to be a patch type.
 */
export function checkPatchOptions(contentType: string, q: URLSearchParams): void {
  if (!PATCH_TYPES.has(contentType)) return;
  const errs: FieldError[] = [];
  const manager = q.get('fieldManager') ?? '';
  if (contentType !== APPLY_PATCH) {
    if (q.has('force')) errs.push({ type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' });
  } else if (!manager) {
    errs.push({ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' });
  }
  errs.push(...fieldManagerErrors(manager), ...dryRunErrors(q), ...fieldValidationErrors(q));
  if (errs.length) throw errors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', errs);
}

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

/**
 * The store's hook, after defaulting and before the strategy: sets
 * next.metadata.managedFields for this write. `sent` is what the request
 * carried before defaulting; `live` the stored object (undefined on create).
 */
export function trackManagedFields(def: ResourceDef, live: KObject | undefined, next: KObject, sent: unknown,
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

function parseBoolParam(v: string | null): boolean {
  if (v === null) return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False', ''].includes(v)) return false;
  throw errors.badRequest(`failed to parse "force": strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

function isStatus(e: unknown, code: number, reason?: string): boolean {
  const s = (e as { status?: { code?: number; reason?: string } }).status;
  return s?.code === code && (reason === undefined || s.reason === reason);
}

/**
 * PATCH with `application/apply-patch+yaml`: applies the configuration,
 * creating the object when it does not exist (201). `ctx` is the request's
 * write context (its fieldManager is the query parameter).
 */
export async function serveApplyPatch(store: Store, def: ResourceDef, namespace: string, name: string, body: string,
  q: URLSearchParams, ctx: WriteContext): Promise<{ code: number; obj: KObject }> {
  checkPatchOptions(APPLY_PATCH, q);
  const force = parseBoolParam(q.get('force'));
  const manager = q.get('fieldManager')!;
  let config: unknown;
  try {
    config = parseYaml(body, { version: '1.1' });
  } catch (e) {
    throw errors.badRequest(`error decoding YAML: ${(e as Error).message}`);
  }
  if (config === null || config === undefined) config = {};
  if (!isMap(config)) {
    throw errors.badRequest(`error decoding YAML: json: cannot unmarshal ${Array.isArray(config) ? 'array' : typeof config} into Go value of type map[string]interface {}`);
  }
  const cfg = config;
  const meta = isMap(cfg.metadata) ? cfg.metadata : undefined;
  if (def.namespaced && typeof meta?.namespace === 'string' && meta.namespace && meta.namespace !== namespace) {
    throw errors.badRequest(`the namespace of the object (${meta.namespace}) does not match the namespace on the URL (${namespace})`);
  }
  const sentRV = meta?.resourceVersion;
  const result = (live: KObject | undefined): KObject => {
    const obj = applyConfiguration(def, live, cfg, { manager, force, now: ctx.now });
    // The live object's resourceVersion is no precondition: only one the configuration names is.
    if (sentRV === undefined || sentRV === null) delete obj.metadata.resourceVersion;
    applied.set(ctx, obj.metadata.managedFields);
    return obj;
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const obj = await store.update(def, namespace, name, (current) => result(current), ctx);
      return { code: 200, obj };
    } catch (e) {
      if (!isStatus(e, 404) || !(e as { status: { details?: { name?: string } } }).status.details?.name) throw e;
    }
    const obj = result(undefined);
    const objName = obj.metadata.name ?? '';
    if (objName !== name) throw errors.badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
    try {
      return { code: 201, obj: await store.create(def, namespace, obj, ctx) };
    } catch (e) {
      // Created meanwhile: apply to it.
      if (isStatus(e, 409, 'AlreadyExists') && attempt < 3) continue;
      throw e;
    }
  }
}
