/** apps/v1 replicasets (pkg/registry/apps/replicaset, SetDefaults_ReplicaSet). */
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { ResourceDef } from '../../types.js';
import { replicaSetValidation } from '../../../validation/replicaset.js';
import { workloadWarnings } from '../../../validation/workload-warnings.js';
import { ALL_VERBS, keepStatus, defaultTemplate, scaleSubresource, statusSubresource, zeroFields } from '../shared.js';

/** ReplicaSetStatus.replicas has no omitempty: an empty status still shows it. */
const STATUS_ZEROS = { replicas: 0 };

export function defaultReplicaSet(obj: any): void {
  const spec = (obj.spec ??= {});
  spec.replicas ??= 1;
  defaultTemplate(spec);
  if (obj.status) zeroFields(obj.status, STATUS_ZEROS);
}

export const replicasets: ResourceDef<ReplicaSet> = {
  group: 'apps', version: 'v1', resource: 'replicasets', singular: 'replicaset', kind: 'ReplicaSet',
  namespaced: true, shortNames: ['rs'], categories: ['all'], verbs: ALL_VERBS,
  subresources: [scaleSubresource, statusSubresource('ReplicaSet')],
  storageVersionHash: 'P1RzHs8/mWQ=',
  storagePrefix: '/apps/replicasets',
  hasGeneration: true,
  hasStatusSubresource: true,
  defaults: defaultReplicaSet,
  prepareForCreate(obj) {
    obj.status = { ...STATUS_ZEROS };
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
  },
  // ReplicaSetToSelectableFields offers status.replicas, but apps/v1 registers
  // no field label conversion, so upstream refuses it (kubernetes#135136).
  ...replicaSetValidation,
  // WarningsOnCreate / WarningsOnUpdate.
  ...workloadWarnings('ReplicaSet'),
};
