/**
 * One policy evaluated against one request and one parameter object (k8s.io/apiserver pkg/admission/
 * plugin/policy/validating/validator.go Validate, plugin/cel/activation.go Evaluate and condition.go
 * CreateAdmissionRequest/CreateNamespaceObject, webhook/matchconditions/matcher.go Match, v1.32):
 * the match conditions, then each validation's decision and message, then the audit annotations.
 *
 * `authorizer` is the server's authorizer for the request's user (cel/library-authz.ts), where the
 * lookup has one. Not evaluated: the cost budget.
 */
import { celError, isCelError, type CelInput, type CelValue } from '@bufbuild/cel';
import type { CompiledExpression } from '../cel/compile.js';
import { goErrorText } from '../cel/errors.js';
import { jsonToCel } from '../cel/values.js';
import { authorizerSession } from '../cel/library-authz.js';
import { parseFieldSelector } from '../selectors/fields.js';
import type { KObject } from '../apimachinery/object.js';
import { aggregateMessage, type PolicyAttributes } from './types.js';
import { operationOptions } from './webhook-review.js';
import { userInfoJSON } from './webhook-review.js';
import type { CompiledCondition, CompiledPolicy } from './validating-admission-policy-compile.js';
import type { GroupVersionKind, GroupVersionResource } from './validating-admission-policy-match.js';

/** celconfig.MaxEvaluatedMessageExpressionSizeBytes */
const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

export interface PolicyDecision {
  action: 'admit' | 'deny';
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  /** The status reason of a denial (empty: Invalid). */
  reason: string;
}

export interface PolicyAuditAnnotation {
  action: 'publish' | 'exclude' | 'error';
  key: string;
  value: string;
  error: string;
}

export interface ValidateResult { decisions: PolicyDecision[]; auditAnnotations: PolicyAuditAnnotation[] }

type Bindings = Record<string, CelInput>;
type Outcome = { value: CelValue } | { error: string };

/** activation.Evaluate: the value, or the error text upstream's EvaluationResult.Error carries. */
function evaluate(c: CompiledCondition | { expression: string; compiled: CompiledExpression }, bindings: Bindings): Outcome {
  if (c.compiled.error !== undefined || !c.compiled.program) return { error: `compilation error: compilation failed: ${c.compiled.error ?? ''}` };
  let r: unknown;
  try {
    r = c.compiled.program(bindings);
  } catch (e) {
    r = e instanceof Error ? e : new Error(String(e));
  }
  if (isCelError(r) || r instanceof Error) return { error: `expression '${c.expression}' resulted in error: ${goErrorText((r as Error).message)}` };
  return { value: r as CelValue };
}

/**
 * The `variables` map: each variable evaluated once, when an expression first reads it
 * (plugin/cel/composition.go's lazy map and variableAccessor.Callback).
 */
class LazyVariables extends Map<string, CelInput> {
  private readonly done = new Map<string, CelInput | Error>();
  private readonly byName: Map<string, CompiledCondition>;

  constructor(variables: (CompiledCondition & { name: string })[], private readonly bindings: () => Bindings) {
    super();
    this.byName = new Map(variables.map((v) => [v.name, v]));
  }

  override has(key: string): boolean { return this.byName.has(key); }

  /** A variable that fails is an error where it is read: the evaluator turns what get throws into the expression's error. */
  override get(key: string): CelInput | undefined {
    if (!this.done.has(key)) {
      const v = this.byName.get(key);
      if (!v) return undefined;
      let value: CelInput | Error;
      if (v.compiled.error !== undefined || !v.compiled.program) {
        value = celError(`composited variable "${key}" fails to compile: compilation failed: ${v.compiled.error ?? ''}`);
      } else {
        const r = v.compiled.program(this.bindings());
        value = isCelError(r) ? celError(`composited variable "${key}" fails to evaluate: ${goErrorText(r.message)}`) : r as CelInput;
      }
      this.done.set(key, value);
    }
    const value = this.done.get(key);
    if (value instanceof Error) throw value;
    return value;
  }

  override get size(): number { return this.byName.size; }
  override keys(): MapIterator<string> { return this.byName.keys(); }
}

/** The AdmissionRequest as JSON, the form `request` has (its omitempty fields left out). */
function admissionRequest(a: PolicyAttributes, resource: GroupVersionResource, kind: GroupVersionKind): Record<string, unknown> {
  const userInfo = userInfoJSON(a.ctx.user);
  const req: Record<string, unknown> = {
    uid: '',
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
  };
  if (a.subresource) req.subResource = a.subresource;
  req.requestKind = { group: a.def.group, version: a.def.version, kind: a.def.kind };
  req.requestResource = { group: a.def.group, version: a.def.version, resource: a.def.resource };
  if (a.subresource) req.requestSubResource = a.subresource;
  if (a.name) req.name = a.name;
  if (a.namespace) req.namespace = a.namespace;
  req.operation = a.operation;
  req.userInfo = userInfo;
  req.object = null;
  req.oldObject = null;
  req.dryRun = a.ctx.dryRun;
  req.options = operationOptions(a.operation, a.ctx, a.deleteOptions);
  return req;
}

