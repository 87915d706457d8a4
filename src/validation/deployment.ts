/**
 * Deployment validation as v1.32's pkg/apis/apps/validation
 * (ValidateDeployment, ValidateDeploymentSpec, ValidateDeploymentStrategy,
 * ValidateRollingUpdateDeployment) and the deployment strategy: an update
 * runs ValidateDeploymentUpdate, then the apps/v1 selector immutability check.
 */
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import {
  intOrPercentValue, intOrStringValue, isNotMoreThan100Percent, isObj, metaCreate, metaUpdate, nameIsDNSSubdomain, nonNegative, num,
  raw, str, validatePositiveIntOrPercent, type Obj, withStatus,
} from './common.js';
import { selectorImmutable, specOf, validatePodTemplateForReplicaSet, validateWorkloadSelector } from './replicaset.js';

/** appsv1.DeprecatedRollbackTo: the internal spec.rollbackTo, carried in an annotation. */
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';

/** ValidateRollingUpdateDeployment */
function validateRollingUpdateDeployment(ru: Obj, path: string): FieldError[] {
  const errs = [
    ...validatePositiveIntOrPercent(ru.maxUnavailable, `${path}.maxUnavailable`),
    ...validatePositiveIntOrPercent(ru.maxSurge, `${path}.maxSurge`),
  ];
  if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
    errs.push(field.invalid(`${path}.maxUnavailable`, intOrStringValue(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
  }
  errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, `${path}.maxUnavailable`));
  return errs;
}

/** ValidateDeploymentStrategy */
function validateDeploymentStrategy(strategy: Obj, path: string): FieldError[] {
  const ru = strategy.rollingUpdate;
  switch (strategy.type) {
    case 'Recreate':
      return ru != null ? [field.forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")] : [];
    case 'RollingUpdate':
      return ru == null ? [field.required(`${path}.rollingUpdate`, 'this should be defaulted and never be nil')]
        : validateRollingUpdateDeployment(isObj(ru) ? ru : {}, `${path}.rollingUpdate`);
    default: {
      const ptr = ru == null ? '(*apps.RollingUpdateDeployment)(nil)' : '(*apps.RollingUpdateDeployment)(0xc000000000)';
      return [field.notSupported(path, raw(`apps.DeploymentStrategy{Type:${goQuote(str(strategy.type))}, RollingUpdate:${ptr}}`),
        ['Recreate', 'RollingUpdate'])];
    }
  }
}

/** ValidateDeploymentSpec */
function validateDeploymentSpec(d: Obj, old?: Obj): FieldError[] {
  const spec = specOf(d);
  const errs = nonNegative(num(spec.replicas), 'spec.replicas');
  const { errs: selErrs, selector } = validateWorkloadSelector(spec, false);
  errs.push(...selErrs);
  if (selector) errs.push(...validatePodTemplateForReplicaSet(spec.template, selector, 'spec.template', 'ReplicaSet', old ? specOf(old).template : undefined));
  errs.push(...validateDeploymentStrategy(isObj(spec.strategy) ? spec.strategy : {}, 'spec.strategy'));
  errs.push(...nonNegative(num(spec.minReadySeconds), 'spec.minReadySeconds'));
  if (spec.revisionHistoryLimit != null) errs.push(...nonNegative(num(spec.revisionHistoryLimit), 'spec.revisionHistoryLimit'));
  const rollback = str(d.metadata?.annotations?.[ROLLBACK_TO]);
  if (/^[+-]?\d+$/.test(rollback)) errs.push(...nonNegative(Number.parseInt(rollback, 10), 'spec.rollback.version'));
  if (spec.progressDeadlineSeconds != null) {
    const pds = num(spec.progressDeadlineSeconds);
    errs.push(...nonNegative(pds, 'spec.progressDeadlineSeconds'));
    if (pds <= num(spec.minReadySeconds)) errs.push(field.invalid('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

export const deploymentValidation = withStatus({
  validate: (d: Obj) => [...metaCreate(d, true, nameIsDNSSubdomain), ...validateDeploymentSpec(d)],
  validateUpdate: (d: Obj, old: Obj) => [...metaUpdate(d, old), ...validateDeploymentSpec(d, old), ...selectorImmutable(d, old)],
});
