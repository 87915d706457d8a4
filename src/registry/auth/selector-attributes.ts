/**
 * The field and label selectors of an access review's resourceAttributes
 * (AuthorizeWithSelectors, beta and on in v1.32): their validation
 * (pkg/apis/authorization/validation validateFieldSelectorAttributes,
 * validateLabelSelectorAttributes) and the field requirements the
 * authorizers see (pkg/registry/authorization/util ResourceAttributesFrom,
 * fieldSelectorAsSelector). A selector that does not parse, or requirements
 * the conversion refuses, leave the authorizers without them, as upstream's
 * ignore the parsing error. Label requirements are validated only: no
 * authorizer here decides by labels.
 */
import { field, type FieldError } from '../../apimachinery/field-errors.js';
import type { FieldRequirement } from '../../authorization/types.js';
import { parseFieldSelector } from '../../selectors/fields.js';
import { isValidLabelValue } from '../../meta/names.js';
import { qualifiedName } from '../../validation/common.js';

export interface SelectorRequirement { key?: string; operator?: string; values?: string[] }
export interface SelectorAttributes { rawSelector?: string; requirements?: SelectorRequirement[] }

/** Both selector kinds: one of rawSelector and requirements, not both. */
function validateSelector(sel: SelectorAttributes, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const raw = sel.rawSelector ?? '';
  const requirements = sel.requirements ?? [];
  if (raw && requirements.length) errs.push(field.invalid(`${path}.rawSelector`, raw, 'may not specified at the same time as requirements'));
  if (!raw && !requirements.length) errs.push(field.required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  return errs;
}

/** The operator's rules on values, shared by field and label requirements; unknown operators are allowed (a newer client's). */
function operatorErrors(r: SelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = r.values ?? [];
  if ((r.operator === 'In' || r.operator === 'NotIn') && !values.length) {
    errs.push(field.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
  }
  if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && values.length) {
    errs.push(field.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  }
  return errs;
}

/** metav1validation.ValidateFieldSelectorRequirement */
function validateFieldRequirement(r: SelectorRequirement, path: string): FieldError[] {
  return [...(r.key ? [] : [field.required(`${path}.key`, 'must be specified')]), ...operatorErrors(r, path)];
}

/** metav1validation.ValidateLabelSelectorRequirement: the operator, then the key and values as label parts. */
function validateLabelRequirement(r: SelectorRequirement, path: string): FieldError[] {
  const errs = operatorErrors(r, path);
  errs.push(...qualifiedName(r.key ?? '', `${path}.key`));
  (r.values ?? []).forEach((v, i) => { for (const m of isValidLabelValue(v)) errs.push(field.invalid(`${path}.values[${i}]`, v, m)); });
  return errs;
}

/** validateResourceAttributes: the field selector, then the label selector. */
export function validateSelectorAttributes(attrs: { fieldSelector?: SelectorAttributes; labelSelector?: SelectorAttributes } | undefined,
  path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (attrs?.fieldSelector) {
    const p = `${path}.fieldSelector`;
    errs.push(...validateSelector(attrs.fieldSelector, p));
    (attrs.fieldSelector.requirements ?? []).forEach((r, i) => errs.push(...validateFieldRequirement(r, `${p}.requirements[${i}]`)));
  }
  if (attrs?.labelSelector) {
    const p = `${path}.labelSelector`;
    errs.push(...validateSelector(attrs.labelSelector, p));
    (attrs.labelSelector.requirements ?? []).forEach((r, i) => errs.push(...validateLabelRequirement(r, `${p}.requirements[${i}]`)));
  }
  return errs;
}

/** fieldSelectorAsSelector: In and NotIn of one value, as `=` and `!=`; anything else is left out. */
function fieldRequirements(requirements: SelectorRequirement[]): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const r of requirements) {
    if ((r.values ?? []).length !== 1 || (r.operator !== 'In' && r.operator !== 'NotIn')) continue;
    out.push({ field: r.key ?? '', value: r.values![0]!, negate: r.operator === 'NotIn' });
  }
  return out;
}

/** The field requirements an access review asks about; undefined without a (parsable) selector. */
export function fieldSelectorOf(sel: SelectorAttributes | undefined): FieldRequirement[] | undefined {
  if (!sel) return undefined;
  if (sel.requirements?.length) return fieldRequirements(sel.requirements);
  if (!sel.rawSelector) return undefined;
  try {
    return parseFieldSelector(sel.rawSelector).terms;
  } catch {
    return undefined;
  }
}
