/** Go's encoding/json output for decoded JSON values, where a text must match what a Go server or tool writes. */

/** encoding/json's string escaping: HTML-safe, U+2028/9 escaped. */
export function goJSONString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** json.Marshal of a decoded value: maps with sorted keys. */
export function goMarshal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJSONString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goMarshal).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${goJSONString(k)}:${goMarshal(o[k])}`).join(',')}}`;
}
