/**
 * Whether a policy's matchConstraints or a binding's matchResources select a request
 * (k8s.io/apiserver pkg/admission/plugin/policy/matching/matching.go Matcher.Matches and
 * matchesResourceRules, v1.32): namespace selector, object selector, excluded rules, then rules, with
 * matchPolicy Equivalent trying the other served versions of the resource; the selectors and rules
 * are the ones webhooks match with (selector-matching.ts, rule-matching.ts: webhook/predicates).
 */
import type { MatchResources, NamedRuleWithOperations as NamedRuleTypes } from 'kubernetes-types/admissionregistration/v1.js';
import type { StatusError } from '../apimachinery/errors.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import { labelSelectorAsSelector } from '../validation/common.js';
import { matchingInvocation, type RuleRequest } from './rule-matching.js';
import { matchNamespaceSelector, matchObjectSelector, type SelectorRequest } from './selector-matching.js';
import type { PolicyAttributes } from './types.js';

/** kubernetes-types leaves out the fields the embedded Rule adds. */
type NamedRuleWithOperations = NamedRuleTypes & { resources?: string[]; scope?: string };

export interface GroupVersionResource { group: string; version: string; resource: string }
export interface GroupVersionKind { group: string; version: string; kind: string }

export type MatchResult =
  | { matches: false; error?: StatusError }
  | { matches: true; resource: GroupVersionResource; kind: GroupVersionKind };

const NOT_MATCHED: MatchResult = { matches: false };

function nameMatches(rule: NamedRuleWithOperations, a: PolicyAttributes): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

function requestResource(a: PolicyAttributes): GroupVersionResource {
  return { group: a.def.group, version: a.def.version, resource: a.def.resource };
}

function requestKind(a: PolicyAttributes): GroupVersionKind {
  const sub = a.subresource ? (a.def as Partial<ResourceInfo>).subresources?.find((s) => s.name === a.subresource) : undefined;
  if (sub) return { group: sub.group ?? a.def.group, version: sub.version ?? a.def.version, kind: sub.kind };
  return { group: a.def.group, version: a.def.version, kind: a.def.kind };
}

/** The request as the shared rule and selector matchers read it (a Namespace's namespace is its own name). */
function matchRequest(a: PolicyAttributes): RuleRequest & SelectorRequest {
  const resource = requestResource(a);
  const isNamespace = resource.group === '' && resource.resource === 'namespaces';
  return {
    operation: a.operation, resource, subresource: a.subresource, namespace: isNamespace ? a.name : a.namespace,
    object: a.object, oldObject: a.oldObject ?? null, lookup: a.lookup,
  };
}

/** matchesResourceRules: the matched resource and kind, which differ from the request's when an equivalent version matched. */
function matchesResourceRules(rules: readonly NamedRuleTypes[], matchPolicy: string | undefined, a: PolicyAttributes, r: RuleRequest): MatchResult {
  const equivalents = a.lookup.equivalentResources?.(a.def.group, a.def.version, a.def.resource) ?? [];
  const inv = matchingInvocation(rules as readonly NamedRuleWithOperations[], matchPolicy, r, requestKind(a), equivalents, (rule) => nameMatches(rule, a));
  return inv ? { matches: true, resource: inv.resource, kind: inv.kind } : NOT_MATCHED;
}

/** matching.Matcher.Matches */
export async function matchResources(mr: MatchResources, a: PolicyAttributes): Promise<MatchResult> {
  const r = matchRequest(a);
  const ns = await matchNamespaceSelector(labelSelectorAsSelector(mr.namespaceSelector), r);
  if (!ns.matches && !ns.error) return NOT_MATCHED;
  const obj = matchObjectSelector(labelSelectorAsSelector(mr.objectSelector), r);
  if (!obj.matches && !obj.error) return NOT_MATCHED;
  if (matchesResourceRules(mr.excludeResourceRules ?? [], mr.matchPolicy, a, r).matches) return NOT_MATCHED;
  const rules = mr.resourceRules ?? [];
  const result: MatchResult = rules.length ? matchesResourceRules(rules, mr.matchPolicy, a, r) : { matches: true, resource: requestResource(a), kind: requestKind(a) };
  if (!result.matches) return NOT_MATCHED;
  if (ns.error) return { matches: false, error: ns.error };
  if (obj.error) return { matches: false, error: obj.error };
  return result;
}
