/**
 * DaemonSet validation as v1.32's pkg/apis/apps/validation
 * (ValidateDaemonSet, ValidateDaemonSetSpec, ValidateDaemonSetUpdateStrategy,
 * ValidateRollingUpdateDaemonSet, ValidateDaemonSetSpecUpdate) and the
 * daemonset strategy: an update runs ValidateDaemonSet,
 * ValidateDaemonSetUpdate, then the apps/v1 selector immutability check.
 * apps/v1 carries the internal spec.templateGeneration in an annotation.
 */
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import {
  deepEqual, intOrPercentValue, intOrStringValue, isNotMoreThan100Percent, isObj, labelSelectorAsSelector,
  labelSelectorHasInvalidLabelValue, labelSelectorString, metaCreate, metaUpdate, nameIsDNSSubdomain, nonNegative, num, raw, str,
  validateLabelSelector, validatePositiveIntOrPercent, type Obj, withStatus,
} from './common.js';
import { alwaysRestartNoDeadline, selectorMatchesTemplate, validatePodTemplate } from './pod-template.js';
import { selectorImmutable, specOf } from './replicaset.js';

const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

function templateGeneration(ds: Obj): number {
  const n = Number.parseInt(str(ds.metadata?.annotations?.[TEMPLATE_GENERATION]), 10);
  return Number.isNaN(n) ? 0 : n;
}

/** ValidateRollingUpdateDaemonSet */
function validateRollingUpdateDaemonSet(ru: Obj, path: string): FieldError[] {
  const errs = [
    ...validatePositiveIntOrPercent(ru.maxUnavailable, `${path}.maxUnavailable`),
    ...validatePositiveIntOrPercent(ru.maxSurge, `${path}.maxSurge`),
    ...isNotMoreThan100Percent(ru.maxUnavailable, `${path}.maxUnavailable`),
    ...isNotMoreThan100Percent(ru.maxSurge, `${path}.maxSurge`),
  ];
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge) {
    errs.push(field.invalid(`${path}.maxSurge`, intOrStringValue(ru.maxSurge), 'may not be set when maxUnavailable is non-zero'));
  } else if (!hasUnavailable && !hasSurge) {
    errs.push(field.required(`${path}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  }
  return errs;
}

/** ValidateDaemonSetUpdateStrategy */
function validateDaemonSetUpdateStrategy(us: Obj, path: string): FieldError[] {
  switch (us.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate':
      return us.rollingUpdate == null ? [field.required(`${path}.rollingUpdate`)]
        : validateRollingUpdateDaemonSet(isObj(us.rollingUpdate) ? us.rollingUpdate : {}, `${path}.rollingUpdate`);
    default: {
      const ptr = us.rollingUpdate == null ? '(*apps.RollingUpdateDaemonSet)(nil)' : '(*apps.RollingUpdateDaemonSet)(0xc000000000)';
      return [field.notSupported(path, raw(`apps.DaemonSetUpdateStrategy{Type:${goQuote(str(us.type))}, RollingUpdate:${ptr}}`),
        ['RollingUpdate', 'OnDelete'])];
    }
  }
}

/** ValidateDaemonSetSpec */
function validateDaemonSetSpec(ds: Obj, old?: Obj): FieldError[] {
  const spec = specOf(ds);
  const allowInvalid = old ? labelSelectorHasInvalidLabelValue(specOf(old).selector) : false;
  const errs = validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector: allowInvalid }, 'spec.selector');
  const selector = labelSelectorAsSelector(spec.selector);
  if (selector) errs.push(...selectorMatchesTemplate({ ...selector, empty: false }, spec.template, 'spec.template'));
  const sel = spec.selector;
  if (isObj(sel) && Object.keys(isObj(sel.matchLabels) ? sel.matchLabels : {}).length + (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0) === 0) {
    errs.push(field.invalid('spec.selector', labelSelectorString(sel), 'empty selector is invalid for daemonset'));
  }
  errs.push(...validatePodTemplate(spec.template, 'spec.template', old ? specOf(old).template : undefined));
  errs.push(...alwaysRestartNoDeadline(spec.template, 'spec.template', 'DaemonSet'));
  errs.push(...nonNegative(num(spec.minReadySeconds), 'spec.minReadySeconds'));
  errs.push(...nonNegative(templateGeneration(ds), 'spec.templateGeneration'));
  errs.push(...validateDaemonSetUpdateStrategy(isObj(spec.updateStrategy) ? spec.updateStrategy : {}, 'spec.updateStrategy'));
  if (spec.revisionHistoryLimit != null) errs.push(...nonNegative(num(spec.revisionHistoryLimit), 'spec.revisionHistoryLimit'));
  return errs;
}

/** ValidateDaemonSetSpecUpdate: templateGeneration moves with the template. */
function validateDaemonSetSpecUpdate(ds: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const gen = templateGeneration(ds);
  const oldGen = templateGeneration(old);
  if (gen < oldGen) errs.push(field.invalid('spec.templateGeneration', gen, 'must not be decremented'));
  const updated = !deepEqual(specOf(ds).template, specOf(old).template);
  if (gen === oldGen && updated) errs.push(field.invalid('spec.templateGeneration', gen, 'must be incremented upon template update'));
  else if (gen > oldGen && !updated) errs.push(field.invalid('spec.templateGeneration', gen, 'must not be incremented without template update'));
  return errs;
}

export const daemonSetValidation = withStatus({
  validate: (ds: Obj) => [...metaCreate(ds, true, nameIsDNSSubdomain), ...validateDaemonSetSpec(ds)],
  validateUpdate: (ds: Obj, old: Obj) => [
    ...metaCreate(ds, true, nameIsDNSSubdomain), ...validateDaemonSetSpec(ds, old),
    ...metaUpdate(ds, old), ...validateDaemonSetSpecUpdate(ds, old), ...validateDaemonSetSpec(ds, old),
    ...selectorImmutable(ds, old),
  ],
});
