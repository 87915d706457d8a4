/**
 * storage.k8s.io/v1 storageclasses (pkg/registry/storage/storageclass):
 * cluster-scoped, no status; reclaimPolicy defaults to Delete and
 * volumeBindingMode to Immediate (SetDefaults_StorageClass). Validation as
 * pkg/apis/storage/validation's ValidateStorageClass(Update): a qualified
 * provisioner name, the supported policies and modes, and parameters,
 * provisioner, reclaimPolicy and volumeBindingMode fixed once created.
 */
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { field, type FieldError } from '../../../apimachinery/field-errors.js';
import { immutableScalar, metaCreate, metaUpdate, nameIsDNSSubdomain, qualifiedName, str, type Obj } from '../../../validation/common.js';
import type { ResourceDef } from '../../types.js';
import { ALL_VERBS } from '../shared.js';

function validateStorageClass(sc: Obj): FieldError[] {
  const errs = metaCreate(sc, false, nameIsDNSSubdomain);
  const provisioner = str(sc.provisioner);
  if (!provisioner) errs.push(field.required('provisioner'));
  else errs.push(...qualifiedName(provisioner.toLowerCase(), 'provisioner'));
  if (sc.reclaimPolicy != null && !['Delete', 'Retain'].includes(str(sc.reclaimPolicy))) {
    errs.push(field.notSupported('reclaimPolicy', str(sc.reclaimPolicy), ['Delete', 'Retain']));
  }
  if (sc.volumeBindingMode == null) errs.push(field.required('volumeBindingMode'));
  else if (!['Immediate', 'WaitForFirstConsumer'].includes(str(sc.volumeBindingMode))) {
    errs.push(field.notSupported('volumeBindingMode', str(sc.volumeBindingMode), ['Immediate', 'WaitForFirstConsumer']));
  }
  return errs;
}

export const storageclasses: ResourceDef<StorageClass> = {
  group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', singular: 'storageclass', kind: 'StorageClass',
  namespaced: false, verbs: ALL_VERBS, shortNames: ['sc'],
  storageVersionHash: 'K+m6uJwbjGY=',
  storagePrefix: '/storage.k8s.io/storageclasses',
  defaults(obj: Obj) {
    obj.reclaimPolicy ??= 'Delete';
    obj.volumeBindingMode ??= 'Immediate';
  },
  validate: (sc: Obj) => validateStorageClass(sc),
  validateUpdate: (sc: Obj, old: Obj) => {
    const errs = [...validateStorageClass(sc), ...metaUpdate(sc, old)];
    if (JSON.stringify(sc.parameters ?? {}) !== JSON.stringify(old.parameters ?? {})) errs.push(field.forbidden('parameters', 'updates to parameters are forbidden.'));
    if (str(sc.provisioner) !== str(old.provisioner)) errs.push(field.forbidden('provisioner', 'updates to provisioner are forbidden.'));
    if (str(sc.reclaimPolicy) !== str(old.reclaimPolicy)) errs.push(field.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
    errs.push(...immutableScalar(str(sc.volumeBindingMode), str(old.volumeBindingMode), 'volumeBindingMode'));
    return errs;
  },
};
