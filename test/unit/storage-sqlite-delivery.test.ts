import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import type { StorageEvent } from '../../src/storage/types.js';

/**
 * Watch events of a commit are handed out in slices between turns of the
 * event loop: each write resolves only after its event reached the watchers,
 * and a watch started while events are still going out gets them once (from
 * history), not a second time from the slices.
 */
test('watch events go out in slices; writes resolve after their event; a watch started meanwhile sees each event once', async () => {
  // A slice of 0 ms: one event a turn.
  const s = new SqliteStorage(':memory:', { deliverySliceMs: 0 });
  try {
    const trace: string[] = [];
    const early: number[] = [];
    await s.watch('/k/', 0, (events: StorageEvent[]) => { for (const e of events) { early.push(e.revision); trace.push(`event ${e.revision}`); } });
    const late: number[] = [];
    let lateWatch: Promise<unknown> | undefined;
    const writes = ['a', 'b', 'c'].map((k) => s.create(`/k/${k}`, '"v"').then((kv) => { trace.push(`resolved ${kv.modRevision}`); }));
    // Runs right after the commit, when only the first event is out.
    setImmediate(() => {
      trace.push('watch');
      lateWatch = s.watch('/k/', 0, (events) => { for (const e of events) late.push(e.revision); });
    });
    await Promise.all(writes);
    await lateWatch;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(trace, ['event 1', 'resolved 1', 'watch', 'event 2', 'resolved 2', 'event 3', 'resolved 3']);
    assert.deepEqual(early, [1, 2, 3]);
    assert.deepEqual(late, [1, 2, 3]);
    // Later writes reach both watchers as usual.
    await s.create('/k/d', '"v"');
    assert.deepEqual([early.at(-1), late.at(-1)], [4, 4]);
  } finally {
    await s.close();
  }
});
