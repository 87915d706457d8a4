/**
 * IngressClass validation as v1.32's pkg/apis/networking/validation:
 * ValidateIngressClass and, on update, ValidateIngressClassUpdate (which
 * runs the create rules again after the immutable controller check).
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { validateTypedLocalObjectReference } from './ingress.js';
import { immutableScalar, isObj, metaCreate, metaUpdate, nameIsDNSLabel, nameIsDNSSubdomain, str, type Obj } from './common.js';
import { isDomainPrefixedPath } from './job.js';

const MAX_CONTROLLER_LENGTH = 250;
const SCOPES = ['Cluster', 'Namespace'];

/** validateIngressClassParametersReference */
function validateParameters(params: Obj, path: string): FieldError[] {
  const errs = validateTypedLocalObjectReference(params, path);
  if (params.scope == null) {
    errs.push(field.required(`${path}.scope`));
    return errs;
  }
  const scope = str(params.scope);
  if (!SCOPES.includes(scope)) {
    errs.push(field.notSupported(`${path}.scope`, scope, SCOPES));
    return errs;
  }
  if (scope === 'Namespace') {
    if (params.namespace == null) errs.push(field.required(`${path}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    else for (const m of nameIsDNSLabel(str(params.namespace), false)) errs.push(field.invalid(`${path}.namespace`, str(params.namespace), m));
  }
  if (scope === 'Cluster' && params.namespace != null) errs.push(field.forbidden(`${path}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  return errs;
}

/** validateIngressClassSpec */
function validateIngressClassSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const controller = str(spec.controller);
  if (controller.length > MAX_CONTROLLER_LENGTH) errs.push(field.tooLong('spec.controller', MAX_CONTROLLER_LENGTH));
  errs.push(...isDomainPrefixedPath('spec.controller', controller));
  if (spec.parameters != null) errs.push(...validateParameters(isObj(spec.parameters) ? spec.parameters : {}, 'spec.parameters'));
  return errs;
}

/** ValidateIngressClass */
export function validateIngressClass(ic: Obj): FieldError[] {
  return [...metaCreate(ic, false, nameIsDNSSubdomain), ...validateIngressClassSpec(isObj(ic.spec) ? ic.spec : {})];
}

/** ValidateIngressClassUpdate */
export function validateIngressClassUpdate(ic: Obj, old: Obj): FieldError[] {
  return [
    ...metaUpdate(ic, old),
    ...immutableScalar(str(ic.spec?.controller), str(old.spec?.controller), 'spec.controller'),
    ...validateIngressClass(ic),
  ];
}

export const ingressClassValidation = {
  validate: (ic: Obj) => validateIngressClass(ic),
  validateUpdate: (ic: Obj, old: Obj) => validateIngressClassUpdate(ic, old),
};
