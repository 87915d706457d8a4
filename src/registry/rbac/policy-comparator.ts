/**
 * Whether one set of policy rules allows everything another does, as
 * v1.32's pkg/registry/rbac/validation/policy_comparator.go decides it
 * (Covers, BreakdownRule, ruleCovers). Bootstrap reconciliation uses it to
 * find the rules an existing role lacks.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

const has = (set: string[] | undefined, ele: string): boolean => (set ?? []).includes(ele);

function hasAll(set: string[] | undefined, contains: string[] | undefined): boolean {
  const owning = new Set(set ?? []);
  return (contains ?? []).every((e) => owning.has(e));
}

/** BreakdownRule: one rule per group, resource, verb and resource name; one per non-resource URL and verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        if (rule.resourceNames?.length) {
          for (const name of rule.resourceNames) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function resourceCoversAll(set: string[] | undefined, covers: string[] | undefined): boolean {
  if (has(set, '*') || hasAll(set, covers)) return true;
  for (const path of covers ?? []) {
    if (has(set, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(set, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

function nonResourceURLsCoverAll(set: string[] | undefined, covers: string[] | undefined): boolean {
  return (covers ?? []).every((p) => (set ?? []).some((o) => nonResourceURLCovers(o, p)));
}

/** ruleCovers: the owner rule allows everything the (broken down) sub-rule does. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const names = sub.resourceNames?.length
    ? !owner.resourceNames?.length || hasAll(owner.resourceNames, sub.resourceNames)
    : !owner.resourceNames?.length;
  return verbs && groups && resources && names && urls;
}

/** Covers: whether the owner's rules cover the servant's, and the broken-down servant rules they do not. */
export function covers(ownerRules: PolicyRule[], servantRules: PolicyRule[]): { covered: boolean; uncovered: PolicyRule[] } {
  const uncovered = servantRules.flatMap(breakdownRule).filter((sub) => !ownerRules.some((o) => ruleCovers(o, sub)));
  return { covered: uncovered.length === 0, uncovered };
}
