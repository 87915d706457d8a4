/**
 * PriorityClass validation as v1.32's pkg/apis/scheduling/validation, past
 * its ObjectMeta and reserved-name checks (kept in the registry module):
 * user classes at most HighestUserDefinablePriority, preemptionPolicy
 * supported; value and preemptionPolicy immutable.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { immutableScalar, str, type Obj } from './common.js';

/** scheduling.HighestUserDefinablePriority */
const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000;

/** ValidatePreemptionPolicy */
function validatePreemptionPolicy(policy: string, path: string): FieldError[] {
  if (policy === 'PreemptLowerPriority' || policy === 'Never') return [];
  if (!policy) return [field.required(path)];
  return [field.notSupported(path, policy, ['PreemptLowerPriority', 'Never'])];
}

/** ValidatePriorityClass after the system-prefix check: `system` says whether the name has the prefix. */
export function validatePriorityClassSpec(pc: Obj, system: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!system && (pc.value ?? 0) > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(field.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (pc.preemptionPolicy != null) errs.push(...validatePreemptionPolicy(str(pc.preemptionPolicy), 'preemptionPolicy'));
  return errs;
}

/** ValidatePriorityClassUpdate after ValidateObjectMetaUpdate. */
export function validatePriorityClassUpdateSpec(pc: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if ((pc.value ?? 0) !== (old.value ?? 0)) errs.push(field.forbidden('value', 'may not be changed in an update.'));
  errs.push(...immutableScalar(pc.preemptionPolicy, old.preemptionPolicy, 'preemptionPolicy'));
  return errs;
}
