/**
 * Strategic merge patch, the apply half of k8s.io/apimachinery/pkg/util/strategicpatch
 * (StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls, as
 * the apiserver calls it). Control flow and error text follow upstream; where
 * upstream leaves directive keys or nulls in the map for the typed decode to
 * drop, they are dropped here, since the result is stored as JSON.
 */
import { badRequest, PatchError } from './errors.js';
import { goTypeMismatch } from './go-json.js';
import { clone, goSprint, goTypeName, has, isObject, setKey, type Json, type JsonObject } from './json.js';
import { EMPTY_SCHEMA, type PatchSchema } from './schema.js';
import {
  DELETE, deduplicateScalars, deleteFromSlice, DIRECTIVE, errBadArgType, errNoMergeKey, extractToDeleteItems,
  findByKey, normalizeElementOrder, partitionMaps, partitionPrimitives, sliceElementType, SLICE, MAP, unknown,
} from './smp-lists.js';

const REPLACE = 'replace';
const MERGE = 'merge';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

const ERR_PRIMITIVE_LIST = 'invalid patch format of primitive list';
const ERR_RETAIN_KEYS = 'invalid patch format of retainKeys';
const ERR_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';

/** fmt's %s of a non-string operand, as in ErrBadPatchType. */
const goS = (v: Json | undefined) =>
  typeof v === 'string' ? v : v === null || v === undefined ? '%!s(<nil>)' : `%!s(${goTypeName(v)}=${goSprint(v)})`;

const isDirectiveKey = (k: string) =>
  k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(`${SET_ELEMENT_ORDER}/`) || k.startsWith(`${DELETE_FROM_PRIMITIVE_LIST}/`);

/** What the typed decode makes of raw patch content: directive keys are unknown fields, nulls zero values. */
function asDecoded(v: Json): Json {
  if (Array.isArray(v)) return v.map(asDecoded);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    if (v[k] !== null && !isDirectiveKey(k)) setKey(out, k, asDecoded(v[k]!));
  }
  return out;
}

/** Upstream's discardNullValuesFromPatch + removeDirectives for values the original lacks; undefined drops the key. */
function fromPatch(v: Json): Json | undefined {
  if (isObject(v) && has(v, DIRECTIVE)) return undefined;
  // Without recursion: a patch value may nest up to the decoder's 10000 levels.
  const queue: [Json, Json][] = [];
  const shell = (x: Json): Json => {
    if (Array.isArray(x)) { const c: Json[] = []; queue.push([x, c]); return c; }
    if (isObject(x)) { const c: JsonObject = {}; queue.push([x, c]); return c; }
    return x;
  };
  const root = shell(v);
  while (queue.length) {
    const [src, dst] = queue.pop()!;
    if (Array.isArray(src)) {
      for (const x of src) if (!(isObject(x) && has(x, DIRECTIVE))) (dst as Json[]).push(shell(x));
    } else {
      const o = src as JsonObject;
      for (const k of Object.keys(o)) {
        const x = o[k]!;
        if (x === null || isDirectiveKey(k) || (isObject(x) && has(x, DIRECTIVE))) continue;
        setKey(dst as JsonObject, k, shell(x));
      }
    }
  }
  return root;
}

function patchStrategy(strategies: string[]): string {
  const [a, b] = strategies;
  if (strategies.length === 0) return '';
  if (strategies.length === 1) return a === 'retainKeys' ? '' : a!;
  if (strategies.length === 2 && a === 'retainKeys') return b!;
  if (strategies.length === 2 && b === 'retainKeys') return a!;
  throw unknown(`unexpected patch strategy: ${goSprint(strategies)}`);
}

function extractKey(s: string, prefix: string): string {
  const i = s.indexOf('/');
  if (i < 0 || s.slice(0, i) !== prefix) {
    throw badRequest(prefix === SET_ELEMENT_ORDER ? ERR_SET_ELEMENT_ORDER : ERR_PRIMITIVE_LIST);
  }
  return s.slice(i + 1);
}

function handleDirectiveInMergeMap(directive: Json, patch: JsonObject): JsonObject {
  if (directive === REPLACE) {
    delete patch[DIRECTIVE];
    return asDecoded(patch) as JsonObject;
  }
  if (directive === DELETE) return {};
  throw unknown(`unknown patch type: ${goS(directive)} in map: ${goSprint(patch)}`);
}

