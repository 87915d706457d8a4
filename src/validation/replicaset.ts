/**
 * ReplicaSet validation as v1.32's pkg/apis/apps/validation
 * (ValidateReplicaSet, ValidateReplicaSetSpec,
 * ValidatePodTemplateSpecForReplicaSet) and the replicaset strategy: an
 * update runs ValidateReplicaSet, ValidateReplicaSetUpdate, then the
 * apps/v1 selector immutability check.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import {
  deepEqual, FIELD_IMMUTABLE, isObj, labelSelectorAsSelector, labelSelectorString, metaCreate,
  metaUpdate, nameIsDNSSubdomain, nonNegative, num, validateLabelSelector, type Obj, type Selector, withStatus,
} from './common.js';
import { alwaysRestartNoDeadline, selectorMatchesTemplate, validatePodTemplate } from './pod-template.js';

export const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : {});

/** ValidatePodTemplateSpecForReplicaSet (also Deployment's). */
export function validatePodTemplateForReplicaSet(template: unknown, selector: Selector, path: string, kind: string, old?: unknown): FieldError[] {
  return [
    ...selectorMatchesTemplate(selector, template, path),
    ...validatePodTemplate(template, path, old),
    ...alwaysRestartNoDeadline(template, path, kind),
  ];
}

/**
 * The selector part shared by Deployment and ReplicaSet: required, valid
 * (strictly), not empty ("for deployment" in both, as upstream), convertible.
 * Returns the parsed selector for the template check.
 */
export function validateWorkloadSelector(spec: Obj, allowInvalidLabelValue: boolean): { errs: FieldError[]; selector?: Selector } {
  const errs: FieldError[] = [];
  const sel = spec.selector;
  if (sel == null) errs.push(field.required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(sel, { allowInvalidLabelValueInSelector: allowInvalidLabelValue }, 'spec.selector'));
    if (Object.keys(isObj(sel.matchLabels) ? sel.matchLabels : {}).length + (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0) === 0) {
      errs.push(field.invalid('spec.selector', labelSelectorString(sel), 'empty selector is invalid for deployment'));
    }
  }
  const selector = labelSelectorAsSelector(sel);
  if (!selector) errs.push(field.invalid('spec.selector', labelSelectorString(sel), 'invalid label selector'));
  return { errs, selector };
}

/** ValidateReplicaSetSpec */
function validateReplicaSetSpec(rs: Obj, old?: Obj): FieldError[] {
  const spec = specOf(rs);
  const errs = [...nonNegative(num(spec.replicas), 'spec.replicas'), ...nonNegative(num(spec.minReadySeconds), 'spec.minReadySeconds')];
  // The selector is validated strictly, as it always had to convert.
  const { errs: selErrs, selector } = validateWorkloadSelector(spec, false);
  errs.push(...selErrs);
  if (selector) errs.push(...validatePodTemplateForReplicaSet(spec.template, selector, 'spec.template', 'ReplicaSet', old ? specOf(old).template : undefined));
  return errs;
}

/** ValidateImmutableField on spec.selector (a *metav1.LabelSelector prints its String()). */
export function selectorImmutable(obj: Obj, old: Obj): FieldError[] {
  return deepEqual(specOf(obj).selector, specOf(old).selector) ? []
    : [field.invalid('spec.selector', labelSelectorString(specOf(obj).selector), FIELD_IMMUTABLE)];
}

export const replicaSetValidation = withStatus({
  validate: (rs: Obj) => [...metaCreate(rs, true, nameIsDNSSubdomain), ...validateReplicaSetSpec(rs)],
  validateUpdate: (rs: Obj, old: Obj) => [
    ...metaCreate(rs, true, nameIsDNSSubdomain), ...validateReplicaSetSpec(rs, old),
    ...metaUpdate(rs, old), ...validateReplicaSetSpec(rs, old),
    ...selectorImmutable(rs, old),
  ],
});
