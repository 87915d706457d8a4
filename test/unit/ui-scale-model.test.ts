/** The cluster map at scale as pure functions: the label filter, the map's model, the virtual rows, collapsed chips, batched events. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { parseLabelFilter } from '../../src/ui/web/model/label-filter.js';
import { nodeMatches, podMatches, type Filter } from '../../src/ui/web/model/filter.js';
import { mapModel } from '../../src/ui/web/model/map-model.js';
import { rowsToRender, visibleRows } from '../../src/ui/web/model/virtual-range.js';
import { collapseChips, moreText } from '../../src/ui/web/model/chip-limit.js';
import { applyEvents, fromList, type WatchEvent } from '../../src/ui/web/model/watch-state.js';

const node = (name: string, labels: Record<string, string>): Node => ({ metadata: { name, labels } });
const pod = (name: string, labels: Record<string, string>, nodeName?: string, namespace = 'default'): Pod =>
  ({ metadata: { name, namespace, labels, uid: `${namespace}-${name}` }, spec: { containers: [{ name: 'app' }], nodeName } });

function selectorFilter(text: string, rest: Partial<Filter> = {}): Filter {
  const parsed = parseLabelFilter(text);
  assert.equal(parsed.error, undefined);
  return { namespace: '', name: '', selector: parsed.selector, ...rest };
}

test('the label filter takes kubectl -l syntax: equality, inequality, sets, existence', () => {
  const web = pod('web', { app: 'web', tier: 'frontend' });
  const db = pod('db', { app: 'web', tier: 'db' });
  const bare = pod('bare', {});
  const names = (text: string) => [web, db, bare].filter((p) => podMatches(p, selectorFilter(text))).map((p) => p.metadata?.name);
  assert.deepEqual(names('app=web,tier!=db'), ['web']);
  assert.deepEqual(names('tier in (db,cache)'), ['db']);
  assert.deepEqual(names('tier notin (db)'), ['web', 'bare']);
  assert.deepEqual(names('!app'), ['bare']);
  assert.deepEqual(names('app'), ['web', 'db']);
  assert.deepEqual(names(''), ['web', 'db', 'bare']);
});

test('an invalid selector gives the API server\'s message, the one kubectl prints', () => {
  assert.deepEqual(parseLabelFilter('env in (prod'), { error: "unable to parse requirement: found '', expected: ',' or ')'" });
  assert.deepEqual(parseLabelFilter('app=web server'), { error: "found 'server', expected: ',' or 'end of string'" });
  // An empty value is a valid one (app has the empty value), as upstream's parser has it.
  assert.equal(parseLabelFilter('app==').error, undefined);
  assert.equal(parseLabelFilter('app==').selector?.matches({ app: '' }), true);
  assert.equal(parseLabelFilter('app=has space,').error, "found 'space', expected: ',' or 'end of string'");
});

test('nodes: kept for a pod they run, else for their own name and labels against the filter', () => {
  const win = node('win2022-1', { 'kubernetes.io/os': 'windows' });
  const lin = node('linux-1', { 'kubernetes.io/os': 'linux' });
  const windows = selectorFilter('kubernetes.io/os=windows');
  assert.equal(nodeMatches(win, [], windows), true);
  assert.equal(nodeMatches(lin, [], windows), false);
  assert.equal(nodeMatches(lin, [pod('p', {}, 'linux-1')], windows), true);
  assert.equal(nodeMatches(win, [], selectorFilter('kubernetes.io/os=windows', { name: 'linux' })), false);
  assert.equal(nodeMatches(lin, [], { namespace: 'kube-system', name: '' }), true);
});

test('the map model: columns keep their node counts, filtered nodes with their pods sorted, matching unscheduled pods', () => {
  const nodes = [node('linux-2', { 'kubernetes.io/os': 'linux' }), node('linux-1', { 'kubernetes.io/os': 'linux' }),
    node('win-1', { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' })];
  const pods = [pod('web-b', { app: 'web' }, 'linux-1'), pod('web-a', { app: 'web' }, 'linux-1'), pod('db', { app: 'db' }, 'linux-2'),
    pod('iis', { app: 'web' }, 'win-1'), pod('pending', { app: 'web' }), pod('pending-db', { app: 'db' })];
  const model = mapModel(nodes, pods, selectorFilter('app=web'));
  assert.deepEqual(model.columns.map((c) => [c.key, c.nodeCount, c.nodes.map((n) => [n.node.metadata?.name, n.pods.length, n.shown.map((p) => p.metadata?.name)])]), [
    ['linux', 2, [['linux-1', 2, ['web-a', 'web-b']]]],
    ['windows-17763', 1, [['win-1', 1, ['iis']]]],
  ]);
  assert.deepEqual(model.unscheduled.map((p) => p.metadata?.name), ['pending']);
});

test('virtual rows: the rows in the window plus the overscan, clamped to the list', () => {
  assert.deepEqual(visibleRows(300, 200, 100, 900, 3), { start: 0, end: 7 });
  assert.deepEqual(visibleRows(300, 200, -30_000, 900, 3), { start: 147, end: 158 });
  assert.deepEqual(visibleRows(300, 200, -59_500, 900, 3), { start: 294, end: 300 });
  assert.deepEqual(visibleRows(300, 200, -70_000, 900, 3), { start: 300, end: 300 });
  assert.deepEqual(visibleRows(300, 200, 2000, 900, 3), { start: 0, end: 0 });
  assert.deepEqual(visibleRows(0, 200, 0, 900, 3), { start: 0, end: 0 });
});

test('chips past the limit collapse into "+N more", the selected one kept in view', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];
  assert.deepEqual(collapseChips(items, 3, false), { shown: ['a', 'b', 'c'], more: 2 });
  assert.deepEqual(collapseChips(items, 3, false, (x) => x === 'e'), { shown: ['a', 'b', 'c', 'e'], more: 1 });
  assert.deepEqual(collapseChips(items, 3, true), { shown: items, more: 0 });
  assert.deepEqual(collapseChips(items, 5, false), { shown: items, more: 0 });
  assert.deepEqual(moreText(2, 'on linux-1'), { text: '+2 more', label: 'Show 2 more pods on linux-1' });
  assert.deepEqual(moreText(1, 'without a node'), { text: '+1 more', label: 'Show 1 more pod without a node' });
});

test('a batch of watch events applies in order with one copy; a batch of bookmarks keeps the same map', () => {
  const a = pod('a', {});
  const state = fromList([a]);
  const running: Pod = { ...a, status: { phase: 'Running' } };
  const events: WatchEvent<Pod>[] = [
    { type: 'ADDED', object: pod('b', {}) }, { type: 'MODIFIED', object: running },
    { type: 'DELETED', object: pod('b', {}) }, { type: 'ADDED', object: pod('c', {}) },
  ];
  const next = applyEvents(state, events);
  assert.notEqual(next, state);
  assert.deepEqual([...next.keys()], ['default/a', 'default/c']);
  assert.equal(next.get('default/a')?.status?.phase, 'Running');
  assert.equal(state.get('default/a')?.status, undefined);
  assert.equal(applyEvents(state, [{ type: 'BOOKMARK', object: a }]), state);
});

test('rows to render: the window\'s, plus the focused row and its neighbours wherever they are', () => {
  assert.deepEqual(rowsToRender({ start: 0, end: 4 }, -1, 300), [0, 1, 2, 3]);
  assert.deepEqual(rowsToRender({ start: 0, end: 4 }, 4, 300), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(rowsToRender({ start: 10, end: 12 }, 0, 300), [0, 1, 10, 11]);
  assert.deepEqual(rowsToRender({ start: 297, end: 300 }, 299, 300), [297, 298, 299]);
});

test('rows to render never go past a list that shrank since its range was measured', () => {
  assert.deepEqual(rowsToRender({ start: 0, end: 3 }, -1, 1), [0]);
  assert.deepEqual(rowsToRender({ start: 0, end: 3 }, 2, 0), []);
});
