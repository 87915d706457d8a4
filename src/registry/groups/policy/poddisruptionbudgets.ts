/** policy/v1 poddisruptionbudgets (pkg/registry/policy/poddisruptionbudget, policy/v1 conversion). */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { ResourceDef } from '../../types.js';
import { validateGenericMeta, validateGenericMetaUpdate } from '../meta.js';
import { podDisruptionBudgetSpecValidation as spec } from '../../../validation/poddisruptionbudget.js';
import { ALL_VERBS, keepStatus, statusSubresource, zeroFields } from '../shared.js';

/** policy.PDBV1beta1Label: marks the match-all/match-none selectors converted from policy/v1beta1. */
const V1BETA1_LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';

/** The PodDisruptionBudgetStatus counters without omitempty. */
const STATUS_ZEROS = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };

/**
 * Convert_v1_PodDisruptionBudget_To_policy_PodDisruptionBudget: the
 * v1beta1 marker label may only appear as the whole selector; anywhere else
 * it is stripped.
 */
function stripV1beta1Label(selector: any): void {
  const exprs = selector?.matchExpressions;
  if (!Array.isArray(exprs)) return;
  const whole = exprs.length === 1 && !Object.keys(selector.matchLabels ?? {}).length && exprs[0]?.key === V1BETA1_LABEL &&
    (exprs[0].operator === 'Exists' || exprs[0].operator === 'DoesNotExist') && !(exprs[0].values?.length);
  if (whole) return;
  const kept = exprs.filter((e: any) => e?.key !== V1BETA1_LABEL);
  if (kept.length) selector.matchExpressions = kept; else delete selector.matchExpressions;
}

export const poddisruptionbudgets: ResourceDef<PodDisruptionBudget> = {
  group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', singular: 'poddisruptionbudget',
  kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'], verbs: ALL_VERBS,
  subresources: [statusSubresource('PodDisruptionBudget')],
  storageVersionHash: '6BGBu0kpHtk=',
  storagePrefix: '/policy/poddisruptionbudgets',
  hasGeneration: true,
  hasStatusSubresource: true,
  // policy/v1 has no SetDefaults; what is here is decoding.
  defaults(obj) {
    obj.spec ??= {};
    stripV1beta1Label(obj.spec.selector);
    if (obj.status) zeroFields(obj.status, STATUS_ZEROS);
  },
  prepareForCreate(obj) {
    obj.status = { ...STATUS_ZEROS };
  },
  prepareForUpdate(obj, old) {
    keepStatus(obj, old);
  },
  // The PDB strategy validates no metadata: only the generic store's
  // path-segment name check and label/annotation checks apply.
  // BeforeCreate runs the generic checks only once the strategy's are clean;
  // BeforeUpdate's validateCommonFields run before the strategy's.
  validate: (obj) => {
    const errs = spec.validate(obj);
    return errs.length ? errs : validateGenericMeta(obj, true);
  },
  validateUpdate: (obj, old, subresource) => [...validateGenericMetaUpdate(obj, old, true), ...spec.validateUpdate(obj, old, subresource)],
};
