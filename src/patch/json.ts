/** JSON value helpers shared by the patch engines, plus Go's `%v` rendering for upstream-worded errors. */

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject { [key: string]: Json }

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const has = (o: JsonObject, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Assignment that cannot reach Object.prototype through a "__proto__" key taken from a request body. */
export function setKey(o: JsonObject, k: string, v: Json): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Past this depth a copy goes on without recursion: a body may nest up to the decoder's 10000 levels. */
const RECURSION_LIMIT = 200;

export function clone<T extends Json>(v: T, depth = 0): T {
  if (depth > RECURSION_LIMIT) return cloneIteratively(v);
  if (Array.isArray(v)) {
    const out = new Array<Json>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = clone(v[i]!, depth + 1);
    return out as T;
  }
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) setKey(out, k, clone(v[k]!, depth + 1));
    return out as T;
  }
  return v;
}

/** An empty copy of a container, queued for its contents; scalars are themselves. */
function shell(v: Json, queue: [Json, Json][]): Json {
  if (Array.isArray(v)) { const c: Json[] = []; queue.push([v, c]); return c; }
  if (isObject(v)) { const c: JsonObject = {}; queue.push([v, c]); return c; }
  return v;
}

function cloneIteratively<T extends Json>(v: T): T {
  const queue: [Json, Json][] = [];
  const root = shell(v, queue);
  while (queue.length) {
    const [src, dst] = queue.pop()!;
    if (Array.isArray(src)) for (const x of src) (dst as Json[]).push(shell(x, queue));
    else for (const k of Object.keys(src as JsonObject)) setKey(dst as JsonObject, k, shell((src as JsonObject)[k]!, queue));
  }
  return root as T;
}

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => has(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Go's reflect type name for a value decoded by encoding/json with ints preserved (as the apiserver decodes). */
export function goTypeName(v: Json | undefined): string {
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v;
}

function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [m, e] = n.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    return `${m}e${sign}${e.replace(/^[-+]/, '').padStart(2, '0')}`;
  }
  return String(n);
}

/** fmt.Sprintf("%v", v) for decoded JSON: maps print as map[k:v ...] with sorted keys. */
export function goSprint(v: Json | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goSprint).join(' ')}]`;
  if (isObject(v)) {
    return `map[${Object.keys(v).sort().map((k) => `${k}:${goSprint(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goFloat(v);
  return String(v);
}
