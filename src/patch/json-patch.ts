/**
 * RFC 6902 JSON patch with the semantics and error text of
 * gopkg.in/evanphx/json-patch.v4, the library kube-apiserver applies
 * application/json-patch+json with. Its quirks are kept on purpose: "replace"
 * of a missing object key adds it, "copy" from a missing key copies null,
 * negative array indices count from the end, and a path's first segment is
 * ignored when it does not start with "/".
 */
import { badRequest, invalid } from './errors.js';
import { goJSONParse, GoJSONError, goTypeMismatch } from './go-json.js';
import { clone, deepEqual, has, isObject, setKey, type Json, type JsonObject } from './json.js';

export { PatchError } from './errors.js';

/** The apiserver's JSONPatchMaxCopyBytes default, armed as jsonpatch.AccumulatedCopySizeLimit. */
export const MAX_COPY_BYTES = 3 * 1024 * 1024;

type Container = JsonObject | Json[];
const MISSING = 'missing value';
const BAD_INDEX = 'invalid index referenced';

/** A failed operation: the handler answers it with a generic 422 (see errors.ts). */
class OpError extends Error {}
function fail(msg: string): never { throw new OpError(msg); }

const isContainer = (v: Json | undefined): v is Container => Array.isArray(v) || isObject(v);
const decodeKey = (k: string) => k.replace(/~1/g, '/').replace(/~0/g, '~');

function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new OpError(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const big = BigInt(s);
  if (big > 9223372036854775807n || big < -9223372036854775808n) {
    throw new OpError(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  }
  return Number(big);
}

const badIndex = (idx: number) => new OpError(`Unable to access invalid index: ${idx}: ${BAD_INDEX}`);

function get(con: Container, key: string): Json | undefined {
  if (!Array.isArray(con)) return has(con, key) ? con[key] : undefined;
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -con.length) throw badIndex(idx);
    idx += con.length;
  }
  if (idx >= con.length) throw badIndex(idx);
  return con[idx];
}

function set(con: Container, key: string, val: Json): void {
  if (!Array.isArray(con)) return setKey(con, key, val);
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -con.length) throw badIndex(idx);
    idx += con.length;
  }
  con[idx] = val;
}

function add(con: Container, key: string, val: Json): void {
  if (!Array.isArray(con)) return setKey(con, key, val);
  if (key === '-') { con.push(val); return; }
  let idx: number;
  try { idx = atoi(key); } catch (e) { throw new OpError(`value was not a proper array index: '${key}': ${(e as Error).message}`); }
  const size = con.length + 1;
  if (idx >= size) throw badIndex(idx);
  if (idx < 0) {
    if (idx < -size) throw badIndex(idx);
    idx += size;
  }
  con.splice(idx, 0, val);
}

function remove(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!has(con, key)) throw new OpError(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete con[key];
    return;
  }
  let idx = atoi(key);
  if (idx >= con.length) throw badIndex(idx);
  if (idx < 0) {
    if (idx < -con.length) throw badIndex(idx);
    idx += con.length;
  }
  con.splice(idx, 1);
}

/** jsonpatch's findObject: the parent container of the last segment, or undefined. */
function findObject(root: Json, path: string): [Container, string] | undefined {
  const split = path.split('/');
  if (split.length < 2 || !isContainer(root)) return undefined;
  let doc: Container = root;
  for (const part of split.slice(1, -1)) {
    let next: Json | undefined;
    try { next = get(doc, decodeKey(part)); } catch { return undefined; }
    if (!isContainer(next)) return undefined;
    doc = next;
  }
  return [doc, decodeKey(split[split.length - 1]!)];
}

function wrap<T>(prefix: string, f: () => T): T {
  try { return f(); } catch (e) {
    if (e instanceof OpError) throw new OpError(`${prefix}${e.message}`);
    throw e;
  }
}

function field(op: JsonObject, name: 'path' | 'from'): string {
  const v = has(op, name) ? op[name] : null;
  if (v === null || v === undefined) {
    throw new OpError(name === 'path' ? `operation missing path field: ${MISSING}` : `operation, missing from field: ${MISSING}`);
  }
  if (typeof v !== 'string') throw new OpError(goTypeMismatch(v, 'string'));
  return v;
}

/** An absent "value" and an explicit null both insert null; only "test" tells them apart. */
const valueOf = (op: JsonObject): Json | undefined => (has(op, 'value') ? op['value'] : undefined);

function pathOf(op: JsonObject, kind: string, keepCause: boolean): string {
  try { return field(op, 'path'); } catch (e) {
    throw new OpError(`${kind} operation failed to decode path: ${keepCause ? (e as Error).message : MISSING}`);
  }
}

function fromOf(op: JsonObject, kind: string): string {
  return wrap(`${kind} operation failed to decode from: `, () => field(op, 'from'));
}

/** Go's json.Marshal size of a value, which escapes <, >, & and U+2028/9 as \uXXXX. */
function marshalSize(v: Json): number {
  const s = JSON.stringify(v);
  const html = s.match(/[<>&]/g)?.length ?? 0;
  const seps = s.match(/[\u2028\u2029]/g)?.length ?? 0;
  return Buffer.byteLength(s) + 5 * html + 3 * seps;
}

