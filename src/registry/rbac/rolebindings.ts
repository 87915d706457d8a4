/** rbac.authorization.k8s.io/v1 rolebindings (pkg/registry/rbac/rolebinding). */
import type { RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { ResourceDef } from '../types.js';
import { validateGenericMetaUpdate } from '../groups/meta.js';
import { validateRoleBinding, validateRoleBindingUpdate } from '../../validation/rbac.js';
import { ALL_VERBS } from '../types.js';
import { defaultBinding, RBAC_GROUP } from './defaults.js';

export const rolebindings: ResourceDef<RoleBinding> = {
  group: RBAC_GROUP, version: 'v1', resource: 'rolebindings', singular: 'rolebinding', kind: 'RoleBinding',
  namespaced: true, verbs: ALL_VERBS, allowCreateOnUpdate: true,
  storageVersionHash: 'eGsCzGH6b1g=',
  storagePrefix: '/rbac.authorization.k8s.io/rolebindings',
  defaults: defaultBinding,
  validate: (obj) => validateRoleBinding(obj),
  // rest.BeforeUpdate's common metadata checks, then the strategy's ValidateRoleBinding + ValidateRoleBindingUpdate.
  validateUpdate: (obj, old) =>
    [...validateGenericMetaUpdate(obj, old, true), ...validateRoleBinding(obj), ...validateRoleBindingUpdate(obj, old)],
};
