/** Pieces the group resource modules share. */
import { defaultPodTemplateSpec } from '../../component-helpers/pod-defaults.js';
import type { SubresourceDef } from '../../apimachinery/resource.js';

/** Every non-core resource here serves all eight verbs. */
export { ALL_VERBS } from '../types.js';

const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

export function statusSubresource(kind: string): SubresourceDef {
  return { name: 'status', kind, verbs: SUBRESOURCE_VERBS };
}

/** The scale subresource answers with autoscaling/v1 Scale whatever the parent's group. */
export const scaleSubresource: SubresourceDef = {
  name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUBRESOURCE_VERBS,
};

/** ObjectMeta's leading fields in Go's order, so a metadata we rebuild keeps upstream's key order. */
const META_HEAD = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp'];

/**
 * An embedded ObjectMeta (pod, job or claim template) as Go writes it: the
 * struct is never omitted and its zero creationTimestamp is written as null.
 */
export function templateMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const m: Record<string, unknown> = { ...(meta ?? {}) };
  if (m.creationTimestamp === undefined) m.creationTimestamp = null;
  const out: Record<string, unknown> = {};
  for (const k of META_HEAD) if (k in m) out[k] = m[k];
  for (const [k, v] of Object.entries(m)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * A PodTemplateSpec as the apps and batch kinds default it
 * (SetObjectDefaults_* run the core pod defaults over the template), its
 * metadata keys in Go's order.
 */
export function defaultTemplate(owner: Record<string, any>, key = 'template'): void {
  const t = (owner[key] ??= {});
  defaultPodTemplateSpec(t);
  t.metadata = templateMeta(t.metadata);
}

/**
 * Go writes int32/string fields without `omitempty` even when zero: a
 * decoded-and-re-encoded object shows them. Fills the missing ones.
 */
export function zeroFields(obj: Record<string, unknown>, zeros: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(zeros)) if (obj[k] === undefined) obj[k] = v;
}

/** Replaces an object's contents in place (defaults and strategies mutate the object they are given). */
export function replaceContents(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, source);
}

/** Deletes an annotation, and the map when it ends up empty (Go omits an empty map). */
export function dropAnnotation(meta: { annotations?: Record<string, string> }, key: string): void {
  if (!meta.annotations || !(key in meta.annotations)) return;
  delete meta.annotations[key];
  if (!Object.keys(meta.annotations).length) delete meta.annotations;
}

/** apiequality.Semantic.DeepEqual for JSON values, where an absent field, null, [] and {} all mean "unset". */
export function semanticEqual(a: unknown, b: unknown): boolean {
  const empty = (v: unknown) => v === undefined || v === null ||
    (Array.isArray(v) && !v.length) || (typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.keys(v).length);
  if (empty(a) && empty(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual((a as any)[k], (b as any)[k])) return false;
    return true;
  }
  return a === b;
}

/** PrepareForUpdate's "update is not allowed to set status" (without leaving an undefined key behind). */
export function keepStatus(obj: Record<string, unknown>, old: Record<string, unknown>): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = old.status;
}
