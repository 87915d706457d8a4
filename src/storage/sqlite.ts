import Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  CompactedError, KeyExistsError, NotFoundError, RevisionMismatchError, StorageError, prefixEnd,
  type KeyValue, type ListOptions, type ListResult, type Storage, type StorageEvent,
  type StorageEventBatch, type WatchHandle,
} from './types.js';
import { WatcherSet } from './watchers.js';
import { ensurePrivateDatabaseFile } from './private-paths.js';

/**
 * Each revision's value is stored once, in its `log` row; `current` names the
 * live revision of each key. A write appends one value instead of three (the
 * live row, the log row and the log row's pre-image): the pre-image of a
 * revision is the value of the log row its prev_rev names.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS current (
  key TEXT PRIMARY KEY,
  create_rev INTEGER NOT NULL,
  mod_rev INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log (
  rev INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  create_rev INTEGER NOT NULL,
  value TEXT,
  prev_rev INTEGER
);
CREATE INDEX IF NOT EXISTS log_key_rev ON log (key, rev);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;
/** PRAGMA user_version of the layout above; files of the earlier layout (0) are converted when opened. */
const LAYOUT_VERSION = 2;

/**
 * Converts a file of the first layout (values in `current` and pre-images in
 * `log`) in one transaction: a live value whose log row was compacted away
 * gets its log row back, then the copies are dropped.
 */
