/**
 * authorization.k8s.io: the access reviews answer what the server's authorizer
 * decides (pkg/registry/authorization/{subjectaccessreview,
 * selfsubjectaccessreview,localsubjectaccessreview,selfsubjectrulesreview}).
 */
import type {
  LocalSubjectAccessReview, NonResourceAttributes, ResourceAttributes, SelfSubjectAccessReview, SubjectAccessReview,
  SubjectAccessReviewSpec,
} from 'kubernetes-types/authorization/v1.js';
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { errors } from '../../apimachinery/errors.js';
import { field, type FieldError } from '../../apimachinery/field-errors.js';
import { goQuote } from '../../apimachinery/go-quote.js';
import type { KObject } from '../../apimachinery/object.js';
import type { WriteContext } from '../../apimachinery/write-context.js';
import { alwaysAllow } from '../../authorization/authorizers.js';
import {
  nonResourceAttributes, resourceAttributes, type Attributes, type AuthorizerWithRules, type UserInfo,
} from '../../authorization/types.js';
import type { ResourceDef, ReviewContext } from '../types.js';
import { answer, reviewDef } from './reviews.js';
import { fieldSelectorOf, validateSelectorAttributes, type SelectorAttributes } from './selector-attributes.js';

/** v1.32's ResourceAttributes: the selectors came in v1.31, after the types package's. */
type ResourceAttributesV132 = ResourceAttributes & { fieldSelector?: SelectorAttributes; labelSelector?: SelectorAttributes };

const GROUP = 'authorization.k8s.io';

const authorizerOf = (auth: ReviewContext): AuthorizerWithRules => auth.authorizer ?? alwaysAllow;

/** %#v of the internal NonResourceAttributes, as field.Invalid prints a struct. */
function nonResourceValue(n: NonResourceAttributes): { goSyntax: string } {
  return { goSyntax: `authorization.NonResourceAttributes{Path:${goQuote(n.path ?? '')}, Verb:${goQuote(n.verb ?? '')}}` };
}