function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!has(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw badRequest(ERR_RETAIN_KEYS);
  const keep = new Set<Json>(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw badRequest(ERR_RETAIN_KEYS);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function mergeKeyValueEqual(left: Json, right: Json, key: string): boolean {
  if (!key) return left === right;
  if (!isObject(left)) throw errBadArgType(MAP, left);
  if (!isObject(right)) throw errBadArgType(MAP, right);
  if (!has(left, key)) throw errNoMergeKey(left, key);
  if (!has(right, key)) throw errNoMergeKey(right, key);
  return left[key] === right[key];
}

/** The items of a patch list must appear in $setElementOrder in the same relative order. */
function validatePatchWithSetOrderList(patchList: Json[], order: Json[], key: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = key ? extractToDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p]!;
    if (isObject(item) && has(item, DIRECTIVE)) { p++; continue; }
    if (mergeKeyValueEqual(item, order[o]!, key)) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw unknown(`The order in patch list:\n${goSprint(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goSprint(order)}\n`);
  }
}

/**
 * Go slices share their backing array: deleting from the live list shifts its
 * tail in place and appends reuse the freed slots, which a caller still
 * holding the old slice (mergePatchIntoOriginal's live order) then sees.
 * `backing` is mutated the same way so that view stays exact.
 */
interface GoSlice { backing: Json[]; len: number }
const items = (s: GoSlice) => s.backing.slice(0, s.len);

function deleteMatching(s: GoSlice, key: string, value: Json): void {
  for (let i = findByKey(items(s), key, value); i >= 0; i = findByKey(items(s), key, value)) {
    s.backing.copyWithin(i, i + 1, s.len);
    s.len--;
  }
}

function append(s: GoSlice, v: Json): void {
  if (s.len >= s.backing.length) s.backing = items(s);
  s.backing[s.len++] = v;
}

function mergeListOfMaps(original: Json[], patch: Json[], schema: PatchSchema, key: string): [Json[], Json[], Json[]] {
  const s: GoSlice = { backing: original, len: original.length };
  const plain: JsonObject[] = [];
  let replaceWith: Json[] | undefined;
  for (const v of patch as JsonObject[]) {
    if (!has(v, DIRECTIVE)) { plain.push(v); continue; }
    const directive = v[DIRECTIVE];
    if (directive === DELETE) {
      if (!has(v, key)) throw errNoMergeKey(v, key);
      deleteMatching(s, key, v[key]!);
    } else if (directive === REPLACE) {
      replaceWith = [];
    } else if (directive === MERGE) {
      throw unknown('merging lists cannot yet be specified in the patch');
    } else {
      throw unknown(`unknown patch type: ${goS(directive)} in map: ${goSprint(v)}`);
    }
  }
  if (replaceWith) {
    const list = plain.map(asDecoded);
    return [list, [], list];
  }
  const serverOrder = items(s);
  for (const v of plain) {
    if (!has(v, key)) throw errNoMergeKey(v, key);
    const i = findByKey(items(s), key, v[key]!);
    if (i >= 0) s.backing[i] = mergeMap(s.backing[i] as JsonObject, v, schema);
    else append(s, v);
  }
  return [items(s), plain, serverOrder];
}

function mergeSlice(original: Json[], patch: Json[], schema: PatchSchema, key: string, isDeleteList: boolean): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const isMap = sliceElementType(original, patch) === MAP;
  let merged: Json[];
  let patchItems = patch;
  let serverOrder = original;
  if (!isMap) {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (!key) throw unknown('cannot merge lists without merge key for struct');
    [merged, patchItems, serverOrder] = mergeListOfMaps(original, patch, schema, key);
  }
  const fresh = new Set(isMap ? patchItems : []);
  const [inPatch, serverOnly] = key ? partitionMaps(merged, patchItems, key) : partitionPrimitives(merged, patchItems);
  const out = normalizeElementOrder(inPatch, serverOnly, patchItems, serverOrder, key, isMap);
  return out.map((v) => (fresh.has(v) ? asDecoded(v) : v));
}

