/**
 * StatefulSet validation as v1.32's pkg/apis/apps/validation
 * (ValidateStatefulSet, ValidateStatefulSetSpec,
 * ValidatePodTemplateSpecForStatefulSet, ValidateStatefulSetUpdate). The pod
 * template's spec is NOT validated in v1.32 (only its labels and
 * annotations); that came with kubernetes/kubernetes#131790 (v1.34).
 * The strategy's ValidateUpdate runs ValidateStatefulSetUpdate alone, so the
 * name (a DNS label since v1.27) is only checked on create.
 */
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import { validateAnnotations } from './object-meta.js';
import {
  deepEqual, intOrPercentValue, intOrStringValue, isNotMoreThan100Percent, isObj, labelSelectorAsSelector, labelSelectorString,
  metaCreate, metaUpdate, nameIsDNSLabel, nonNegative, num, raw, str, validateLabels, validateLabelSelector,
  validatePositiveIntOrPercent, type Obj, withStatus,
} from './common.js';
import { alwaysRestartNoDeadline, selectorMatchesTemplate } from './pod-template.js';
import { podTemplateValidationOptions, validatePodSpecificAnnotations } from './pod-spec.js';
import { specOf } from './replicaset.js';

const RETENTION = ['Retain', 'Delete'];

/** validateRollingUpdateStatefulSet */
function validateRollingUpdateStatefulSet(ru: Obj, path: string): FieldError[] {
  const errs = nonNegative(num(ru.partition), `${path}.partition`);
  if (ru.maxUnavailable != null) {
    const p = `${path}.maxUnavailable`;
    errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, p));
    if (intOrPercentValue(ru.maxUnavailable) === 0) errs.push(field.invalid(p, intOrStringValue(ru.maxUnavailable), 'cannot be 0'));
    errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, p));
  }
  return errs;
}

/** %#v of a *apps.RollingUpdateStatefulSetStrategy's target. */
function goRollingUpdate(ru: Obj): string {
  const mu = ru.maxUnavailable == null ? '(*intstr.IntOrString)(nil)' : '(*intstr.IntOrString)(0xc000000000)';
  return `apps.RollingUpdateStatefulSetStrategy{Partition:${num(ru.partition)}, MaxUnavailable:${mu}}`;
}

/** ValidateStatefulSetSpec */
function validateStatefulSetSpec(sts: Obj, oldTemplate?: unknown): FieldError[] {
  const spec = specOf(sts);
  const errs: FieldError[] = [];
  const pmp = str(spec.podManagementPolicy);
  if (!pmp) errs.push(field.required('spec.podManagementPolicy'));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') {
    errs.push(field.invalid('spec.podManagementPolicy', pmp, "must be 'OrderedReady' or 'Parallel'"));
  }
  const us: Obj = isObj(spec.updateStrategy) ? spec.updateStrategy : {};
  const ru = us.rollingUpdate;
  switch (str(us.type)) {
    case '':
      errs.push(field.required('spec.updateStrategy'));
      break;
    case 'OnDelete':
      if (ru != null) {
        errs.push(field.invalid('spec.updateStrategy.rollingUpdate', raw(goRollingUpdate(isObj(ru) ? ru : {})),
          "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case 'RollingUpdate':
      if (ru != null) errs.push(...validateRollingUpdateStatefulSet(isObj(ru) ? ru : {}, 'spec.updateStrategy.rollingUpdate'));
      break;
    default: {
      const ptr = ru == null ? '(*apps.RollingUpdateStatefulSetStrategy)(nil)' : '(*apps.RollingUpdateStatefulSetStrategy)(0xc000000000)';
      errs.push(field.invalid('spec.updateStrategy', raw(`apps.StatefulSetUpdateStrategy{Type:${goQuote(str(us.type))}, RollingUpdate:${ptr}}`),
        "must be 'RollingUpdate' or 'OnDelete'"));
    }
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (isObj(retention)) {
    for (const k of ['whenDeleted', 'whenScaled']) {
      if (!RETENTION.includes(str(retention[k]))) {
        errs.push(field.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${k}`, str(retention[k]), RETENTION));
      }
    }
  }
  errs.push(...nonNegative(num(spec.replicas), 'spec.replicas'), ...nonNegative(num(spec.minReadySeconds), 'spec.minReadySeconds'));
  if (isObj(spec.ordinals)) errs.push(...nonNegative(num(spec.ordinals.start), 'spec.ordinals.start'));
  const sel = spec.selector;
  if (sel == null) errs.push(field.required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(sel, { allowInvalidLabelValueInSelector: false }, 'spec.selector'));
    if (Object.keys(isObj(sel.matchLabels) ? sel.matchLabels : {}).length + (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0) === 0) {
      errs.push(field.invalid('spec.selector', labelSelectorString(sel), 'empty selector is invalid for statefulset'));
    }
  }
  const selector = labelSelectorAsSelector(sel);
  if (!selector) errs.push(field.invalid('spec.selector', labelSelectorString(sel), ''));
  else {
    // ValidatePodTemplateSpecForStatefulSet: no pod spec validation in v1.32.
    const t: Obj = isObj(spec.template) ? spec.template : {};
    errs.push(...selectorMatchesTemplate(selector, t, 'spec.template'));
    errs.push(...validateLabels(t.metadata?.labels, 'spec.template.labels'));
    errs.push(...validateAnnotations(t.metadata?.annotations, 'spec.template.annotations'));
    errs.push(...validatePodSpecificAnnotations(t.metadata?.annotations, isObj(t.spec) ? t.spec : {}, 'spec.template.annotations',
      podTemplateValidationOptions(t, oldTemplate)));
  }
  errs.push(...alwaysRestartNoDeadline(spec.template, 'spec.template', 'StatefulSet'));
  return errs;
}

const MUTABLE = ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'ordinals', 'persistentVolumeClaimRetentionPolicy'];

/** ValidateStatefulSetUpdate */
function validateStatefulSetUpdate(sts: Obj, old: Obj): FieldError[] {
  const errs = [...metaUpdate(sts, old), ...validateStatefulSetSpec(sts, specOf(old).template)];
  const clone: Obj = { ...specOf(sts) };
  const oldSpec = specOf(old);
  for (const k of MUTABLE) { if (k in oldSpec) clone[k] = oldSpec[k]; else delete clone[k]; }
  if (!deepEqual(clone, oldSpec)) {
    errs.push(field.forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', " +
      "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  }
  return errs;
}

export const statefulSetValidation = withStatus({
  validate: (sts: Obj) => [...metaCreate(sts, true, nameIsDNSLabel), ...validateStatefulSetSpec(sts)],
  validateUpdate: validateStatefulSetUpdate,
});
