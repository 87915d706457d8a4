/**
 * CronJob validation as v1.32's pkg/apis/batch/validation
 * (ValidateCronJobCreate, ValidateCronJobUpdate, validateCronJobSpec,
 * ValidateJobTemplateSpec). The job template's pod template is validated
 * under "spec.jobTemplate.spec.template".
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import {
  isObj, labelSelectorString, metaCreate, metaUpdate, nameIsDNSSubdomain, nonNegative, num, str, type Obj, withStatus,
} from './common.js';
import { cronScheduleError, isKnownTimeZone } from '../apimachinery/cron-schedule.js';
import { validateJobSpecCommon } from './job.js';

/** The controller names each Job `<cronjob>-<11 characters>`, within a DNS-1035 label's 63. */
const MAX_NAME = 63 - 11;
const VALID_TZ_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateScheduleFormat(schedule: string, allowTZ: boolean, timeZone: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const err = cronScheduleError(schedule);
  if (err) errs.push(field.invalid(path, schedule, err));
  if (allowTZ && schedule.includes('TZ') && timeZone != null) {
    errs.push(field.invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else if (!allowTZ && schedule.includes('TZ')) {
    errs.push(field.invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  return errs;
}

/** validateTimeZone */
function validateTimeZone(tz: unknown, path: string): FieldError[] {
  if (tz == null) return [];
  const s = str(tz);
  if (!s) return [field.invalid(path, s, 'timeZone must be nil or non-empty string')];
  for (const part of s.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !VALID_TZ_PART.test(part)) {
      return [field.invalid(path, s, `unknown time zone ${s}`)];
    }
  }
  const errs: FieldError[] = [];
  if (s.toLowerCase() === 'local') {
    errs.push(field.invalid(path, s, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  }
  // time.LoadLocation: "Local" loads; anything else must name a zoneinfo file.
  if (s !== 'Local' && !isKnownTimeZone(s)) errs.push(field.invalid(path, s, `unknown time zone ${s}`));
  return errs;
}

/** ValidateJobTemplateSpec */
function validateJobTemplateSpec(jt: Obj, path: string, oldTemplate?: unknown): FieldError[] {
  const spec: Obj = isObj(jt.spec) ? jt.spec : {};
  const errs = validateJobSpecCommon(spec, `${path}.spec`, oldTemplate);
  if (spec.selector != null) errs.push(field.invalid(`${path}.spec.selector`, labelSelectorString(spec.selector), '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(field.notSupported(`${path}.spec.manualSelector`, true, ['nil', 'false']));
  return errs;
}

/** validateCronJobSpec */
function validateCronJobSpec(cj: Obj, old?: Obj): FieldError[] {
  const spec: Obj = isObj(cj.spec) ? cj.spec : {};
  const oldSpec: Obj | undefined = old ? (isObj(old.spec) ? old.spec : {}) : undefined;
  const errs: FieldError[] = [];
  const schedule = str(spec.schedule);
  if (!schedule) errs.push(field.required('spec.schedule'));
  else errs.push(...validateScheduleFormat(schedule, oldSpec ? str(oldSpec.schedule).includes('TZ') : false, spec.timeZone, 'spec.schedule'));
  if (spec.startingDeadlineSeconds != null) errs.push(...nonNegative(num(spec.startingDeadlineSeconds), 'spec.startingDeadlineSeconds'));
  if (!oldSpec || (oldSpec.timeZone ?? null) !== (spec.timeZone ?? null)) errs.push(...validateTimeZone(spec.timeZone, 'spec.timeZone'));
  const policy = str(spec.concurrencyPolicy);
  if (!policy) errs.push(field.required('spec.concurrencyPolicy'));
  else if (!['Allow', 'Forbid', 'Replace'].includes(policy)) {
    errs.push(field.notSupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']));
  }
  errs.push(...validateJobTemplateSpec(isObj(spec.jobTemplate) ? spec.jobTemplate : {}, 'spec.jobTemplate',
    oldSpec?.jobTemplate?.spec?.template));
  if (spec.successfulJobsHistoryLimit != null) errs.push(...nonNegative(num(spec.successfulJobsHistoryLimit), 'spec.successfulJobsHistoryLimit'));
  if (spec.failedJobsHistoryLimit != null) errs.push(...nonNegative(num(spec.failedJobsHistoryLimit), 'spec.failedJobsHistoryLimit'));
  return errs;
}

export const cronJobValidation = withStatus({
  validate(cj: Obj): FieldError[] {
    const errs = [...metaCreate(cj, true, nameIsDNSSubdomain), ...validateCronJobSpec(cj)];
    const name = str(cj.metadata?.name);
    if (name.length > MAX_NAME) errs.push(field.invalid('metadata.name', name, `must be no more than ${MAX_NAME} characters`));
    return errs;
  },
  // The 52-character name limit is skipped on update, so old cronjobs can still be updated or deleted.
  validateUpdate: (cj: Obj, old: Obj) => [...metaUpdate(cj, old), ...validateCronJobSpec(cj, old)],
});
