import {
  CompareResult, CompareTarget, Etcd3,
  type IKeyValue, type IRangeRequest, type IRangeResponse, type IResponseHeader, type IWatchResponse, type Watcher,
} from 'etcd3';
import {
  CompactedError, KeyExistsError, NotFoundError, RevisionMismatchError, StorageError, prefixEnd,
  type KeyValue, type ListOptions, type ListResult, type Storage, type StorageEvent,
  type StorageEventBatch, type StorageWatchEnd, type WatchHandle,
} from './types.js';
import { etcdKey } from './etcd-keys.js';
import { DeliveryTracker } from './etcd-delivery.js';
import { storedValueBytes, storedValueFromBytes } from './transformers/stored-value.js';
import { etcdClientOptions, etcdPrefix, type EtcdOptions } from './etcd-options.js';
import { unreachableAs } from './etcd-unavailable.js';

/**
 * The key kube-apiserver's compactor keeps the last compacted revision in
 * (k8s.io/apiserver/pkg/storage/etcd3/compact.go), outside the prefix: every
 * API server on the etcd reads the same one.
 */
const COMPACT_REV_KEY = 'compact_rev_key';
/**
 * How often the newest revision is read when nothing else brought it: other
 * API servers' writes, and the revision bookmarks carry, as etcd's progress
 * notifications would (those come every 10 minutes by default).
 */
const REVISION_POLL_MS = 1000;
const COMPACTED = 'required revision has been compacted';
/** The etcd3 client's error for a watch etcd canceled with no reason given: a compaction's. */
const CANCELED_COMPACTED = /^Watcher canceled: ?$/;

const bytes = (s: string) => Buffer.from(s);

/**
 * The storage contract on etcd v3, as k8s.io/apiserver/pkg/storage/etcd3's
 * store does it: resourceVersion is the etcd mod revision, a create is a
 * transaction on create_revision == 0, an update or a guarded delete one on
 * mod_revision, lists read a range at one revision, and a watch is an etcd
 * watch from the revision after the one asked for, with previous values.
 * Values are kept as the SQLite backend keeps them (JSON, where upstream
 * writes protobuf for the built-in kinds); encrypted ones are the bytes
 * kube-apiserver writes.
 */
export class EtcdStorage implements Storage {
  private rev = 0;
  private compactRev = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly delivery = new DeliveryTracker();
  private readonly poller: NodeJS.Timeout;
  private closed = false;

  private constructor(private readonly client: Etcd3, private readonly prefix: string) {
    this.poller = setInterval(() => { this.refresh().catch(() => {}); }, REVISION_POLL_MS);
    this.poller.unref();
  }

  /** Connects and reads the newest and the compacted revision; fails when no member answers. */
  static async open(opts: EtcdOptions): Promise<EtcdStorage> {
    const storage = new EtcdStorage(new Etcd3(etcdClientOptions(opts)), etcdPrefix(opts));
    try {
      await storage.refresh();
    } catch (e) {
      await storage.close();
      throw new Error(`failed to reach etcd at ${opts.servers.join(',')}: ${(e as Error).message}`, { cause: e });
    }
    return storage;
  }

  currentRevision(): number { return this.rev; }
  compactedRevision(): number { return this.compactRev; }

  private async refresh(): Promise<void> {
    const r = await this.client.kv.range({ key: bytes(COMPACT_REV_KEY) });
    this.seen(r.header);
    const kv = r.kvs[0];
    if (kv) this.compactRev = Math.max(this.compactRev, Number(kv.value.toString()));
  }

  private seen(header: IResponseHeader): void {
    const rev = Number(header.revision);
    if (rev > this.rev) this.rev = rev;
  }

  private key(storeKey: string): string { return etcdKey(this.prefix, storeKey); }