interface State { root: Json; copied: number }

const ops: Record<string, (s: State, op: JsonObject) => void> = {
  add(s, op) {
    const path = pathOf(op, 'add', false);
    const found = findObject(s.root, path);
    if (!found) fail(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
    const [con, key] = found;
    wrap(`error in add for path: '${path}': `, () => add(con, key, clone(valueOf(op) ?? null)));
  },
  remove(s, op) {
    const path = pathOf(op, 'remove', false);
    const found = findObject(s.root, path);
    if (!found) fail(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
    const [con, key] = found;
    wrap(`error in remove for path: '${path}': `, () => remove(con, key));
  },
  replace(s, op) {
    const path = pathOf(op, 'replace', true);
    if (path === '') {
      const v = valueOf(op);
      if (!isContainer(v)) fail('replace operation value must be object or array: %!w(<nil>)');
      s.root = clone(v);
      return;
    }
    const found = findObject(s.root, path);
    if (!found) fail(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
    const [con, key] = found;
    try { get(con, key); } catch { fail(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`); }
    wrap(`error in remove for path: '${path}': `, () => set(con, key, clone(valueOf(op) ?? null)));
  },
  move(s, op) {
    const from = fromOf(op, 'move');
    const src = findObject(s.root, from);
    if (!src) fail(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
    const [scon, skey] = src;
    const val = wrap(`error in move for path: '${skey}': `, () => get(scon, skey));
    wrap(`error in move for path: '${skey}': `, () => remove(scon, skey));
    const path = wrap('move operation failed to decode path: ', () => field(op, 'path'));
    const dst = findObject(s.root, path);
    if (!dst) fail(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
    const [dcon, dkey] = dst;
    wrap(`error in move for path: '${path}': `, () => add(dcon, dkey, val ?? null));
  },
  test(s, op) {
    const path = wrap('test operation failed to decode path: ', () => field(op, 'path'));
    const want = valueOf(op);
    if (path === '') {
      if (want === undefined || !deepEqual(s.root, want)) fail(`testing value ${path} failed: test failed`);
      return;
    }
    const found = findObject(s.root, path);
    if (!found) fail(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
    const [con, key] = found;
    const got = wrap(`error in test for path: '${path}': `, () => get(con, key));
    if (got === undefined || got === null) {
      if (want === undefined || want === null) return;
      fail(`testing value ${path} failed: test failed`);
    }
    if (want === undefined || !deepEqual(got, want)) fail(`testing value ${path} failed: test failed`);
  },
  copy(s, op) {
    const from = fromOf(op, 'copy');
    const src = findObject(s.root, from);
    if (!src) fail(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
    const [scon, skey] = src;
    const val = wrap(`error in copy for from: '${from}': `, () => get(scon, skey));
    const path = pathOf(op, 'copy', false);
    const dst = findObject(s.root, path);
    if (!dst) fail(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
    const [dcon, dkey] = dst;
    s.copied += val === undefined || val === null ? 0 : marshalSize(val);
    if (s.copied > MAX_COPY_BYTES) {
      fail(`Unable to complete the copy, the accumulated size increase of copy is ${s.copied}, exceeding the limit ${MAX_COPY_BYTES}`);
    }
    wrap('error while adding value during copy: ', () => add(dcon, dkey, val === undefined ? null : clone(val)));
  },
};

/** Decodes a request body the way jsonpatch.DecodePatch does (json.Unmarshal into []map[string]*RawMessage). */
export function decodeJsonPatch(body: string): Json[] {
  let v: Json;
  try { v = goJSONParse(body); } catch (e) {
    if (e instanceof GoJSONError) throw badRequest(e.message);
    throw e;
  }
  if (v === null) return [];
  if (!Array.isArray(v)) throw badRequest(goTypeMismatch(v, 'jsonpatch.Patch'));
  const bad = v.find((op) => op !== null && !isObject(op));
  if (bad !== undefined) throw badRequest(goTypeMismatch(bad, 'jsonpatch.Operation'));
  return v;
}

/** Applies the operations to a copy of doc; throws PatchError (kind Invalid) with jsonpatch's message. */
export function applyJsonPatch(doc: Json, patch: readonly Json[]): Json {
  const state: State = { root: clone(doc), copied: 0 };
  for (const raw of patch) {
    if (raw !== null && !isObject(raw)) throw badRequest(goTypeMismatch(raw, 'jsonpatch.Operation'));
    const op = raw ?? {};
    const kind = typeof op['op'] === 'string' ? op['op'] : 'unknown';
    try {
      const apply = Object.hasOwn(ops, kind) ? ops[kind] : undefined;
      if (!apply) fail(`Unexpected kind: ${kind}`);
      apply(state, op);
    } catch (e) {
      if (e instanceof OpError) throw invalid(e.message);
      throw e;
    }
  }
  return state.root;
}
