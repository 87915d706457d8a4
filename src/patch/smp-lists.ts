/**
 * List helpers of k8s.io/apimachinery/pkg/util/strategicpatch: element typing,
 * partitioning and the ordering rules ($setElementOrder > patch order > live
 * order) used when merging lists. Ported closely because the resulting order is
 * observable in every kubectl apply.
 */
import { invalid, PatchError } from './errors.js';
import { goSprint, goTypeName, isObject, type Json, type JsonObject } from './json.js';

export const DIRECTIVE = '$patch';
export const DELETE = 'delete';

/** A plain Go error: the patch handler answers it with a 500 carrying the text. */
export const unknown = (message: string) => new PatchError(message, 'Unknown');

export const errNoMergeKey = (m: Json, key: string) =>
  unknown(`map: ${goSprint(m)} does not contain declared merge key: ${key}`);
export const errBadArgType = (expected: string, actual: Json | undefined) =>
  unknown(`expected a ${expected}, but received a ${goTypeName(actual)}`);

export const MAP = 'map[string]interface {}';
export const SLICE = '[]interface {}';

/** Go's reflect type of the elements of all lists: 'map', a scalar type name, or an error. */
export function sliceElementType(...lists: Json[][]): string {
  let prev: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const t = goTypeName(v);
      if (prev === undefined) {
        if (Array.isArray(v)) throw invalid('lists of lists are not supported');
        prev = t;
      } else if (prev !== t) {
        throw unknown(`list element types are not identical: ${goSprint(lists)}`);
      }
    }
  }
  if (prev === undefined) throw unknown('no elements in any of the given slices');
  return prev;
}

const mergeValue = (item: Json, key: string): Json => (isObject(item) && item[key] !== undefined ? item[key]! : null);

/** Index of an item in a list, comparing merge-key values for maps and the items themselves otherwise. */
export function index(list: Json[], item: Json, key: string, isMap: boolean): number {
  const val = (v: Json) => (isMap ? mergeValue(v, key) : v);
  const want = val(item);
  return list.findIndex((v) => val(v) === want);
}

export function findByKey(list: Json[], key: string, value: Json): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i]!;
    if (!isObject(v)) throw unknown(`value for key ${i} is not a map.`);
    if (Object.hasOwn(v, key) && v[key] === value) return i;
  }
  return -1;
}

function validateMergeKeyInLists(key: string, ...lists: Json[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) throw errBadArgType(MAP, item);
      if (!Object.hasOwn(item, key)) throw errNoMergeKey(item, key);
    }
  }
}

export function extractToDeleteItems(list: Json[]): [JsonObject[], JsonObject[]] {
  const keep: JsonObject[] = [];
  const del: JsonObject[] = [];
  for (const v of list) {
    if (!isObject(v)) throw errBadArgType(MAP, v);
    (v[DIRECTIVE] === DELETE ? del : keep).push(v);
  }
  return [keep, del];
}

/** sort.SliceStable; the comparator is consistent for every caller, so any stable sort matches Go's. */
function normalizeSliceOrder(toSort: Json[], order: Json[], key: string, isMap: boolean): Json[] {
  let items = toSort;
  let deleted: Json[] = [];
  if (isMap) {
    validateMergeKeyInLists(key, toSort, order);
    [items, deleted] = extractToDeleteItems(toSort);
  }
  const less = (a: Json, b: Json) => {
    const ia = index(order, a, key, isMap);
    const ib = ia >= 0 ? index(order, b, key, isMap) : -1;
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  const out = [...items];
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j]!, out[j - 1]!); j--) [out[j], out[j - 1]] = [out[j - 1]!, out[j]!];
  }
  return out.concat(deleted);
}

/** Interleaves server-only items (left) into patch items (right), both kept in their own relative order. */
function mergeSortedSlice(left: Json[], right: Json[], serverOrder: Json[], key: string, isMap: boolean): Json[] {
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const li = index(serverOrder, left[i]!, key, isMap);
    const ri = index(serverOrder, right[j]!, key, isMap);
    if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]!);
    else out.push(right[j++]!);
  }
  return out.concat(left.slice(i), right.slice(j));
}

export function normalizeElementOrder(
  patch: Json[], serverOnly: Json[], patchOrder: Json[], serverOrder: Json[], key: string, isMap: boolean,
): Json[] {
  const p = normalizeSliceOrder(patch, patchOrder, key, isMap);
  const s = normalizeSliceOrder(serverOnly, serverOrder, key, isMap);
  return mergeSortedSlice(s, p, serverOrder, key, isMap);
}

export function partitionPrimitives(list: Json[], by: Json[]): [Json[], Json[]] {
  const inPatch = new Set(by);
  return [list.filter((v) => inPatch.has(v)), list.filter((v) => !inPatch.has(v))];
}

export function partitionMaps(list: Json[], by: Json[], key: string): [Json[], Json[]] {
  const patch: Json[] = [];
  const serverOnly: Json[] = [];
  for (const v of list) {
    if (!isObject(v)) throw errBadArgType(MAP, v);
    if (!Object.hasOwn(v, key)) throw errNoMergeKey(v, key);
    (findByKey(by, key, v[key]!) >= 0 ? patch : serverOnly).push(v);
  }
  return [patch, serverOnly];
}

/** The "clever" swap-with-last dedup of upstream, whose reordering the later sort mostly hides. */
export function deduplicateScalars(list: Json[]): Json[] {
  const s = [...list];
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length]!;
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

export function deleteFromSlice(current: Json[], toDelete: Json[]): Json[] {
  const del = new Set(toDelete);
  return current.filter((v) => !del.has(v));
}
