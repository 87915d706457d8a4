/** flowcontrol.apiserver.k8s.io/v1 flowschemas (pkg/registry/flowcontrol/flowschema): spec and status, generation. */
import type { FlowSchema } from 'kubernetes-types/flowcontrol/v1.js';
import type { ResourceDef } from '../../types.js';
import { metaValidation, nameIsDNSSubdomain } from '../meta.js';
import { validateFlowSchema, validateFlowSchemaStatus } from '../../../validation/flowcontrol.js';
import { ALL_VERBS, statusSubresource } from '../shared.js';
import { defaultFlowSchema } from './shape.js';

const meta = metaValidation({ namespaced: false, name: nameIsDNSSubdomain });

export const flowschemas: ResourceDef<FlowSchema> = {
  group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas', singular: 'flowschema', kind: 'FlowSchema',
  namespaced: false, verbs: ALL_VERBS, subresources: [statusSubresource('FlowSchema')],
  storageVersionHash: 'GJVAJZSZBIw=',
  storagePrefix: '/flowcontrol.apiserver.k8s.io/flowschemas',
  hasGeneration: true,
  hasStatusSubresource: true,
  defaults: defaultFlowSchema,
  // PrepareForCreate: a new object starts without status.
  prepareForCreate(obj) { obj.status = {}; },
  validate: (obj) => [...meta.validate(obj), ...validateFlowSchema(obj)],
  validateUpdate: (obj, old, subresource) => subresource === 'status'
    ? [...meta.validateUpdate(obj, old), ...validateFlowSchemaStatus(obj)]
    : [...meta.validateUpdate(obj, old), ...validateFlowSchema(obj)],
};
