/**
 * ObjectMeta validation for the non-core groups: the shared checks in
 * core/meta-validation.ts, with the name function and update mode each
 * group's strategy uses, and the few extra metadata checks some kinds add.
 * Spec validation is not here.
 */
import type { FieldError } from '../../apimachinery/field-errors.js';
import {
  nameIsDNSLabel, nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate, type NameFn,
} from '../../validation/object-meta.js';
import type { KObject } from '../../apimachinery/object.js';

export { nameIsDNSLabel, nameIsDNSSubdomain, type NameFn };

/** path.ValidatePathSegmentName: the generic store's name check, all a kind without its own name rule gets. */
export const pathSegmentName: NameFn = (name, prefix) => {
  if (!prefix) for (const bad of ['.', '..']) if (name === bad) return [`may not be '${bad}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
};

export interface GroupMetaRules {
  namespaced: boolean;
  /** The name function the strategy passes to ValidateObjectMeta. */
  name: NameFn;
  /**
   * What the strategy's ValidateUpdate runs on metadata: 'update' (only
   * ValidateObjectMetaUpdate, most kinds), 'both' (the create validation,
   * then ValidateObjectMetaUpdate: DaemonSet, StatefulSet, ReplicaSet, Job)
   * or 'create' (only the create validation: EndpointSlice).
   */
  onUpdate?: 'update' | 'both' | 'create';
  /** Metadata checks of the kind's create validation (CronJob name length, reserved PriorityClass names). */
  extra?(obj: any): FieldError[];
}

/** validate/validateUpdate for a ResourceDef, in the order the kind's strategy reports errors. */
export function metaValidation(rules: GroupMetaRules): {
  validate(obj: KObject): FieldError[];
  validateUpdate(obj: KObject, old: KObject): FieldError[];
} {
  const meta = { namespaced: rules.namespaced, nameFn: rules.name };
  const mode = rules.onUpdate ?? 'update';
  return {
    validate: (obj) => [...validateObjectMeta(obj.metadata ?? {}, meta), ...(rules.extra?.(obj) ?? [])],
    validateUpdate(obj, old) {
      const errs = mode === 'update' ? [] : validateObjectMeta(obj.metadata ?? {}, meta);
      if (mode !== 'create') errs.push(...validateObjectMetaUpdate(obj.metadata ?? {}, old.metadata ?? {}));
      return errs;
    },
  };
}

/**
 * The generic store's own ObjectMeta checks (rest.BeforeCreate after a
 * clean strategy.Validate; validateCommonFields in rest.BeforeUpdate), for
 * kinds whose strategy validates no metadata at all (PodDisruptionBudget).
 */
export function validateGenericMeta(obj: KObject, namespaced: boolean): FieldError[] {
  return validateObjectMeta(obj.metadata ?? {}, { namespaced, nameFn: pathSegmentName });
}

/** validateCommonFields of rest.BeforeUpdate: the generic create checks, then ValidateObjectMetaUpdate. */
export function validateGenericMetaUpdate(obj: KObject, old: KObject, namespaced: boolean): FieldError[] {
  return [...validateGenericMeta(obj, namespaced), ...validateObjectMetaUpdate(obj.metadata ?? {}, old.metadata ?? {})];
}
