/**
 * Whether a policy's matchConstraints or a binding's matchResources select a request
 * (k8s.io/apiserver pkg/admission/plugin/policy/matching/matching.go Matcher.Matches and
 * matchesResourceRules, webhook/predicates/{namespace,object,rules}, v1.32): namespace selector,
 * object selector, excluded rules, then rules, with matchPolicy Equivalent trying the other served
 * versions of the resource.
 */
import type { MatchResources, NamedRuleWithOperations as NamedRuleTypes } from 'kubernetes-types/admissionregistration/v1.js';
import { errors, StatusError } from '../apimachinery/errors.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import { labelSelectorAsSelector } from '../validation/common.js';
import type { AdmissionAttributes } from './types.js';

/** kubernetes-types leaves out the fields the embedded Rule adds. */
type NamedRuleWithOperations = NamedRuleTypes & { resources?: string[]; scope?: string };

export interface GroupVersionResource { group: string; version: string; resource: string }
export interface GroupVersionKind { group: string; version: string; kind: string }

export type MatchResult =
  | { matches: false; error?: StatusError }
  | { matches: true; resource: GroupVersionResource; kind: GroupVersionKind };

const NOT_MATCHED: MatchResult = { matches: false };

function exactOrWildcard(items: readonly string[] | undefined, requested: string): boolean {
  return (items ?? []).some((i) => i === '*' || i === requested);
}

function isNamespacesResource(r: GroupVersionResource): boolean {
  return r.group === '' && r.version === 'v1' && r.resource === 'namespaces';
}

/** rules.Matcher.Matches with the request's resource replaced by `resource`. */
function ruleMatches(rule: NamedRuleWithOperations, a: AdmissionAttributes, resource: GroupVersionResource): boolean {
  const scope = rule.scope ?? '*';
  if (scope === 'Namespaced' && (isNamespacesResource(resource) || a.namespace === '')) return false;
  if (scope === 'Cluster' && !(isNamespacesResource(resource) || a.namespace === '')) return false;
  if (scope !== '*' && scope !== 'Namespaced' && scope !== 'Cluster') return false;
  if (!(rule.operations ?? []).some((op) => op === '*' || op === a.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, resource.group) || !exactOrWildcard(rule.apiVersions, resource.version)) return false;
  return (rule.resources ?? []).some((rs) => {
    const slash = rs.indexOf('/');
    const res = slash < 0 ? rs : rs.slice(0, slash);
    const sub = slash < 0 ? '' : rs.slice(slash + 1);
    return (res === '*' || res === resource.resource) && (sub === '*' || sub === a.subresource);
  });
}

function nameMatches(rule: NamedRuleWithOperations, a: AdmissionAttributes): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(a.name);
}

function requestResource(a: AdmissionAttributes): GroupVersionResource {
  return { group: a.def.group, version: a.def.version, resource: a.def.resource };
}

function requestKind(a: AdmissionAttributes): GroupVersionKind {
  const sub = a.subresource ? (a.def as Partial<ResourceInfo>).subresources?.find((s) => s.name === a.subresource) : undefined;
  if (sub) return { group: sub.group ?? a.def.group, version: sub.version ?? a.def.version, kind: sub.kind };
  return { group: a.def.group, version: a.def.version, kind: a.def.kind };
}

/** The other served versions of the request's resource (EquivalentResourceMapper.EquivalentResourcesFor). */
function equivalents(a: AdmissionAttributes): ResourceInfo[] {
  return (a.lookup.defs ?? []).filter((d) => d.group === a.def.group && d.resource === a.def.resource && d.version !== a.def.version);
}

/** matchesResourceRules: the matched resource and kind, which differ from the request's when an equivalent version matched. */
function matchesResourceRules(rules: readonly NamedRuleTypes[], matchPolicy: string | undefined, a: AdmissionAttributes): MatchResult {
  const resource = requestResource(a);
  for (const rule of rules) {
    if (ruleMatches(rule, a, resource) && nameMatches(rule, a)) return { matches: true, resource, kind: requestKind(a) };
  }
  if (matchPolicy === undefined || matchPolicy === 'Exact') return NOT_MATCHED;
  for (const rule of rules) {
    for (const eq of equivalents(a)) {
      const r = { group: eq.group, version: eq.version, resource: eq.resource };
      if (!ruleMatches(rule, a, r)) continue;
      if (nameMatches(rule, a)) return { matches: true, resource: r, kind: { group: eq.group, version: eq.version, kind: eq.kind } };
    }
  }
  return NOT_MATCHED;
}

/** The labels of the request's namespace (the object's own for a namespace write), or the error getting them. */
async function namespaceLabels(a: AdmissionAttributes): Promise<Record<string, string> | StatusError> {
  if (a.def.group === '' && a.def.resource === 'namespaces' && !a.subresource) return a.object.metadata?.labels ?? {};
  const ns = await a.lookup.get('', 'namespaces', '', a.namespace);
  if (!ns) return errors.notFound({ group: '', resource: 'namespaces' }, a.namespace);
  return ns.metadata?.labels ?? {};
}

/** namespace.Matcher.MatchNamespaceSelector */
async function matchNamespaceSelector(mr: MatchResources, a: AdmissionAttributes): Promise<{ matches: boolean; error?: StatusError }> {
  if (a.namespace === '' && a.def.resource !== 'namespaces') return { matches: true };
  const selector = labelSelectorAsSelector(mr.namespaceSelector);
  if (!selector) return { matches: false, error: errors.internal('invalid namespace selector') };
  if (selector.empty) return { matches: true };
  const labels = await namespaceLabels(a);
  if (labels instanceof StatusError) return { matches: false, error: labels };
  return { matches: selector.matches(labels) };
}

/** object.Matcher.MatchObjectSelector: the new or the old object's labels. */
function matchObjectSelector(mr: MatchResources, a: AdmissionAttributes): boolean {
  const selector = labelSelectorAsSelector(mr.objectSelector);
  if (!selector) return false;
  if (selector.empty) return true;
  return selector.matches(a.object.metadata?.labels ?? {}) || (!!a.oldObject && selector.matches(a.oldObject.metadata?.labels ?? {}));
}

/** matching.Matcher.Matches */
export async function matchResources(mr: MatchResources, a: AdmissionAttributes): Promise<MatchResult> {
  const ns = await matchNamespaceSelector(mr, a);
  if (!ns.matches && !ns.error) return NOT_MATCHED;
  if (!matchObjectSelector(mr, a)) return NOT_MATCHED;
  if (matchesResourceRules(mr.excludeResourceRules ?? [], mr.matchPolicy, a).matches) return NOT_MATCHED;
  const rules = mr.resourceRules ?? [];
  const result: MatchResult = rules.length ? matchesResourceRules(rules, mr.matchPolicy, a) : { matches: true, resource: requestResource(a), kind: requestKind(a) };
  if (!result.matches) return NOT_MATCHED;
  if (ns.error) return { matches: false, error: ns.error };
  return result;
}
