/**
 * Which rules apply to a user in a namespace: pkg/registry/rbac/validation
 * rule.go's DefaultRuleResolver (VisitRulesFor, GetRoleReferenceRules,
 * appliesTo), over a source of roles and bindings.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from 'kubernetes-types/rbac/v1.js';
import { goQuote } from '../apimachinery/go-quote.js';
import type { UserInfo } from './types.js';

/**
 * Where the resolver reads roles and bindings (upstream's RoleGetter,
 * RoleBindingLister, ClusterRoleGetter, ClusterRoleBindingLister). The
 * binding lists may be narrowed to the bindings with a subject under one of
 * `subjects` (see subjectKeys): the resolver still checks each subject, so a
 * source that ignores the hint is only slower.
 */
export interface RbacSource {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  listRoleBindings(namespace: string, subjects?: readonly string[]): readonly RoleBinding[];
  listClusterRoleBindings(subjects?: readonly string[]): readonly ClusterRoleBinding[];
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The index keys a user's subjects are found under: its name and each group. */
export function subjectKeys(user: UserInfo): string[] {
  return [`User:${user.name}`, ...user.groups.map((g) => `Group:${g}`)];
}

/**
 * The key a binding's subject is indexed under ('' when it can name nobody):
 * a ServiceAccount is the user system:serviceaccount:<ns>:<name>, its
 * namespace defaulting to the RoleBinding's.
 */
export function subjectKey(s: Subject, bindingNamespace: string): string {
  switch (s.kind) {
    case 'User': return `User:${s.name}`;
    case 'Group': return `Group:${s.name}`;
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns ? `User:${SERVICE_ACCOUNT_PREFIX}${ns}:${s.name}` : '';
    }
    default: return '';
  }
}

function appliesToUser(user: UserInfo, s: Subject, namespace: string): boolean {
  switch (s.kind) {
    case 'User': return user.name === s.name;
    case 'Group': return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace || namespace;
      return !!ns && user.name === `${SERVICE_ACCOUNT_PREFIX}${ns}:${s.name}`;
    }
    default: return false;
  }
}

/** The first of a binding's subjects that names the user. */
function appliesTo(user: UserInfo, subjects: readonly Subject[] | undefined, namespace: string): Subject | undefined {
  return subjects?.find((s) => appliesToUser(user, s, namespace));
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** Where an allowing rule came from, as the authorizer's reason names it. */
export function describeClusterRoleBinding(b: ClusterRoleBinding, s: Subject): string {
  return `ClusterRoleBinding ${goQuote(b.metadata?.name ?? '')} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s, '')}`;
}

export function describeRoleBinding(b: RoleBinding, s: Subject): string {
  const ns = b.metadata?.namespace ?? '';
  return `RoleBinding ${goQuote(`${b.metadata?.name ?? ''}/${ns}`)} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s, ns)}`;
}

/**
 * Visits each rule that applies; `source` describes the binding, `error` a
 * binding whose role could not be read. Returning false stops the visit.
 */
export type RuleVisitor = (source: (() => string) | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean;

export type RoleRefRules = { rules: readonly PolicyRule[] } | { error: string };

/** The NotFound text of a missing role: upstream's informer listers name the resource in the singular. */
export type RoleNotFound = (resource: 'roles' | 'clusterroles', name: string) => string;

export const listerNotFound: RoleNotFound = (resource, name) =>
  `${resource.replace(/s$/, '')}.rbac.authorization.k8s.io ${goQuote(name)} not found`;

/** The registry's NotFound text (what the escalation checks read through): the plural resource. */
export const registryNotFound: RoleNotFound = (resource, name) => `${resource}.rbac.authorization.k8s.io ${goQuote(name)} not found`;

export class DefaultRuleResolver {
  constructor(private readonly source: RbacSource, private readonly notFound: RoleNotFound = listerNotFound) {}

  /** A binding's role's rules, or why they cannot be read. */
  roleRefRules(ref: RoleRef, bindingNamespace: string): RoleRefRules {
    switch (ref.kind) {
      case 'Role': {
        const role = bindingNamespace ? this.source.getRole(bindingNamespace, ref.name) : undefined;
        return role ? { rules: role.rules ?? [] } : { error: this.notFound('roles', ref.name) };
      }
      case 'ClusterRole': {
        const role = this.source.getClusterRole(ref.name);
        return role ? { rules: role.rules ?? [] } : { error: this.notFound('clusterroles', ref.name) };
      }
      default:
        return { error: `unsupported role reference kind: ${goQuote(ref.kind)}` };
    }
  }

  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    const keys = subjectKeys(user);
    for (const binding of this.source.listClusterRoleBindings(keys)) {
      const subject = appliesTo(user, binding.subjects, '');
      if (!subject) continue;
      const r = this.roleRefRules(binding.roleRef, '');
      if ('error' in r) { if (!visit(undefined, undefined, r.error)) return; continue; }
      const describe = () => describeClusterRoleBinding(binding, subject);
      for (const rule of r.rules) if (!visit(describe, rule, undefined)) return;
    }
    if (!namespace) return;
    for (const binding of this.source.listRoleBindings(namespace, keys)) {
      const subject = appliesTo(user, binding.subjects, namespace);
      if (!subject) continue;
      const r = this.roleRefRules(binding.roleRef, namespace);
      if ('error' in r) { if (!visit(undefined, undefined, r.error)) return; continue; }
      const describe = () => describeRoleBinding(binding, subject);
      for (const rule of r.rules) if (!visit(describe, rule, undefined)) return;
    }
  }

  /** Every rule that applies, and the errors met (the rules found still count: rules only add). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_s, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }
}

/**
 * utilerrors.NewAggregate(errs).Error(): one error's text, or several in
 * brackets, each text once.
 */
export function aggregateErrors(errs: readonly string[]): string | undefined {
  if (errs.length === 0) return undefined;
  if (errs.length === 1) return errs[0];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of errs) if (!seen.has(e)) { seen.add(e); out.push(e); }
  return out.length === 1 ? out[0] : `[${out.join(', ')}]`;
}
