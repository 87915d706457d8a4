import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** kubernetes-types marks server-set metadata read-only; the server is who sets it. */
export type Meta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] };

/** Any Kubernetes object as JSON. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  [field: string]: unknown;
}

/** The apiVersion of a group and version ("v1" for the core group). */
export function apiVersionOf(def: { group: string; version: string }): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export type OwnerRef = NonNullable<KObject['metadata']['ownerReferences']>[number];

/** metav1.GetControllerOf. */
export function controllerOf(obj: KObject): OwnerRef | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}
