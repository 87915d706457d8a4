import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { CompactedError, type StorageEvent } from '../../src/storage/types.js';

function tempFile(): { file: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-layout-'));
  return { file: join(dir, 'state.db'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

async function history(s: SqliteStorage, prefix: string, from: number): Promise<StorageEvent[]> {
  const seen: StorageEvent[] = [];
  const h = await s.watch(prefix, from, (evs) => seen.push(...evs));
  await new Promise((r) => setImmediate(r));
  h.cancel();
  return seen;
}

test('each revision stores its value once', async () => {
  const { file, done } = tempFile();
  const s = new SqliteStorage(file);
  try {
    await s.create('/v/a', 'A1');
    await s.update('/v/a', 'A2', 1);
    await s.delete('/v/a');
    const db = new Database(file, { readonly: true });
    const values = db.prepare('SELECT value FROM log WHERE value IS NOT NULL ORDER BY rev').all() as { value: string }[];
    const currentCols = (db.prepare('PRAGMA table_info(current)').all() as { name: string }[]).map((c) => c.name);
    db.close();
    assert.deepEqual(values.map((v) => v.value), ['A1', 'A2']);
    assert.deepEqual(currentCols, ['key', 'create_rev', 'mod_rev']);
  } finally { await s.close(); done(); }
});

test('compaction keeps live values and the pre-images of retained revisions', async () => {
  const { file, done } = tempFile();
  const s = new SqliteStorage(file);
  try {
    await s.create('/c/a', 'a1'); // 1
    await s.create('/c/b', 'b1'); // 2
    await s.update('/c/a', 'a2', 1); // 3
    await s.create('/c/gone', 'g1'); // 4
    await s.update('/c/b', 'b2', 2); // 5: its pre-image b1 (rev 2) is older than the compaction
    await s.delete('/c/gone'); // 6: its pre-image g1 (rev 4) too
    await s.create('/c/d', 'd1'); // 7
    await s.compact(4);
    // Revision 1 is neither live nor a retained pre-image: it is gone; a1 at 3 is live until changed.
    const db = new Database(file, { readonly: true });
    const revs = (db.prepare('SELECT rev FROM log ORDER BY rev').all() as { rev: number }[]).map((r) => r.rev);
    db.close();
    assert.deepEqual(revs, [2, 3, 4, 5, 6, 7]);
    await s.compact(6);
    const db2 = new Database(file, { readonly: true });
    const revs2 = (db2.prepare('SELECT rev FROM log ORDER BY rev').all() as { rev: number }[]).map((r) => r.rev);
    db2.close();
    assert.deepEqual(revs2, [3, 5, 7]);
    assert.deepEqual((await s.list('/c/')).items.map((i) => [i.key, i.value, i.modRevision, i.createRevision]),
      [['/c/a', 'a2', 3, 1], ['/c/b', 'b2', 5, 2], ['/c/d', 'd1', 7, 7]]);
    await assert.rejects(s.watch('/c/', 5, () => {}), CompactedError);
    assert.deepEqual((await history(s, '/c/', 6)).map((e) => [e.type, e.key, e.revision, e.value, e.prevValue]),
      [['PUT', '/c/d', 7, 'd1', undefined]]);
    await s.update('/c/a', 'a3', 3); // 8: its pre-image (rev 3) was live at the compaction
    assert.deepEqual((await history(s, '/c/', 7)).map((e) => [e.type, e.key, e.revision, e.value, e.prevValue, e.prevModRevision]),
      [['PUT', '/c/a', 8, 'a3', 'a2', 3]]);
    assert.deepEqual((await s.list('/c/', { revision: 7 })).items.map((i) => [i.key, i.value, i.modRevision]),
      [['/c/a', 'a2', 3], ['/c/b', 'b2', 5], ['/c/d', 'd1', 7]]);
  } finally { await s.close(); done(); }
});

test('a watch from an old revision replays values and pre-images, deletes included', async () => {
  const { file, done } = tempFile();
  const s = new SqliteStorage(file);
  try {
    await s.create('/w/a', 'a1'); // 1
    await s.update('/w/a', 'a2', 1); // 2
    await s.compact(1);
    await s.update('/w/a', 'a3', 2); // 3
    await s.delete('/w/a'); // 4
    await s.create('/w/a', 'a4'); // 5
    assert.deepEqual((await history(s, '/w/', 1)).map((e) => [e.type, e.revision, e.value, e.prevValue, e.prevModRevision]), [
      ['PUT', 2, 'a2', 'a1', 1],
      ['PUT', 3, 'a3', 'a2', 2],
      ['DELETE', 4, undefined, 'a3', 3],
      ['PUT', 5, 'a4', undefined, undefined],
    ]);
  } finally { await s.close(); done(); }
});

test('a file of the first layout is converted, compacted history included', async () => {
  const { file, done } = tempFile();
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE current (key TEXT PRIMARY KEY, create_rev INTEGER NOT NULL, mod_rev INTEGER NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE log (rev INTEGER PRIMARY KEY, key TEXT NOT NULL, deleted INTEGER NOT NULL, create_rev INTEGER NOT NULL,
      value TEXT, prev_rev INTEGER, prev_value TEXT);
    CREATE INDEX log_key_rev ON log (key, rev);
    CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    -- a1 (1), b1 (2), a2 (3), b2 (4), compacted at 3: the rows of revisions 1-3 are gone.
    INSERT INTO current VALUES ('/m/a', 1, 3, 'a2'), ('/m/b', 2, 4, 'b2');
    INSERT INTO log VALUES (4, '/m/b', 0, 2, 'b2', 2, 'b1');
    INSERT INTO meta VALUES ('compact_rev', 3), ('rev_floor', 4);
  `);
  db.close();
  const s = new SqliteStorage(file);
  try {
    assert.equal(s.currentRevision(), 4);
    assert.equal(s.compactedRevision(), 3);
    assert.deepEqual((await s.list('/m/')).items.map((i) => [i.key, i.value, i.createRevision, i.modRevision]),
      [['/m/a', 'a2', 1, 3], ['/m/b', 'b2', 2, 4]]);
    assert.deepEqual((await s.list('/m/', { revision: 3 })).items.map((i) => [i.key, i.value, i.modRevision]),
      [['/m/a', 'a2', 3], ['/m/b', 'b1', 2]]);
    assert.deepEqual((await history(s, '/m/', 3)).map((e) => [e.revision, e.value, e.prevValue, e.prevModRevision]),
      [[4, 'b2', 'b1', 2]]);
    const next = await s.update('/m/a', 'a3', 3);
    assert.equal(next.modRevision, 5);
    assert.deepEqual((await history(s, '/m/a', 4)).map((e) => [e.revision, e.value, e.prevValue]), [[5, 'a3', 'a2']]);
  } finally { await s.close(); done(); }
});

// The child writes, reports each committed revision, and is killed with SIGKILL mid-stream.
const WRITER = `
import { SqliteStorage } from ${JSON.stringify(new URL('../../src/storage/sqlite.js', import.meta.url).href)};
const s = new SqliteStorage(process.argv[1]);
await s.create('/k/obj', JSON.stringify({ n: 0 }));
let rev = 1;
for (let n = 1; ; n++) {
  const writes = [s.update('/k/obj', JSON.stringify({ n }), rev)];
  for (let j = 0; j < 20; j++) writes.push(s.create('/k/o-' + n + '-' + j, 'x'.repeat(3000)));
  const [kv] = await Promise.all(writes);
  rev = kv.modRevision;
  process.stdout.write(n + ' ' + rev + '\\n');
}
`;

test('writes committed before a kill -9 are all there, with their history', async () => {
  const { file, done } = tempFile();
  try {
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let last = { n: 0, rev: 0 };
    await new Promise<void>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (d) => {
        buf += d;
        const lines = buf.split('\n');
        buf = lines.pop()!;
        for (const l of lines) { const [n = NaN, rev = NaN] = l.split(' ').map(Number); last = { n, rev }; }
        if (last.n >= 40) { child.kill('SIGKILL'); resolve(); }
      });
      child.once('exit', (code, signal) => { if (signal !== 'SIGKILL') reject(new Error(`writer exited ${code}`)); });
    });
    await new Promise((r) => child.once('exit', r));
    const s = new SqliteStorage(file);
    try {
      const kv = (await s.get('/k/obj'))!;
      // What was reported committed is there; a batch may have committed after its report was the last.
      const n = (JSON.parse(kv.value) as { n: number }).n;
      assert.ok(n >= last.n, `object at n=${n}, reported ${last.n}`);
      assert.ok(kv.modRevision >= last.rev);
      assert.equal(s.currentRevision() >= kv.modRevision, true);
      assert.equal(await s.count('/k/o-'), n * 20);
      const events = await history(s, '/k/obj', 0);
      assert.deepEqual(events.map((e) => (JSON.parse(e.value!) as { n: number }).n), Array.from({ length: n + 1 }, (_, i) => i));
      assert.deepEqual(events.slice(1).map((e) => e.prevValue), events.slice(0, -1).map((e) => e.value));
      const next = await s.update('/k/obj', '{"n":-1}', kv.modRevision);
      assert.equal(next.modRevision, s.currentRevision());
    } finally { await s.close(); }
  } finally { done(); }
});
