/** core/v1 persistentvolumes. */
import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type WriteContext } from '../../apimachinery/write-context.js';
import { type KObject } from '../../apimachinery/object.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import { persistentVolumeValidation } from '../../validation/persistentvolume.js';
import { defaultResourceList } from '../../apimachinery/quantity.js';
import { defaultPersistentVolumeSource } from '../../component-helpers/volume-defaults.js';

/** SetObjectDefaults_PersistentVolume: phase Pending, reclaim Retain, Filesystem mode, source defaults. */
export function defaultPersistentVolume(pv: Record<string, any>): void {
  normalizeMeta(pv);
  if (!isObject(pv.spec)) pv.spec = {};
  if (!isObject(pv.status)) pv.status = {};
  if (!pv.status.phase) pv.status.phase = 'Pending';
  if (!pv.spec.persistentVolumeReclaimPolicy) pv.spec.persistentVolumeReclaimPolicy = 'Retain';
  if (pv.spec.volumeMode == null) pv.spec.volumeMode = 'Filesystem';
  defaultResourceList(pv.spec.capacity);
  defaultPersistentVolumeSource(pv.spec);
}

/** StorageObjectInUseProtection admission: PVs get the kubernetes.io/pv-protection finalizer. */
async function admitCreate(pv: KObject): Promise<void> {
  const f = pv.metadata.finalizers ?? [];
  if (!f.includes('kubernetes.io/pv-protection')) pv.metadata.finalizers = [...f, 'kubernetes.io/pv-protection'];
}

/**
 * PrepareForCreate: status reset to Pending with the transition time
 * (PersistentVolumeLastPhaseTransitionTime is GA), and volumeAttributesClassName
 * dropped (VolumeAttributesClass is beta, off, in v1.32).
 */
function prepareForCreate(pv: KObject, ctx: WriteContext): void {
  pv.status = { phase: 'Pending', lastPhaseTransitionTime: rfc3339(ctx.now) };
  delete (pv.spec as any)?.volumeAttributesClassName;
}

function prepareForUpdate(pv: KObject, old: KObject): void {
  pv.status = old.status;
  if ((old.spec as any)?.volumeAttributesClassName == null) delete (pv.spec as any)?.volumeAttributesClassName;
}

export const persistentvolumes: ResourceDef<PersistentVolume> = {
  group: '',
  version: 'v1',
  resource: 'persistentvolumes',
  singular: 'persistentvolume',
  kind: 'PersistentVolume',
  namespaced: false,
  shortNames: ['pv'],
  verbs: ALL_VERBS,
  subresources: [{ name: 'status', kind: 'PersistentVolume', verbs: ['get', 'patch', 'update'] }],
  storageVersionHash: 'HN/zwEC+JgM=',
  storagePrefix: '/core/persistentvolumes',
  hasGeneration: false,
  hasStatusSubresource: true,
  defaults: (obj: KObject) => decoding('PersistentVolume', () => defaultPersistentVolume(obj)),
  prepareForCreate,
  prepareForUpdate,
  admitCreate,
  ...persistentVolumeValidation,
  returnDeletedObject: true,
};
