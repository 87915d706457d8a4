/** Lease validation as v1.32's pkg/apis/coordination/validation (ValidateLease, ValidateLeaseUpdate). */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isObj, metaCreate, metaUpdate, nameIsDNSSubdomain, str, type Obj } from './common.js';

/** ValidateLeaseSpec (strategy and preferredHolder are dropped while CoordinatedLeaderElection is off). */
export function validateLeaseSpec(lease: Obj): FieldError[] {
  const spec: Obj = isObj(lease.spec) ? lease.spec : {};
  const errs: FieldError[] = [];
  if (spec.leaseDurationSeconds != null && spec.leaseDurationSeconds <= 0) {
    errs.push(field.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions != null && spec.leaseTransitions < 0) {
    errs.push(field.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (spec.strategy != null && str(spec.strategy).split('/').length === 1 && str(spec.strategy) !== 'OldestEmulationVersion') {
    errs.push(field.notSupported('spec.strategy.strategy', str(spec.strategy), ['OldestEmulationVersion']));
  }
  if (str(spec.preferredHolder) && !str(spec.strategy)) {
    errs.push(field.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

export const leaseValidation = {
  validate: (lease: Obj) => [...metaCreate(lease, true, nameIsDNSSubdomain), ...validateLeaseSpec(lease)],
  validateUpdate: (lease: Obj, old: Obj) => [...metaUpdate(lease, old), ...validateLeaseSpec(lease)],
};
