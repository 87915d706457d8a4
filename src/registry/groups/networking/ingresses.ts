/** networking.k8s.io/v1 ingresses (pkg/registry/networking/ingress): status subresource, generation on spec change. */
import type { Ingress } from 'kubernetes-types/networking/v1.js';
import type { ResourceDef } from '../../types.js';
import { ANNOTATION_INGRESS_CLASS, ingressValidation } from '../../../validation/ingress.js';
import { ALL_VERBS, keepStatus, statusSubresource } from '../shared.js';

export const ingresses: ResourceDef<Ingress> = {
  group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', singular: 'ingress', kind: 'Ingress',
  namespaced: true, shortNames: ['ing'], verbs: ALL_VERBS,
  subresources: [statusSubresource('Ingress')],
  storageVersionHash: '39NQlfNR+bo=',
  storagePrefix: '/networking.k8s.io/ingresses',
  hasGeneration: true,
  hasStatusSubresource: true,
  // networking/v1 has no Ingress defaults; IngressStatus.loadBalancer is a struct Go always writes.
  defaults(obj) {
    obj.spec ??= {};
    if (obj.status) obj.status.loadBalancer ??= {};
  },
  prepareForCreate(obj) {
    obj.status = { loadBalancer: {} };
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
  },
  // WarningsOnCreate (since v1.27, when a matching annotation and class name became valid together).
  warnCreate(obj, ctx) {
    if (obj.metadata.annotations && ANNOTATION_INGRESS_CLASS in obj.metadata.annotations && obj.spec?.ingressClassName == null) {
      ctx.warn(`annotation "${ANNOTATION_INGRESS_CLASS}" is deprecated, please use 'spec.ingressClassName' instead`);
    }
  },
  ...ingressValidation,
};
