/**
 * HorizontalPodAutoscaler validation as v1.32's pkg/apis/autoscaling/validation
 * (ValidateHorizontalPodAutoscaler, ValidateHorizontalPodAutoscalerUpdate
 * and the metric, target and behavior checks), on the autoscaling/v2 form
 * (what upstream's internal type is). HPAScaleToZero is alpha (off) in
 * v1.32: minReplicas must be at least 1, unless the old object had 0.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { cmpQuantity, formatQuantity, parseQuantity } from '../apimachinery/quantity.js';
import {
  arr, dns1123Label, isObj, isValidPathSegmentName, metaCreate, metaUpdate, nameIsDNSSubdomain, num, raw, str, type Obj, withStatus,
} from './common.js';
import { quantityOf, validateContainerResourceName } from './resources.js';

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const ZERO = parseQuantity('0');

/** ValidateCrossVersionObjectReference */
function validateCrossVersionObjectReference(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['kind', 'name']) {
    const v = str(ref[k]);
    if (!v) errs.push(field.required(`${path}.${k}`));
    else for (const m of isValidPathSegmentName(v)) errs.push(field.invalid(`${path}.${k}`, v, m));
  }
  return errs;
}

function validateMetricIdentifier(id: Obj, path: string): FieldError[] {
  const name = str(id.name);
  if (!name) return [field.required(`${path}.name`, 'must specify a metric name')];
  return isValidPathSegmentName(name).map((m) => field.invalid(`${path}.name`, name, m));
}

/** A quantity's sign for Sign() != 1 (unparseable ones were refused at decode). */
function positive(v: unknown): boolean {
  const q = quantityOf(v);
  return !!q && cmpQuantity(q, ZERO) > 0;
}

