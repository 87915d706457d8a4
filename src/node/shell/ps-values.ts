/**
 * PowerShell's values as the emulated `powershell`/`pwsh` hold them: scalars,
 * arrays, hashtables (`@{}`) and .NET-like objects with properties and
 * methods; member access and method calls with PowerShell's rules (names are
 * case-insensitive, `.Count` on anything, member enumeration over arrays),
 * and the host's default formatting of what reaches the end of a pipeline.
 */
import type { Pending } from './pending.js';

/** A method call that waits for something that never comes here (HttpListener.GetContext with no client). */
export class PsBlocks extends Error { constructor() { super('blocks forever'); } }

/**
 * A call that has to wait for something still on its way (the next request
 * of an HttpListener, a web response). Expressions are evaluated
 * synchronously, so the statement is abandoned, the script waits on `on`,
 * and the statement runs again: the listener then finds the request in its
 * queue, and a web request already sent gets its response back instead of
 * being sent again (PowerShell's replay of the statement's exchanges).
 */
export class PsWait extends Error {
  constructor(readonly on: Pending<unknown>) { super('waits'); }
}

/** A .NET exception surfacing as a PowerShell error record ("Exception calling ..."). */
export class PsRuntimeError extends Error {
  constructor(message: string, readonly fqid = 'RuntimeException', readonly category = 'NotSpecified',
    readonly exceptionType = 'MethodInvocationException') { super(message); }
}

export interface PsObject {
  kind: 'object';
  /** The .NET type name (`System.Net.HttpListener`). */
  typeName: string;
  props: Record<string, Value>;
  methods?: Record<string, (args: Value[]) => Value>;
  /** The host's default view of a run of objects sharing this view (a table, a list). */
  view?: (group: PsObject[]) => string;
}

export interface PsHashtable { kind: 'hashtable'; entries: Map<string, { key: Value; value: Value }> }

export type Scalar = string | number | boolean | null;
export type Value = Scalar | Value[] | PsObject | PsHashtable;

export const psObject = (typeName: string, props: Record<string, Value>, methods?: PsObject['methods'], view?: PsObject['view']): PsObject =>
  ({ kind: 'object', typeName, props, methods, view });
export const hashtable = (): PsHashtable => ({ kind: 'hashtable', entries: new Map() });

export const isObject = (v: Value): v is PsObject => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'object';
export const isHashtable = (v: Value): v is PsHashtable => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'hashtable';

/** Hashtable keys compare case-insensitively for strings, as PowerShell's default hashtable does. */
const keyOf = (k: Value): string => (typeof k === 'string' ? `s:${k.toLowerCase()}` : `v:${display(k)}`);

function propOf(o: PsObject, name: string): { found: boolean; value: Value } {
  const k = Object.keys(o.props).find((p) => p.toLowerCase() === name.toLowerCase());
  const value = k === undefined ? undefined : o.props[k];
  return value === undefined ? { found: false, value: null } : { found: true, value };
}

/** `$v.Name`: properties, `.Count`/`.Length`, hashtable keys, member enumeration over arrays. */
export function member(v: Value, name: string): Value {
  const n = name.toLowerCase();
  if (Array.isArray(v)) {
    if (n === 'count' || n === 'length') return v.length;
    const items = v.map((x) => member(x, name)).filter((x) => x !== null);
    return collapse(items, items);
  }
  if (isHashtable(v)) {
    if (n === 'count') return v.entries.size;
    if (n === 'keys') return [...v.entries.values()].map((e) => e.key);
    if (n === 'values') return [...v.entries.values()].map((e) => e.value);
    return v.entries.get(keyOf(name))?.value ?? null;
  }
  if (isObject(v)) {
    const p = propOf(v, name);
    if (p.found) return p.value;
    return n === 'count' ? 1 : null;
  }
  if (typeof v === 'string' && n === 'length') return v.length;
  if (n === 'count') return v === null ? 0 : 1;
  return null;
}

/** `$v.Name = x` on an object or hashtable. */
export function setMember(v: Value, name: string, value: Value): void {
  if (isHashtable(v)) { v.entries.set(keyOf(name), { key: name, value }); return; }
  if (isObject(v)) {
    const k = Object.keys(v.props).find((p) => p.toLowerCase() === name.toLowerCase()) ?? name;
    v.props[k] = value;
    return;
  }
  throw new PsRuntimeError(`The property '${name}' cannot be found on this object. Verify that the property exists and can be set.`, 'PropertyNotFound', 'InvalidOperation', 'RuntimeException');
}

