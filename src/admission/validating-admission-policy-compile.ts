/**
 * A ValidatingAdmissionPolicy compiled once (k8s.io/apiserver pkg/admission/plugin/policy/validating/
 * plugin.go compilePolicy, v1.32): its variables, match conditions, validations, message expressions
 * and audit annotations, each with its program or its compile error. Compiled policies are kept per
 * stored object, so a policy is compiled again only when it changes.
 */
import type { ValidatingAdmissionPolicy, Validation } from 'kubernetes-types/admissionregistration/v1.js';
import { admissionCelEnvironment, compileExpression, type CompiledExpression } from '../cel/compile.js';
import { declaredVariables } from '../validation/admission-rules.js';

export interface CompiledCondition { expression: string; compiled: CompiledExpression }

export interface CompiledPolicy {
  /** Fail, Ignore (validation allows no other). */
  failurePolicy: string;
  hasParams: boolean;
  variables: (CompiledCondition & { name: string })[];
  matchConditions: (CompiledCondition & { name: string })[];
  validations: (CompiledCondition & { validation: Validation; message?: CompiledExpression })[];
  auditAnnotations: (CompiledCondition & { key: string })[];
}

const cache = new WeakMap<object, CompiledPolicy>();

function compile(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = policy.spec ?? {};
  const hasParams = !!spec.paramKind;
  // The runtime compiler is the composited one: `variables` is declared whether or not the policy has any.
  const withAuthorizer = declaredVariables({ hasParams, hasAuthorizer: true, hasVariables: true });
  const withoutAuthorizer = declaredVariables({ hasParams, hasAuthorizer: false, hasVariables: true });
  const c = (expression: string, declared = withAuthorizer): CompiledCondition => ({ expression, compiled: compileExpression(expression, declared, admissionCelEnvironment) });
  return {
    failurePolicy: spec.failurePolicy ?? 'Fail',
    hasParams,
    variables: (spec.variables ?? []).map((v) => ({ name: v.name, ...c(v.expression) })),
    matchConditions: (spec.matchConditions ?? []).map((m) => ({ name: m.name, ...c(m.expression) })),
    validations: (spec.validations ?? []).map((v) => ({
      validation: v, ...c(v.expression),
      message: v.messageExpression ? compileExpression(v.messageExpression, withoutAuthorizer, admissionCelEnvironment) : undefined,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({ key: a.key, ...c(a.valueExpression.trim()) })),
  };
}

/** The compiled form of a stored policy; stored objects are replaced, never changed, on update. */
export function compiledPolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  let out = cache.get(policy);
  if (!out) cache.set(policy, out = compile(policy));
  return out;
}
