/**
 * The authorizer's vocabulary (k8s.io/apiserver/pkg/authorization/authorizer):
 * who asks, what a request is, and what an authorizer answers.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

export interface UserInfo { name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> }

/** authorizer.AttributesRecord: a resource request (verb on group/resource[/subresource] [name] [in namespace]) or a path. */
export interface Attributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests: the URL path as received. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** A list's, watch's or deletecollection's field selector (AuthorizeWithSelectors, on in v1.32); absent when it did not parse. */
  fieldSelector?: readonly FieldRequirement[];
}

/** fields.Requirement: `field=value` (`==` alike), or `field!=value` when negated. */
export interface FieldRequirement { field: string; value: string; negate: boolean }

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

/** An authorizer's answer: its decision, the reason it gives, and what went wrong evaluating it (authorizer.Authorize). */
export interface AuthorizationResult { decision: Decision; reason: string; error?: string }

export interface Authorizer {
  authorize(attrs: Attributes): AuthorizationResult;
}

/** The rules a user holds in a namespace, as SelfSubjectRulesReview reports them (authorizer.RuleResolver). */
export interface RulesResult {
  resourceRules: PolicyRule[];
  nonResourceRules: PolicyRule[];
  incomplete: boolean;
  error?: string;
}

export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): RulesResult;
}

/** What the server authorizes with: decisions and the rules behind them. */
export type AuthorizerWithRules = Authorizer & RuleResolver;

/** Attributes of a resource request, the fields not given left empty. */
export function resourceAttributes(user: UserInfo, a: Partial<Omit<Attributes, 'user' | 'resourceRequest' | 'path'>>): Attributes {
  const attrs: Attributes = {
    user, verb: a.verb ?? '', resourceRequest: true, path: '', apiGroup: a.apiGroup ?? '', apiVersion: a.apiVersion ?? '',
    namespace: a.namespace ?? '', resource: a.resource ?? '', subresource: a.subresource ?? '', name: a.name ?? '',
  };
  if (a.fieldSelector) attrs.fieldSelector = a.fieldSelector;
  return attrs;
}

export function nonResourceAttributes(user: UserInfo, verb: string, path: string): Attributes {
  return { user, verb, resourceRequest: false, path, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}
