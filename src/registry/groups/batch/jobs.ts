/** batch/v1 jobs (pkg/registry/batch/job, SetDefaults_Job). */
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { ResourceDef } from '../../types.js';
import { jobValidation } from '../../../validation/job.js';
import { workloadWarnings } from '../../../validation/workload-warnings.js';
import { ALL_VERBS, defaultTemplate, keepStatus, statusSubresource } from '../shared.js';

/** batch.LegacyJobNameLabel, JobNameLabel, LegacyControllerUidLabel, ControllerUidLabel. */
export const JOB_NAME_LABELS = ['job-name', 'batch.kubernetes.io/job-name'];
export const CONTROLLER_UID_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];

/**
 * SetDefaults_Job gives a job without labels its template's labels. In Go
 * that is the same map, so labels generateSelector later adds to the
 * template show on the job too; `share` keeps that aliasing.
 */
function inheritTemplateLabels(obj: any, share: boolean): void {
  const labels = obj.spec?.template?.metadata?.labels;
  if (labels && !Object.keys(obj.metadata?.labels ?? {}).length) (obj.metadata ??= {}).labels = share ? labels : { ...labels };
}

/** SetDefaults_Job (v1.32) plus the pod template defaults. */
export function defaultJob(obj: any): void {
  const spec = (obj.spec ??= {});
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  // An index-limited job backs off per index: the job-wide limit becomes MaxInt32.
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? 2147483647 : 6;
  defaultTemplate(spec);
  inheritTemplateLabels(obj, true);
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  for (const rule of spec.podFailurePolicy?.rules ?? []) {
    for (const pattern of rule?.onPodConditions ?? []) if (pattern && !pattern.status) pattern.status = 'True';
  }
  // JobPodReplacementPolicy is beta (on) in v1.32.
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  spec.manualSelector ??= false;
}

/**
 * generateSelector: labels the template with the job's name and uid and
 * selects on the uid, unless the user asked to manage the selector.
 */
export function generateSelector(obj: any): void {
  const spec = obj.spec;
  const t = spec.template;
  const labels = (t.metadata.labels ??= {});
  for (const k of JOB_NAME_LABELS) if (!(k in labels)) labels[k] = obj.metadata.name ?? '';
  for (const k of CONTROLLER_UID_LABELS) if (!(k in labels)) labels[k] = obj.metadata.uid ?? '';
  const sel = (spec.selector ??= {});
  const ml = (sel.matchLabels ??= {});
  if (!('batch.kubernetes.io/controller-uid' in ml)) ml['batch.kubernetes.io/controller-uid'] = obj.metadata.uid ?? '';
}

export const jobs: ResourceDef<Job> = {
  group: 'batch', version: 'v1', resource: 'jobs', singular: 'job', kind: 'Job',
  namespaced: true, categories: ['all'], verbs: ALL_VERBS,
  subresources: [statusSubresource('Job')],
  storageVersionHash: 'mudhfqk/qZY=',
  storagePrefix: '/batch/jobs',
  hasGeneration: true,
  hasStatusSubresource: true,
  defaults: defaultJob,
  prepareForCreate(obj) {
    if (!obj.spec?.manualSelector) generateSelector(obj);
    obj.status = {}; // JobStatus: every field omitempty
    // Upstream's create answer is decoded, and so defaulted, again from the
    // stored bytes: a job that had no labels, and a template without labels
    // until generateSelector, still takes the template's.
    inheritTemplateLabels(obj, false);
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
  },
  // JobToSelectableFields
  fieldSelectors: { 'status.successful': (obj) => String(obj.status?.succeeded ?? 0) },
  ...jobValidation,
  // WarningsOnCreate / WarningsOnUpdate.
  ...workloadWarnings('Job'),
};