/** CreateNamespaceObject: the namespace with only the metadata fields policies may read. */
function namespaceObject(ns: KObject | undefined): Record<string, unknown> | null {
  if (!ns) return null;
  const m = ns.metadata ?? {};
  const keep = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
    'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'] as const;
  const metadata: Record<string, unknown> = {};
  for (const k of keep) if (m[k] !== undefined) metadata[k] = m[k];
  return { metadata, spec: ns.spec ?? {}, status: ns.status ?? {} };
}

export interface EvaluationInput {
  attrs: PolicyAttributes;
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  param: KObject | null;
  namespace: KObject | undefined;
}

function errorDecision(policy: CompiledPolicy, message: string): PolicyDecision {
  return { action: policy.failurePolicy === 'Ignore' ? 'admit' : 'deny', evaluation: 'error', message, reason: '' };
}

/** validator.Validate */
export function validatePolicy(policy: CompiledPolicy, input: EvaluationInput): ValidateResult {
  const a = input.attrs;
  const base: Bindings = {
    object: jsonToCel(a.object),
    oldObject: jsonToCel(a.oldObject ?? null),
    request: jsonToCel(admissionRequest(a, input.resource, input.kind)),
    namespaceObject: jsonToCel(namespaceObject(input.namespace)),
  };
  if (policy.hasParams) base.params = jsonToCel(input.param);
  const authorizer = a.lookup.authorization?.authorizer;
  const session = authorizer ? authorizerSession(a.ctx.user ?? { name: '', groups: [] }, { authorizer, parseFieldSelector: fieldRequirements }, {
    group: a.def.group, resource: a.def.resource, subresource: a.subresource, namespace: a.namespace, name: a.name,
  }) : undefined;
  if (session) base.authorizer = session.value;
  try {
    return evaluatePolicy(policy, base);
  } finally {
    session?.release();
  }
}

/** fields.ParseSelector(s).Requirements(), or undefined when it does not parse. */
function fieldRequirements(s: string): { field: string; value: string; negate: boolean }[] | undefined {
  try {
    return parseFieldSelector(s).terms;
  } catch {
    return undefined;
  }
}

function evaluatePolicy(policy: CompiledPolicy, base: Bindings): ValidateResult {
  const bindings: Bindings = { ...base };
  bindings.variables = new LazyVariables(policy.variables, () => bindings);

  if (policy.matchConditions.length) {
    const errs: string[] = [];
    for (const mc of policy.matchConditions) {
      const r = evaluate(mc, bindings);
      if ('error' in r) errs.push(r.error);
      else if (r.value === false) return { decisions: [], auditAnnotations: [] };
    }
    if (errs.length) {
      if (policy.failurePolicy === 'Ignore') return { decisions: [], auditAnnotations: [] };
      return { decisions: [errorDecision(policy, aggregateMessage(errs))], auditAnnotations: [] };
    }
  }

  const decisions = policy.validations.map((v): PolicyDecision => {
    const r = evaluate(v, bindings);
    if ('error' in r) return errorDecision(policy, r.error);
    if (r.value === true) return { action: 'admit', evaluation: 'admit', message: '', reason: '' };
    let message = '';
    if (v.message?.program) {
      const m = v.message.program(bindings);
      if (typeof m === 'string') {
        message = m.trim();
        if (Buffer.byteLength(message) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || message.includes('\n')) message = '';
      }
    }
    if (!message && v.validation.message) message = v.validation.message.trim();
    if (!message) message = `failed expression: ${v.expression.trim()}`;
    return { action: 'deny', evaluation: 'deny', message, reason: v.validation.reason ?? 'Invalid' };
  });

  const auditAnnotations = policy.auditAnnotations.map((an): PolicyAuditAnnotation => {
    const r = evaluate(an, bindings);
    const out: PolicyAuditAnnotation = { action: 'exclude', key: an.key, value: '', error: '' };
    if ('error' in r) {
      if (policy.failurePolicy !== 'Ignore') { out.action = 'error'; out.error = r.error; }
    } else if (typeof r.value === 'string') {
      const value = r.value.trim();
      if (value) { out.action = 'publish'; out.value = value; }
    } else if (r.value !== null) {
      out.action = 'error';
      out.error = `valueExpression '${an.expression}' resulted in unsupported return type: ${celTypeName(r.value)}. Return type must be either string or null.`;
    }
    return out;
  });
  return { decisions, auditAnnotations };
}

/** The CEL type name of a value, as cel-go's ref.Type prints. */
function celTypeName(v: CelValue): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v) || (typeof v === 'object' && v !== null && Symbol.iterator in v && !(v instanceof Map))) return 'list';
  return 'map';
}
