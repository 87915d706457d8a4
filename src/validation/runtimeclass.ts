/**
 * RuntimeClass validation as v1.32's pkg/apis/node/validation: ObjectMeta,
 * handler a DNS label, overhead as container limits, scheduling node
 * selector labels and tolerations; handler immutable on update. The
 * strategy's ValidateUpdate runs ValidateRuntimeClass, then ValidateRuntimeClassUpdate.
 */
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import {
  arr, immutableScalar, isObj, metaCreate, metaUpdate, nameIsDNSLabel, nameIsDNSSubdomain, raw, str, validateLabels, type Obj,
} from './common.js';
import { validateResourceRequirements } from './container.js';
import { validateTolerations } from './scheduling.js';

/** node's validateTolerations: the pod rules, then no two tolerations with the same key, operator, value and effect. */
function validateSchedulingTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs = validateTolerations(tolerations, path);
  const seen = new Set<string>();
  arr<Obj>(tolerations).forEach((t0, i) => {
    const t: Obj = isObj(t0) ? t0 : {};
    const listKey = JSON.stringify([str(t.key), str(t.operator), str(t.value), str(t.effect)]);
    if (seen.has(listKey)) {
      const secs = t.tolerationSeconds == null ? '(*int64)(nil)' : '(*int64)(0xc000000000)';
      errs.push(field.duplicate(`${path}[${i}]`, raw(`core.Toleration{Key:${goQuote(str(t.key))}, Operator:${goQuote(str(t.operator))}, ` +
        `Value:${goQuote(str(t.value))}, Effect:${goQuote(str(t.effect))}, TolerationSeconds:${secs}}`)));
    } else {
      seen.add(listKey);
    }
  });
  return errs;
}

/** ValidateRuntimeClass */
export function validateRuntimeClass(rc: Obj): FieldError[] {
  const errs = metaCreate(rc, false, nameIsDNSSubdomain);
  const handler = str(rc.handler);
  for (const m of nameIsDNSLabel(handler, false)) errs.push(field.invalid('handler', handler, m));
  // validateOverhead reuses the container requirements check on limits only.
  if (isObj(rc.overhead)) errs.push(...validateResourceRequirements({ limits: rc.overhead.podFixed }, new Set(), 'overhead', {}));
  if (isObj(rc.scheduling)) {
    if (rc.scheduling.nodeSelector != null) errs.push(...validateLabels(rc.scheduling.nodeSelector, 'scheduling.nodeSelector'));
    errs.push(...validateSchedulingTolerations(rc.scheduling.tolerations, 'scheduling.tolerations'));
  }
  return errs;
}

export const runtimeClassValidation = {
  validate: (rc: Obj) => validateRuntimeClass(rc),
  validateUpdate: (rc: Obj, old: Obj) => [
    ...validateRuntimeClass(rc), ...metaUpdate(rc, old), ...immutableScalar(str(rc.handler), str(old.handler), 'handler'),
  ],
};
