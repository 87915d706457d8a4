/**
 * Ordering cases from upstream's strategicpatch patch_test.go raw fixtures:
 * the three-way patch kubectl would send, applied to the live ("current")
 * object, must give upstream's "result".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { applyStrategicMergePatch, PatchSchema } from '../../src/patch/index.js';
import type { Json, JsonObject } from '../../src/patch/json.js';

const schema = PatchSchema.of({
  kinds: {},
  defs: {
    MergeItem: {
      mergingList: { items: 'MergeItem', strategy: 'merge', key: 'name', list: true },
      mergingIntList: { strategy: 'merge', list: true },
      mergeItemPtr: { items: 'MergeItem', strategy: 'merge', key: 'name', list: true },
      nonMergingList: { items: 'MergeItem', list: true },
    },
  },
}, 'MergeItem');

const cases: [string, string, string, string][] = [
  ['merge lists of scalars', `
mergingIntList: [1, 2, 4]`, `
$setElementOrder/mergingIntList: [1, 2, 3]
mergingIntList: [3]`, `
mergingIntList: [1, 2, 3, 4]`],
  ['add an item in a list of primitives and preserve order', `
mergingIntList: [1, 4, 2]`, `
$setElementOrder/mergingIntList: [3, 1, 2]
mergingIntList: [3]`, `
mergingIntList: [3, 1, 4, 2]`],
  ['delete an item in a list of primitives and preserve order', `
mergingIntList: [1, 2, 3]`, `
$setElementOrder/mergingIntList: [2, 1]
$deleteFromPrimitiveList/mergingIntList: [3]`, `
mergingIntList: [2, 1]`],
  ['add an item in a list and preserve order', `
mergingList:
  - {name: 1, other: a}
  - {name: 2, value: 2, other: b}`, `
$setElementOrder/mergingList: [{name: 3}, {name: 1}, {name: 2}]
mergingList:
  - {name: 3, value: 3}`, `
mergingList:
  - {name: 3, value: 3}
  - {name: 1, other: a}
  - {name: 2, value: 2, other: b}`],
  ['add multiple items in a list and preserve order', `
mergingList:
  - {name: 1, other: a}
  - {name: 2, value: 2, other: b}`, `
$setElementOrder/mergingList: [{name: 1}, {name: 4}, {name: 2}, {name: 3}]
mergingList:
  - {name: 4, value: 4}
  - {name: 3, value: 3}`, `
mergingList:
  - {name: 1, other: a}
  - {name: 4, value: 4}
  - {name: 2, value: 2, other: b}
  - {name: 3, value: 3}`],
  ['delete an item in a list and preserve order', `
mergingList:
  - {name: 1, other: a}
  - {name: 2, value: 2, other: b}
  - {name: 3, value: 3}`, `
$setElementOrder/mergingList: [{name: 2}, {name: 1}]
mergingList:
  - {name: 3, $patch: delete}`, `
mergingList:
  - {name: 2, value: 2, other: b}
  - {name: 1, other: a}`],
  ['change an item in a list and preserve order', `
mergingList:
  - {name: 1, other: a}
  - {name: 2, value: 2, other: b}
  - {name: 3, value: 3}`, `
$setElementOrder/mergingList: [{name: 2}, {name: 3}, {name: 1}]
mergingList:
  - {name: 3, value: x}`, `
mergingList:
  - {name: 2, value: 2, other: b}
  - {name: 3, value: x}
  - {name: 1, other: a}`],
  ['add and delete an item in a list and preserve order', `
mergingList:
  - {name: 1, other: a}
  - {name: 2, value: 2, other: b}
  - {name: 3, value: 3}`, `
$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 1}]
mergingList:
  - {name: 4, value: 4}
  - {name: 3, $patch: delete}`, `
mergingList:
  - {name: 4, value: 4}
  - {name: 2, value: 2, other: b}
  - {name: 1, other: a}`],
  ['set elements order in a list with server-only items', `
mergingList:
  - {name: 1, other: a}
  - {name: 3, value: 3}
  - {name: 4, value: 4}
  - {name: 2, value: 2}
  - {name: 9}`, `
$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]`, `
mergingList:
  - {name: 4, value: 4}
  - {name: 2, value: 2}
  - {name: 3, value: 3}
  - {name: 1, other: a}
  - {name: 9}`],
  ['set elements order in a list with server-only items 3', `
mergingList:
  - {name: 1, other: a}
  - {name: 2, value: 2}
  - {name: 7}
  - {name: 9}
  - {name: 8}
  - {name: 3, value: 3}
  - {name: 4, value: 4}`, `
$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]`, `
mergingList:
  - {name: 2, value: 2}
  - {name: 1, other: a}
  - {name: 7}
  - {name: 9}
  - {name: 8}
  - {name: 4, value: 4}
  - {name: 3, value: 3}`],
  ['add field to map in merging list by pointer with conflict', `
mergeItemPtr:
  - name: 1
    other: a
    mergeItemPtr:
      - {name: 1, value: a}
      - {name: 2, value: 2, other: b}
  - {name: 2, other: b}`, `
$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
mergeItemPtr:
  - $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    name: 1
    mergeItemPtr:
      - {name: 1, value: 1}`, `
mergeItemPtr:
  - name: 1
    other: a
    mergeItemPtr:
      - {name: 1, value: 1}
      - {name: 2, value: 2, other: b}
  - {name: 2, other: b}`],
  ['a list without merge strategy is replaced, with nested directives dropped', `
nonMergingList: [{name: 1}, {name: 2}]`, `
nonMergingList:
  - {name: 3, $patch: delete}`, `
nonMergingList: [{name: 3}]`],
];

for (const [name, current, patch, result] of cases) {
  test(`smp order: ${name}`, () => {
    const out = applyStrategicMergePatch(parse(current) as JsonObject, parse(patch) as Json, schema);
    assert.deepEqual(out, parse(result));
  });
}
