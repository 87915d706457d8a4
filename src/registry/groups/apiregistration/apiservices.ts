/**
 * apiregistration.k8s.io/v1 apiservices (kube-aggregator v0.32 pkg/registry/apiservice): cluster-scoped,
 * no generation, a status subresource; a new local APIService (no service) is Available at once.
 */
import { localAvailableCondition, setAPIServiceCondition, type APIService } from '../../../apimachinery/apiservice.js';
import { rfc3339 } from '../../../apimachinery/time.js';
import type { ResourceDef } from '../../types.js';
import { validateAPIService, validateAPIServiceStatusUpdate, validateAPIServiceUpdate } from '../../../validation/apiservice.js';
import { ALL_VERBS, statusSubresource } from '../shared.js';

export const apiservices: ResourceDef<APIService> = {
  group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', singular: 'apiservice',
  kind: 'APIService', categories: ['api-extensions'],
  namespaced: false, verbs: ALL_VERBS, subresources: [statusSubresource('APIService')],
  storageVersionHash: 'InPBPD7+PqM=',
  storagePrefix: '/apiregistration.k8s.io/apiservices',
  hasStatusSubresource: true,
  allowUnconditionalUpdate: false,
  defaults(obj) {
    // SetDefaults_ServiceReference
    const ref = obj.spec?.service;
    if (ref && typeof ref === 'object') ref.port ??= 443;
  },
  prepareForCreate(obj, ctx) {
    obj.status = {};
    if (!obj.spec?.service) setAPIServiceCondition(obj, localAvailableCondition(rfc3339(ctx.now)));
  },
  validate: (obj) => validateAPIService(obj),
  validateUpdate: (obj, old, subresource) => subresource === 'status'
    ? validateAPIServiceStatusUpdate(obj, old)
    : validateAPIServiceUpdate(obj, old),
};
