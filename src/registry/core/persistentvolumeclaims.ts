/** core/v1 persistentvolumeclaims. */
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type Lookup } from '../../admission/lookup.js';
import { type KObject } from '../../apimachinery/object.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import { listAll } from '../../admission/lookup.js';
import { persistentVolumeClaimValidation } from '../../validation/persistentvolume.js';
import { defaultResourceList } from '../../apimachinery/quantity.js';
import { defaultPVCSpec } from '../../component-helpers/volume-defaults.js';
import { isDefaultStorageClass } from '../../meta/storage-class.js';

/** SetObjectDefaults_PersistentVolumeClaim. */
export function defaultPersistentVolumeClaim(pvc: Record<string, any>): void {
  normalizeMeta(pvc);
  if (!isObject(pvc.spec)) pvc.spec = {};
  if (!isObject(pvc.status)) pvc.status = {};
  if (!pvc.status.phase) pvc.status.phase = 'Pending';
  defaultPVCSpec(pvc.spec);
  defaultResourceList(pvc.status.capacity);
  defaultResourceList(pvc.status.allocatedResources);
}

/** Only PVCs and VolumeSnapshots may be named by spec.dataSource. */
function isPVCOrSnapshot(ds: any): boolean {
  if (!isObject(ds)) return false;
  const group = ds.apiGroup ?? '';
  return (ds.kind === 'PersistentVolumeClaim' && group === '') ||
    (ds.kind === 'VolumeSnapshot' && group === 'snapshot.storage.k8s.io');
}

/**
 * EnforceDataSourceBackwardsCompatibility and NormalizeDataSources (KEP 1495):
 * an unsupported dataSource without dataSourceRef is dropped; then each of
 * the two fields fills the other when only one is given.
 */
function normalizeDataSources(spec: Record<string, any>, oldSpec?: Record<string, any>): void {
  const inUse = isObject(oldSpec) && (oldSpec.dataSource != null || oldSpec.dataSourceRef != null);
  if (!inUse && spec.dataSourceRef == null && spec.dataSource != null && !isPVCOrSnapshot(spec.dataSource)) delete spec.dataSource;
  const ds = spec.dataSource;
  const ref = spec.dataSourceRef;
  if (isObject(ds) && ref == null) {
    spec.dataSourceRef = { ...(ds.apiGroup != null ? { apiGroup: ds.apiGroup } : {}), kind: ds.kind, name: ds.name };
  } else if (isObject(ref) && ds == null && !ref.namespace) {
    spec.dataSource = { ...(ref.apiGroup != null ? { apiGroup: ref.apiGroup } : {}), kind: ref.kind, name: ref.name };
  }
}

/**
 * DropDisabledFields for v1.32: VolumeAttributesClass (beta, off) and the
 * cross-namespace dataSourceRef.namespace (CrossNamespaceVolumeDataSource, alpha).
 */
function dropDisabled(spec: Record<string, any>, oldSpec?: Record<string, any>): void {
  if (!(isObject(oldSpec) && oldSpec.volumeAttributesClassName != null)) delete spec.volumeAttributesClassName;
  if (isObject(spec.dataSourceRef) && !(isObject(oldSpec) && oldSpec.dataSourceRef?.namespace)) delete spec.dataSourceRef.namespace;
}

function prepareForCreate(pvc: KObject): void {
  const spec = pvc.spec as Record<string, any>;
  // Status is cleared; the Pending phase reappears because upstream re-defaults the object it reads back.
  pvc.status = { phase: 'Pending' };
  dropDisabled(spec);
  normalizeDataSources(spec);
}

function prepareForUpdate(pvc: KObject, old: KObject): void {
  const spec = pvc.spec as Record<string, any>;
  pvc.status = old.status;
  dropDisabled(spec, old.spec as any);
  normalizeDataSources(spec, old.spec as any);
}

/**
 * Admission on create: DefaultStorageClass gives a class-less claim the
 * default StorageClass (the newest if several claim it), then
 * StorageObjectInUseProtection adds the kubernetes.io/pvc-protection finalizer.
 */
async function admitCreate(pvc: KObject, _ctx: unknown, lookup: Lookup): Promise<void> {
  const spec = pvc.spec as Record<string, any>;
  const hasClass = spec.storageClassName != null ||
    pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] !== undefined;
  if (!hasClass) {
    const defaults = (await listAll(lookup, 'storage.k8s.io', 'storageclasses', ''))
      .filter(isDefaultStorageClass)
      .sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') ||
        (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
    const [newest] = defaults;
    if (newest) spec.storageClassName = newest.metadata.name;
  }
  const f = pvc.metadata.finalizers ?? [];
  if (!f.includes('kubernetes.io/pvc-protection')) pvc.metadata.finalizers = [...f, 'kubernetes.io/pvc-protection'];
}

export const persistentvolumeclaims: ResourceDef<PersistentVolumeClaim> = {
  group: '',
  version: 'v1',
  resource: 'persistentvolumeclaims',
  singular: 'persistentvolumeclaim',
  kind: 'PersistentVolumeClaim',
  namespaced: true,
  shortNames: ['pvc'],
  verbs: ALL_VERBS,
  subresources: [{ name: 'status', kind: 'PersistentVolumeClaim', verbs: ['get', 'patch', 'update'] }],
  storageVersionHash: 'QWTyNDq0dC4=',
  storagePrefix: '/core/persistentvolumeclaims',
  hasGeneration: false,
  hasStatusSubresource: true,
  defaults: (obj: KObject) => decoding('PersistentVolumeClaim', () => defaultPersistentVolumeClaim(obj)),
  prepareForCreate,
  prepareForUpdate,
  admitCreate,
  ...persistentVolumeClaimValidation,
  returnDeletedObject: true,
};
