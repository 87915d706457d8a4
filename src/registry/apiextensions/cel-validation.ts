/**
 * x-kubernetes-validations on custom resources: every rule at its schema node with `self` bound to the
 * node's value and `oldSelf` to the old object's value there on updates, with upstream's error texts
 * (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go: Validator.validate,
 * validateExpressions, validateMap, validateArray, fieldErrorForReason, evalMessageExpression,
 * ruleMessageOrDefault; values typed as UnstructuredToVal does).
 *
 * Not covered: the cost budget, string formats as CEL types (date-time, duration, byte stay strings).
 */
import { isCelError, type CelInput, type CelValue } from '@bufbuild/cel';
import { field, type BadValue, type FieldError } from '../../apimachinery/field-errors.js';
import type { Schema } from '../../openapi/crd-schema.js';
import { compileExpression, type CelProgram } from '../../cel/compile.js';
import { goErrorText } from '../../cel/errors.js';
import { jsonToCel } from '../../cel/values.js';
import { optionalNone, optionalOf } from '../../cel/optional.js';

/** One entry of x-kubernetes-validations (apiextensions ValidationRule). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

type Program = CelProgram;

interface CompiledRule {
  rule: ValidationRule;
  program?: Program;
  messageProgram?: Program;
  compileError?: string;
  usesOldSelf: boolean;
}

const compiledBySchema = new WeakMap<Schema, CompiledRule[]>();

/** celconfig.MaxEvaluatedMessageExpressionSizeBytes */
const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

function usesIdent(node: unknown, name: string, seen = new Set<unknown>()): boolean {
  if (!node || typeof node !== 'object' || seen.has(node)) return false;
  seen.add(node);
  const o = node as Record<string, unknown>;
  if (o.case === 'identExpr' && (o.value as { name?: string } | undefined)?.name === name) return true;
  return Object.values(o).some((v) => usesIdent(v, name, seen));
}

export function rulesOf(s: Schema): ValidationRule[] {
  return (s['x-kubernetes-validations'] ?? []) as ValidationRule[];
}

function compiledRules(s: Schema): CompiledRule[] {
  let out = compiledBySchema.get(s);
  if (out) return out;
  out = rulesOf(s).map((rule) => {
    const c = compileExpression(rule.rule);
    const m = rule.messageExpression ? compileExpression(rule.messageExpression) : undefined;
    return {
      rule, program: c.program, messageProgram: m?.program, compileError: c.error ?? m?.error,
      usesOldSelf: usesIdent(c.expr, 'oldSelf'),
    };
  });
  compiledBySchema.set(s, out);
  return out;
}

/** The type name upstream passes as the bad value (sts.Type). */
function schemaType(s: Schema): string {
  return s.type ?? '';
}

