/**
 * The ValidatingAdmissionPolicy admission plugin's validating phase (k8s.io/apiserver pkg/admission/
 * plugin/policy/validating/dispatcher.go Dispatch and generic/plugin.go, v1.32): every policy with
 * bindings whose matchConstraints select the request, each of its bindings that selects it too, once
 * per parameter object; failed validations act as the binding's validationActions say (Deny refuses
 * with the first denial, Warn adds a `Warning` header, Audit would annotate the audit event, which
 * this server does not write).
 *
 * Policies and bindings are read from the store's in-memory listers and compiled once per stored
 * version (validating-admission-policy-compile.ts), so a write costs no storage read for them.
 */
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { Status } from 'kubernetes-types/meta/v1.js';
import { StatusError } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import { listAll } from './lookup.js';
import { forbidden, type PolicyAttributes, type AdmissionPlugin } from './types.js';
import { compiledPolicy } from './validating-admission-policy-compile.js';
import { validatePolicy, type PolicyDecision } from './validating-admission-policy-evaluate.js';
import { matchResources } from './validating-admission-policy-match.js';
import { collectParams, paramResource, PolicyConfigurationError } from './validating-admission-policy-params.js';

const GROUP = 'admissionregistration.k8s.io';

/** generic/plugin.go admissionResources: policies never judge writes of policies and bindings. */
const EXCLUDED = new Set(['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);

interface Denial { decision: PolicyDecision; policy: string; binding?: string }

/** reasonToCode (policy_decision.go) */
function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden': return 403;
    case 'Unauthorized': return 401;
    case 'RequestEntityTooLarge': return 413;
    default: return 422;
  }
}