  /** One etcd call; failing with UnavailableError while no member answers. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw unreachableAs(e);
    }
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const r = await this.call(() => this.client.kv.range({ key: bytes(this.key(key)) }));
    this.seen(r.header);
    return r.kvs[0] && toKV(key, r.kvs[0]);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const k = bytes(this.key(key));
    const r = await this.call(() => this.client.kv.txn({
      compare: [{ key: k, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
      success: [{ request_put: { key: k, value: storedValueBytes(value) } }],
    }));
    this.seen(r.header);
    if (!r.succeeded) throw new KeyExistsError(key);
    const rev = Number(r.header.revision);
    await this.delivery.reached(k.toString(), rev);
    return { key, value, createRevision: rev, modRevision: rev };
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    const k = bytes(this.key(key));
    const r = await this.call(() => this.client.kv.txn({
      compare: [{ key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expectedModRevision }],
      success: [{ request_put: { key: k, value: storedValueBytes(value), prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    }));
    this.seen(r.header);
    if (!r.succeeded) throw this.preconditionFailure(key, r.responses[0]?.response_range);
    const rev = Number(r.header.revision);
    const prev = r.responses[0]?.response_put.prev_kv;
    await this.delivery.reached(k.toString(), rev);
    return { key, value, createRevision: prev ? Number(prev.create_revision) : rev, modRevision: rev };
  }

  async delete(key: string, expectedModRevision?: number): Promise<{ prev: KeyValue; revision: number }> {
    const k = bytes(this.key(key));
    const r = await this.call(() => this.client.kv.txn({
      compare: [expectedModRevision === undefined
        ? { key: k, target: CompareTarget.Create, result: CompareResult.Greater, create_revision: 0 }
        : { key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expectedModRevision }],
      success: [{ request_delete_range: { key: k, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    }));
    this.seen(r.header);
    const prev = r.responses[0]?.response_delete_range?.prev_kvs[0];
    if (!r.succeeded || !prev) throw this.preconditionFailure(key, r.responses[0]?.response_range);
    await this.delivery.reached(k.toString(), Number(r.header.revision));
    return { prev: toKV(key, prev), revision: Number(r.header.revision) };
  }

  /** What a failed guard found: no key, or the key at another revision. */
  private preconditionFailure(key: string, found: IRangeResponse | undefined): Error {
    const kv = found?.kvs[0];
    return kv ? new RevisionMismatchError(key, Number(kv.mod_revision)) : new NotFoundError(key);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const base = this.key(prefix);
    // Strictly after a key: from the key followed by the smallest byte, as upstream's continue does.
    const start = opts.after !== undefined && opts.after >= prefix ? `${this.key(opts.after)}\x00` : base;
    const req: IRangeRequest = { key: bytes(start), range_end: bytes(prefixEnd(base)) };
    if (opts.limit && opts.limit > 0) req.limit = opts.limit;
    if (opts.revision) req.revision = opts.revision;
    const r = await this.rangeAt(req, opts.revision ?? 0);
    return {
      items: r.kvs.map((kv) => toKV(prefix + kv.key.toString().slice(base.length), kv)),
      revision: opts.revision || Number(r.header.revision),
      more: r.more,
    };
  }

  private async rangeAt(req: IRangeRequest, revision: number): Promise<IRangeResponse> {
    try {
      const r = await this.client.kv.range(req);
      this.seen(r.header);
      return r;
    } catch (e) {
      if (!(e instanceof Error) || !e.message.includes(COMPACTED)) throw unreachableAs(e);
      await this.refresh();
      // Compacted by someone who did not record it in compact_rev_key: at least past the revision asked for.
      throw new CompactedError(revision, Math.max(this.compactRev, revision + 1));
    }
  }

  async count(prefix: string): Promise<number> {
    const base = this.key(prefix);
    const r = await this.call(() => this.client.kv.range({ key: bytes(base), range_end: bytes(prefixEnd(base)), count_only: true }));
    this.seen(r.header);
    return Number(r.count);
  }

