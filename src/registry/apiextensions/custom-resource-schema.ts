/**
 * What a CRD version's structural schema does to an instance: validation with kube-openapi's
 * messages as apiextensions-apiserver reports them (pkg/apiserver/validation/validation.go
 * kubeOpenAPIResultToFieldErrors over kube-openapi pkg/validation/validate and errors/schema.go),
 * pruning of fields the schema does not declare (pkg/apiserver/schema/pruning), and defaults
 * (pkg/apiserver/schema/defaulting).
 *
 * Validation covers type (with nullable, x-kubernetes-int-or-string), enum, required, pattern,
 * minLength/maxLength, minimum/maximum (exclusive too), multipleOf, minItems/maxItems,
 * minProperties/maxProperties, items, properties, additionalProperties, allOf/anyOf/oneOf/not.
 * Formats are schema-formats.ts's; CEL rules (x-kubernetes-validations) are cel-validation.ts's.
 */
import type { Schema } from '../../openapi/crd-schema.js';
import { field, type FieldError } from '../../apimachinery/field-errors.js';
import { checkStringFormat } from './schema-formats.js';

type JSONValue = unknown;

/** kube-openapi's name for the type of a value (typeValidator.schemaInfoForType). */
function typeName(v: JSONValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

function typeMatches(type: string, v: JSONValue): boolean {
  const t = typeName(v);
  return t === type || (type === 'number' && t === 'integer');
}

/** A child path as kube-openapi builds it: `a.b` for properties, `a[i]` for items. */
function child(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function invalid(path: string, value: unknown, message: string): FieldError {
  const bad = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : '';
  return field.invalid(path || '<nil>', bad, message);
}

function validateValue(s: Schema, v: JSONValue, path: string, errs: FieldError[]): void {
  const at = path || '<nil>';
  if (v === null && s.nullable) return;
  const intOrString = s['x-kubernetes-int-or-string'];
  // typeValidator
  if (intOrString) {
    if (typeName(v) !== 'integer' && typeof v !== 'string') {
      errs.push({ type: 'FieldValueTypeInvalid', field: at, value: typeName(v), detail: `${at} in body must be of type integer,string: "${typeName(v)}"` });
      return;
    }
  } else if (s.type && !typeMatches(s.type, v)) {
    errs.push({ type: 'FieldValueTypeInvalid', field: at, value: typeName(v), detail: `${at} in body must be of type ${s.type}: "${typeName(v)}"` });
    return;
  }
  // schemaPropsValidator
  for (const sub of s.allOf ?? []) validateValue(sub, v, path, errs);
  if (s.anyOf?.length && !s.anyOf.some((sub) => validateInto(sub, v, path).length === 0)) {
    errs.push(invalid(path, v, `${at} in body must be of type ${s.anyOf.map((x) => x.type ?? '').filter(Boolean).join(',') || 'any of the given schemas'}`));
  }
  if (s.oneOf?.length) {
    const ok = s.oneOf.filter((sub) => validateInto(sub, v, path).length === 0).length;
    if (ok !== 1) errs.push(invalid(path, v, `"${at}" must validate one and only one schema (oneOf). Found ${ok === 0 ? 'none valid' : `${ok} valid alternatives`}`));
  }
  if (s.not && validateInto(s.not, v, path).length === 0) errs.push(invalid(path, v, `"${at}" must not validate the schema (not)`));
  // stringValidator
  if (typeof v === 'string') {
    const len = [...v].length;
    if (s.maxLength !== undefined && len > s.maxLength) errs.push(field.tooLong(at, s.maxLength));
    if (s.minLength !== undefined && len < s.minLength) errs.push(invalid(path, v, `${at} in body should be at least ${s.minLength} chars long`));
    if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(v)) errs.push(invalid(path, v, `${at} in body should match '${s.pattern}'`));
  }
  // formatValidator
  const badFormat = typeof v === 'string' ? checkStringFormat(s.format, v, at) : undefined;
  if (typeof v === 'string' && badFormat !== undefined) errs.push({ type: 'FieldValueTypeInvalid', field: at, value: v, detail: badFormat });
  // numberValidator
  if (typeof v === 'number') {
    if (s.multipleOf !== undefined && s.multipleOf > 0 && !Number.isInteger(v / s.multipleOf)) {
      errs.push(invalid(path, v, `${at} in body should be a multiple of ${s.multipleOf}`));
    }
    if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
      errs.push(invalid(path, v, `${at} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`));
    }
    if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
      errs.push(invalid(path, v, `${at} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`));
    }
  }
  // sliceValidator
  if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) errs.push(invalid(path, v.length, `${at} in body should have at least ${s.minItems} items`));
    if (s.maxItems !== undefined && v.length > s.maxItems) {
      errs.push({ type: 'FieldValueTooMany', field: at, value: v.length, detail: `must have at most ${s.maxItems} items` });
    }
    const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
    if (items) v.forEach((x, i) => validateValue(items, x, `${path}[${i}]`, errs));
  }
  // commonValidator
  if (s.enum?.length && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    const values = s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
    const bad = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : { goSyntax: JSON.stringify(v) };
    errs.push(field.notSupported(at, bad, values));
  }
  // objectValidator
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const obj = v as Record<string, JSONValue>;
    const n = Object.keys(obj).length;
    if (s.maxProperties !== undefined && n > s.maxProperties) {
      errs.push({ type: 'FieldValueTooMany', field: at, value: n, detail: `must have at most ${s.maxProperties} items` });
    }
    if (s.minProperties !== undefined && n < s.minProperties) errs.push(invalid(path, n, `${at} in body should have at least ${s.minProperties} properties`));
    for (const r of s.required ?? []) if (!Object.hasOwn(obj, r)) errs.push(field.required(child(path, r)));
    const props = s.properties ?? {};
    for (const [k, x] of Object.entries(obj)) {
      const ps = props[k];
      if (ps) validateValue(ps, x, child(path, k), errs);
      else if (typeof s.additionalProperties === 'object') validateValue(s.additionalProperties, x, child(path, k), errs);
    }
  }
}

