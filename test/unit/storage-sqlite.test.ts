import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { storageContractTests } from '../helpers/storage-contract.js';

function withStorage(fn: (s: SqliteStorage, file: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'winkube-sqlite-'));
    const file = join(dir, 'state.db');
    const s = new SqliteStorage(file);
    try { await fn(s, file); } finally { await s.close().catch(() => {}); rmSync(dir, { recursive: true, force: true }); }
  };
}

storageContractTests('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-sqlite-'));
  const storage = new SqliteStorage(join(dir, 'state.db'));
  return { storage, done: async () => { await storage.close().catch(() => {}); rmSync(dir, { recursive: true, force: true }); } };
});

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