function validateMetricTarget(mt: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(mt.type);
  if (!type) errs.push(field.required(`${path}.type`, 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) {
    errs.push(field.invalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  }
  for (const k of ['value', 'averageValue']) {
    if (mt[k] != null && !positive(mt[k])) {
      const q = quantityOf(mt[k]);
      errs.push(field.invalid(`${path}.${k}`, raw(q ? formatQuantity(q) : str(mt[k])), 'must be positive'));
    }
  }
  if (mt.averageUtilization != null && num(mt.averageUtilization) < 1) {
    errs.push(field.invalid(`${path}.averageUtilization`, num(mt.averageUtilization), 'must be greater than 0'));
  }
  return errs;
}

function validateSource(kind: string, src: Obj, path: string): FieldError[] {
  const target: Obj = isObj(src.target) ? src.target : {};
  const tp = `${path}.target`;
  const errs: FieldError[] = [];
  switch (kind) {
    case 'object':
      errs.push(...validateCrossVersionObjectReference(isObj(src.describedObject) ? src.describedObject : {}, `${path}.describedObject`));
      errs.push(...validateMetricIdentifier(isObj(src.metric) ? src.metric : {}, `${path}.metric`), ...validateMetricTarget(target, tp));
      if (target.value == null && target.averageValue == null) {
        errs.push(field.required(`${tp}.averageValue`, 'must set either a target value or averageValue'));
      }
      break;
    case 'external':
      errs.push(...validateMetricIdentifier(isObj(src.metric) ? src.metric : {}, `${path}.metric`), ...validateMetricTarget(target, tp));
      if (target.value == null && target.averageValue == null) {
        errs.push(field.required(`${tp}.averageValue`, 'must set either a target value for metric or a per-pod target'));
      }
      if (target.value != null && target.averageValue != null) {
        errs.push(field.forbidden(`${tp}.value`, 'may not set both a target value for metric and a per-pod target'));
      }
      break;
    case 'pods':
      errs.push(...validateMetricIdentifier(isObj(src.metric) ? src.metric : {}, `${path}.metric`), ...validateMetricTarget(target, tp));
      if (target.averageValue == null) errs.push(field.required(`${tp}.averageValue`, 'must specify a positive target averageValue'));
      break;
    case 'resource':
    case 'containerResource': {
      const name = str(src.name);
      if (!name) errs.push(field.required(`${path}.name`, 'must specify a resource name'));
      else if (kind === 'containerResource') errs.push(...validateContainerResourceName(name, `${path}.name`));
      if (kind === 'containerResource') {
        const c = str(src.container);
        if (!c) errs.push(field.required(`${path}.container`, 'must specify a container'));
        else errs.push(...dns1123Label(c, `${path}.container`));
      }
      errs.push(...validateMetricTarget(target, tp));
      if (target.averageUtilization == null && target.averageValue == null) {
        errs.push(field.required(`${tp}.averageUtilization`, 'must set either a target raw value or a target utilization'));
      }
      if (target.averageUtilization != null && target.averageValue != null) {
        errs.push(field.forbidden(`${tp}.averageValue`, 'may not set both a target raw value and a target utilization'));
      }
      break;
    }
  }
  return errs;
}

/** validateMetricSpec */
function validateMetricSpec(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if (!type) errs.push(field.required(`${path}.type`, 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) errs.push(field.notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  const present: string[] = [];
  for (const kind of ['object', 'external', 'pods', 'resource', 'containerResource']) {
    if (spec[kind] == null) continue;
    present.push(kind);
    if (present.length === 1) errs.push(...validateSource(kind, isObj(spec[kind]) ? spec[kind] : {}, `${path}.${kind}`));
  }
  const expected = ({ Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' } as Record<string, string>)[type];
  if (expected) {
    if (spec[expected] == null) errs.push(field.required(`${path}.${expected}`, 'must populate information for the given metric source'));
  } else {
    errs.push(field.notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  }
  if (present.length !== 1) {
    for (const kind of present) if (kind !== expected) errs.push(field.forbidden(`${path}.${kind}`, 'must populate the given metric source only'));
  }
  return errs;
}

function validateScalingRules(rules: unknown, path: string): FieldError[] {
  if (!isObj(rules)) return [];
  const errs: FieldError[] = [];
  const w = rules.stabilizationWindowSeconds;
  if (w != null && w < 0) errs.push(field.invalid(`${path}.stabilizationWindowSeconds`, w, 'must be greater than or equal to zero'));
  if (w != null && w > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(field.invalid(`${path}.stabilizationWindowSeconds`, w, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  }
  if (rules.selectPolicy != null && !SELECT_POLICIES.includes(str(rules.selectPolicy))) {
    errs.push(field.notSupported(`${path}.selectPolicy`, str(rules.selectPolicy), SELECT_POLICIES));
  }
  const policies = arr<Obj>(rules.policies);
  if (!policies.length) errs.push(field.required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((p0, i) => {
    const p: Obj = isObj(p0) ? p0 : {};
    const pp = `${path}.policies[${i}]`;
    if (!POLICY_TYPES.includes(str(p.type))) errs.push(field.notSupported(`${pp}.type`, str(p.type), POLICY_TYPES));
    if (num(p.value) <= 0) errs.push(field.invalid(`${pp}.value`, num(p.value), 'must be greater than zero'));
    if (num(p.periodSeconds) <= 0) errs.push(field.invalid(`${pp}.periodSeconds`, num(p.periodSeconds), 'must be greater than zero'));
    if (num(p.periodSeconds) > MAX_PERIOD_SECONDS) {
      errs.push(field.invalid(`${pp}.periodSeconds`, num(p.periodSeconds), `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
    }
  });
  return errs;
}

/** validateHorizontalPodAutoscalerSpec */
function validateSpec(hpa: Obj, minReplicasLowerBound: number): FieldError[] {
  const spec: Obj = isObj(hpa.spec) ? hpa.spec : {};
  const errs: FieldError[] = [];
  const min = spec.minReplicas;
  const max = num(spec.maxReplicas);
  if (min != null && min < minReplicasLowerBound) {
    errs.push(field.invalid('spec.minReplicas', min, `must be greater than or equal to ${minReplicasLowerBound}`));
  }
  if (max < 1) errs.push(field.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (min != null && max < min) errs.push(field.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(isObj(spec.scaleTargetRef) ? spec.scaleTargetRef : {}, 'spec.scaleTargetRef'));
  const metrics = arr<Obj>(spec.metrics);
  metrics.forEach((m, i) => errs.push(...validateMetricSpec(isObj(m) ? m : {}, `spec.metrics[${i}]`)));
  if (min === 0 && !metrics.some((m) => m?.type === 'Object' || m?.type === 'External')) {
    errs.push(field.forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  if (isObj(spec.behavior)) {
    errs.push(...validateScalingRules(spec.behavior.scaleUp, 'spec.behavior.scaleUp'));
    errs.push(...validateScalingRules(spec.behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  return errs;
}

/** On the autoscaling/v2 form of the object. */
export const horizontalPodAutoscalerValidation = withStatus({
  validate: (hpa: Obj) => [...metaCreate(hpa, true, nameIsDNSSubdomain), ...validateSpec(hpa, 1)],
  validateUpdate: (hpa: Obj, old: Obj) => [...metaUpdate(hpa, old), ...validateSpec(hpa, old.spec?.minReplicas === 0 ? 0 : 1)],
});
