/**
 * The storage contract, modelled on etcd's key-value API so that any backend
 * (embedded SQLite, etcd) can sit under the registry unchanged.
 *
 * Every write produces a new global revision; that revision is what the API
 * exposes as `metadata.resourceVersion`. Values are opaque strings (JSON
 * documents written by the codec above), stored without their revision.
 */

export interface KeyValue {
  key: string;
  value: string;
  /** Revision at which the key was created (survives updates). */
  createRevision: number;
  /** Revision of the last write to the key. */
  modRevision: number;
  /**
   * The value was read through an encryption provider or key other than the one that writes:
   * an update rewrites it even when the object is unchanged.
   */
  stale?: boolean;
}

export type WatchEventType = 'PUT' | 'DELETE';

export interface StorageEvent {
  type: WatchEventType;
  key: string;
  /** The revision of this write. */
  revision: number;
  /** The value after the write (absent on DELETE). */
  value?: string;
  /** The value before the write (absent when the key was created). */
  prevValue?: string;
  prevModRevision?: number;
}

export interface ListOptions {
  /** Serve the list as it was at this revision (0 or absent: the latest). */
  revision?: number;
  /** At most this many items. */
  limit?: number;
  /** Only keys strictly after this one (pagination). */
  after?: string;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list reflects. */
  revision: number;
  /** True when more keys follow the last one returned. */
  more: boolean;
}

export interface WatchHandle {
  cancel(): void;
  /**
   * The revision up to which this watch has handed out every event (what a bookmark may carry),
   * for a backend whose watches lag its writes (etcd's, replaying history after a reconnect).
   * Absent: the watch is never behind the current revision.
   */
  progress?(): number;
}

export type StorageEventBatch = (events: StorageEvent[]) => void;
/**
 * A watch the backend ended after it started (etcd cancels one whose history was compacted while it
 * reconnected: CompactedError); no events follow.
 */
export type StorageWatchEnd = (err: StorageError) => void;

export interface Storage {
  /** The newest revision written. */
  currentRevision(): number;
  /** The oldest revision still answerable (list at a revision, watch from a revision). */
  compactedRevision(): number;
  get(key: string): Promise<KeyValue | undefined>;
  /** Fails with KeyExistsError when the key is present. */
  create(key: string, value: string): Promise<KeyValue>;
  /**
   * Replaces the value if the key's modRevision equals expectedModRevision.
   * Fails with NotFoundError or RevisionMismatchError.
   */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;
  /** Deletes the key (optionally guarded by revision); returns the deleted pair and the deletion revision. */
  delete(key: string, expectedModRevision?: number): Promise<{ prev: KeyValue; revision: number }>;
  /** Keys starting with prefix, in key order. Fails with CompactedError for a compacted revision. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Number of keys under the prefix now. */
  count(prefix: string): Promise<number>;
  /**
   * Events for keys under prefix with revision > fromRevision, first the
   * retained history, then live ones, without gaps. Rejects with
   * CompactedError when fromRevision is older than the retained history.
   */
  watch(prefix: string, fromRevision: number, onEvents: StorageEventBatch, onEnd?: StorageWatchEnd): Promise<WatchHandle>;
  /** Forgets history up to and including revision. */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}

export class StorageError extends Error {}
export class KeyExistsError extends StorageError {
  constructor(readonly key: string) { super(`key exists: ${key}`); }
}
export class NotFoundError extends StorageError {
  constructor(readonly key: string) { super(`key not found: ${key}`); }
}
export class RevisionMismatchError extends StorageError {
  constructor(readonly key: string, readonly actual: number) { super(`revision mismatch on ${key}`); }
}
/** The backend could not reach its store (no etcd member answered); the write may not have been applied. */
export class UnavailableError extends StorageError {}
export class CompactedError extends StorageError {
  constructor(readonly requested: number, readonly compacted: number) {
    super(`revision ${requested} has been compacted (oldest ${compacted})`);
  }
}

/** The exclusive upper bound of a prefix range: the prefix with its last character incremented. */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
