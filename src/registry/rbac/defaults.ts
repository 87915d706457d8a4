/**
 * What the rbac.authorization.k8s.io/v1 kinds look like once decoded and
 * stored, as pkg/apis/rbac/v1/defaults.go and the Go types make them.
 */
import { zeroFields } from '../groups/shared.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

type Obj = Record<string, any>;

/**
 * `rules` has no omitempty, and storage is protobuf, which keeps no
 * difference between an empty and a nil list: an absent or empty list is
 * served as null.
 */
export function defaultRules(obj: Obj): void {
  if (obj.rules === undefined || (Array.isArray(obj.rules) && !obj.rules.length)) obj.rules = null;
}

/** SetDefaults_Subject: a User or Group subject without apiGroup gets rbac's; kind and name have no omitempty. */
function defaultSubject(s: Obj): void {
  zeroFields(s, { kind: '', name: '' });
  if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
}

/** SetDefaults_RoleBinding / SetDefaults_ClusterRoleBinding, and the subjects' SetDefaults_Subject. */
export function defaultBinding(obj: Obj): void {
  const ref = (obj.roleRef ??= {});
  if (ref && typeof ref === 'object') {
    if (!ref.apiGroup) ref.apiGroup = RBAC_GROUP;
    zeroFields(ref, { kind: '', name: '' });
  }
  if (Array.isArray(obj.subjects)) {
    for (const s of obj.subjects) if (s && typeof s === 'object') defaultSubject(s);
  }
}
