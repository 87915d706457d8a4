/**
 * The authorizers kube-apiserver chains (pkg/kubeapiserver/authorizer/reload.go
 * newForConfig): the system:masters group first, then each --authorization-mode
 * in order, the first Allow or Deny deciding (authorization/union).
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { aggregateErrors, DefaultRuleResolver, registryNotFound, type RbacSource } from './rule-resolver.js';
import { ruleAllows } from './rule-matching.js';
import type { Attributes, AuthorizationResult, AuthorizerWithRules, RulesResult, UserInfo } from './types.js';
import { MODE_ALWAYS_ALLOW, MODE_ALWAYS_DENY, MODE_NODE, MODE_RBAC, type AuthorizationMode } from './modes.js';
import { NodeAuthorizer, type NodeRelations } from './node-authorizer.js';

/** user.SystemPrivilegedGroup: the API server's own loopback identity and the admin credentials. */
export const SYSTEM_MASTERS = 'system:masters';

/** plugin/pkg/auth/authorizer/rbac: RBACAuthorizer.Authorize and RulesFor. */
export class RbacAuthorizer implements AuthorizerWithRules {
  readonly resolver: DefaultRuleResolver;

  constructor(source: RbacSource) { this.resolver = new DefaultRuleResolver(source); }

  authorize(attrs: Attributes): AuthorizationResult {
    let allowedBy: (() => string) | undefined;
    const errors: string[] = [];
    this.resolver.visitRulesFor(attrs.user, attrs.namespace, (source, rule, err) => {
      if (rule && ruleAllows(attrs, rule)) { allowedBy = source; return false; }
      if (err) errors.push(err);
      return true;
    });
    if (allowedBy) return { decision: 'Allow', reason: `RBAC: allowed by ${allowedBy()}` };
    const agg = aggregateErrors(errors);
    return { decision: 'NoOpinion', reason: agg ? `RBAC: ${agg}` : '' };
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const { rules, errors } = this.resolver.rulesFor(user, namespace);
    const resourceRules: PolicyRule[] = [];
    const nonResourceRules: PolicyRule[] = [];
    for (const r of rules) {
      if (r.resources?.length) {
        const info: PolicyRule = { verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources };
        if (r.resourceNames) info.resourceNames = r.resourceNames;
        resourceRules.push(info);
      }
      if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    }
    const error = aggregateErrors(errors);
    return { resourceRules, nonResourceRules, incomplete: false, ...(error ? { error } : {}) };
  }
}

/** authorizerfactory's alwaysAllowAuthorizer. */
export const alwaysAllow: AuthorizerWithRules = {
  authorize: () => ({ decision: 'Allow', reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

/** authorizerfactory's alwaysDenyAuthorizer. */
export const alwaysDeny: AuthorizerWithRules = {
  authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** authorizerfactory.NewPrivilegedGroups(system:masters): an authorizer only, no rules to report. */
function privilegedGroups(attrs: Attributes): AuthorizationResult {
  return attrs.user.groups.includes(SYSTEM_MASTERS) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
}

/**
 * union.New and union.NewRuleResolvers: the first authorizer that allows or
 * denies decides; otherwise no opinion, with every reason on its own line.
 */
export class UnionAuthorizer implements AuthorizerWithRules {
  constructor(private readonly members: readonly AuthorizerWithRules[]) {}

  authorize(attrs: Attributes): AuthorizationResult {
    const first = privilegedGroups(attrs);
    if (first.decision === 'Allow') return first;
    const reasons: string[] = [];
    const errs: string[] = [];
    for (const m of this.members) {
      const r = m.authorize(attrs);
      if (r.decision !== 'NoOpinion') return r;
      if (r.reason) reasons.push(r.reason);
      if (r.error) errs.push(r.error);
    }
    const error = aggregateErrors(errs);
    return { decision: 'NoOpinion', reason: reasons.join('\n'), ...(error ? { error } : {}) };
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errs: string[] = [];
    for (const m of this.members) {
      const r = m.rulesFor(user, namespace);
      if (r.incomplete) out.incomplete = true;
      if (r.error) errs.push(r.error);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
    }
    const error = aggregateErrors(errs);
    if (error) out.error = error;
    return out;
  }
}

/**
 * What the server authorizes with: the --authorization-mode chain, and the
 * RBAC rules a user holds whatever the modes (escalation checks compare a
 * role or binding with them, reading roles as the registry does).
 */
export interface AuthorizationPolicy {
  authorizer: AuthorizerWithRules;
  rbacRules: DefaultRuleResolver;
}

/** What the Node mode decides with: which objects relate to which node, and the rules every node holds. */
export interface NodeAuthorization { graph: NodeRelations; rules: readonly PolicyRule[] }

export function newAuthorizationPolicy(modes: readonly AuthorizationMode[], rbac: RbacSource, node?: NodeAuthorization): AuthorizationPolicy {
  return { authorizer: newAuthorizer(modes, rbac, node), rbacRules: new DefaultRuleResolver(rbac, registryNotFound) };
}

/** The server's authorizer for --authorization-mode: system:masters, then each mode in order. */
export function newAuthorizer(modes: readonly AuthorizationMode[], rbac: RbacSource, node?: NodeAuthorization): UnionAuthorizer {
  return new UnionAuthorizer(modes.map((m) => {
    switch (m) {
      case MODE_ALWAYS_ALLOW: return alwaysAllow;
      case MODE_ALWAYS_DENY: return alwaysDeny;
      case MODE_RBAC: return new RbacAuthorizer(rbac);
      case MODE_NODE:
        if (!node) throw new Error('the Node authorization mode needs the node graph');
        return new NodeAuthorizer(node.graph, node.rules);
    }
  }));
}