/** ValidateSelfSubjectAccessReviewSpec: exactly one of the attribute kinds. */
function validateAttributes(spec: { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: NonResourceAttributes } | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (spec?.resourceAttributes && spec.nonResourceAttributes) {
    errs.push(field.invalid('spec.nonResourceAttributes', nonResourceValue(spec.nonResourceAttributes),
      'cannot be specified in combination with resourceAttributes'));
  }
  if (!spec?.resourceAttributes && !spec?.nonResourceAttributes) {
    // The nil pointer field.Invalid is given prints as "null".
    errs.push(field.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  return errs;
}

/** ValidateSubjectAccessReviewSpec: the attributes, and someone to ask about. */
function validateSubjectSpec(spec: SubjectAccessReviewSpec | undefined): FieldError[] {
  const errs = validateAttributes(spec);
  if (!spec?.user && !spec?.groups?.length) errs.push(field.invalid('spec.user', spec?.user ?? '', 'at least one of user or group must be specified'));
  return [...errs, ...validateSelectorAttributes(spec?.resourceAttributes as ResourceAttributesV132 | undefined, 'spec.resourceAttributes')];
}

/** authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom: an unset version matches all. */
function attributesFrom(user: UserInfo, spec: { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: NonResourceAttributes }): Attributes {
  const r = spec.resourceAttributes;
  if (r) {
    return resourceAttributes(user, {
      verb: r.verb ?? '', namespace: r.namespace ?? '', apiGroup: r.group ?? '', apiVersion: r.version || '*',
      resource: r.resource ?? '', subresource: r.subresource ?? '', name: r.name ?? '',
      fieldSelector: fieldSelectorOf((r as ResourceAttributesV132).fieldSelector),
    });
  }
  return nonResourceAttributes(user, spec.nonResourceAttributes?.verb ?? '', spec.nonResourceAttributes?.path ?? '');
}

/** SubjectAccessReviewStatus: allowed always written; denied, reason and evaluationError when set. */
function decide(authorizer: AuthorizerWithRules, attrs: Attributes): Record<string, unknown> {
  const d = authorizer.authorize(attrs);
  const status: Record<string, unknown> = { allowed: d.decision === 'Allow' };
  if (d.decision === 'Deny') status.denied = true;
  if (d.reason) status.reason = d.reason;
  if (d.error) status.evaluationError = d.error;
  return status;
}

function subjectOf(spec: SubjectAccessReviewSpec): UserInfo {
  const user: UserInfo = { name: spec.user ?? '', groups: spec.groups ?? [] };
  if (spec.uid) user.uid = spec.uid;
  if (spec.extra) user.extra = spec.extra;
  return user;
}

function requestUser(ctx: WriteContext): UserInfo {
  if (!ctx.user) throw errors.badRequest('no user present on request');
  return ctx.user;
}

/**
 * The access reviews' 422: NewInvalid(authorizationapi.Kind(obj.Kind), "", errs). The object is the
 * internal one the create handler's decoder converted into, whose TypeMeta conversion leaves empty,
 * so the qualified kind is ".authorization.k8s.io" and details carry no kind.
 */
const invalid = (errs: FieldError[]) => errors.invalid({ group: GROUP, kind: '' }, '', errs);

/** `kubectl auth can-i`: may the requesting user do this? */
export const selfSubjectAccessReviews: ResourceDef<SelfSubjectAccessReview> =
  reviewDef<SelfSubjectAccessReview>(GROUP, 'v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, (obj, ctx, auth) => {
    const errs = [...validateAttributes(obj.spec), ...validateSelectorAttributes(obj.spec?.resourceAttributes as ResourceAttributesV132 | undefined, 'spec.resourceAttributes')];
    if (errs.length) throw invalid(errs);
    return answer(obj, decide(authorizerOf(auth), attributesFrom(requestUser(ctx), obj.spec)));
  });

/** May this user (with these groups) do this, anywhere? */
export const subjectAccessReviews: ResourceDef<SubjectAccessReview> =
  reviewDef<SubjectAccessReview>(GROUP, 'v1', 'subjectaccessreviews', 'SubjectAccessReview', false, (obj, _ctx, auth) => {
    const errs = validateSubjectSpec(obj.spec);
    if (errs.length) throw invalid(errs);
    return answer(obj, decide(authorizerOf(auth), attributesFrom(subjectOf(obj.spec), obj.spec)));
  });

/** The same, in the namespace of the request only. */
export const localSubjectAccessReviews: ResourceDef<LocalSubjectAccessReview> =
  reviewDef<LocalSubjectAccessReview>(GROUP, 'v1', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true, (obj, ctx, auth) => {
    // The create handler gives an object without a namespace the request's (EnsureObjectNamespaceMatchesRequestNamespace).
    const objNamespace = obj.metadata?.namespace || ctx.namespace;
    if (objNamespace !== ctx.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const errs = validateSubjectSpec(obj.spec);
    if (obj.spec?.resourceAttributes && (obj.spec.resourceAttributes.namespace ?? '') !== objNamespace) {
      errs.push(field.invalid('spec.resourceAttributes.namespace', obj.spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace'));
    }
    if (obj.spec?.nonResourceAttributes) {
      errs.push(field.invalid('spec.nonResourceAttributes', nonResourceValue(obj.spec.nonResourceAttributes), 'disallowed on this kind of request'));
    }
    if (errs.length) throw invalid(errs);
    const withNamespace = { ...obj, metadata: { ...(obj.metadata ?? {}), namespace: objNamespace } } as KObject;
    return answer(withNamespace, decide(authorizerOf(auth), attributesFrom(subjectOf(obj.spec), obj.spec)));
  });

/** authorizationapi.ResourceRule/NonResourceRule as v1 writes them (verbs always, the lists when set). */
function resourceRule(r: PolicyRule): Record<string, unknown> {
  const out: Record<string, unknown> = { verbs: r.verbs ?? null };
  if (r.apiGroups?.length) out.apiGroups = r.apiGroups;
  if (r.resources?.length) out.resources = r.resources;
  if (r.resourceNames?.length) out.resourceNames = r.resourceNames;
  return out;
}

function nonResourceRule(r: PolicyRule): Record<string, unknown> {
  const out: Record<string, unknown> = { verbs: r.verbs ?? null };
  if (r.nonResourceURLs?.length) out.nonResourceURLs = r.nonResourceURLs;
  return out;
}

/** `kubectl auth can-i --list`: the rules the requesting user holds in a namespace. */
export const selfSubjectRulesReviews: ResourceDef =
  reviewDef(GROUP, 'v1', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, (obj, ctx, auth) => {
    const user = requestUser(ctx);
    const namespace = (obj.spec as { namespace?: string } | undefined)?.namespace ?? '';
    if (!namespace) throw errors.badRequest('no namespace on request');
    const r = authorizerOf(auth).rulesFor(user, namespace);
    const status: Record<string, unknown> = {
      resourceRules: r.resourceRules.map(resourceRule),
      nonResourceRules: r.nonResourceRules.map(nonResourceRule),
      incomplete: r.incomplete,
    };
    if (r.error) status.evaluationError = r.error;
    // The answer is a new object: only the status (and an empty spec) of what was sent.
    return answer({ apiVersion: obj.apiVersion, kind: obj.kind, metadata: {}, spec: {} } as KObject, status);
  });
