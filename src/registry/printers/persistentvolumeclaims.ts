/** PersistentVolumeClaims: printPersistentVolumeClaim. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';
import { quantityString } from './quantity.js';
import { accessModes, storageClass, volumePhase } from './volumes.js';

export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    nameColumn,
    column('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
    column('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    column('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
    column('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1'),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageColumn,
    column('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.', 1),
  ],
  cells(obj: any, now: number): unknown[] {
    const spec = obj?.spec ?? {};
    // Capacity and modes are the bound volume's, so shown only once bound.
    const bound = !!spec.volumeName;
    return [
      nameOf(obj), volumePhase(obj), spec.volumeName ?? '',
      bound ? quantityString(obj?.status?.capacity?.storage) : '', bound ? accessModes(obj?.status?.accessModes) : '',
      storageClass(obj), spec.volumeAttributesClassName ?? '<unset>', ageOf(obj, now), spec.volumeMode ?? '<unset>',
    ];
  },
};
