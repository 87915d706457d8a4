/**
 * PodDisruptionBudget validation as v1.32's pkg/apis/policy/validation
 * (ValidatePodDisruptionBudgetSpec). The strategy validates no metadata;
 * the update keeps label values the old selector already had invalid.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import {
  isNotMoreThan100Percent, isObj, labelSelectorHasInvalidLabelValue, raw, str, validateLabelSelector,
  validatePositiveIntOrPercent, type Obj, withStatus,
} from './common.js';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

/** %#v-ish rendering of the internal spec (pointers cannot be reproduced). */
function goSpec(spec: Obj): string {
  const ptr = (v: unknown, t: string) => (v == null ? `(*${t})(nil)` : `(*${t})(0xc000000000)`);
  return `policy.PodDisruptionBudgetSpec{MinAvailable:${ptr(spec.minAvailable, 'intstr.IntOrString')}, ` +
    `Selector:${ptr(spec.selector, 'v1.LabelSelector')}, MaxUnavailable:${ptr(spec.maxUnavailable, 'intstr.IntOrString')}, ` +
    `UnhealthyPodEvictionPolicy:${ptr(spec.unhealthyPodEvictionPolicy, 'policy.UnhealthyPodEvictionPolicyType')}}`;
}

export function validatePodDisruptionBudgetSpec(pdb: Obj, allowInvalidLabelValueInSelector: boolean): FieldError[] {
  const spec: Obj = isObj(pdb.spec) ? pdb.spec : {};
  const errs: FieldError[] = [];
  if (spec.minAvailable != null && spec.maxUnavailable != null) {
    errs.push(field.invalid('spec', raw(goSpec(spec)), 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const k of ['minAvailable', 'maxUnavailable']) {
    if (spec[k] == null) continue;
    errs.push(...validatePositiveIntOrPercent(spec[k], `spec.${k}`), ...isNotMoreThan100Percent(spec[k], `spec.${k}`));
  }
  errs.push(...validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector }, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy != null && !EVICTION_POLICIES.includes(str(policy))) {
    errs.push(field.notSupported('spec.unhealthyPodEvictionPolicy', str(policy), EVICTION_POLICIES));
  }
  return errs;
}

/** The spec checks (the registry adds the generic metadata ones); a status write checks no spec. */
export const podDisruptionBudgetSpecValidation = withStatus({
  validate: (pdb: Obj) => validatePodDisruptionBudgetSpec(pdb, false),
  validateUpdate: (pdb: Obj, old: Obj) =>
    validatePodDisruptionBudgetSpec(pdb, labelSelectorHasInvalidLabelValue(old.spec?.selector)),
}, () => []);
