/** StorageClasses: printStorageClass (the default class's name gets " (default)"). */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';
import { isDefaultStorageClass } from '../../meta/storage-class.js';

export const storageClassPrinter: Printer = {
  columns: [
    nameColumn,
    column('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
    column('ReclaimPolicy', 'string', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.'),
    column('VolumeBindingMode', 'string', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.'),
    column('AllowVolumeExpansion', 'string', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    return [
      nameOf(obj) + (isDefaultStorageClass(obj) ? ' (default)' : ''), obj?.provisioner ?? '', obj?.reclaimPolicy ?? 'Delete',
      obj?.volumeBindingMode ?? 'Immediate', obj?.allowVolumeExpansion === true ? 'true' : 'false', ageOf(obj, now),
    ];
  },
};
