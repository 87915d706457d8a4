import type { KObject } from '../../apimachinery/object.js';
import type { ResourceDef } from '../types.js';

/**
 * Review resources are questions, not stored objects: a create answers
 * with the object and its status filled in.
 */
export function reviewDef<T = KObject>(group: string, version: string, resource: string, kind: string, namespaced = false,
  review: ResourceDef<T>['review']): ResourceDef<T> {
  return {
    group, version, resource, singular: resource.replace(/s$/, ''), kind, namespaced,
    verbs: ['create'], storagePrefix: `/virtual/${group}/${resource}`, review,
  };
}

/** The answer keeps what the client sent (metadata, spec) and adds status. */
export function answer(obj: KObject, status: Record<string, unknown>): KObject {
  const { metadata, ...rest } = obj;
  // Go writes an unset metav1.Time as null.
  return { ...rest, metadata: { ...(metadata ?? {}), creationTimestamp: null } as unknown as KObject['metadata'], status } as KObject;
}
