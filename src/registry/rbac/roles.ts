/** rbac.authorization.k8s.io/v1 roles (pkg/registry/rbac/role). */
import type { Role } from 'kubernetes-types/rbac/v1.js';
import type { ResourceDef } from '../types.js';
import { validateGenericMetaUpdate } from '../groups/meta.js';
import { validateRole, validateRoleUpdate } from '../../validation/rbac.js';
import { ALL_VERBS } from '../types.js';
import { defaultRules, RBAC_GROUP } from './defaults.js';

export const roles: ResourceDef<Role> = {
  group: RBAC_GROUP, version: 'v1', resource: 'roles', singular: 'role', kind: 'Role',
  namespaced: true, verbs: ALL_VERBS, allowCreateOnUpdate: true,
  storageVersionHash: '7FuwZcIIItM=',
  storagePrefix: '/rbac.authorization.k8s.io/roles',
  defaults: defaultRules,
  validate: (obj) => validateRole(obj),
  // rest.BeforeUpdate's common metadata checks, then the strategy's ValidateRole + ValidateRoleUpdate.
  validateUpdate: (obj, old) => [...validateGenericMetaUpdate(obj, old, true), ...validateRole(obj), ...validateRoleUpdate(obj, old)],
};
