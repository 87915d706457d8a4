/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding validation
 * (pkg/apis/admissionregistration/validation/validation.go, v1.32:
 * ValidateValidatingAdmissionPolicy, ValidateValidatingAdmissionPolicyUpdate,
 * ValidateValidatingAdmissionPolicyStatusUpdate, ValidateValidatingAdmissionPolicyBinding),
 * with the CEL expressions compiled as the API server compiles them (cel/compile.ts: undeclared
 * references and syntax errors; the evaluator has no type checker).
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { compileExpression, literalType } from '../cel/compile.js';
import { isDNS1123Subdomain, isQualifiedName } from '../meta/names.js';
import { isDNS1035Label, nameIsDNSSubdomain } from './object-meta.js';
import { arr, isObj, isValidPathSegmentName, raw, str, validateLabelSelector, type Obj } from './common.js';
import {
  expressionCompileError, FAILURE_POLICIES, goNamedStrings, MATCH_POLICIES, validateMatchConditions, validateNamedRuleWithOperations,
  type ExpressionDeclarations,
} from './admission-rules.js';

const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024;

/** validateMatchResources */
function validateMatchResources(mc: unknown, path: string): FieldError[] {
  if (!isObj(mc)) return [];
  const errs: FieldError[] = [];
  if (mc.matchPolicy == null) errs.push(field.required(`${path}.matchPolicy`, ''));
  else if (!MATCH_POLICIES.includes(str(mc.matchPolicy))) errs.push(field.notSupported(`${path}.matchPolicy`, str(mc.matchPolicy), MATCH_POLICIES));
  if (mc.namespaceSelector == null) errs.push(field.required(`${path}.namespaceSelector`, ''));
  else errs.push(...validateLabelSelector(mc.namespaceSelector, {}, `${path}.namespaceSelector`));
  if (mc.objectSelector == null) errs.push(field.required(`${path}.objectSelector`, ''));
  else errs.push(...validateLabelSelector(mc.objectSelector, {}, `${path}.objectSelector`));
  arr<Obj>(mc.resourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(r ?? {}, `${path}.resourceRules[${i}]`)));
  arr<Obj>(mc.excludeResourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(r ?? {}, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

/** schema.ParseGroupVersion as validateParamKind's parseGroupVersion does it. */
function parseGroupVersion(gv: string): { group: string; version: string } | string {
  if (!gv || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return `unexpected GroupVersion string: ${gv}`;
}

/** validateParamKind */
function validateParamKind(pk: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  if (!apiVersion) errs.push(field.required(`${path}.apiVersion`, ''));
  else {
    const gv = parseGroupVersion(apiVersion);
    if (typeof gv === 'string') errs.push(field.invalid(`${path}.apiVersion`, apiVersion, gv));
    else {
      if (gv.group) {
        const m = isDNS1123Subdomain(gv.group);
        if (m.length) errs.push(field.invalid(`${path}.apiVersion`, gv.group, m.join(',')));
      }
      if (!gv.version) errs.push(field.invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else {
        const m = isDNS1035Label(gv.version);
        if (m.length) errs.push(field.invalid(`${path}.apiVersion`, gv.version, m.join(',')));
      }
    }
  }
  const kind = str(pk.kind);
  if (!kind) errs.push(field.required(`${path}.kind`, ''));
  else {
    const m = isDNS1035Label(kind.toLowerCase());
    if (m.length) errs.push(field.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${m.join(',')}`));
  }
  return errs;
}

const exprError = (path: string, expression: string, detail: string | undefined): FieldError[] =>
  detail === undefined ? [] : [field.invalid(path, expression, detail)];

const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

function isCELIdentifier(name: string): boolean {
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !CEL_RESERVED.has(name);
}

/** validateVariable */
function validateVariable(v: Obj, d: ExpressionDeclarations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(v.name);
  if (!name.trim()) errs.push(field.required(`${path}.name`, 'name is not specified'));
  else if (!isCELIdentifier(name)) errs.push(field.invalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
  const expression = str(v.expression);
  if (!expression.trim()) errs.push(field.required(`${path}.expression`, 'expression is not specified'));
  else errs.push(...exprError(`${path}.expression`, expression, expressionCompileError(expression, { ...d, hasAuthorizer: true }, 'any')));
  return errs;
}

/** validateValidation */
function validateValidation(v: Obj, d: ExpressionDeclarations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const expression = str(v.expression);
  const message = str(v.message);
  const messageExpression = str(v.messageExpression);
  if (!expression.trim()) errs.push(field.required(`${path}.expression`, 'expression is not specified'));
  else errs.push(...exprError(`${path}.expression`, expression, expressionCompileError(expression, { ...d, hasAuthorizer: true }, 'bool')));
  if (messageExpression.length > 0 && !messageExpression.trim()) {
    errs.push(field.invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  } else if (messageExpression.trim()) {
    errs.push(...exprError(`${path}.messageExpression`, messageExpression, expressionCompileError(messageExpression, { ...d, hasAuthorizer: false }, 'string')));
  }
  if (message.length > 0 && !message.trim()) errs.push(field.invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (/[\n\r]+/.test(message.trim())) errs.push(field.invalid(`${path}.message`, message, 'message must not contain line breaks'));
  if (v.reason != null && !REASONS.includes(str(v.reason))) errs.push(field.notSupported(`${path}.reason`, str(v.reason), REASONS));
  return errs;
}

/** validateAuditAnnotation */
function validateAuditAnnotation(policyName: string, a: Obj, d: ExpressionDeclarations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(a.key);
  if (policyName) errs.push(...isQualifiedName(`${policyName}/${key}`).map((m) => field.invalid(`${path}.key`, `${policyName}/${key}`, m)));
  else errs.push(field.invalid(`${path}.key`, key, 'requires metadata.name be non-empty'));
  const valueExpression = str(a.valueExpression);
  const trimmed = valueExpression.trim();
  if (!trimmed) errs.push(field.required(`${path}.valueExpression`, 'valueExpression is not specified'));
  else if (Buffer.byteLength(trimmed) > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH) {
    errs.push(field.required(`${path}.valueExpression`, `must not exceed ${MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length`));
  } else {
    const detail = expressionCompileError(trimmed, { ...d, hasAuthorizer: true }, 'any');
    const t = detail === undefined ? literalType(compileExpression(trimmed).expr) : undefined;
    if (detail !== undefined) errs.push(field.invalid(`${path}.valueExpression`, valueExpression, detail));
    else if (t !== undefined && t !== 'string' && t !== 'null_type') {
      errs.push(field.invalid(`${path}.valueExpression`, valueExpression, `must evaluate to one of [string null_type] but got ${t}`));
    }
  }
  return errs;
}

/** Which expressions of an update are checked: upstream skips match conditions an update leaves alone. */
interface PolicyOptions { ignoreMatchConditions: boolean }

/** validateValidatingAdmissionPolicySpec */
function validatePolicySpec(name: string, spec: Obj, opts: PolicyOptions): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'spec';
  const hasParams = spec.paramKind != null;
  const variables = arr<Obj>(spec.variables);
  const d: ExpressionDeclarations = { hasParams, hasAuthorizer: true, hasVariables: variables.length > 0 };
  if (spec.failurePolicy == null) errs.push(field.required(`${path}.failurePolicy`, ''));
  else if (!FAILURE_POLICIES.includes(str(spec.failurePolicy))) errs.push(field.notSupported(`${path}.failurePolicy`, str(spec.failurePolicy), FAILURE_POLICIES));
  if (hasParams) errs.push(...validateParamKind(isObj(spec.paramKind) ? spec.paramKind : {}, `${path}.paramKind`));
  if (spec.matchConstraints == null) errs.push(field.required(`${path}.matchConstraints`, ''));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, `${path}.matchConstraints`));
    if (!arr(isObj(spec.matchConstraints) ? spec.matchConstraints.resourceRules : undefined).length) {
      errs.push(field.required(`${path}.matchConstraints.resourceRules`, ''));
    }
  }
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(arr(spec.matchConditions), hasParams, `${path}.matchConditions`));
  variables.forEach((v, i) => errs.push(...validateVariable(v ?? {}, d, `${path}.variables[${i}]`)));
  const validations = arr<Obj>(spec.validations);
  const auditAnnotations = arr<Obj>(spec.auditAnnotations);
  if (!validations.length && !auditAnnotations.length) {
    errs.push(field.required(`${path}.validations`, 'validations or auditAnnotations must contain at least one item'));
    errs.push(field.required(`${path}.auditAnnotations`, 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(v ?? {}, d, `${path}.validations[${i}]`)));
  if (spec.auditAnnotations != null) {
    const keys = new Set<string>();
    if (auditAnnotations.length > MAX_AUDIT_ANNOTATIONS) {
      errs.push(field.invalid(`${path}.auditAnnotations`, raw(`[]admissionregistration.AuditAnnotation{...}`), `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
    }
    auditAnnotations.forEach((a, i) => {
      errs.push(...validateAuditAnnotation(name, a ?? {}, d, `${path}.auditAnnotations[${i}]`));
      const key = str(a?.key);
      if (keys.has(key)) errs.push(field.duplicate(`${path}.auditAnnotations[${i}].key`, key));
      keys.add(key);
    });
  }
  return errs;
}

export function validateValidatingAdmissionPolicySpec(obj: Obj): FieldError[] {
  return validatePolicySpec(str(obj.metadata?.name), isObj(obj.spec) ? obj.spec : {}, { ignoreMatchConditions: false });
}

/** ValidateValidatingAdmissionPolicyUpdate: match conditions are checked again only when they or paramKind change. */
export function validateValidatingAdmissionPolicySpecUpdate(obj: Obj, old: Obj): FieldError[] {
  const spec: Obj = isObj(obj.spec) ? obj.spec : {};
  const oldSpec: Obj = isObj(old.spec) ? old.spec : {};
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  const ignoreMatchConditions = same(spec.paramKind, oldSpec.paramKind) && same(spec.matchConditions, oldSpec.matchConditions);
  return validatePolicySpec(str(obj.metadata?.name), spec, { ignoreMatchConditions });
}

/** validateFieldRef: a JSONPath the kubectl jsonpath parser accepts (only its emptiness is checked here). */
function validateExpressionWarnings(warnings: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  warnings.forEach((w, i) => {
    const ew: Obj = isObj(w) ? w : {};
    if (!str(ew.warning)) errs.push(field.required(`${path}[${i}].warning`, ''));
    if (!str(ew.fieldRef).trim()) errs.push(field.required(`${path}[${i}].fieldRef`, ''));
  });
  return errs;
}

/** ValidateValidatingAdmissionPolicyStatusUpdate (metav1validation.ValidateConditions as the other status strategies port it). */
export function validateValidatingAdmissionPolicyStatus(obj: Obj): FieldError[] {
  const status: Obj = isObj(obj.status) ? obj.status : {};
  const errs: FieldError[] = [];
  if (isObj(status.typeChecking)) errs.push(...validateExpressionWarnings(arr(status.typeChecking.expressionWarnings), 'status.typeChecking.expressionWarnings'));
  const seen = new Set<string>();
  arr<Obj>(status.conditions).forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type = str(c?.type);
    if (!type) errs.push(field.required(`${p}.type`, 'must not be empty'));
    if (seen.has(type)) errs.push(field.duplicate(`${p}.type`, type));
    seen.add(type);
    if (!['True', 'False', 'Unknown'].includes(str(c?.status))) errs.push(field.notSupported(`${p}.status`, str(c?.status), ['False', 'True', 'Unknown']));
    if (!c?.lastTransitionTime) errs.push(field.required(`${p}.lastTransitionTime`, 'must be set'));
    const reason = str(c?.reason);
    if (!reason) errs.push(field.required(`${p}.reason`, 'must be set'));
  });
  return errs;
}

/** validateValidationActions */
function validateValidationActions(va: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const actions = new Set<string>();
  va.forEach((a, i) => {
    const action = str(a);
    if (!VALIDATION_ACTIONS.includes(action)) errs.push(field.notSupported(`${path}[${i}]`, action, VALIDATION_ACTIONS));
    if (actions.has(action)) errs.push(field.duplicate(`${path}[${i}]`, action));
    actions.add(action);
  });
  if (actions.has('Deny') && actions.has('Warn')) {
    errs.push(field.invalid(path, goNamedStrings('ValidationAction', va),
      'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (!actions.size) errs.push(field.required(path, 'at least one validation action is required'));
  return errs;
}

/** validateParamRef */
function validateParamRef(pr: unknown, path: string): FieldError[] {
  if (!isObj(pr)) return [];
  const errs: FieldError[] = [];
  const name = str(pr.name);
  if (name) {
    for (const m of isValidPathSegmentName(name)) errs.push(field.invalid(`${path}.name`, name, m));
    if (pr.selector != null) errs.push(field.forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (pr.selector != null) {
    errs.push(...validateLabelSelector(pr.selector, {}, `${path}.selector`));
    if (name) errs.push(field.forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (!name && pr.selector == null) errs.push(field.required(path, 'one of name or selector must be specified'));
  const action = str(pr.parameterNotFoundAction);
  if (!action) errs.push(field.required(`${path}.parameterNotFoundAction`, ''));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(field.notSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

/** validateValidatingAdmissionPolicyBindingSpec (its matchResources path is upstream's, misspelt). */
export function validateValidatingAdmissionPolicyBindingSpec(obj: Obj): FieldError[] {
  const spec: Obj = isObj(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  const policyName = str(spec.policyName);
  if (!policyName) errs.push(field.required('spec.policyName', ''));
  else for (const m of nameIsDNSSubdomain(policyName, false)) errs.push(field.invalid('spec.policyName', policyName, m));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  errs.push(...validateValidationActions(arr(spec.validationActions), 'spec.validationActions'));
  return errs;
}
