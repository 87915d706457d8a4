/**
 * admissionregistration.k8s.io/v1 validatingadmissionpolicybindings (pkg/registry/admissionregistration/
 * validatingadmissionpolicybinding, v1.32): cluster-scoped, generation counted on spec changes, no status.
 */
import type { ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { ResourceDef } from '../../types.js';
import { metaValidation, nameIsDNSSubdomain } from '../meta.js';
import { validateValidatingAdmissionPolicyBindingSpec } from '../../../validation/validatingadmissionpolicy.js';
import { ALL_VERBS } from '../shared.js';
import { defaultMatchResources } from './match-resources-defaults.js';

const meta = metaValidation({ namespaced: false, name: nameIsDNSSubdomain });

export const validatingadmissionpolicybindings: ResourceDef<ValidatingAdmissionPolicyBinding> = {
  group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicybindings',
  singular: 'validatingadmissionpolicybinding', kind: 'ValidatingAdmissionPolicyBinding', categories: ['api-extensions'],
  namespaced: false, verbs: ALL_VERBS,
  storageVersionHash: 'v9715VZqakg=',
  storagePrefix: '/admissionregistration.k8s.io/validatingadmissionpolicybindings',
  hasGeneration: true,
  defaults(obj) {
    if (obj.spec && typeof obj.spec === 'object') defaultMatchResources(obj.spec.matchResources);
  },
  validate: (obj) => [...meta.validate(obj), ...validateValidatingAdmissionPolicyBindingSpec(obj)],
  validateUpdate: (obj, old) => [...meta.validateUpdate(obj, old), ...validateValidatingAdmissionPolicyBindingSpec(obj)],
};