/** The refusal of the first denial: admission.NewForbidden's message, with the decision's reason and code. */
function denialError(a: PolicyAttributes, d: Denial): StatusError {
  const message = d.binding !== undefined
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.decision.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.decision.message}`;
  const base = forbidden(a, message) as StatusError;
  const reason = d.decision.reason || 'Invalid';
  const details: NonNullable<Status['details']> = { ...(base.status.details ?? {}), causes: [{ message }] };
  const { details: _d, code: _c, ...head } = base.status;
  return new StatusError({ ...head, reason, details, code: reasonToCode(reason) });
}

/** Bindings by the policy they name. */
function bindingsByPolicy(bindings: KObject[]): Map<string, ValidatingAdmissionPolicyBinding[]> {
  const out = new Map<string, ValidatingAdmissionPolicyBinding[]>();
  for (const b of bindings as ValidatingAdmissionPolicyBinding[]) {
    const name = b.spec?.policyName ?? '';
    if (!out.has(name)) out.set(name, []);
    out.get(name)!.push(b);
  }
  for (const list of out.values()) list.sort((x, y) => (x.metadata!.name! < y.metadata!.name! ? -1 : 1));
  return out;
}

/** The audit annotation an `Audit` validation action adds. */
const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;

async function dispatch(a: PolicyAttributes): Promise<void> {
  if (a.def.group === GROUP && EXCLUDED.has(a.def.resource)) return;
  const [policies, bindings] = await Promise.all([
    listAll(a.lookup, GROUP, 'validatingadmissionpolicies', ''),
    listAll(a.lookup, GROUP, 'validatingadmissionpolicybindings', ''),
  ]);
  if (!policies.length || !bindings.length) return;
  const byPolicy = bindingsByPolicy(bindings);
  const denials: Denial[] = [];
  const sorted = (policies as ValidatingAdmissionPolicy[]).slice().sort((x, y) => (x.metadata!.name! < y.metadata!.name! ? -1 : 1));
  let namespace: KObject | undefined | null = null;

  for (const policy of sorted) {
    const name = policy.metadata!.name!;
    const policyBindings = byPolicy.get(name);
    if (!policyBindings?.length) continue;
    const failurePolicy = policy.spec?.failurePolicy ?? 'Fail';
    const configError = (message: string, binding?: string) => {
      if (failurePolicy === 'Ignore') return;
      const prefix = binding === undefined ? 'failed to configure policy' : 'failed to configure binding';
      const text = failurePolicy === 'Fail' ? `${prefix}: ${message}` : `unrecognized failure policy: '${failurePolicy}'`;
      denials.push({ policy: name, binding, decision: { action: 'deny', evaluation: 'error', message: text, reason: '' } });
    };
    const constraints = policy.spec?.matchConstraints;
    if (!constraints) {
      configError('policy contained no match constraints, a required field');
      continue;
    }
    const defMatch = await matchResources(constraints, a);
    if (!defMatch.matches) {
      if (defMatch.error) configError(defMatch.error.message);
      continue;
    }
    let paramDef: ResourceInfo | undefined;
    if (policy.spec?.paramKind) {
      const r = paramResource(policy.spec.paramKind, a.lookup);
      if (r instanceof PolicyConfigurationError) {
        configError(r.message);
        continue;
      }
      paramDef = r;
    }
    const compiled = compiledPolicy(policy);
    const published = new Map<string, string[]>();

    for (const binding of policyBindings) {
      const bindingName = binding.metadata!.name!;
      if (binding.spec?.matchResources) {
        const m = await matchResources(binding.spec.matchResources, a);
        if (!m.matches) {
          if (m.error) configError(m.error.message, bindingName);
          continue;
        }
      }
      let params: (KObject | null)[];
      try {
        params = await collectParams(policy.spec?.paramKind, paramDef, binding.spec?.paramRef, a.namespace, a.lookup);
      } catch (e) {
        if (!(e instanceof PolicyConfigurationError)) throw e;
        configError(e.message, bindingName);
        continue;
      }
      // The namespace of a namespaced request (not of a namespace itself), read once per request.
      if (namespace === null) {
        const isNamespace = a.def.group === '' && a.def.resource === 'namespaces';
        namespace = a.namespace && !isNamespace ? await a.lookup.get('', 'namespaces', '', a.namespace) : undefined;
      }
      for (const param of params) {
        const p = param && policy.spec?.paramKind && !param.apiVersion
          ? { ...param, apiVersion: policy.spec.paramKind.apiVersion, kind: policy.spec.paramKind.kind } : param;
        const result = validatePolicy(compiled, { attrs: a, resource: defMatch.resource, kind: defMatch.kind, param: p, namespace });
        const actions = binding.spec?.validationActions ?? [];
        for (const [expressionIndex, decision] of result.decisions.entries()) {
          if (decision.action !== 'deny') continue;
          for (const action of actions) {
            if (action === 'Deny') denials.push({ policy: name, binding: bindingName, decision });
            else if (action === 'Warn') a.ctx.warn(`Validation failed for ValidatingAdmissionPolicy '${name}' with binding '${bindingName}': ${decision.message}`);
            else if (action === 'Audit') {
              // publishValidationFailureAnnotation: a list of one, in ValidationFailureValue's field order.
              a.ctx.annotate?.(VALIDATION_FAILURE_ANNOTATION, JSON.stringify([{ message: decision.message, policy: name, binding: bindingName, expressionIndex, validationActions: actions }]));
            }
          }
        }
        for (const an of result.auditAnnotations) {
          if (an.action === 'error') denials.push({ policy: name, binding: bindingName, decision: { action: 'deny', evaluation: 'error', message: an.error, reason: '' } });
          if (an.action !== 'publish') continue;
          // auditAnnotationCollector.add: each binding's distinct value, cut at 10 KiB.
          const values = published.get(an.key) ?? [];
          const value = an.value.slice(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
          if (!values.includes(value)) published.set(an.key, [...values, value]);
        }
      }
    }
    // auditAnnotationCollector.publish: one annotation per key, distinct values comma-joined.
    for (const [key, values] of published) a.ctx.annotate?.(`${name}/${key}`, values.join(', '));
  }
  if (denials.length) throw denialError(a, denials[0]!);
}

export const validatingAdmissionPolicy: AdmissionPlugin = {
  name: 'ValidatingAdmissionPolicy',
  validate: dispatch,
};

/** The plugin's Validate outside the store's create and update path: DELETE (the deleted object as oldObject), subresource POSTs. */
export const validateWithPolicies = (a: PolicyAttributes): Promise<void> => dispatch(a);