  async watch(prefix: string, fromRevision: number, onEvents: StorageEventBatch, onEnd?: StorageWatchEnd): Promise<WatchHandle> {
    if (fromRevision < this.compactRev) throw new CompactedError(fromRevision, this.compactRev);
    const base = this.key(prefix);
    // etcd cancels a watch from a compacted revision only after creating it: a read at that revision
    // finds the compaction first (one made by a compactor compact_rev_key does not name too).
    if (fromRevision > 0 && fromRevision < this.rev) {
      await this.rangeAt({ key: bytes(base), range_end: bytes(prefixEnd(base)), revision: fromRevision, limit: 1, keys_only: true }, fromRevision);
    }
    let builder = this.client.watch().prefix(base).withPreviousKV();
    // Upstream's watcher starts at the revision after the one asked for.
    if (fromRevision > 0) builder = builder.startRevision(String(fromRevision + 1));
    const watcher = await builder.create();
    this.watchers.add(watcher);
    const progress = this.delivery.track(base, fromRevision > 0 ? fromRevision : this.rev);
    const toStoreKey = (kv: IKeyValue) => prefix + kv.key.toString().slice(base.length);
    let delivered = fromRevision;
    // Where the watch goes on after etcd comes back. The etcd3 client resumes from the revision after
    // the header of the last answer, creation answers included; those carry etcd's newest revision, not
    // the watch's, so a connection lost before the history was replayed would skip it. clientv3 resumes
    // after the last event, as this does.
    const resume = new ResumePoint(watcher, fromRevision > 0 ? fromRevision + 1 : Number(watcher.request.start_revision));
    watcher.on('connected', () => resume.restore());
    watcher.on('data', (res: IWatchResponse) => {
      this.seen(res.header);
      if (res.events.length === 0) {
        // A progress notification: etcd sends one only to a watch that has caught up.
        resume.after(Number(res.header.revision));
        return;
      }
      delivered = Number(res.events[res.events.length - 1]!.kv.mod_revision);
      resume.after(delivered);
      onEvents(res.events.map((ev): StorageEvent => {
        const prev = ev.prev_kv ?? undefined;
        const event: StorageEvent = { type: ev.type === 'Delete' ? 'DELETE' : 'PUT', key: toStoreKey(ev.kv), revision: Number(ev.kv.mod_revision) };
        if (ev.type !== 'Delete') event.value = storedValueFromBytes(ev.kv.value);
        if (prev) {
          event.prevValue = storedValueFromBytes(prev.value);
          event.prevModRevision = Number(prev.mod_revision);
        }
        return event;
      }));
      progress.advance(delivered);
    });
    // etcd cancels a watch whose next revision was compacted while it reconnected, without a reason
    // (the compact_revision it sends does not reach the client's error).
    watcher.on('error', (err: Error) => {
      progress.end();
      if (!this.watchers.delete(watcher)) return;
      if (!CANCELED_COMPACTED.test(err.message)) {
        onEnd?.(new StorageError(err.message));
        return;
      }
      void this.refresh().catch(() => {}).then(() => onEnd?.(new CompactedError(delivered, Math.max(this.compactRev, delivered + 1))));
    });
    return {
      progress: () => resume.handedOut,
      cancel: () => {
        progress.end();
        if (!this.watchers.delete(watcher)) return;
        watcher.cancel().catch(() => {});
      },
    };
  }

  /**
   * As upstream's compactor: the revision goes into compact_rev_key first
   * (other API servers read it there), then etcd forgets the history.
   */
  async compact(revision: number): Promise<void> {
    const r = Math.min(revision, this.rev);
    if (r <= this.compactRev) return;
    const put = await this.client.kv.txn({ success: [{ request_put: { key: bytes(COMPACT_REV_KEY), value: bytes(String(r)) } }] });
    this.seen(put.header);
    try {
      await this.client.kv.compact({ revision: r });
    } catch (e) {
      if (!(e instanceof Error) || !e.message.includes(COMPACTED)) throw e;
    }
    this.compactRev = r;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.poller);
    await Promise.all([...this.watchers].map((w) => w.cancel().catch(() => {})));
    this.watchers.clear();
    this.client.close();
  }
}

/** The revision an etcd watch is to be created from again when its stream reconnects. */
class ResumePoint {
  constructor(private readonly watcher: Watcher, private next: number) { this.restore(); }

  /** The revision everything up to has been handed out. */
  get handedOut(): number { return this.next - 1; }

  /** Everything up to rev was handed out. */
  after(rev: number): void {
    if (rev + 1 > this.next) this.next = rev + 1;
    this.restore();
  }

  /** Undoes the client's own update of the start (from the header of the answer it just had). */
  restore(): void {
    if (this.next > 0) this.watcher.request.start_revision = String(this.next);
  }
}

function toKV(key: string, kv: IKeyValue): KeyValue {
  return { key, value: storedValueFromBytes(kv.value), createRevision: Number(kv.create_revision), modRevision: Number(kv.mod_revision) };
}
