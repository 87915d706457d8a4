/** core/v1 serviceaccounts. */
import type { ServiceAccount } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { isObject, normalizeMeta, pruneEmpty } from './decode.js';
import { metaValidators, nameIsDNSSubdomain } from '../../validation/object-meta.js';

/** cleanSecretReferences (PrepareForCreate/Update): a secret reference keeps only its name. */
function cleanSecretReferences(sa: KObject): void {
  if (Array.isArray(sa.secrets)) sa.secrets = sa.secrets.map((s: any) => (isObject(s) && s.name ? { name: s.name } : {}));
}

const meta = metaValidators({ namespaced: true, nameFn: nameIsDNSSubdomain }, 'update-then-create');

export const serviceaccounts: ResourceDef<ServiceAccount> = {
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  singular: 'serviceaccount',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  verbs: ALL_VERBS,
  subresources: [
    { name: 'token', group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
  ],
  storageVersionHash: 'pbx9ZvyFpBE=',
  storagePrefix: '/core/serviceaccounts',
  defaults(obj: KObject) {
    normalizeMeta(obj);
    pruneEmpty(obj, 'secrets', 'imagePullSecrets');
  },
  prepareForCreate: cleanSecretReferences,
  prepareForUpdate: cleanSecretReferences,
  validate: meta.validate,
  validateUpdate: meta.validateUpdate,
  returnDeletedObject: true,
};
