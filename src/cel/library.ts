/**
 * The CEL functions a v1.32 API server adds for CRD validation rules beyond the standard library
 * (apiserver pkg/cel/environment/base.go MustBaseEnvSet): cel-go's ext.Strings (from the evaluator's
 * own extension) and ext.Sets, Kubernetes' lists library (apiserver pkg/cel/library/lists.go) and its IP and
 * CIDR libraries (library-net.ts), which Gateway API's and Calico's rules use, and optional
 * values (optional.ts).
 */
import { celFunc, celMethod, CelScalar, isCelList, isCelMap, listType, type CelFunc, type CelList, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { RE2JS } from '@bufbuild/re2';
import { netCelFuncs } from './library-net.js';
import { optionalCelFuncs } from './optional.js';

const LIST_DYN = listType(CelScalar.DYN);

function compare(a: CelValue, b: CelValue): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error('no such overload');
}

function items(l: CelList): CelValue[] {
  return [...l];
}

/** CEL's heterogeneous equality over the values rules see: numbers across int and double, lists and maps by content. */
function equal(a: CelValue, b: CelValue): boolean {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return Number(a) === Number(b);
  if (isCelList(a) && isCelList(b)) {
    const xs = items(a);
    const ys = items(b);
    return xs.length === ys.length && xs.every((x, i) => equal(x, ys[i]!));
  }
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a.entries()) if (!b.has(k) || !equal(v, b.get(k)!)) return false;
    return true;
  }
  return typeof a === typeof b && a === b;
}

/** lists.go: isSorted, sum, min, max, indexOf, lastIndexOf. */
const lists: CelFunc[] = [
  celMethod('isSorted', LIST_DYN, [], CelScalar.BOOL, function () {
    const xs = items(this);
    return xs.every((x, i) => i === 0 || compare(xs[i - 1]!, x) <= 0);
  }),
  celMethod('sum', LIST_DYN, [], CelScalar.DYN, function () {
    const xs = items(this);
    if (xs.every((x) => typeof x === 'bigint')) return (xs as bigint[]).reduce((a, b) => a + b, 0n);
    if (xs.every((x) => typeof x === 'number')) return (xs as number[]).reduce((a, b) => a + b, 0);
    throw new Error('no such overload');
  }),
  celMethod('min', LIST_DYN, [], CelScalar.DYN, function () {
    const xs = items(this);
    if (!xs.length) throw new Error('min called on empty list');
    return xs.reduce((a, b) => (compare(b, a) < 0 ? b : a));
  }),
  celMethod('max', LIST_DYN, [], CelScalar.DYN, function () {
    const xs = items(this);
    if (!xs.length) throw new Error('max called on empty list');
    return xs.reduce((a, b) => (compare(b, a) > 0 ? b : a));
  }),
  celMethod('indexOf', LIST_DYN, [CelScalar.DYN], CelScalar.INT, function (v) {
    return BigInt(items(this).findIndex((x) => equal(x, v)));
  }),
  celMethod('lastIndexOf', LIST_DYN, [CelScalar.DYN], CelScalar.INT, function (v) {
    const xs = items(this);
    for (let i = xs.length - 1; i >= 0; i--) if (equal(xs[i]!, v)) return BigInt(i);
    return -1n;
  }),
];

/**
 * The standard library's global form of matches (`matches(s, re)`, overload "matches"), which the
 * evaluator has only as the method `s.matches(re)`; the same RE2 engine.
 */
const standardMissing: CelFunc[] = [
  celFunc('matches', [CelScalar.STRING, CelScalar.STRING], CelScalar.BOOL, (s, re) => RE2JS.compile(re).test(s)),
];

/** cel-go ext.Sets (in the v1.29 base environment): sets.contains, sets.equivalent, sets.intersects. */
const sets: CelFunc[] = [
  celFunc('sets.contains', [LIST_DYN, LIST_DYN], CelScalar.BOOL, (a, b) => items(b).every((y) => items(a).some((x) => equal(x, y)))),
  celFunc('sets.equivalent', [LIST_DYN, LIST_DYN], CelScalar.BOOL, (a, b) =>
    items(b).every((y) => items(a).some((x) => equal(x, y))) && items(a).every((x) => items(b).some((y) => equal(x, y)))),
  celFunc('sets.intersects', [LIST_DYN, LIST_DYN], CelScalar.BOOL, (a, b) => items(a).some((x) => items(b).some((y) => equal(x, y)))),
];

export const kubernetesCelFuncs: CelFunc[] = [...standardMissing, ...strings, ...lists, ...sets, ...netCelFuncs, ...optionalCelFuncs];
