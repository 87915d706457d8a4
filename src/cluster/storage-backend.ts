import { join } from 'node:path';
import { EtcdStorage } from '../storage/etcd.js';
import type { EtcdOptions } from '../storage/etcd-options.js';
import { SqliteStorage } from '../storage/sqlite.js';
import type { Storage } from '../storage/types.js';

/** `--storage`: one SQLite file in the data directory (the default), or an etcd v3 cluster. */
export type StorageBackendOptions = { kind: 'sqlite' } | { kind: 'etcd'; etcd: EtcdOptions };

export const STORAGE_BACKENDS = ['sqlite', 'etcd'] as const;

export async function openStorageBackend(opts: StorageBackendOptions, dataDir: string): Promise<Storage> {
  return opts.kind === 'etcd' ? EtcdStorage.open(opts.etcd) : new SqliteStorage(join(dataDir, 'state.db'));
}
