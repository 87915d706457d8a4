/**
 * The x-kubernetes-validations part of ValidateCustomResourceDefinitionOpenAPISchema
 * (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go): the rule's own fields,
 * fieldPath validity (cel.ValidFieldPath), compilation of rule and messageExpression
 * (pkg/apiserver/schema/cel/compilation.go compileRule), and oldSelf where old and new values cannot
 * be correlated. Compilation here is parsing: type errors are found when the rule runs.
 */
import { parse } from '@bufbuild/cel';
import { field, goQuote, type FieldError } from '../../apimachinery/field-errors.js';
import type { Schema } from '../../openapi/crd-schema.js';
import { normalizedFieldPath, type ValidationRule } from './cel-validation.js';

const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** The rule as Go's %#v prints the internal apiextensions.ValidationRule (the value of compile errors). */
function goSyntax(r: ValidationRule): { goSyntax: string } {
  // A set Reason is a pointer, which Go prints as an address: there is no stable text to mirror.
  const reason = r.reason === undefined ? '(*apiextensions.FieldValueErrorReason)(nil)' : '(*apiextensions.FieldValueErrorReason)(0xc000000000)';
  const optional = r.optionalOldSelf === undefined ? '(*bool)(nil)' : '(*bool)(0xc000000000)';
  return {
    goSyntax: `apiextensions.ValidationRule{Rule:${goQuote(r.rule ?? '')}, Message:${goQuote(r.message ?? '')}, MessageExpression:${goQuote(r.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${optional}}`,
  };
}

/** cel.ValidFieldPath: whether a rule's fieldPath names a field of the node's schema. */
export function fieldPathValid(s: Schema, path: string): boolean {
  return normalizedFieldPath(s, path) !== undefined;
}

function parseError(src: string): string | undefined {
  try {
    parse(src);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

function usesOldSelf(p: ReturnType<typeof parse>): boolean {
  const seen = new Set<unknown>();
  const walk = (n: unknown): boolean => {
    if (!n || typeof n !== 'object' || seen.has(n)) return false;
    seen.add(n);
    const o = n as Record<string, unknown>;
    if (o.case === 'identExpr' && (o.value as { name?: string } | undefined)?.name === 'oldSelf') return true;
    return Object.values(o).some(walk);
  };
  return walk(p.expr);
}

const hasNewlines = (s: string) => /\n/.test(s);

export interface RuleErrors { schema: FieldError[]; cel: FieldError[] }

/**
 * The errors of one node's rules. `subtreeSchemaErrors` tells whether this node or a deeper one
 * already has schema errors (then upstream skips compilation); `oldSelfForbiddenAt` is the path of
 * the highest uncorrelatable ancestor, if any.
 */
export function validationRuleErrors(s: Schema, path: string, subtreeSchemaErrors: boolean, oldSelfForbiddenAt: string | undefined): RuleErrors {
  const out: RuleErrors = { schema: [], cel: [] };
  const rules = (s['x-kubernetes-validations'] ?? []) as ValidationRule[];
  if (!rules.length) return out;
  rules.forEach((rule, i) => {
    const p = `${path}.x-kubernetes-validations[${i}]`;
    const trimmedRule = (rule.rule ?? '').trim();
    const trimmedMsg = (rule.message ?? '').trim();
    if (!trimmedRule) out.schema.push(field.required(`${p}.rule`, 'rule is not specified'));
    else if (rule.message && !trimmedMsg) out.schema.push(field.invalid(`${p}.message`, rule.message, 'message must be non-empty if specified'));
    else if (hasNewlines(trimmedMsg)) out.schema.push(field.invalid(`${p}.message`, rule.message ?? '', 'message must not contain line breaks'));
    else if (hasNewlines(trimmedRule) && !trimmedMsg) out.schema.push(field.required(`${p}.message`, 'message must be specified if rule contains line breaks'));
    if (rule.messageExpression && !rule.messageExpression.trim()) out.schema.push(field.required(`${p}.messageExpression`, 'messageExpression must be non-empty if specified'));
    if (rule.reason !== undefined && !SUPPORTED_REASONS.includes(rule.reason)) out.schema.push(field.notSupported(`${p}.reason`, rule.reason, SUPPORTED_REASONS));
    const fp = rule.fieldPath;
    if (fp && !fp.trim()) out.schema.push(field.invalid(`${p}.fieldPath`, fp, 'fieldPath must be non-empty if specified'));
    if (fp && hasNewlines(fp)) out.schema.push(field.invalid(`${p}.fieldPath`, fp, 'fieldPath must not contain line breaks'));
    if (fp && !fieldPathValid(s, fp.trim())) out.schema.push(field.invalid(`${p}.fieldPath`, fp, 'fieldPath must be a valid path'));
  });
  if (subtreeSchemaErrors || out.schema.length) return out;
  rules.forEach((rule, i) => {
    const p = `${path}.x-kubernetes-validations[${i}]`;
    if (!(rule.rule ?? '').trim()) return;
    const err = parseError(rule.rule);
    if (err !== undefined) out.cel.push(field.invalid(`${p}.rule`, goSyntax(rule), `compilation failed: ERROR: ${err}`));
    if (rule.messageExpression?.trim()) {
      const merr = parseError(rule.messageExpression);
      if (merr !== undefined) out.cel.push(field.invalid(`${p}.messageExpression`, goSyntax(rule), `messageExpression compilation failed: ERROR: ${merr}`));
    }
    if (err !== undefined) return;
    if (usesOldSelf(parse(rule.rule))) {
      if (oldSelfForbiddenAt !== undefined) {
        out.cel.push(field.invalid(`${p}.rule`, rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${oldSelfForbiddenAt}`));
      }
    } else if (rule.optionalOldSelf !== undefined) {
      out.cel.push(field.invalid(`${p}.optionalOldSelf`, rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  return out;
}
