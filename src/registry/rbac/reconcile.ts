/**
 * Reconciliation of bootstrap roles and bindings with what is stored, as
 * v1.32's pkg/registry/rbac/reconciliation (computeReconciledRole,
 * computeReconciledRoleBinding) does it in union mode, the mode the API
 * server's rbac/bootstrap-roles post-start hook uses: missing rules,
 * aggregation selectors and subjects are added, labels and annotations
 * merged (the stored values win), nothing is removed; a binding whose
 * roleRef differs is re-created; an object annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone.
 */
import type { PolicyRule, Subject } from 'kubernetes-types/rbac/v1.js';
import { semanticEqual } from '../groups/shared.js';
import { covers } from './policy-comparator.js';

export const AUTO_UPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

type Obj = Record<string, any>;

export type ReconcileOperation = 'create' | 'update' | 'recreate' | 'none';

export interface ReconcileResult<T> {
  operation: ReconcileOperation;
  /** What to write (for 'none', what is stored). */
  object: T;
  /** The stored object opts out of reconciliation; nothing is written. */
  protected: boolean;
}

/** merge(expected, existing): Go's map merge, later maps winning; nil when every map is nil. */
function merge(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!expected && !existing) return undefined;
  return { ...expected, ...existing };
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  return (a === undefined) === (b === undefined) && ka.length === Object.keys(b ?? {}).length && ka.every((k) => a![k] === b?.[k]);
}

/** Merges the expected labels and annotations into a copy of the stored object's metadata; true when they changed. */
function mergeMetadata(out: Obj, existing: Obj, expected: Obj): boolean {
  const annotations = merge(expected.metadata?.annotations, existing.metadata?.annotations);
  const labels = merge(expected.metadata?.labels, existing.metadata?.labels);
  out.metadata = { ...out.metadata };
  if (annotations) out.metadata.annotations = annotations;
  if (labels) out.metadata.labels = labels;
  return !sameMap(annotations, existing.metadata?.annotations) || !sameMap(labels, existing.metadata?.labels);
}

const isProtected = (existing: Obj): boolean => existing.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION] === 'false';

/** aggregationRuleCovers: the servant's selectors the owner lacks. */
function uncoveredSelectors(owner: Obj | null | undefined, servant: Obj | null | undefined): unknown[] {
  if (!servant) return [];
  if (!owner) return servant.clusterRoleSelectors ?? [];
  const own: unknown[] = owner.clusterRoleSelectors ?? [];
  return (servant.clusterRoleSelectors ?? []).filter((s: unknown) => !own.some((o) => semanticEqual(o, s)));
}

/** ReconcileRoleOptions.Run for a Role or ClusterRole (union mode). */
export function reconcileRole<T extends Obj>(existing: T | undefined, expected: T): ReconcileResult<T> {
  if (!existing) return { operation: 'create', object: structuredClone(expected), protected: false };
  const out: Obj = structuredClone(existing);
  let changed = mergeMetadata(out, existing, expected);
  const { uncovered } = covers((existing.rules ?? []) as PolicyRule[], (expected.rules ?? []) as PolicyRule[]);
  if (uncovered.length) {
    out.rules = [...(existing.rules ?? []), ...uncovered];
    changed = true;
  }
  const missingSelectors = uncoveredSelectors(existing.aggregationRule, expected.aggregationRule);
  if (!expected.aggregationRule && existing.aggregationRule) {
    delete out.aggregationRule;
    changed = true;
  } else if (missingSelectors.length) {
    out.aggregationRule = { ...out.aggregationRule, clusterRoleSelectors: [...(out.aggregationRule?.clusterRoleSelectors ?? []), ...missingSelectors] };
    changed = true;
  }
  return { operation: changed ? 'update' : 'none', object: out as T, protected: isProtected(existing) };
}

const sameSubject = (a: Subject, b: Subject): boolean =>
  a.kind === b.kind && (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');

/** ReconcileRoleBindingOptions.Run for a RoleBinding or ClusterRoleBinding (union mode). */
export function reconcileBinding<T extends Obj>(existing: T | undefined, expected: T): ReconcileResult<T> {
  if (!existing) return { operation: 'create', object: structuredClone(expected), protected: false };
  const protectedNow = isProtected(existing);
  const ref = (o: Obj) => [o.roleRef?.apiGroup ?? '', o.roleRef?.kind ?? '', o.roleRef?.name ?? ''].join('\u0000');
  if (ref(existing) !== ref(expected)) return { operation: 'recreate', object: structuredClone(expected), protected: protectedNow };
  const out: Obj = structuredClone(existing);
  let changed = mergeMetadata(out, existing, expected);
  const have: Subject[] = existing.subjects ?? [];
  const missing = ((expected.subjects ?? []) as Subject[]).filter((s) => !have.some((h) => sameSubject(h, s)));
  if (missing.length) {
    out.subjects = [...have, ...missing];
    changed = true;
  }
  return { operation: changed ? 'update' : 'none', object: out as T, protected: protectedNow };
}
