/** node.k8s.io/v1 runtimeclasses (pkg/registry/node/runtimeclass): no defaults, no status, no generation. */
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { ResourceDef } from '../../types.js';
import { runtimeClassValidation } from '../../../validation/runtimeclass.js';
import { ALL_VERBS } from '../shared.js';

export const runtimeclasses: ResourceDef<RuntimeClass> = {
  group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', singular: 'runtimeclass', kind: 'RuntimeClass',
  namespaced: false, verbs: ALL_VERBS,
  storageVersionHash: 'WQTu1GL3T2Q=',
  storagePrefix: '/node.k8s.io/runtimeclasses',
  defaults(obj) {
    obj.handler ??= ''; // no omitempty
  },
  ...runtimeClassValidation,
};