/** `$v.Method(args)`. */
export function callMethod(v: Value, name: string, args: Value[]): Value {
  const n = name.toLowerCase();
  if (isObject(v) && v.methods) {
    const k = Object.keys(v.methods).find((m) => m.toLowerCase() === n);
    const method = k === undefined ? undefined : v.methods[k];
    if (method) return method(args);
  }
  if (isHashtable(v)) {
    switch (n) {
      case 'get_item': case 'item': return v.entries.get(keyOf(args[0] ?? null))?.value ?? null;
      case 'set_item': v.entries.set(keyOf(args[0] ?? null), { key: args[0] ?? null, value: args[1] ?? null }); return null;
      case 'add': {
        if (v.entries.has(keyOf(args[0] ?? null))) {
          throw new PsRuntimeError(`Exception calling "Add" with "2" argument(s): "Item has already been added. Key in dictionary: '${display(args[0] ?? null)}'  Key being added: '${display(args[0] ?? null)}'"`, 'ArgumentException');
        }
        v.entries.set(keyOf(args[0] ?? null), { key: args[0] ?? null, value: args[1] ?? null }); return null;
      }
      case 'containskey': return v.entries.has(keyOf(args[0] ?? null));
      case 'remove': v.entries.delete(keyOf(args[0] ?? null)); return null;
      case 'clear': v.entries.clear(); return null;
    }
  }
  if (Array.isArray(v) && n === 'contains') return v.some((x) => display(x).toLowerCase() === display(args[0] ?? null).toLowerCase());
  if (typeof v === 'string') {
    const a = (i: number) => display(args[i] ?? null);
    switch (n) {
      case 'toupper': return v.toUpperCase();
      case 'tolower': return v.toLowerCase();
      case 'trim': return v.trim();
      case 'trimend': return v.trimEnd();
      case 'trimstart': return v.trimStart();
      case 'contains': return v.includes(a(0));
      case 'startswith': return v.startsWith(a(0));
      case 'endswith': return v.endsWith(a(0));
      case 'replace': return v.split(a(0)).join(a(1));
      case 'split': return v.split(a(0));
      case 'substring': return args.length > 1 ? v.substr(Number(args[0]), Number(args[1])) : v.slice(Number(args[0]));
      case 'indexof': return v.indexOf(a(0));
      case 'tostring': return v;
    }
  }
  if (n === 'tostring') return display(v);
  if (n === 'gettype') return psObject('System.RuntimeType', { Name: typeNameOf(v).replace(/^.*\./, ''), FullName: typeNameOf(v) });
  const type = typeNameOf(v);
  throw new PsRuntimeError(`Method invocation failed because [${type}] does not contain a method named '${name}'.`, 'MethodNotFound', 'InvalidOperation', 'RuntimeException');
}

export function typeNameOf(v: Value): string {
  if (v === null) return 'System.Object';
  if (Array.isArray(v)) return 'System.Object[]';
  if (isObject(v)) return v.typeName;
  if (isHashtable(v)) return 'System.Collections.Hashtable';
  if (typeof v === 'string') return 'System.String';
  if (typeof v === 'boolean') return 'System.Boolean';
  return Number.isInteger(v) ? 'System.Int32' : 'System.Double';
}

export function truthy(v: Value): boolean {
  if (Array.isArray(v)) {
    const [first] = v;
    return v.length > 1 || (v.length === 1 && first !== undefined && truthy(first));
  }
  return v !== null && v !== false && v !== 0 && v !== '';
}

/** A value in a string (interpolation, `-f`, Write-Host): arrays joined by spaces, objects by their type name. */
export function display(v: Value | undefined): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  // An absent property shows as $null does: nothing.
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(display).join(' ');
  if (isHashtable(v)) return 'System.Collections.Hashtable';
  if (isObject(v)) return v.props.__string !== undefined ? display(v.props.__string) : v.typeName;
  return String(v);
}

/** Flattens one level, as PowerShell unrolls a collection into the pipeline. */
export function enumerate(v: Value): Value[] {
  if (v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** The pipeline's output as a single value: nothing → `none` ($null), one item → itself, more → array. */
export function collapse(items: Value[], none: Value = null): Value {
  const [first] = items;
  return first === undefined ? none : items.length === 1 ? first : items;
}

/** A table column of Format-Table: header, width, alignment, and the cell of one object. */
export interface Column { header: string; width: number; right?: boolean; cell: (o: PsObject) => string }

/** Format-Table's layout: a blank line, header, dashes, rows, and two blank lines. */
export function table(columns: Column[], rows: PsObject[]): string {
  const line = (cells: string[]) => columns.map((c, i) => {
    const s = cells[i] ?? '';
    const last = i === columns.length - 1;
    if (c.right) return s.padStart(c.width);
    return last ? s : s.padEnd(c.width);
  }).join(' ').trimEnd();
  const out = [line(columns.map((c) => c.header)), line(columns.map((c) => '-'.repeat(c.header.length))),
    ...rows.map((r) => line(columns.map((c) => c.cell(r))))];
  return `\r\n${out.join('\r\n')}\r\n\r\n`;
}

/** Format-List: `Name : value` lines, names padded to the longest. */
export function list(o: PsObject, names: string[]): string {
  const w = Math.max(...names.map((n) => n.length));
  return `\r\n${names.map((n) => `${n.padEnd(w)} : ${display(o.props[n] ?? null)}`.trimEnd()).join('\r\n')}\r\n\r\n`;
}

/**
 * Out-Default: what the host prints for a pipeline's output. Scalars one per
 * line; runs of objects sharing a view in that view (a table once, not per
 * object); other objects as lists of their properties; hashtables as
 * Name/Value tables.
 */
export function formatForHost(items: Value[]): string {
  let out = '';
  for (let i = 0; i < items.length;) {
    const v = items[i++] ?? null;
    if (isObject(v) && v.view) {
      const group: PsObject[] = [v];
      for (let next = items[i] ?? null; isObject(next) && next.view === v.view; next = items[i] ?? null) { group.push(next); i++; }
      out += v.view(group);
      continue;
    }
    if (isHashtable(v)) {
      const rows = [...v.entries.values()].map((e) => psObject('System.Collections.DictionaryEntry', { Name: e.key, Value: e.value }));
      const w = Math.max(4, ...rows.map((r) => display(r.props.Name ?? null).length));
      out += table([{ header: 'Name', width: w, cell: (o) => display(o.props.Name ?? null) },
        { header: 'Value', width: 5, cell: (o) => display(o.props.Value ?? null) }], rows);
    } else if (isObject(v)) {
      out += list(v, Object.keys(v.props).filter((k) => !k.startsWith('__')));
    } else if (Array.isArray(v)) {
      out += formatForHost(v);
    } else if (v !== null) {
      out += display(v) + '\r\n';
    }
  }
  return out;
}
