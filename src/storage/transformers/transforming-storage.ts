/**
 * The storage the registry reads and writes through when an encryption
 * configuration is set: values of the configured resources are transformed on
 * their way down and back (as upstream's etcd3 store calls its transformer),
 * the backend below unchanged. A value read with a provider or key other than
 * the writing one is marked stale, so that an update rewrites it even when
 * nothing else changed (the documented key rotation: replace every object).
 */
import type {
  KeyValue, ListOptions, ListResult, Storage, StorageEvent, StorageEventBatch, StorageWatchEnd, WatchHandle,
} from '../types.js';
import type { EncryptionConfiguration } from './encryption-config.js';
import { groupResourceOfKey } from './group-resource.js';
import { storedValueBytes, storedValueFromBytes } from './stored-value.js';
import type { ValueTransformer } from './value-transformer.js';

/**
 * The additional data AES-GCM binds a value to: the key upstream stores it
 * under in etcd (`/registry/<resource>/...` for the core group, with the group
 * otherwise), so that an etcd backend laying keys out as upstream's writes
 * values kube-apiserver can read.
 */
export function upstreamStorageKey(key: string): string {
  return key.startsWith('/core/') ? `/registry/${key.slice('/core/'.length)}` : `/registry${key}`;
}

export class TransformingStorage implements Storage {
  private readonly byPrefix = new Map<string, ValueTransformer | undefined>();

  constructor(
    private readonly inner: Storage,
    private readonly config: EncryptionConfiguration,
    private readonly authenticatedData: (key: string) => string = upstreamStorageKey,
  ) {}

  /** The transformer of the key's group resource, remembered per resource prefix. */
  private transformerOf(key: string): ValueTransformer | undefined {
    const gr = groupResourceOfKey(key);
    if (!gr) return undefined;
    const prefix = `${gr.group}/${gr.resource}`;
    if (!this.byPrefix.has(prefix)) this.byPrefix.set(prefix, this.config.transformerFor(gr));
    return this.byPrefix.get(prefix);
  }

  private toStorage(key: string, value: string): string {
    const t = this.transformerOf(key);
    if (!t) return value;
    return storedValueFromBytes(t.toStorage(Buffer.from(value, 'utf8'), Buffer.from(this.authenticatedData(key))));
  }

  private fromStorage(key: string, value: string): { value: string; stale: boolean } {
    const t = this.transformerOf(key);
    if (!t) return { value, stale: false };
    const out = t.fromStorage(storedValueBytes(value), Buffer.from(this.authenticatedData(key)));
    return { value: out.value.toString('utf8'), stale: out.stale };
  }

  private readKv(kv: KeyValue): KeyValue {
    const { value, stale } = this.fromStorage(kv.key, kv.value);
    return stale ? { ...kv, value, stale } : { ...kv, value };
  }

  /** A write's answer carries what the registry wrote, not its ciphertext. */
  private written(kv: KeyValue, value: string): KeyValue {
    return { ...kv, value };
  }

  private readEvent(ev: StorageEvent): StorageEvent {
    const out: StorageEvent = { ...ev };
    if (ev.value !== undefined) out.value = this.fromStorage(ev.key, ev.value).value;
    if (ev.prevValue !== undefined) out.prevValue = this.fromStorage(ev.key, ev.prevValue).value;
    return out;
  }

  currentRevision(): number { return this.inner.currentRevision(); }
  compactedRevision(): number { return this.inner.compactedRevision(); }

  async get(key: string): Promise<KeyValue | undefined> {
    const kv = await this.inner.get(key);
    return kv && this.readKv(kv);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return this.written(await this.inner.create(key, this.toStorage(key, value)), value);
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.written(await this.inner.update(key, this.toStorage(key, value), expectedModRevision), value);
  }

  async delete(key: string, expectedModRevision?: number): Promise<{ prev: KeyValue; revision: number }> {
    const r = await this.inner.delete(key, expectedModRevision);
    return { prev: this.readKv(r.prev), revision: r.revision };
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const r = await this.inner.list(prefix, opts);
    if (!r.items.some((kv) => this.transformerOf(kv.key))) return r;
    return { ...r, items: r.items.map((kv) => this.readKv(kv)) };
  }

  count(prefix: string): Promise<number> { return this.inner.count(prefix); }

  watch(prefix: string, fromRevision: number, onEvents: StorageEventBatch, onEnd?: StorageWatchEnd): Promise<WatchHandle> {
    return this.inner.watch(prefix, fromRevision, (events) => {
      onEvents(events.some((ev) => this.transformerOf(ev.key)) ? events.map((ev) => this.readEvent(ev)) : events);
    }, onEnd);
  }

  compact(revision: number): Promise<void> { return this.inner.compact(revision); }
  close(): Promise<void> { return this.inner.close(); }
}