/** The schema as the rule sees it at the resource root (model.WithTypeAndObjectMeta). */
function withTypeAndObjectMeta(s: Schema): Schema {
  return {
    ...s,
    properties: {
      ...s.properties,
      apiVersion: { type: 'string' }, kind: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  };
}

/** UnstructuredToVal: a JSON value as the CEL value its schema makes it. */
export function toCel(v: unknown, s: Schema | undefined): CelInput {
  if (!s) return jsonToCel(v);
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (s?.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) {
    const items = s?.items && !Array.isArray(s.items) ? s.items : undefined;
    return v.map((x) => toCel(x, items));
  }
  const obj = v as Record<string, unknown>;
  const m = new Map<string, CelInput>();
  const props = s?.properties;
  const additional = typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
  const embedded = s?.['x-kubernetes-embedded-resource'] ? withTypeAndObjectMeta({}).properties : undefined;
  const open = !s || !!s['x-kubernetes-preserve-unknown-fields'] || s.additionalProperties === true;
  for (const [k, x] of Object.entries(obj)) {
    // An embedded resource's metadata shows only name and generateName, whatever its schema declares.
    const ps = (k === 'metadata' ? embedded?.metadata : undefined) ?? props?.[k] ?? embedded?.[k] ?? additional;
    if (ps) m.set(k, toCel(x, ps));
    else if (open || (!props && !additional)) m.set(k, toCel(x, undefined));
  }
  return m;
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : rule.rule.trim();
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

function fieldErrorForReason(path: string, value: BadValue, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden': return field.forbidden(path, detail);
    case 'FieldValueRequired': return field.required(path, detail);
    case 'FieldValueDuplicate': return field.duplicate(path, value);
    default: return field.invalid(path, value, detail);
  }
}

/**
 * ValidFieldPath: a rule's fieldPath (`.a.b`, `['a.b']`) walked through the node's schema, as the
 * field path it names (properties as children, map keys as keys), or undefined when it names none.
 */
export function normalizedFieldPath(s: Schema, fieldPath: string): string | undefined {
  const step = /^(?:\.([^.[\]]+)|\[('(?:[^'\\]|\\.)*')\])/;
  let rest = fieldPath;
  let cur: Schema | undefined = s;
  let out = '';
  if (!rest) return undefined;
  while (rest.length) {
    const m = step.exec(rest);
    if (!m || !cur) return undefined;
    const name = m[1] ?? m[2]!.slice(1, -1).replace(/\\(.)/g, '$1');
    if (cur.properties) {
      cur = cur.properties[name];
      if (!cur) return undefined;
      out = out ? `${out}.${name}` : name;
    } else if (typeof cur.additionalProperties === 'object') {
      cur = cur.additionalProperties;
      out = `${out}[${name}]`;
    } else return undefined;
    rest = rest.slice(m[0].length);
  }
  return out;
}

/** field.Path.Child(normalized): the rule's fieldPath below the node's path. */
function appendFieldPath(s: Schema, path: string, fieldPath: string): string {
  const rel = normalizedFieldPath(s, fieldPath);
  if (!rel) return path || '<nil>';
  return path ? `${path}.${rel}` : rel;
}

type MessageResult = { ok: string } | { fallback: true };

/** evalMessageExpression without the cost accounting. */
function evalMessageExpression(program: Program, bindings: Record<string, CelInput>): MessageResult {
  const r = program(bindings);
  if (isCelError(r)) return { fallback: true };
  if (typeof r !== 'string') return { fallback: true };
  const msg = r.trim();
  if (Buffer.byteLength(msg) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES) return { fallback: true };
  if (/\n/.test(msg) || msg.length === 0) return { fallback: true };
  return { ok: msg };
}

interface Walk {
  /** The errors that count; ratcheted ones are dropped (upstream turns them into warnings). */
  errs: FieldError[];
}

function validateExpressions(s: Schema, root: boolean, path: string, v: unknown, old: unknown, ratchet: boolean, w: Walk): void {
  if (v === null || v === undefined) return;
  const compiled = compiledRules(s);
  if (!compiled.length) return;
  const sts = root ? withTypeAndObjectMeta(s) : s;
  const at = path || '<nil>';
  const value = schemaType(s);
  const self = toCel(v, sts);
  const hasOld = old !== null && old !== undefined;
  const bindings: Record<string, CelInput> = { self };
  if (hasOld) bindings.oldSelf = toCel(old, sts);
  for (const c of compiled) {
    const rule = c.rule;
    if (c.compileError !== undefined) {
      w.errs.push(field.invalid(at, value, `rule compile error: ${c.compileError}`));
      continue;
    }
    if (!c.program || !rule.rule.trim()) continue;
    // Transition rules run only with an old value, unless oldSelf is an optional (CRDValidationRatcheting, on in v1.32).
    if (c.usesOldSelf && !hasOld && !rule.optionalOldSelf) continue;
    const ruleBindings = rule.optionalOldSelf ? { self, oldSelf: hasOld ? optionalOf(bindings.oldSelf!) : optionalNone() } : bindings;
    const result = c.program(ruleBindings) as CelValue | Error;
    if (isCelError(result)) {
      const text = goErrorText(result.message);
      if (text === 'no such overload') {
        w.errs.push(field.invalid(at, value, `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`));
      } else {
        w.errs.push(field.invalid(at, value, `${text} evaluating rule: ${ruleErrorString(rule)}`));
      }
      continue;
    }
    if (result === true) continue;
    const errPath = rule.fieldPath ? appendFieldPath(s, path, rule.fieldPath) : at;
    const add = (e: FieldError) => { if (c.usesOldSelf || !ratchet) w.errs.push(e); };
    let detail = ruleMessageOrDefault(rule);
    if (c.messageProgram) {
      const m = evalMessageExpression(c.messageProgram, bindings);
      if ('ok' in m) detail = m.ok;
    }
    add(fieldErrorForReason(errPath, value, detail, rule.reason));
  }
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => isDeepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => Object.hasOwn(bo, k) && isDeepEqual(ao[k], bo[k]));
}

/** makeMapList: the old item with the same map keys, for x-kubernetes-list-type: map lists only. */
function correlatedItem(s: Schema, old: unknown, item: unknown): unknown {
  if (s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old) || !item || typeof item !== 'object') return undefined;
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  const it = item as Record<string, unknown>;
  return old.find((o) => o && typeof o === 'object' && keys.every((k) => isDeepEqual((o as Record<string, unknown>)[k], it[k])));
}

