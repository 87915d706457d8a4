/** core/v1 replicationcontrollers. */
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import { replicationControllerValidation } from '../../validation/replicationcontroller.js';
import { workloadWarnings } from '../../validation/workload-warnings.js';
import { defaultPodTemplateSpec } from '../../component-helpers/pod-defaults.js';
import { dropDisabledTemplateFields } from './pod-drop-fields.js';

/**
 * SetDefaults_ReplicationController: selector and labels from the template's
 * labels when empty, one replica; then the template's pod defaults.
 */
export function defaultReplicationController(rc: Record<string, any>): void {
  normalizeMeta(rc);
  if (!isObject(rc.spec)) rc.spec = {};
  const spec = rc.spec;
  const labels = isObject(spec.template) ? spec.template.metadata?.labels : undefined;
  if (isObject(labels)) {
    if (!isObject(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    if (!isObject(rc.metadata?.labels) || Object.keys(rc.metadata.labels).length === 0) {
      (rc.metadata ??= {}).labels = { ...labels };
    }
  }
  if (spec.replicas == null) spec.replicas = 1;
  if (isObject(spec.template)) defaultPodTemplateSpec(spec.template);
  if (isObject(spec.selector) && Object.keys(spec.selector).length === 0) delete spec.selector;
  if (spec.minReadySeconds === 0) delete spec.minReadySeconds;
  // ReplicationControllerStatus.replicas has no omitempty.
  if (!isObject(rc.status)) rc.status = {};
  if (typeof rc.status.replicas !== 'number') rc.status.replicas = 0;
}

export const replicationcontrollers: ResourceDef<ReplicationController> = {
  group: '',
  version: 'v1',
  resource: 'replicationcontrollers',
  singular: 'replicationcontroller',
  kind: 'ReplicationController',
  namespaced: true,
  shortNames: ['rc'],
  categories: ['all'],
  verbs: ALL_VERBS,
  subresources: [
    { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
    { name: 'status', kind: 'ReplicationController', verbs: ['get', 'patch', 'update'] },
  ],
  storageVersionHash: 'Jond2If31h0=',
  storagePrefix: '/core/replicationcontrollers',
  hasGeneration: true,
  hasStatusSubresource: true,
  defaults: (obj: KObject) => decoding('ReplicationController', () => defaultReplicationController(obj)),
  prepareForCreate(obj) {
    obj.status = { replicas: 0 };
    dropDisabledTemplateFields(obj.spec?.template);
  },
  prepareForUpdate(obj, old) {
    obj.status = old.status ?? { replicas: 0 };
    dropDisabledTemplateFields(obj.spec?.template, old.spec?.template);
  },
  ...replicationControllerValidation,
  // WarningsOnCreate / WarningsOnUpdate.
  ...workloadWarnings('ReplicationController'),
  fieldSelectors: {
    'status.replicas': (rc) => String(rc.status?.replicas ?? 0),
  },
};
