/** rbac.authorization.k8s.io/v1 clusterroles (pkg/registry/rbac/clusterrole). */
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import type { ResourceDef } from '../types.js';
import { validateGenericMetaUpdate } from '../groups/meta.js';
import { hasInvalidLabelValueInAggregationRule, validateClusterRole, validateClusterRoleUpdate } from '../../validation/rbac.js';
import { ALL_VERBS } from '../types.js';
import { defaultRules, RBAC_GROUP } from './defaults.js';

export const clusterroles: ResourceDef<ClusterRole> = {
  group: RBAC_GROUP, version: 'v1', resource: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole',
  namespaced: false, verbs: ALL_VERBS, allowCreateOnUpdate: true,
  storageVersionHash: 'bYE5ZWDrJ44=',
  storagePrefix: '/rbac.authorization.k8s.io/clusterroles',
  defaults: defaultRules,
  validate: (obj) => validateClusterRole(obj, { allowInvalidLabelValueInSelector: false }),
  // rest.BeforeUpdate's common metadata checks, then the strategy's ValidateClusterRole + ValidateClusterRoleUpdate.
  validateUpdate(obj, old) {
    const opts = { allowInvalidLabelValueInSelector: hasInvalidLabelValueInAggregationRule(old) };
    return [...validateGenericMetaUpdate(obj, old, false), ...validateClusterRole(obj, opts), ...validateClusterRoleUpdate(obj, old, opts)];
  },
};
