/**
 * encoding/json's output as Go programs write it: map keys sorted, `<`,
 * `>`, `&`, U+2028 and U+2029 escaped (json.Marshal's HTML-safe escaping),
 * and MarshalIndent's layout (a nil map or slice is `null`, an empty one
 * `{}` / `[]`).
 */

export type GoJSONValue = string | number | boolean | null | GoJSONValue[] | { [key: string]: GoJSONValue };

/** A struct: its fields keep their declared order, where a map's keys are written sorted. */
export class GoStruct {
  constructor(readonly fields: [string, GoJSONValue][]) {}
}

function str(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** json.Marshal of a value whose objects are Go maps (sorted keys). */
export function goMarshal(v: GoJSONValue): string {
  return goMarshalIndent(v, '', '');
}

/** json.MarshalIndent(v, prefix, indent); with an empty indent, json.Marshal's compact form. */
export function goMarshalIndent(v: GoJSONValue | GoStruct, prefix: string, indent: string, depth = 0): string {
  const compact = indent === '' && prefix === '';
  const nl = (d: number) => (compact ? '' : `\n${prefix}${indent.repeat(d)}`);
  const sep = compact ? ':' : ': ';
  if (v === null) return 'null';
  if (typeof v === 'string') return str(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[${v.map((x) => `${nl(depth + 1)}${goMarshalIndent(x, prefix, indent, depth + 1)}`).join(',')}${nl(depth)}]`;
  }
  const entries: [string, GoJSONValue][] = v instanceof GoStruct ? v.fields : Object.keys(v).sort().map((k) => [k, v[k]!]);
  if (entries.length === 0) return '{}';
  return `{${entries.map(([k, x]) => `${nl(depth + 1)}${str(k)}${sep}${goMarshalIndent(x, prefix, indent, depth + 1)}`).join(',')}${nl(depth)}}`;
}

