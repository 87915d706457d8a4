/** rbac.authorization.k8s.io/v1 clusterrolebindings (pkg/registry/rbac/clusterrolebinding). */
import type { ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { ResourceDef } from '../types.js';
import { validateGenericMetaUpdate } from '../groups/meta.js';
import { validateClusterRoleBinding, validateClusterRoleBindingUpdate } from '../../validation/rbac.js';
import { ALL_VERBS } from '../types.js';
import { defaultBinding, RBAC_GROUP } from './defaults.js';

export const clusterrolebindings: ResourceDef<ClusterRoleBinding> = {
  group: RBAC_GROUP, version: 'v1', resource: 'clusterrolebindings', singular: 'clusterrolebinding', kind: 'ClusterRoleBinding',
  namespaced: false, verbs: ALL_VERBS, allowCreateOnUpdate: true,
  storageVersionHash: '48tpQ8gZHFc=',
  storagePrefix: '/rbac.authorization.k8s.io/clusterrolebindings',
  defaults: defaultBinding,
  validate: (obj) => validateClusterRoleBinding(obj),
  // rest.BeforeUpdate's common metadata checks, then the strategy's ValidateClusterRoleBinding + ValidateClusterRoleBindingUpdate.
  validateUpdate: (obj, old) =>
    [...validateGenericMetaUpdate(obj, old, false), ...validateClusterRoleBinding(obj), ...validateClusterRoleBindingUpdate(obj, old)],
};
