/**
 * The rules both admission kinds share (pkg/apis/admissionregistration/validation/validation.go,
 * v1.32): validateResources, validateRule, validateRuleWithOperations,
 * validateNamedRuleWithOperations, validateMatchConditions / validateMatchCondition, and
 * CompileCELExpression as validateCELCondition reports it. Webhook configurations and
 * ValidatingAdmissionPolicies call these, as upstream's one validation.go does for both.
 */
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import { admissionCelEnvironment, compileExpression, literalType } from '../cel/compile.js';
import { arr, goStrings, isObj, isValidPathSegmentName, qualifiedName, raw, str, type Obj } from './common.js';

export const FAILURE_POLICIES = ['Fail', 'Ignore'];
export const MATCH_POLICIES = ['Equivalent', 'Exact'];
export const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
export const SCOPES = ['*', 'Cluster', 'Namespaced'];
const MAX_MATCH_CONDITIONS = 64;

/** %#v of a slice of a named string type of the internal admissionregistration package. */
export function goNamedStrings(type: string, list: unknown): ReturnType<typeof raw> {
  return raw(`[]admissionregistration.${type}{${arr(list).map((s) => goQuote(str(s))).join(', ')}}`);
}

const hasWildcard = (xs: unknown[]) => xs.includes('*');

/** validateResources: resources of a rule that may name subresources. */
function validateResources(resources: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!resources.length) errs.push(field.required(path, ''));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((r, i) => {
    const resSub = str(r);
    if (!resSub) {
      errs.push(field.required(`${path}[${i}]`, ''));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(field.invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(field.invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(field.invalid(path, goStrings(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(field.invalid(path, goStrings(resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** validateRule with allowSubResource. */
function validateRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const groups = arr(rule.apiGroups);
  const versions = arr(rule.apiVersions);
  if (!groups.length) errs.push(field.required(`${path}.apiGroups`, ''));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(field.invalid(`${path}.apiGroups`, goStrings(groups), "if '*' is present, must not specify other API groups"));
  if (!versions.length) errs.push(field.required(`${path}.apiVersions`, ''));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(field.invalid(`${path}.apiVersions`, goStrings(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => { if (!str(v)) errs.push(field.required(`${path}.apiVersions[${i}]`, '')); });
  errs.push(...validateResources(arr(rule.resources), `${path}.resources`));
  if (rule.scope != null && !SCOPES.includes(str(rule.scope))) errs.push(field.notSupported(`${path}.scope`, str(rule.scope), SCOPES));
  return errs;
}

/** validateRuleWithOperations */
export function validateRuleWithOperations(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(rule.operations);
  if (!ops.length) errs.push(field.required(`${path}.operations`, ''));
  if (ops.length > 1 && hasWildcard(ops)) errs.push(field.invalid(`${path}.operations`, goNamedStrings('OperationType', ops), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => { if (!OPERATIONS.includes(str(op))) errs.push(field.notSupported(`${path}.operations[${i}]`, str(op), OPERATIONS)); });
  errs.push(...validateRule(rule, path));
  return errs;
}

/** validateNamedRuleWithOperations */
export function validateNamedRuleWithOperations(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(rule.resourceNames).forEach((n, i) => {
    const name = str(n);
    for (const m of isValidPathSegmentName(name)) errs.push(field.invalid(`${path}.resourceNames[${i}]`, name, m));
    if (seen.has(name)) errs.push(field.duplicate(`${path}.resourceNames[${i}]`, name));
    else seen.add(name);
  });
  errs.push(...validateRuleWithOperations(rule, path));
  return errs;
}

/** The variables an expression may read (plugin/cel OptionalVariableDeclarations). */
export interface ExpressionDeclarations {
  hasParams: boolean;
  hasAuthorizer: boolean;
  /** Whether the policy declares variables (the composited compiler adds `variables`). */
  hasVariables: boolean;
}

export function declaredVariables(d: ExpressionDeclarations): Set<string> {
  const names = ['object', 'oldObject', 'request', 'namespaceObject'];
  if (d.hasParams) names.push('params');
  if (d.hasAuthorizer) names.push('authorizer');
  if (d.hasVariables) names.push('variables');
  return new Set(names);
}

/**
 * CompileCELExpression's error for an expression, or undefined: `compilation failed: <issues>`, or
 * `must evaluate to T but got U` where the output type is known (a literal).
 */
export function expressionCompileError(expression: string, d: ExpressionDeclarations, returnType: 'bool' | 'string' | 'any'): string | undefined {
  const c = compileExpression(expression, declaredVariables(d), admissionCelEnvironment);
  if (c.error !== undefined) return `compilation failed: ${c.error}`;
  const t = literalType(c.expr);
  if (returnType !== 'any' && t !== undefined && t !== returnType) return `must evaluate to ${returnType} but got ${t}`;
  return undefined;
}

/**
 * validateMatchConditions with validateMatchConditionsExpression: the stateless compiler, an
 * authorizer, `params` only where the caller allows them (policies with a paramKind).
 */
export function validateMatchConditions(conditions: unknown[], allowParams: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  if (conditions.length > MAX_MATCH_CONDITIONS) {
    errs.push({ type: 'FieldValueTooMany', field: path, value: conditions.length, detail: `must have at most ${MAX_MATCH_CONDITIONS} items` });
  }
  const d: ExpressionDeclarations = { hasParams: allowParams, hasAuthorizer: true, hasVariables: false };
  conditions.forEach((c, i) => {
    const mc: Obj = isObj(c) ? c : {};
    const p = `${path}[${i}]`;
    const expression = str(mc.expression).trim();
    if (!expression) errs.push(field.required(`${p}.expression`, ''));
    else {
      const detail = expressionCompileError(expression, d, 'bool');
      if (detail !== undefined) errs.push(field.invalid(`${p}.expression`, expression, detail));
    }
    const name = str(mc.name);
    if (!name) errs.push(field.required(`${p}.name`, ''));
    else errs.push(...qualifiedName(name, `${p}.name`));
    if (name) {
      if (names.has(name)) errs.push(field.duplicate(`${p}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}
