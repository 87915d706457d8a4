/** networking.k8s.io/v1 ingressclasses (pkg/registry/networking/ingressclass): cluster-scoped, no status. */
import type { IngressClass } from 'kubernetes-types/networking/v1.js';
import type { ResourceDef } from '../../types.js';
import { ingressClassValidation } from '../../../validation/ingressclass.js';
import { isObj } from '../../../validation/common.js';
import { ALL_VERBS } from '../shared.js';

export const ingressclasses: ResourceDef<IngressClass> = {
  group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses', singular: 'ingressclass', kind: 'IngressClass',
  namespaced: false, verbs: ALL_VERBS,
  storageVersionHash: 'l/iqIbDgFyQ=',
  storagePrefix: '/networking.k8s.io/ingressclasses',
  hasGeneration: true,
  defaults(obj) {
    const spec = (obj.spec ??= {});
    // SetDefaults_IngressClass: parameters without a scope refer to a cluster-scoped resource.
    if (isObj(spec.parameters)) spec.parameters.scope ??= 'Cluster';
  },
  ...ingressClassValidation,
};
