/**
 * admissionregistration.k8s.io/v1 validatingadmissionpolicies (pkg/registry/admissionregistration/
 * validatingadmissionpolicy, v1.32): cluster-scoped, generation counted on spec changes, a status
 * subresource the type-checking controller writes.
 */
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import type { ResourceDef } from '../../types.js';
import { metaValidation, nameIsDNSSubdomain } from '../meta.js';
import {
  validateValidatingAdmissionPolicySpec, validateValidatingAdmissionPolicySpecUpdate, validateValidatingAdmissionPolicyStatus,
} from '../../../validation/validatingadmissionpolicy.js';
import { ALL_VERBS, statusSubresource } from '../shared.js';
import { defaultMatchResources } from './match-resources-defaults.js';

const meta = metaValidation({ namespaced: false, name: nameIsDNSSubdomain });

export const validatingadmissionpolicies: ResourceDef<ValidatingAdmissionPolicy> = {
  group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies', singular: 'validatingadmissionpolicy',
  kind: 'ValidatingAdmissionPolicy', categories: ['api-extensions'],
  namespaced: false, verbs: ALL_VERBS, subresources: [statusSubresource('ValidatingAdmissionPolicy')],
  storageVersionHash: '6OxvlMmQ6is=',
  storagePrefix: '/admissionregistration.k8s.io/validatingadmissionpolicies',
  hasGeneration: true,
  hasStatusSubresource: true,
  defaults(obj) {
    const spec = obj.spec;
    if (!spec || typeof spec !== 'object') return;
    spec.failurePolicy ??= 'Fail';
    defaultMatchResources(spec.matchConstraints);
  },
  // PrepareForCreate: a new policy starts with an empty status (a struct, so `status: {}` is served).
  prepareForCreate(obj) { obj.status = {}; },
  validate: (obj) => [...meta.validate(obj), ...validateValidatingAdmissionPolicySpec(obj)],
  validateUpdate: (obj, old, subresource) => subresource === 'status'
    ? [...meta.validateUpdate(obj, old), ...validateValidatingAdmissionPolicyStatus(obj)]
    : [...meta.validateUpdate(obj, old), ...validateValidatingAdmissionPolicySpecUpdate(obj, old)],
};
