import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef } from './types.js';

/** The value of a selectable field, or undefined when the resource does not offer it. */
export function fieldValue(def: ResourceDef, obj: KObject, field: string): string | undefined {
  if (field === 'metadata.name') return obj.metadata.name ?? '';
  if (field === 'metadata.namespace' && def.namespaced) return obj.metadata.namespace ?? '';
  return def.fieldSelectors?.[field]?.(obj);
}

export function isSelectableField(def: ResourceDef, field: string): boolean {
  return field === 'metadata.name' || (def.namespaced && field === 'metadata.namespace') ||
    !!def.fieldSelectors?.[field];
}

/** The error upstream's field label conversion gives for a field it does not know. */
export function unknownFieldSelectorMessage(def: ResourceDef, field: string): string {
  // Kinds with their own conversion function answer tersely; the rest use the default one.
  if (def.fieldSelectors && Object.keys(def.fieldSelectors).length) return `field label not supported: ${field}`;
  return `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`;
}
