/**
 * Go's encoding/json output, where a text must match what a Go server or tool writes: map keys
 * sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped (json.Marshal's HTML-safe escaping), struct
 * fields in their declared order (GoStruct), and MarshalIndent's layout.
 */

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

export type GoJSONValue = string | number | boolean | null | GoJSONValue[] | { [key: string]: GoJSONValue };

/** A struct: its fields keep their declared order, where a map's keys are written sorted. */
export class GoStruct {
  constructor(readonly fields: [string, GoJSONValue][]) {}
}

/** json.MarshalIndent(v, prefix, indent); a nil map or slice is `null`, an empty one `{}` / `[]`. */
export function goMarshalIndent(v: GoJSONValue | GoStruct, prefix: string, indent: string, depth = 0): string {
  const nl = (d: number) => `\n${prefix}${indent.repeat(d)}`;
  if (v === null) return 'null';
  if (typeof v === 'string') return goJSONString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[${v.map((x) => `${nl(depth + 1)}${goMarshalIndent(x, prefix, indent, depth + 1)}`).join(',')}${nl(depth)}]`;
  }
  const entries: [string, GoJSONValue][] = v instanceof GoStruct ? v.fields : Object.keys(v).sort().map((k) => [k, v[k]!]);
  if (entries.length === 0) return '{}';
  return `{${entries.map(([k, x]) => `${nl(depth + 1)}${goJSONString(k)}: ${goMarshalIndent(x, prefix, indent, depth + 1)}`).join(',')}${nl(depth)}}`;
}
