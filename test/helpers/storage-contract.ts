import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompactedError, KeyExistsError, NotFoundError, RevisionMismatchError, type Storage, type StorageEvent } from '../../src/storage/types.js';

/** A fresh storage for one test; `done` closes it and removes what it holds. */
export type OpenStorage = () => Promise<{ storage: Storage; done: () => Promise<void> }>;

/** Waits (up to 20s, then fails naming what) for a condition a watch makes true. */
async function until(what: string, cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Resolves once a new watch of prefix from `from` has had the event of `revision`: one still
 * catching up (an etcd watch from a past revision is replayed apart from the live ones) had it
 * no sooner than a live watch would.
 */
async function deliveredTo(s: Storage, prefix: string, from: number, revision: number): Promise<void> {
  let got = false;
  const probe = await s.watch(prefix, from, (evs) => { if (evs.some((e) => e.revision >= revision)) got = true; });
  try { await until(`revision ${revision} under ${prefix}`, () => got); } finally { probe.cancel(); }
}

/**
 * The Storage contract (src/storage/types.ts) as every backend keeps it. Revisions are counted from
 * the storage's revision when the test starts: an etcd member starts at revision 1, SQLite at 0.
 */
export function storageContractTests(backend: string, open: OpenStorage): void {
  const withStorage = (fn: (s: Storage, base: number) => Promise<void>) => async () => {
    const { storage, done } = await open();
    try { await fn(storage, storage.currentRevision()); } finally { await done(); }
  };

  test(`${backend}: create, update with expected revision, delete`, withStorage(async (s, base) => {
    const a = await s.create('/core/configmaps/ns/a', '{"v":1}');
    assert.equal(a.modRevision, base + 1);
    assert.equal(a.createRevision, base + 1);
    await assert.rejects(s.create('/core/configmaps/ns/a', '{}'), KeyExistsError);
    await assert.rejects(s.update('/core/configmaps/ns/a', '{"v":2}', 99), (e: unknown) =>
      e instanceof RevisionMismatchError && e.actual === base + 1);
    await assert.rejects(s.update('/core/configmaps/ns/none', '{"v":2}', base + 1), NotFoundError);
    const b = await s.update('/core/configmaps/ns/a', '{"v":2}', base + 1);
    assert.deepEqual([b.modRevision, b.createRevision], [base + 2, base + 1]);
    assert.deepEqual(await s.get('/core/configmaps/ns/a'),
      { key: '/core/configmaps/ns/a', value: '{"v":2}', createRevision: base + 1, modRevision: base + 2 });
    await assert.rejects(s.delete('/core/configmaps/ns/a', base + 1), RevisionMismatchError);
    const d = await s.delete('/core/configmaps/ns/a', base + 2);
    assert.equal(d.revision, base + 3);
    assert.equal(d.prev.value, '{"v":2}');
    assert.equal(await s.get('/core/configmaps/ns/a'), undefined);
    await assert.rejects(s.delete('/core/configmaps/ns/a'), NotFoundError);
    assert.equal(s.currentRevision(), base + 3);
  }));

  test(`${backend}: list pages in key order and lists as of a past revision`, withStorage(async (s, base) => {
    for (const n of ['c', 'a', 'b', 'd']) await s.create(`/p/ns/${n}`, `"${n}1"`);
    await s.create('/q/other', '"x"');
    const rev = s.currentRevision();
    await s.update('/p/ns/b', '"b2"', base + 3);
    await s.delete('/p/ns/c');
    await s.create('/p/ns/e', '"e1"');
    const now = await s.list('/p/');
    assert.deepEqual(now.items.map((i) => i.value), ['"a1"', '"b2"', '"d1"', '"e1"']);
    assert.equal(now.revision, s.currentRevision());
    const page1 = await s.list('/p/', { limit: 2 });
    assert.deepEqual(page1.items.map((i) => i.key), ['/p/ns/a', '/p/ns/b']);
    assert.equal(page1.more, true);
    const page2 = await s.list('/p/', { limit: 2, after: '/p/ns/b' });
    assert.deepEqual(page2.items.map((i) => i.key), ['/p/ns/d', '/p/ns/e']);
    assert.equal(page2.more, false);
    const then = await s.list('/p/', { revision: rev });
    assert.equal(then.revision, rev);
    assert.deepEqual(then.items.map((i) => [i.key, i.value, i.modRevision]),
      [['/p/ns/a', '"a1"', base + 2], ['/p/ns/b', '"b1"', base + 3], ['/p/ns/c', '"c1"', base + 1], ['/p/ns/d', '"d1"', base + 4]]);
    const thenPage = await s.list('/p/', { revision: rev, limit: 1, after: '/p/ns/a' });
    assert.deepEqual(thenPage.items.map((i) => i.value), ['"b1"']);
    assert.equal(await s.count('/p/'), 4);
  }));

  test(`${backend}: watch replays history after a revision, then live events`, withStorage(async (s, base) => {
    await s.create('/w/a', '1');
    await s.create('/w/b', '1');
    await s.create('/x/c', '1');
    const seen: StorageEvent[] = [];
    const h = await s.watch('/w/', base + 1, (evs) => seen.push(...evs));
    await s.update('/w/a', '2', base + 1);
    await s.delete('/w/b');
    await until('3 events', () => seen.length >= 3);
    h.cancel();
    const z = await s.create('/w/z', '1');
    await deliveredTo(s, '/w/', z.modRevision - 1, z.modRevision);
    assert.deepEqual(seen.map((e) => [e.type, e.key, e.revision, e.value, e.prevValue, e.prevModRevision])
      .sort((x, y) => (x[2] as number) - (y[2] as number)), [
      ['PUT', '/w/b', base + 2, '1', undefined, undefined],
      ['PUT', '/w/a', base + 4, '2', '1', base + 1],
      ['DELETE', '/w/b', base + 5, undefined, '1', base + 2],
    ]);
  }));

  test(`${backend}: a write resolves once the watches of its key have its event`, withStorage(async (s, base) => {
    const seen: string[] = [];
    const h = await s.watch('/rw/', s.currentRevision(), (evs) => seen.push(...evs.map((e) => `${e.type} ${e.key} ${e.revision}`)));
    try {
      await s.create('/rw/a', '1');
      assert.deepEqual(seen, [`PUT /rw/a ${base + 1}`]);
      await s.update('/rw/a', '2', base + 1);
      await s.delete('/rw/a');
      assert.deepEqual(seen, [`PUT /rw/a ${base + 1}`, `PUT /rw/a ${base + 2}`, `DELETE /rw/a ${base + 3}`]);
    } finally { h.cancel(); }
  }));

  test(`${backend}: compaction makes older revisions unanswerable`, withStorage(async (s, base) => {
    await s.create('/k/a', '1');
    await s.update('/k/a', '2', base + 1);
    await s.update('/k/a', '3', base + 2);
    await s.compact(base + 2);
    assert.equal(s.compactedRevision(), base + 2);
    await assert.rejects(s.watch('/k/', base + 1, () => {}), (e: unknown) =>
      e instanceof CompactedError && e.requested === base + 1 && e.compacted === base + 2);
    await assert.rejects(s.list('/k/', { revision: base + 1 }), (e: unknown) =>
      e instanceof CompactedError && e.requested === base + 1 && e.compacted === base + 2);
    const at2 = await s.list('/k/', { revision: base + 2 });
    assert.deepEqual(at2.items.map((i) => i.value), ['2']);
  }));
}
