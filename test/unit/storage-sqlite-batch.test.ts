import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { KeyExistsError, NotFoundError, RevisionMismatchError } from '../../src/storage/types.js';

/**
 * Writes issued together share one transaction (group commit) and the live
 * rows are kept in memory: within a batch each write sees the ones before
 * it, a failed precondition changes nothing, and what a reopened database
 * reads is what the first one acknowledged.
 */
test('writes of one batch see each other; failed preconditions leave no trace; a reopened database agrees', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-sqlite-batch-'));
  const file = join(dir, 'state.db');
  try {
    const s = new SqliteStorage(file);
    await s.create('/k/a', '"a1"');
    await s.create('/k/gone', '"g1"');
    assert.equal((await s.get('/k/a'))!.value, '"a1"');
    // One turn of the event loop: one batch.
    const results = await Promise.allSettled([
      s.update('/k/a', '"a2"', 1),
      s.update('/k/a', '"a3"', 3),
      s.update('/k/a', '"stale"', 1),
      s.create('/k/b', '"b1"'),
      s.create('/k/b', '"b-again"'),
      s.delete('/k/gone', 2),
      s.update('/k/gone', '"g2"', 2),
      s.create('/k/gone', '"g3"'),
    ]);
    assert.deepEqual(results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    assert.ok((results[2] as PromiseRejectedResult).reason instanceof RevisionMismatchError);
    assert.ok((results[4] as PromiseRejectedResult).reason instanceof KeyExistsError);
    assert.ok((results[6] as PromiseRejectedResult).reason instanceof NotFoundError);
    const expect = async (st: SqliteStorage) => {
      const a = (await st.get('/k/a'))!;
      assert.deepEqual([a.value, a.createRevision, a.modRevision], ['"a3"', 1, 4]);
      assert.equal((await st.get('/k/b'))!.value, '"b1"');
      const g = (await st.get('/k/gone'))!;
      assert.deepEqual([g.value, g.createRevision], ['"g3"', 7]);
      assert.deepEqual((await st.list('/k/')).items.map((kv) => kv.value), ['"a3"', '"b1"', '"g3"']);
    };
    await expect(s);
    assert.equal(s.currentRevision(), 7);
    await s.close();
    const again = new SqliteStorage(file);
    try {
      await expect(again);
      assert.equal(again.currentRevision(), 7);
    } finally {
      await again.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
