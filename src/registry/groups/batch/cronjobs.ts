/** batch/v1 cronjobs (pkg/registry/batch/cronjob, SetDefaults_CronJob). */
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import type { ResourceDef } from '../../types.js';
import { cronJobValidation } from '../../../validation/cronjob.js';
import { workloadWarnings } from '../../../validation/workload-warnings.js';
import { ALL_VERBS, defaultTemplate, keepStatus, statusSubresource, templateMeta } from '../shared.js';

/** SetDefaults_CronJob plus the pod template defaults of the job template (Job defaults do not apply to it). */
export function defaultCronJob(obj: any): void {
  const spec = (obj.spec ??= {});
  spec.concurrencyPolicy ||= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const jt = (spec.jobTemplate ??= {});
  jt.metadata = templateMeta(jt.metadata);
  defaultTemplate((jt.spec ??= {}));
}

export const cronjobs: ResourceDef<CronJob> = {
  group: 'batch', version: 'v1', resource: 'cronjobs', singular: 'cronjob', kind: 'CronJob',
  namespaced: true, shortNames: ['cj'], categories: ['all'], verbs: ALL_VERBS,
  subresources: [statusSubresource('CronJob')],
  storageVersionHash: 'sd5LIXh4Fjs=',
  storagePrefix: '/batch/cronjobs',
  hasGeneration: true,
  hasStatusSubresource: true,
  // cronJobStatusStrategy resets only the spec: metadata (annotations, labels) is written through status too.
  statusWritesMetadata: true,
  defaults: defaultCronJob,
  prepareForCreate(obj) {
    obj.status = {};
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
  },
  prepareForSubresourceUpdate(subresource, obj, old) {
    if (subresource === 'status') obj.spec = old.spec;
  },
  ...cronJobValidation,
  // WarningsOnCreate / WarningsOnUpdate.
  ...workloadWarnings('CronJob'),
};
