/**
 * ReplicationController validation as v1.32's pkg/apis/core/validation
 * (ValidateReplicationController, ValidateReplicationControllerSpec,
 * ValidatePodTemplateSpecForRC). The strategy's update runs
 * ValidateReplicationController, then ValidateReplicationControllerUpdate.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isObj, mapSelector, metaCreate, metaUpdate, nameIsDNSSubdomain, nonNegative, num, type Obj, withStatus } from './common.js';
import { alwaysRestartNoDeadline, selectorMatchesTemplate, validatePodTemplate } from './pod-template.js';

const specOf = (o: Obj): Obj => (isObj(o.spec) ? o.spec : {});

/** ValidateReplicationControllerSpec */
function validateReplicationControllerSpec(rc: Obj, old?: Obj): FieldError[] {
  const spec = specOf(rc);
  const errs = nonNegative(num(spec.minReadySeconds), 'spec.minReadySeconds');
  const selector = mapSelector(spec.selector);
  if (selector.empty) errs.push(field.required('spec.selector'));
  errs.push(...nonNegative(num(spec.replicas), 'spec.replicas'));
  if (spec.template == null) {
    errs.push(field.required('spec.template'));
  } else {
    errs.push(...selectorMatchesTemplate(selector, spec.template, 'spec.template'));
    errs.push(...validatePodTemplate(spec.template, 'spec.template', old ? specOf(old).template : undefined));
    errs.push(...alwaysRestartNoDeadline(spec.template, 'spec.template', 'ReplicationController'));
  }
  return errs;
}

export const replicationControllerValidation = withStatus({
  validate: (rc: Obj) => [...metaCreate(rc, true, nameIsDNSSubdomain), ...validateReplicationControllerSpec(rc)],
  validateUpdate: (rc: Obj, old: Obj) => [
    ...metaCreate(rc, true, nameIsDNSSubdomain), ...validateReplicationControllerSpec(rc, old),
    ...metaUpdate(rc, old), ...validateReplicationControllerSpec(rc, old),
  ],
});
