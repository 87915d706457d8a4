import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { CompactedError, KeyExistsError, NotFoundError, RevisionMismatchError, type StorageEvent } from '../../src/storage/types.js';

function withStorage(fn: (s: SqliteStorage, file: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'winkube-sqlite-'));
    const file = join(dir, 'state.db');
    const s = new SqliteStorage(file);
    try { await fn(s, file); } finally { await s.close().catch(() => {}); rmSync(dir, { recursive: true, force: true }); }
  };
}

test('create, update with expected revision, delete', withStorage(async (s) => {
  const a = await s.create('/core/configmaps/ns/a', '{"v":1}');
  assert.equal(a.modRevision, 1);
  assert.equal(a.createRevision, 1);
  await assert.rejects(s.create('/core/configmaps/ns/a', '{}'), KeyExistsError);
  await assert.rejects(s.update('/core/configmaps/ns/a', '{"v":2}', 99), RevisionMismatchError);
  const b = await s.update('/core/configmaps/ns/a', '{"v":2}', 1);
  assert.deepEqual([b.modRevision, b.createRevision], [2, 1]);
  assert.equal((await s.get('/core/configmaps/ns/a'))!.value, '{"v":2}');
  const d = await s.delete('/core/configmaps/ns/a');
  assert.equal(d.revision, 3);
  assert.equal(d.prev.value, '{"v":2}');
  assert.equal(await s.get('/core/configmaps/ns/a'), undefined);
  await assert.rejects(s.delete('/core/configmaps/ns/a'), NotFoundError);
  assert.equal(s.currentRevision(), 3);
}));

test('list pages in key order and lists as of a past revision', withStorage(async (s) => {
  for (const n of ['c', 'a', 'b', 'd']) await s.create(`/p/ns/${n}`, `"${n}1"`);
  await s.create('/q/other', '"x"');
  const rev = s.currentRevision();
  await s.update('/p/ns/b', '"b2"', 3);
  await s.delete('/p/ns/c');
  await s.create('/p/ns/e', '"e1"');
  const now = await s.list('/p/');
  assert.deepEqual(now.items.map((i) => i.value), ['"a1"', '"b2"', '"d1"', '"e1"']);
  const page1 = await s.list('/p/', { limit: 2 });
  assert.deepEqual(page1.items.map((i) => i.key), ['/p/ns/a', '/p/ns/b']);
  assert.equal(page1.more, true);
  const page2 = await s.list('/p/', { limit: 2, after: '/p/ns/b' });
  assert.deepEqual(page2.items.map((i) => i.key), ['/p/ns/d', '/p/ns/e']);
  assert.equal(page2.more, false);
  const then = await s.list('/p/', { revision: rev });
  assert.equal(then.revision, rev);
  assert.deepEqual(then.items.map((i) => [i.key, i.value, i.modRevision]),
    [['/p/ns/a', '"a1"', 2], ['/p/ns/b', '"b1"', 3], ['/p/ns/c', '"c1"', 1], ['/p/ns/d', '"d1"', 4]]);
  const thenPage = await s.list('/p/', { revision: rev, limit: 1, after: '/p/ns/a' });
  assert.deepEqual(thenPage.items.map((i) => i.value), ['"b1"']);
  assert.equal(await s.count('/p/'), 4);
}));

test('watch replays history after a revision, then live events', withStorage(async (s) => {
  await s.create('/w/a', '1');
  await s.create('/w/b', '1');
  await s.create('/x/c', '1');
  const seen: StorageEvent[] = [];
  const h = await s.watch('/w/', 1, (evs) => seen.push(...evs));
  await s.update('/w/a', '2', 1);
  await s.delete('/w/b');
  await new Promise((r) => setImmediate(r));
  h.cancel();
  await s.create('/w/z', '1');
  assert.deepEqual(seen.map((e) => [e.type, e.key, e.revision, e.value, e.prevValue]).sort((x, y) => (x[2] as number) - (y[2] as number)), [
    ['PUT', '/w/b', 2, '1', undefined],
    ['PUT', '/w/a', 4, '2', '1'],
    ['DELETE', '/w/b', 5, undefined, '1'],
  ]);
}));

test('compaction makes older revisions unanswerable', withStorage(async (s) => {
  await s.create('/k/a', '1');
  await s.update('/k/a', '2', 1);
  await s.update('/k/a', '3', 2);
  await s.compact(2);
  assert.equal(s.compactedRevision(), 2);
  await assert.rejects(s.watch('/k/', 1, () => {}), CompactedError);
  await assert.rejects(s.list('/k/', { revision: 1 }), CompactedError);
  const at2 = await s.list('/k/', { revision: 2 });
  assert.deepEqual(at2.items.map((i) => i.value), ['2']);
}));

test('state and revision survive reopening the file', withStorage(async (s, file) => {
  await s.create('/r/a', 'A');
  await s.create('/r/b', 'B');
  await s.delete('/r/a');
  await s.compact(3);
  await s.close();
  const again = new SqliteStorage(file);
  try {
    assert.equal(again.currentRevision(), 3);
    assert.deepEqual((await again.list('/r/')).items.map((i) => i.value), ['B']);
    const next = await again.create('/r/c', 'C');
    assert.equal(next.modRevision, 4);
  } finally { await again.close(); }
}));
