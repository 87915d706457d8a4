/**
 * Whether one PolicyRule allows a request: k8s.io/kubernetes/pkg/apis/rbac/v1
 * evaluation_helpers.go (VerbMatches, APIGroupMatches, ResourceMatches,
 * ResourceNameMatches, NonResourceURLMatches) and rbac.go's RuleAllows.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { Attributes } from './types.js';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs ?? []) if (v === '*' || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === '*' || g === group) return true;
  return false;
}

/** `combined` is resource[/subresource]; a rule of "*" then "/sub" matches any resource's subresource `sub`. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (!subresource) continue;
    // As upstream: the length and both ends are compared, so "*/" + subresource exactly.
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** No resourceNames means every name (and requests without one, such as list and create). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*` matches every path; a trailing `*` makes the rest a prefix (`/healthz/*`, also `/healthz*`). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (a.resourceRequest) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return verbMatches(rule, a.verb) && apiGroupMatches(rule, a.apiGroup)
      && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}

export function rulesAllow(a: Attributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(a, r));
}
