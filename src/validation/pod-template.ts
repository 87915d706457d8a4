/**
 * The pod template checks every workload runs: ValidatePodTemplateSpec from
 * the pod validation module (./pod-spec.ts), with the template's path, then
 * the controllers' own template rules (selector match, restart policy,
 * activeDeadlineSeconds).
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { goStringMap, isObj, str, type Obj, type Selector } from './common.js';
import { validatePodTemplateSpec } from './pod-spec.js';

/** apivalidation.ValidatePodTemplateSpec, with the options GetValidationOptionsFromPodTemplate gives for the old template. */
export function validatePodTemplate(template: unknown, path: string, old?: unknown): FieldError[] {
  return validatePodTemplateSpec(isObj(template) ? template : {}, path, { oldTemplate: old });
}

export const templateLabels = (template: unknown): Obj | undefined =>
  isObj(template) && isObj(template.metadata) && isObj(template.metadata.labels) ? template.metadata.labels : undefined;

/** The "`selector` does not match template `labels`" check, for a non-empty selector. */
export function selectorMatchesTemplate(selector: Selector, template: unknown, path: string): FieldError[] {
  if (selector.empty) return [];
  const labels = templateLabels(template);
  return selector.matches(labels as Record<string, string> | undefined) ? []
    : [field.invalid(`${path}.metadata.labels`, goStringMap(labels), '`selector` does not match template `labels`')];
}

/** The controllers' restartPolicy Always and no activeDeadlineSeconds, for `kind` in the message. */
export function alwaysRestartNoDeadline(template: unknown, path: string, kind: string): FieldError[] {
  const spec: Obj = isObj(template) && isObj(template.spec) ? template.spec : {};
  const errs: FieldError[] = [];
  if (str(spec.restartPolicy) !== 'Always') errs.push(field.notSupported(`${path}.spec.restartPolicy`, str(spec.restartPolicy), ['Always']));
  if (spec.activeDeadlineSeconds != null) {
    errs.push(field.forbidden(`${path}.spec.activeDeadlineSeconds`, `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}
