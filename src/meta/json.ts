/** A plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deletes `key` when it holds an empty array or map: Go's omitempty drops it on the way out. */
export function pruneEmpty(obj: Record<string, any> | undefined, ...keys: string[]): void {
  if (!obj) return;
  for (const k of keys) {
    const v = obj[k];
    if (v === null || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0)) delete obj[k];
  }
}