function mergeSliceHandler(
  original: Json[], patch: Json[], schema: PatchSchema, strategy: string, key: string, isDeleteList: boolean,
): Json[] {
  if (strategy === MERGE || isDeleteList) return mergeSlice(original, patch, schema, key, isDeleteList);
  return asDecoded(patch) as Json[];
}

/** Merges each list that has a $setElementOrder directive and puts it in that order. */
function mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw errBadArgType(SLICE, order);
    const k = extractKey(directiveKey, SET_ELEMENT_ORDER);
    const inOriginal = has(original, k);
    const inPatch = has(patch, k);
    const live = inOriginal ? original[k] : [];
    const patchList = inPatch ? patch[k] : [];
    if (!Array.isArray(live)) throw errBadArgType(SLICE, live);
    if (!Array.isArray(patchList)) throw errBadArgType(SLICE, patchList);
    const meta = schema.lookupForSlice(k);
    const strategy = patchStrategy(meta.strategies);
    validatePatchWithSetOrderList(patchList, order, meta.mergeKey);
    let merged: Json[];
    if (inOriginal && !inPatch) merged = live;
    else if (!inOriginal && inPatch) merged = fromPatch(patchList) as Json[];
    else if (inOriginal && inPatch) merged = mergeSliceHandler(live, patchList, meta.schema, strategy, meta.mergeKey, false);
    else continue;
    const [inOrder, serverOnly] = meta.mergeKey
      ? partitionMaps(merged, order, meta.mergeKey) : partitionPrimitives(merged, order);
    const isMap = sliceElementType(live, patchList) === MAP;
    setKey(original, k, normalizeElementOrder(inOrder, serverOnly, order, live, meta.mergeKey, isMap));
    delete patch[k];
  }
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (has(patch, DIRECTIVE)) return handleDirectiveInMergeMap(patch[DIRECTIVE]!, patch);
  applyRetainKeys(original, patch);
  mergePatchIntoOriginal(original, patch, schema);
  // Go walks the patch map in random order; deletion lists go last so that they win over additions to the same list.
  const keys = Object.keys(patch).sort((a, b) =>
    Number(a.startsWith(DELETE_FROM_PRIMITIVE_LIST)) - Number(b.startsWith(DELETE_FROM_PRIMITIVE_LIST)));
  for (const patchKey of keys) {
    const patchV = patch[patchKey]!;
    const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    const k = isDeleteList ? extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST) : patchKey;
    if (patchV === null) { delete original[k]; continue; }
    const cur = has(original, k) ? original[k] : undefined;
    if (cur === undefined || goTypeName(cur) !== goTypeName(patchV)) {
      if (isDeleteList) continue;
      const v = fromPatch(patchV);
      if (v === undefined) delete original[k];
      else setKey(original, k, v);
      continue;
    }
    if (isObject(cur)) {
      const meta = schema.lookupForMap(k);
      const strategy = patchStrategy(meta.strategies);
      setKey(original, k, strategy === REPLACE ? asDecoded(patchV) : mergeMap(cur, patchV as JsonObject, meta.schema));
    } else if (Array.isArray(cur)) {
      const meta = schema.lookupForSlice(k);
      const strategy = patchStrategy(meta.strategies);
      setKey(original, k, mergeSliceHandler(cur, patchV as Json[], meta.schema, strategy, meta.mergeKey, isDeleteList));
    } else {
      setKey(original, k, patchV);
    }
  }
  return original;
}

/**
 * Applies a decoded strategic merge patch to a copy of original (or, with
 * `owned`, to original and patch themselves, which the caller gives up: the
 * copies cost as much as the merge). Unknown kinds (EMPTY_SCHEMA) merge like a
 * JSON merge patch but still honour directives.
 */
export function applyStrategicMergePatch(original: JsonObject, patch: Json, schema: PatchSchema = EMPTY_SCHEMA, owned = false): JsonObject {
  if (patch === null) return owned ? original : clone(original);
  if (!isObject(patch)) throw badRequest(goTypeMismatch(patch, MAP));
  return owned ? mergeMap(original, patch, schema) : mergeMap(clone(original), clone(patch), schema);
}

export { PatchError };