function migrateLayout(db: Database.Database): void {
  const cols = (t: string) => (db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
  db.transaction(() => {
    if (cols('current').includes('value')) {
      db.exec(`INSERT OR REPLACE INTO log (rev, key, deleted, create_rev, value, prev_rev, prev_value)
        SELECT c.mod_rev, c.key, 0, c.create_rev, c.value, l.prev_rev, l.prev_value
        FROM current c LEFT JOIN log l ON l.rev = c.mod_rev`);
      db.exec('ALTER TABLE current DROP COLUMN value');
    }
    if (cols('log').includes('prev_value')) {
      // Pre-images no live row or log row holds any more (their revision was compacted) become log rows of their own.
      db.exec(`INSERT OR IGNORE INTO log (rev, key, deleted, create_rev, value, prev_rev, prev_value)
        SELECT l.prev_rev, l.key, 0, l.create_rev, l.prev_value, NULL, NULL FROM log l
        WHERE l.prev_value IS NOT NULL AND NOT EXISTS (SELECT 1 FROM log p WHERE p.rev = l.prev_rev)`);
      db.exec('ALTER TABLE log DROP COLUMN prev_value');
    }
    db.pragma(`user_version = ${LAYOUT_VERSION}`);
  })();
}

/**
 * Checkpoints of the WAL into the database file, on a thread of their own
 * with a connection of their own. SQLite's automatic checkpoint runs inside
 * the commit that crosses 1000 WAL pages, on the event loop, and with
 * synchronous=NORMAL it fsyncs the database file: every few batches of writes
 * one commit took tens of milliseconds, which every request waiting on that
 * batch (and every request queued behind it) paid. A PASSIVE checkpoint
 * does not block the writer, so here the event loop only appends to the WAL.
 *
 * The writer starts the WAL over only when a write finds it fully
 * checkpointed, so passes follow each other while frames are left; should the
 * WAL still pass restartFrames (writes never pausing), a RESTART checkpoint
 * makes the writer wait once for the last frames and the sync.
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
let timer;
let closed = false;
const checkpoint = (mode) => { try { return db.pragma('wal_checkpoint(' + mode + ')')[0]; } catch { return undefined; } };
const loop = () => {
  if (closed) return;
  const r = checkpoint('PASSIVE');
  if (r && r.log > workerData.restartFrames) checkpoint('RESTART');
  else if (r && r.checkpointed < r.log) { timer = setImmediate(loop); return; }
  timer = setTimeout(loop, workerData.intervalMs);
};
timer = setTimeout(loop, workerData.intervalMs);
parentPort.on('message', () => {
  closed = true;
  clearTimeout(timer);
  clearImmediate(timer);
  checkpoint('PASSIVE');
  db.close();
  parentPort.close();
});
`;
const CHECKPOINT_INTERVAL_MS = 20;
/** Live rows kept in memory (most recently used), a few MB of values at most. */
const ROW_CACHE_SIZE = 2048;
/** 4 KiB pages: the WAL is started over before it passes about 32 MiB. */
const RESTART_FRAMES = 8192;

interface PendingWrite {
  apply: (rev: number) => { result: unknown; event: StorageEvent };
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

interface CurrentRow { key: string; value: string; create_rev: number; mod_rev: number }
/** A log row with the value of its prev_rev (null when the key was created). */
interface LogRow {
  rev: number; key: string; deleted: number; create_rev: number;
  value: string | null; prev_rev: number | null; prev_value: string | null;
}

/**
 * Embedded storage on one SQLite file.
 *
 * Two tables: `log` holds one row per revision with its value and the
 * revision it replaced, which serves watches from a past revision and lists
 * at a past revision (the live rows plus the pre-images of the keys changed
 * since); `current` holds the live revision of every key, so reads and lists
 * cost the same however long the history is. Compaction keeps the log rows
 * that are still live or still the pre-image of a retained revision. WAL
 * with synchronous=NORMAL keeps every committed write across a process kill.
 */
const CHECKPOINTER_AFTER_COMMITS = 1000;
const MAX_BATCH = 256;
/**
 * Node Lease renewals: API Priority and Fairness serves the kubelets' Lease
 * updates at the system-nodes priority level, ahead of the workload-low and
 * global-default traffic a burst of pod writes is; here they go ahead of the
 * writes queued for commit, so a burst of thousands does not make heartbeats late.
 */
const PRIORITY_PREFIX = '/coordination.k8s.io/leases/kube-node-lease/';
/**
 * Watch events handed out in one turn of the event loop, by time: a commit of
 * hundreds of writes fans out to every watcher of their keys (informers decode
 * each one), and in one piece that is a turn long enough to make timers (the
 * nodes' Lease renewals) late. Each write still resolves only once its event
 * reached every watcher.
 */
const DELIVERY_SLICE_MS = 20;

export class SqliteStorage implements Storage {
  private readonly db: Database.Database;
  private rev: number;
  private compactRev: number;
  private readonly watchers = new WatcherSet();
  /** Committed writes whose watch events are still to be handed out, in revision order, and how far that has got. */
  private deliveries: { event?: StorageEvent; settle: () => void }[] = [];
  private delivered = 0;
  private delivering = false;
  private pending: PendingWrite[] = [];
  /** How many of `pending`'s first entries are priority writes (node Leases), in arrival order. */
  private priorityPending = 0;
  private readonly stmt;
  private checkpointer?: Worker;
  /**
   * The checkpoint thread starts once writes come in earnest (after
   * CHECKPOINTER_AFTER_COMMITS commits): an idle server does not pay a
   * thread's memory for it, and SQLite's own checkpoints keep a lightly
   * written WAL short until then.
   */
  private checkpointerFile?: string;
  private commits = 0;
  /**
   * The live rows read or written last, so that a read-modify-write (a get,
   * then the write checking its precondition) reads SQLite once. Only ever
   * holds committed rows (`null`: the key does not exist); the batch being
   * committed keeps its own rows in `batchRows` until the commit succeeds.
   */
  private readonly rows = new Map<string, CurrentRow | null>();
  private batchRows?: Map<string, CurrentRow | null>;

  private readonly deliverySliceMs: number;

  /** `deliverySliceMs`: how long one turn hands out watch events (DELIVERY_SLICE_MS; tests set 0 to see slices one event long). */
  constructor(file: string, opts: { deliverySliceMs?: number } = {}) {
    this.deliverySliceMs = opts.deliverySliceMs ?? DELIVERY_SLICE_MS;
    ensurePrivateDatabaseFile(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    if (this.db.pragma('user_version', { simple: true }) !== LAYOUT_VERSION) {
      const fresh = !this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'current'").get();
      if (fresh) {
        this.db.exec(SCHEMA);
        this.db.pragma(`user_version = ${LAYOUT_VERSION}`);
      } else {
        migrateLayout(this.db);
      }
    }
    if (!this.db.memory) this.checkpointerFile = file;
    const LIVE = 'SELECT c.key, l.value, c.create_rev, c.mod_rev FROM current c JOIN log l ON l.rev = c.mod_rev';
    const WITH_PREV = 'SELECT l.*, p.value AS prev_value FROM log l LEFT JOIN log p ON p.rev = l.prev_rev';
    this.stmt = {
      get: this.db.prepare<[string], CurrentRow>(`${LIVE} WHERE c.key = ?`),
      insertCurrent: this.db.prepare('INSERT INTO current (key, create_rev, mod_rev) VALUES (?, ?, ?)'),
      updateCurrent: this.db.prepare('UPDATE current SET mod_rev = ? WHERE key = ?'),
      deleteCurrent: this.db.prepare('DELETE FROM current WHERE key = ?'),
      insertLog: this.db.prepare(
        'INSERT INTO log (rev, key, deleted, create_rev, value, prev_rev) VALUES (?, ?, ?, ?, ?, ?)'),
      listLatest: this.db.prepare<[string, string, number], CurrentRow>(
        `${LIVE} WHERE c.key > ? AND c.key < ? ORDER BY c.key LIMIT ?`),
      listUnchanged: this.db.prepare<[string, string, number, number], CurrentRow>(
        `${LIVE} WHERE c.key > ? AND c.key < ? AND c.mod_rev <= ? ORDER BY c.key LIMIT ?`),
      firstChangesAfter: this.db.prepare<[number, string, string], LogRow>(
        `${WITH_PREV} JOIN (SELECT key, MIN(rev) AS rev FROM log WHERE rev > ? AND key > ? AND key < ? GROUP BY key) f
         ON l.rev = f.rev`),
      count: this.db.prepare<[string, string], { n: number }>('SELECT COUNT(*) AS n FROM current WHERE key >= ? AND key < ?'),
      history: this.db.prepare<[number, string, string], LogRow>(
        `${WITH_PREV} WHERE l.rev > ? AND l.key >= ? AND l.key < ? ORDER BY l.rev`),
      // What a compaction to @r forgets: revisions up to @r that are neither live nor the pre-image of a later one.
      compactLog: this.db.prepare(
        `DELETE FROM log WHERE rev <= @r AND rev NOT IN (SELECT mod_rev FROM current)
         AND rev NOT IN (SELECT prev_rev FROM log WHERE rev > @r AND prev_rev IS NOT NULL)`),
      setMeta: this.db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value'),
    };
    const meta = (name: string) =>
      (this.db.prepare('SELECT value FROM meta WHERE name = ?').get(name) as { value: number } | undefined)?.value ?? 0;
    const maxLog = (this.db.prepare('SELECT MAX(rev) AS r FROM log').get() as { r: number | null }).r ?? 0;
    this.compactRev = meta('compact_rev');
    this.rev = Math.max(maxLog, this.compactRev, meta('rev_floor'));
  }

  private startCheckpointer(file: string): void {
    try {
      const module = createRequire(import.meta.url).resolve('better-sqlite3');
      const worker = new Worker(CHECKPOINTER, {
        eval: true, workerData: { module, file, intervalMs: CHECKPOINT_INTERVAL_MS, restartFrames: RESTART_FRAMES },
      });
      worker.unref();
      // Should the thread fail, SQLite's own checkpoints take over again.
      worker.on('error', () => { if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000'); });
      this.db.pragma('wal_autocheckpoint = 0');
      // A WAL grown under a burst of writes shrinks back when it starts over.
      this.db.pragma('journal_size_limit = 67108864');
      this.checkpointer = worker;
    } catch {
      this.checkpointer = undefined;
    }
  }

  currentRevision(): number { return this.rev; }
  compactedRevision(): number { return this.compactRev; }

  async get(key: string): Promise<KeyValue | undefined> {
    const row = this.row(key);
    return row ? toKV(row) : undefined;
  }

  private row(key: string): CurrentRow | undefined {
    const inBatch = this.batchRows?.get(key);
    if (inBatch !== undefined) return inBatch ?? undefined;
    const cached = this.rows.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const row = this.stmt.get.get(key);
    this.remember(key, row ?? null);
    return row;
  }

  private remember(key: string, row: CurrentRow | null): void {
    this.rows.delete(key);
    if (this.rows.size >= ROW_CACHE_SIZE) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(key, row);
  }

  /**
   * Group commit: writes issued in the same turn of the event loop share one
   * transaction (one WAL append), and each resolves once it is committed.
   * Every write checks its precondition before it changes anything, so one
   * failing write leaves the others of its batch intact.
   */
  private enqueue<T>(key: string, apply: (rev: number) => { result: T; event: StorageEvent }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const w: PendingWrite = { apply, resolve: resolve as (v: unknown) => void, reject };
      // A node Lease write goes behind the priority writes already queued and ahead of every other one.
      if (key.startsWith(PRIORITY_PREFIX)) this.pending.splice(this.priorityPending++, 0, w);
      else this.pending.push(w);
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    // At most MAX_BATCH writes a transaction: a burst of thousands is committed in slices, so timers
    // (the nodes' Lease renewals) and I/O run between them instead of waiting for the whole burst.
    const batch = this.pending.splice(0, MAX_BATCH);
    this.priorityPending = Math.max(0, this.priorityPending - batch.length);
    if (this.pending.length) setImmediate(() => this.flush());
    const outcomes: ({ w: PendingWrite; ok: true; result: unknown; event: StorageEvent } | { w: PendingWrite; ok: false; error: unknown })[] = [];
    let rev = this.rev;
    const written = this.batchRows = new Map();
    try {
      // IMMEDIATE: the write lock is taken (waiting out a checkpoint if need be) before anything is read.
      this.db.transaction(() => {
        for (const w of batch) {
          try {
            const { result, event } = w.apply(rev + 1);
            rev++;
            outcomes.push({ w, ok: true, result, event });
          } catch (error) {
            if (!(error instanceof StorageError)) throw error;
            outcomes.push({ w, ok: false, error });
          }
        }
      }).immediate();
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    } finally {
      this.batchRows = undefined;
    }
    for (const [key, row] of written) this.remember(key, row);
    this.rev = rev;
    if (this.checkpointerFile && ++this.commits >= CHECKPOINTER_AFTER_COMMITS) {
      this.startCheckpointer(this.checkpointerFile);
      this.checkpointerFile = undefined;
    }
    for (const o of outcomes) {
      if (o.ok) this.deliveries.push({ event: o.event, settle: () => o.w.resolve(o.result) });
      else this.deliveries.push({ settle: () => o.w.reject(o.error) });
    }
    // Handed out now unless earlier commits' events are still going out (they go first).
    if (!this.delivering) this.deliver();
  }

  /** Hands out committed events for up to DELIVERY_SLICE_MS (or all of them), then lets the event loop run. */
  private deliver(sliceMs = this.deliverySliceMs): void {
    this.delivering = true;
    const t0 = performance.now();
    for (let d = this.deliveries[this.delivered]; d; d = this.deliveries[this.delivered]) {
      this.delivered++;
      if (d.event) this.watchers.emit(d.event);
      d.settle();
      if (this.delivered < this.deliveries.length && performance.now() - t0 >= sliceMs) {
        setImmediate(() => this.deliver());
        return;
      }
    }
    this.deliveries = [];
    this.delivered = 0;
    this.delivering = false;
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.enqueue(key, (rev) => {
      if (this.row(key)) throw new KeyExistsError(key);
      this.stmt.insertCurrent.run(key, rev, rev);
      this.batchRows!.set(key, { key, value, create_rev: rev, mod_rev: rev });
      this.stmt.insertLog.run(rev, key, 0, rev, value, null);
      return {
        result: { key, value, createRevision: rev, modRevision: rev },
        event: { type: 'PUT', key, revision: rev, value },
      };
    });
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.enqueue(key, (rev) => {
      const row = this.row(key);
      if (!row) throw new NotFoundError(key);
      if (row.mod_rev !== expectedModRevision) throw new RevisionMismatchError(key, row.mod_rev);
      this.stmt.updateCurrent.run(rev, key);
      this.batchRows!.set(key, { key, value, create_rev: row.create_rev, mod_rev: rev });
      this.stmt.insertLog.run(rev, key, 0, row.create_rev, value, row.mod_rev);
      return {
        result: { key, value, createRevision: row.create_rev, modRevision: rev },
        event: { type: 'PUT', key, revision: rev, value, prevValue: row.value, prevModRevision: row.mod_rev },
      };
    });
  }

  delete(key: string, expectedModRevision?: number): Promise<{ prev: KeyValue; revision: number }> {
    return this.enqueue(key, (rev) => {
      const row = this.row(key);
      if (!row) throw new NotFoundError(key);
      if (expectedModRevision !== undefined && row.mod_rev !== expectedModRevision) {
        throw new RevisionMismatchError(key, row.mod_rev);
      }
      this.stmt.deleteCurrent.run(key);
      this.batchRows!.set(key, null);
      this.stmt.insertLog.run(rev, key, 1, row.create_rev, null, row.mod_rev);
      return {
        result: { prev: toKV(row), revision: rev },
        event: { type: 'DELETE', key, revision: rev, prevValue: row.value, prevModRevision: row.mod_rev },
      };
    });
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const end = prefixEnd(prefix);
    const after = opts.after !== undefined && opts.after >= prefix ? opts.after : prefix.slice(0, -1);
    const want = opts.limit && opts.limit > 0 ? opts.limit : -1;
    const fetch = want > 0 ? want + 1 : -1;
    const atRev = opts.revision && opts.revision < this.rev ? opts.revision : 0;
    let rows: KeyValue[];
    if (!atRev) {
      rows = this.stmt.listLatest.all(after, end, fetch).map(toKV);
    } else {
      if (atRev < this.compactRev) throw new CompactedError(atRev, this.compactRev);
      // Keys untouched since atRev are live as they were; every other key's
      // value at atRev is the pre-image of its first change after atRev.
      const unchanged = this.stmt.listUnchanged.all(after, end, atRev, fetch).map(toKV);
      const preImages: KeyValue[] = [];
      for (const c of this.stmt.firstChangesAfter.all(atRev, after, end)) {
        if (c.prev_value !== null && c.prev_rev !== null) {
          preImages.push({ key: c.key, value: c.prev_value, createRevision: c.create_rev, modRevision: c.prev_rev });
        }
      }
      rows = unchanged.concat(preImages).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      if (fetch > 0) rows = rows.slice(0, fetch);
    }
    const more = want > 0 && rows.length > want;
    if (more) rows.length = want;
    return { items: rows, revision: atRev || this.rev, more };
  }

  async count(prefix: string): Promise<number> {
    return this.stmt.count.get(prefix, prefixEnd(prefix))!.n;
  }

  async watch(prefix: string, fromRevision: number, onEvents: StorageEventBatch): Promise<WatchHandle> {
    if (fromRevision < this.compactRev) throw new CompactedError(fromRevision, this.compactRev);
    const past: StorageEvent[] = fromRevision < this.rev
      ? this.stmt.history.all(fromRevision, prefix, prefixEnd(prefix)).map(toEvent)
      : [];
    // Registering synchronously after reading history leaves no gap: writes
    // only happen on this thread, between awaits.
    // Events of commits still being handed out are in that history already: the watcher skips them.
    const handle = this.watchers.add(prefix, onEvents, this.rev);
    if (past.length) queueMicrotask(() => onEvents(past));
    return handle;
  }

  async compact(revision: number): Promise<void> {
    const r = Math.min(revision, this.rev);
    if (r <= this.compactRev) return;
    this.db.transaction(() => {
      this.stmt.compactLog.run({ r });
      this.stmt.setMeta.run('compact_rev', r);
      this.stmt.setMeta.run('rev_floor', this.rev);
    })();
    this.compactRev = r;
  }

  async close(): Promise<void> {
    while (this.pending.length) this.flush();
    if (this.delivered < this.deliveries.length) this.deliver(Infinity);
    this.watchers.clear();
    const worker = this.checkpointer;
    if (worker) {
      this.checkpointer = undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => { void worker.terminate(); }, 2000);
        worker.once('exit', () => { clearTimeout(timer); resolve(); });
        worker.postMessage('close');
      });
    }
    // The last connection to close checkpoints what is left and removes the WAL.
    this.db.close();
  }
}

function toKV(row: CurrentRow): KeyValue {
  return { key: row.key, value: row.value, createRevision: row.create_rev, modRevision: row.mod_rev };
}

function toEvent(row: LogRow): StorageEvent {
  return {
    type: row.deleted ? 'DELETE' : 'PUT',
    key: row.key,
    revision: row.rev,
    value: row.value ?? undefined,
    prevValue: row.prev_value ?? undefined,
    prevModRevision: row.prev_rev ?? undefined,
  };
}