function validateInto(s: Schema, v: JSONValue, path: string): FieldError[] {
  const errs: FieldError[] = [];
  validateValue(s, v, path, errs);
  return errs;
}

/** ValidateCustomResource: the instance against the version's schema; apiVersion, kind and metadata are the server's to check. */
export function validateCustomResource(schema: Schema, obj: Record<string, unknown>): FieldError[] {
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = obj;
  const root: Schema = { ...schema, properties: { ...schema.properties } };
  delete root.properties!.metadata;
  delete root.properties!.apiVersion;
  delete root.properties!.kind;
  return validateInto(root, rest, '');
}

/**
 * pruning.PruneWithOptions: drops what the schema does not declare, except under
 * x-kubernetes-preserve-unknown-fields; at the root apiVersion, kind and metadata stay.
 * Returns the paths dropped (TrackUnknownFieldPaths), in key order.
 */
export function prune(obj: Record<string, unknown>, schema: Schema): string[] {
  const dropped: string[] = [];
  pruneValue(obj, schema, '', dropped, true);
  return dropped;
}

function pruneValue(v: JSONValue, s: Schema | undefined, path: string, dropped: string[], root = false): void {
  if (!s || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
    v.forEach((x, i) => {
      if (items) pruneValue(x, items, `${path}[${i}]`, dropped);
      else if (!s['x-kubernetes-preserve-unknown-fields']) pruneValue(x, {}, `${path}[${i}]`, dropped);
    });
    return;
  }
  const obj = v as Record<string, JSONValue>;
  const props = s.properties ?? {};
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  const keepAll = !!s['x-kubernetes-preserve-unknown-fields'] || s.additionalProperties === true;
  for (const k of Object.keys(obj).sort()) {
    if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const ps = props[k] ?? additional;
    const at = path ? `${path}.${k}` : k;
    if (ps) pruneValue(obj[k], ps, at, dropped);
    else if (!keepAll) { delete obj[k]; dropped.push(at); }
  }
}

/** Whether any property of the schema (at any depth applyDefaults walks) has a default. */
export function hasDefaults(s: Schema | undefined): boolean {
  if (!s) return false;
  const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
  const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  return hasDefaults(items) || hasDefaults(ap) || Object.values(s.properties ?? {}).some((p) => p.default !== undefined || hasDefaults(p));
}

/** structuraldefaulting.Default: a property's default fills an absent field, recursively through present values. */
export function applyDefaults(v: JSONValue, s: Schema | undefined): void {
  if (!s || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
    if (items) for (const x of v) applyDefaults(x, items);
    return;
  }
  const obj = v as Record<string, JSONValue>;
  for (const [k, ps] of Object.entries(s.properties ?? {})) {
    if (!Object.hasOwn(obj, k) && ps.default !== undefined) obj[k] = structuredClone(ps.default);
    else if (obj[k] === null && ps.default !== undefined && !ps.nullable) obj[k] = structuredClone(ps.default);
    if (Object.hasOwn(obj, k)) applyDefaults(obj[k], ps);
  }
  if (typeof s.additionalProperties === 'object') {
    for (const k of Object.keys(obj)) if (!s.properties?.[k]) applyDefaults(obj[k], s.additionalProperties);
  }
}

