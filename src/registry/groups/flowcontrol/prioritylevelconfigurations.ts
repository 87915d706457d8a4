/** flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations (pkg/registry/flowcontrol/prioritylevelconfiguration). */
import type { PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import type { ResourceDef } from '../../types.js';
import { metaValidation, nameIsDNSSubdomain } from '../meta.js';
import { validatePriorityLevelConfiguration, validatePriorityLevelConfigurationStatus } from '../../../validation/flowcontrol.js';
import { ALL_VERBS, statusSubresource } from '../shared.js';
import { defaultPriorityLevelConfiguration } from './shape.js';

const meta = metaValidation({ namespaced: false, name: nameIsDNSSubdomain });

export const prioritylevelconfigurations: ResourceDef<PriorityLevelConfiguration> = {
  group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations', singular: 'prioritylevelconfiguration',
  kind: 'PriorityLevelConfiguration',
  namespaced: false, verbs: ALL_VERBS, subresources: [statusSubresource('PriorityLevelConfiguration')],
  storageVersionHash: 'Kir5PVfvNeI=',
  storagePrefix: '/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  hasGeneration: true,
  hasStatusSubresource: true,
  defaults: defaultPriorityLevelConfiguration,
  prepareForCreate(obj) { obj.status = {}; },
  validate: (obj) => [...meta.validate(obj), ...validatePriorityLevelConfiguration(obj)],
  validateUpdate: (obj, old, subresource) => subresource === 'status'
    ? [...meta.validateUpdate(obj, old), ...validatePriorityLevelConfigurationStatus(obj)]
    : [...meta.validateUpdate(obj, old), ...validatePriorityLevelConfiguration(obj)],
};
