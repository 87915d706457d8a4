/** apps/v1 statefulsets (pkg/registry/apps/statefulset, SetDefaults_StatefulSet, apps/v1 conversion). */
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { ResourceDef } from '../../types.js';
import { statefulSetValidation } from '../../../validation/statefulset.js';
import { workloadWarnings } from '../../../validation/workload-warnings.js';
import { ALL_VERBS, keepStatus, defaultTemplate, scaleSubresource, statusSubresource, templateMeta, zeroFields } from '../shared.js';

/** StatefulSetStatus.replicas and availableReplicas have no omitempty. */
const STATUS_ZEROS = { replicas: 0, availableReplicas: 0 };

/**
 * A volume claim template as SetObjectDefaults_StatefulSet and the v1
 * conversion leave it: claim defaults (volumeMode, phase) and the
 * apiVersion/kind the conversion writes for pre-1.17 compatibility.
 */
function defaultClaimTemplate(c: any): any {
  const { kind: _k, apiVersion: _a, ...rest } = c ?? {};
  const out: any = { kind: 'PersistentVolumeClaim', apiVersion: 'v1', ...rest };
  out.metadata = templateMeta(out.metadata);
  const spec = (out.spec ??= {});
  spec.resources ??= {}; // VolumeResourceRequirements is a struct: never omitted
  spec.volumeMode ??= 'Filesystem';
  const status = (out.status ??= {});
  status.phase ||= 'Pending';
  return out;
}

export function defaultStatefulSet(obj: any): void {
  const spec = (obj.spec ??= {});
  spec.podManagementPolicy ||= 'OrderedReady';
  const us = (spec.updateStrategy ??= {});
  if (!us.type) {
    us.type = 'RollingUpdate';
    us.rollingUpdate ??= {};
  }
  if (us.type === 'RollingUpdate' && us.rollingUpdate && us.rollingUpdate.partition == null) us.rollingUpdate.partition = 0;
  // StatefulSetAutoDeletePVC is on in v1.32.
  const retention = (spec.persistentVolumeClaimRetentionPolicy ??= {});
  retention.whenDeleted ||= 'Retain';
  retention.whenScaled ||= 'Retain';
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  defaultTemplate(spec);
  if (Array.isArray(spec.volumeClaimTemplates)) spec.volumeClaimTemplates = spec.volumeClaimTemplates.map(defaultClaimTemplate);
  if (obj.status) zeroFields(obj.status, STATUS_ZEROS);
}

/** dropStatefulSetDisabledFields: MaxUnavailableStatefulSet is alpha (off) in v1.32. */
function dropMaxUnavailable(obj: any, old: any): void {
  if (old?.spec?.updateStrategy?.rollingUpdate?.maxUnavailable != null) return;
  const ru = obj.spec?.updateStrategy?.rollingUpdate;
  if (ru) delete ru.maxUnavailable;
}

export const statefulsets: ResourceDef<StatefulSet> = {
  group: 'apps', version: 'v1', resource: 'statefulsets', singular: 'statefulset', kind: 'StatefulSet',
  namespaced: true, shortNames: ['sts'], categories: ['all'], verbs: ALL_VERBS,
  subresources: [scaleSubresource, statusSubresource('StatefulSet')],
  storageVersionHash: 'H+vl74LkKdo=',
  storagePrefix: '/apps/statefulsets',
  hasGeneration: true,
  hasStatusSubresource: true,
  defaults: defaultStatefulSet,
  prepareForCreate(obj) {
    obj.status = { ...STATUS_ZEROS };
    dropMaxUnavailable(obj, undefined);
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
    dropMaxUnavailable(obj, old);
  },
  // StatefulSet names become pod hostnames: DNS labels since v1.27 (checked on create only).
  ...statefulSetValidation,
  // WarningsOnCreate / WarningsOnUpdate.
  ...workloadWarnings('StatefulSet'),
};
