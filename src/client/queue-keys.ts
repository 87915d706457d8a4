/** Work queue keys of namespaced objects: `namespace/name` (the namespace empty for cluster-scoped ones). */
import type { KObject } from '../apimachinery/object.js';

export const keyOf = (o: KObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}
