import type { KObject } from '../apimachinery/object.js';

/** `<namespace>/<name>`, cache.MetaNamespaceKeyFunc. */
export function keyOf(obj: KObject): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name!;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
