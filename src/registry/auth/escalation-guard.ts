/**
 * Escalation prevention on the RBAC resources (pkg/registry/rbac/rest's
 * policy-based storage, escalation_check.go): a user may create or change a
 * Role or ClusterRole only with rules it holds, unless it may `escalate`
 * that role; and may bind a role only if it holds the role's rules, unless it
 * may `bind` it. system:masters (and the server's own writes) are never
 * checked.
 */
import type { ClusterRole, PolicyRule, RoleRef } from 'kubernetes-types/rbac/v1.js';
import { errors } from '../../apimachinery/errors.js';
import type { KObject } from '../../apimachinery/object.js';
import type { WriteContext } from '../../apimachinery/write-context.js';
import type { Lookup } from '../../admission/lookup.js';
import { SYSTEM_MASTERS, type AuthorizationPolicy } from '../../authorization/authorizers.js';
import { escalationError, FULL_AUTHORITY } from '../../authorization/escalation.js';
import { resourceAttributes, type UserInfo } from '../../authorization/types.js';
import { deepEqual } from '../../fieldmanager/typed.js';
import type { ResourceDef } from '../types.js';
import { RBAC_GROUP } from '../rbac/defaults.js';

type Check = (obj: KObject, old: KObject | undefined, ctx: WriteContext, policy: AuthorizationPolicy, user: UserInfo) => void;

/** EscalationAllowed: the server's own writes (no user) and system:masters. */
function escalationAllowed(user: UserInfo | undefined): boolean {
  return !user || user.groups.includes(SYSTEM_MASTERS);
}

/** IsOnlyMutatingGCFields: an update that changes only ownerReferences and finalizers (what the garbage collector does). */
function onlyGCFields(obj: KObject, old: KObject): boolean {
  const strip = (o: KObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(obj), strip(old));
}

function forbidden(resource: string, name: string, why: string): Error {
  return errors.forbidden({ group: RBAC_GROUP, resource }, name, why);
}

/** ConfirmNoEscalation: the user's RBAC rules in the request's namespace must cover `rules`. */
function confirmNoEscalation(policy: AuthorizationPolicy, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owner = policy.rbacRules.rulesFor(user, namespace);
  const error = owner.errors.length ? aggregate(owner.errors) : undefined;
  return escalationError(user, { rules: owner.rules, ...(error ? { error } : {}) }, rules);
}

function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** RoleEscalationAuthorized: `escalate` on the role the request's URL names (none on a POST; a PUT that creates names one). */
function escalateAllowed(policy: AuthorizationPolicy, user: UserInfo, resource: string, name: string, namespace: string): boolean {
  const attrs = resourceAttributes(user, { verb: 'escalate', apiGroup: RBAC_GROUP, apiVersion: '*', resource, name, namespace });
  return policy.authorizer.authorize(attrs).decision === 'Allow';
}

/** BindingAuthorized: `bind` on the referenced role, in the binding's namespace. */
function bindAllowed(policy: AuthorizationPolicy, user: UserInfo, ref: RoleRef, namespace: string): boolean {
  const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
  if (!resource) return false;
  const attrs = resourceAttributes(user, { verb: 'bind', apiGroup: ref.apiGroup, resource, name: ref.name, namespace });
  return policy.authorizer.authorize(attrs).decision === 'Allow';
}

const hasAggregationRule = (r: ClusterRole | undefined) => !!r?.aggregationRule?.clusterRoleSelectors?.length;

function roleCheck(resource: 'roles' | 'clusterroles'): Check {
  return (obj, old, ctx, policy, user) => {
    const name = obj.metadata.name ?? '';
    if (escalateAllowed(policy, user, resource, ctx.requestName ?? (old ? name : ''), ctx.namespace)) return;
    const rules = (obj as { rules?: PolicyRule[] }).rules ?? [];
    const err = confirmNoEscalation(policy, user, ctx.namespace, rules);
    if (err) throw forbidden(resource, name, err);
    if (resource === 'clusterroles' && (hasAggregationRule(obj as ClusterRole) || hasAggregationRule(old as ClusterRole | undefined))) {
      if (confirmNoEscalation(policy, user, ctx.namespace, FULL_AUTHORITY)) {
        throw forbidden(resource, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
    }
  };
}

function bindingCheck(resource: 'rolebindings' | 'clusterrolebindings'): Check {
  return (obj, _old, ctx, policy, user) => {
    const ref = (obj as { roleRef?: RoleRef }).roleRef;
    if (!ref) return;
    const namespace = resource === 'rolebindings' ? ctx.namespace : '';
    if (bindAllowed(policy, user, ref, namespace)) return;
    const r = policy.rbacRules.roleRefRules(ref, namespace);
    if ('error' in r) {
      if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole') throw errors.internal(r.error);
      throw errors.notFound({ group: RBAC_GROUP, resource: ref.kind === 'Role' ? 'roles' : 'clusterroles' }, ref.name);
    }
    const err = confirmNoEscalation(policy, user, ctx.namespace, r.rules);
    if (err) throw forbidden(resource, obj.metadata.name ?? '', err);
  };
}

const CHECKS: Record<string, Check> = {
  roles: roleCheck('roles'),
  clusterroles: roleCheck('clusterroles'),
  rolebindings: bindingCheck('rolebindings'),
  clusterrolebindings: bindingCheck('clusterrolebindings'),
};

/** The check of a write, when the store has the server's authorization and the writer is not trusted. */
function guarded(check: Check, obj: KObject, old: KObject | undefined, ctx: WriteContext, lookup: Lookup): void {
  const policy = lookup.authorization;
  if (!policy || escalationAllowed(ctx.user)) return;
  if (old && onlyGCFields(obj, old)) return;
  check(obj, old, ctx, policy, ctx.user!);
}

/** The RBAC resources' definitions with the escalation checks before their own admission; others as they are. */
export function guardRbacEscalation(defs: ResourceDef[]): ResourceDef[] {
  return defs.map((def) => {
    const check = def.group === RBAC_GROUP ? CHECKS[def.resource] : undefined;
    if (!check) return def;
    return {
      ...def,
      async admitCreate(obj, ctx, lookup) {
        guarded(check, obj, undefined, ctx, lookup);
        await def.admitCreate?.(obj, ctx, lookup);
      },
      async admitUpdate(obj, old, ctx, lookup) {
        guarded(check, obj, old, ctx, lookup);
        await def.admitUpdate?.(obj, old, ctx, lookup);
      },
    };
  });
}