function validate(s: Schema, root: boolean, path: string, v: unknown, old: unknown, ratchet: boolean, w: Walk): void {
  if (v === null || v === undefined) return;
  validateExpressions(s, root, path, v, old, ratchet, w);
  for (const sub of s.allOf ?? []) validate(sub, false, path, v, old, ratchet, w);
  if (Array.isArray(v)) {
    const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
    if (!items) return;
    v.forEach((x, i) => {
      const o = correlatedItem(s, old, x);
      validate(items, false, `${path}[${i}]`, x, o, o !== undefined ? isDeepEqual(x, o) : ratchet, w);
    });
    return;
  }
  if (typeof v !== 'object') return;
  const obj = v as Record<string, unknown>;
  const mapType = s['x-kubernetes-map-type'];
  const correlatable = mapType === undefined || mapType === 'granular' || mapType === 'atomic';
  const oldObj = correlatable && old && typeof old === 'object' && !Array.isArray(old) ? old as Record<string, unknown> : undefined;
  const step = (k: string, sub: Schema) => {
    const o = oldObj?.[k];
    const childPath = path ? `${path}.${k}` : k;
    validate(sub, false, childPath, obj[k], o, o !== undefined ? isDeepEqual(obj[k], o) : ratchet && !oldObj, w);
  };
  if (typeof s.additionalProperties === 'object') {
    const ap = s.additionalProperties;
    for (const k of Object.keys(obj)) {
      const o = oldObj?.[k];
      validate(ap, false, `${path}[${k}]`, obj[k], o, o !== undefined ? isDeepEqual(obj[k], o) : ratchet && !oldObj, w);
    }
  }
  for (const k of Object.keys(obj)) {
    const sub = s.properties?.[k];
    if (sub) step(k, sub);
  }
}

/** hasXValidations: whether any node of the schema has rules (else upstream has no CEL validator at all). */
export function hasRules(s: Schema | undefined): boolean {
  if (!s) return false;
  if (rulesOf(s).length) return true;
  const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
  const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  return hasRules(items) || hasRules(ap) || Object.values(s.properties ?? {}).some((p) => hasRules(p));
}

/**
 * The x-kubernetes-validations errors of an instance (and of an update from `old`): errors of rules
 * that do not use oldSelf are ratcheted away where the value is unchanged (CRDValidationRatcheting,
 * on by default in v1.32).
 */
export function validateCustomResourceRules(schema: Schema, obj: Record<string, unknown>, old?: Record<string, unknown>): FieldError[] {
  const w: Walk = { errs: [] };
  const ratchet = old !== undefined && isDeepEqual(obj, old);
  validate(schema, true, '', obj, old, ratchet, w);
  return w.errs;
}
