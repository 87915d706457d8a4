/**
 * Escalation prevention: a user may grant (in a role, or by binding one) only
 * permissions it holds. component-helpers/auth/rbac/validation
 * policy_comparator.go (Covers, BreakdownRule), pkg/registry/rbac/validation
 * policy_compact.go (CompactRules) and rule.go (ConfirmNoEscalation), and
 * pkg/apis/rbac/v1 CompactString.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { goQuote } from '../apimachinery/go-quote.js';
import type { UserInfo } from './types.js';

/** Every rule with at most one group, resource, verb and name (or one URL and verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length) {
          for (const name of rule.resourceNames) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

const hasAll = (set: readonly string[] | undefined, contains: readonly string[] | undefined): boolean => {
  const owning = new Set(set ?? []);
  return (contains ?? []).every((e) => owning.has(e));
};

function resourceCoversAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  const owner = set ?? [];
  if (owner.includes('*') || hasAll(owner, covers)) return true;
  for (const path of covers ?? []) {
    if (owner.includes(path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!owner.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes('*') || hasAll(owner.verbs, sub.verbs);
  const groups = (owner.apiGroups ?? []).includes('*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const names = !sub.resourceNames?.length ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** Whether the owner's rules cover the servant's, and the atomic rules they do not. */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) {
    for (const sub of breakdownRule(servant)) {
      if (!ownerRules.some((o) => ruleCovers(o, sub))) missing.push(sub);
    }
  }
  return { covered: missing.length === 0, missing };
}

/** Rules with one group, one resource and at most one name that differ only in verbs, merged. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const simpleKey = simpleResourceKey(rule);
    if (simpleKey === undefined) { compacted.push(rule); continue; }
    const existing = simple.get(simpleKey);
    if (existing) existing.verbs = [...existing.verbs, ...rule.verbs];
    else simple.set(simpleKey, structuredClone(rule));
  }
  return [...compacted, ...simple.values()];
}

function simpleResourceKey(rule: PolicyRule): string | undefined {
  if ((rule.resourceNames?.length ?? 0) > 1 || rule.nonResourceURLs?.length) return undefined;
  if (rule.apiGroups?.length !== 1 || rule.resources?.length !== 1) return undefined;
  const name = rule.resourceNames?.length ? `1\u0000${rule.resourceNames[0]}` : '0';
  return JSON.stringify([rule.apiGroups[0], rule.resources[0], name]);
}

const quoteList = (l: readonly string[]) => `[${l.map(goQuote).join(' ')}]`;

/** CompactString: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${quoteList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${quoteList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${quoteList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${quoteList(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${quoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * ConfirmNoEscalation's refusal, or undefined when the owner's rules (and the
 * error met resolving them, if any) cover the rules to grant.
 */
export function escalationError(user: UserInfo, owner: { rules: readonly PolicyRule[]; error?: string },
  rules: readonly PolicyRule[]): string | undefined {
  const { covered, missing } = covers(owner.rules, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${goQuote(user.name)} (groups=${quoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owner.error) msg += `; resolution errors: [${owner.error}]`;
  return msg;
}

/** What `*` on everything is: what setting an aggregationRule needs. */
export const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];
