/**
 * rbac.authorization.k8s.io validation as v1.32's pkg/apis/rbac/validation
 * (validation.go): ValidateRole, ValidateClusterRole (with its
 * aggregationRule), ValidateRoleBinding, ValidateClusterRoleBinding and
 * their Update variants, ValidatePolicyRule, ValidateRoleBindingSubject.
 */
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import {
  arr, goStrings, isObj, labelSelectorAsSelector, metaCreate, metaUpdate, nameIsDNSSubdomain, str, validateLabelSelector,
  isValidPathSegmentName, type Obj,
} from './common.js';
import type { NameFn } from './object-meta.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** ValidateRBACName: path.IsValidPathSegmentName whether or not the name is a generateName prefix. */
export const validateRBACName: NameFn = (name) => isValidPathSegmentName(name);

/** ValidatePolicyRule */
export function validatePolicyRule(rule: Obj, isNamespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!arr(rule.verbs).length) errs.push(field.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = arr(rule.nonResourceURLs);
  if (urls.length) {
    if (isNamespaced) {
      errs.push(field.invalid(`${path}.nonResourceURLs`, goStrings(urls), 'namespaced rules cannot apply to non-resource URLs'));
    }
    if (arr(rule.apiGroups).length || arr(rule.resources).length || arr(rule.resourceNames).length) {
      errs.push(field.invalid(`${path}.nonResourceURLs`, goStrings(urls), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!arr(rule.apiGroups).length) errs.push(field.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (!arr(rule.resources).length) errs.push(field.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(obj: Obj, isNamespaced: boolean): FieldError[] {
  return arr<Obj>(obj.rules).flatMap((r, i) => validatePolicyRule(isObj(r) ? r : {}, isNamespaced, `rules[${i}]`));
}

/** ValidateRole */
export function validateRole(role: Obj): FieldError[] {
  return [...metaCreate(role, true, validateRBACName), ...validateRules(role, true)];
}

/** ValidateRoleUpdate */
export function validateRoleUpdate(role: Obj, old: Obj): FieldError[] {
  return [...validateRole(role), ...metaUpdate(role, old)];
}

export interface ClusterRoleValidationOptions { allowInvalidLabelValueInSelector: boolean }

/** ValidateClusterRole */
export function validateClusterRole(role: Obj, opts: ClusterRoleValidationOptions): FieldError[] {
  const errs = [...metaCreate(role, false, validateRBACName), ...validateRules(role, false)];
  const rule = role.aggregationRule;
  if (rule != null) {
    const selectors = arr(isObj(rule) ? rule.clusterRoleSelectors : undefined);
    if (!selectors.length) {
      errs.push(field.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    }
    selectors.forEach((sel, i) => {
      const path = `aggregationRule.clusterRoleSelectors[${i}]`;
      errs.push(...validateLabelSelector(sel ?? {}, opts, path));
      // The Go code reports the (nil) labels.Selector the failed conversion returned.
      if (!labelSelectorAsSelector(sel ?? {})) errs.push(field.invalid(path, null, 'invalid label selector.'));
    });
  }
  return errs;
}

/** ValidateClusterRoleUpdate */
export function validateClusterRoleUpdate(role: Obj, old: Obj, opts: ClusterRoleValidationOptions): FieldError[] {
  return [...validateClusterRole(role, opts), ...metaUpdate(role, old)];
}

/**
 * The ClusterRole strategy's hasInvalidLabelValueInLabelSelector: an
 * aggregation selector stored before label values were checked may keep
 * its value on update.
 */
export function hasInvalidLabelValueInAggregationRule(role: Obj): boolean {
  const rule = role.aggregationRule;
  if (!isObj(rule)) return false;
  return arr(rule.clusterRoleSelectors).some((sel) =>
    validateLabelSelector(sel ?? {}, { allowInvalidLabelValueInSelector: false }, '').length > 0);
}

/** ValidateRoleBindingSubject */
export function validateRoleBindingSubject(subject: Obj, isNamespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(subject.name);
  const apiGroup = str(subject.apiGroup);
  if (!name) errs.push(field.required(`${path}.name`));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name) for (const m of nameIsDNSSubdomain(name, false)) errs.push(field.invalid(`${path}.name`, name, m));
      if (apiGroup) errs.push(field.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!isNamespaced && !str(subject.namespace)) errs.push(field.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(field.notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(field.notSupported(`${path}.kind`, str(subject.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/** The roleRef and subjects checks ValidateRoleBinding and ValidateClusterRoleBinding share. */
function validateBindingBody(binding: Obj, isNamespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref: Obj = isObj(binding.roleRef) ? binding.roleRef : {};
  const apiGroup = str(ref.apiGroup);
  if (apiGroup !== RBAC_GROUP) errs.push(field.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = isNamespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  const kind = str(ref.kind);
  if (!kinds.includes(kind)) errs.push(field.notSupported('roleRef.kind', kind, kinds));
  const name = str(ref.name);
  if (!name) errs.push(field.required('roleRef.name'));
  else for (const m of validateRBACName(name, false)) errs.push(field.invalid('roleRef.name', name, m));
  arr<Obj>(binding.subjects).forEach((s, i) => {
    errs.push(...validateRoleBindingSubject(isObj(s) ? s : {}, isNamespaced, `subjects[${i}]`));
  });
  return errs;
}

/** ValidateRoleBinding */
export function validateRoleBinding(binding: Obj): FieldError[] {
  return [...metaCreate(binding, true, validateRBACName), ...validateBindingBody(binding, true)];
}

/** ValidateClusterRoleBinding */
export function validateClusterRoleBinding(binding: Obj): FieldError[] {
  return [...metaCreate(binding, false, validateRBACName), ...validateBindingBody(binding, false)];
}

/** %#v of the internal rbac.RoleRef, the bad value of "cannot change roleRef". */
function roleRefGoSyntax(ref: unknown): { goSyntax: string } {
  const r: Obj = isObj(ref) ? ref : {};
  return { goSyntax: `rbac.RoleRef{APIGroup:${goQuote(str(r.apiGroup))}, Kind:${goQuote(str(r.kind))}, Name:${goQuote(str(r.name))}}` };
}

/** The roleRef immutability check of ValidateRoleBindingUpdate and ValidateClusterRoleBindingUpdate. */
function roleRefUnchanged(binding: Obj, old: Obj): FieldError[] {
  const a: Obj = isObj(binding.roleRef) ? binding.roleRef : {};
  const b: Obj = isObj(old.roleRef) ? old.roleRef : {};
  const same = ['apiGroup', 'kind', 'name'].every((k) => str(a[k]) === str(b[k]));
  return same ? [] : [field.invalid('roleRef', roleRefGoSyntax(binding.roleRef), 'cannot change roleRef')];
}

/** ValidateRoleBindingUpdate */
export function validateRoleBindingUpdate(binding: Obj, old: Obj): FieldError[] {
  return [...validateRoleBinding(binding), ...metaUpdate(binding, old), ...roleRefUnchanged(binding, old)];
}

/** ValidateClusterRoleBindingUpdate */
export function validateClusterRoleBindingUpdate(binding: Obj, old: Obj): FieldError[] {
  return [...validateClusterRoleBinding(binding), ...metaUpdate(binding, old), ...roleRefUnchanged(binding, old)];
}
