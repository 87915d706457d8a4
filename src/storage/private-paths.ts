import { accessSync, chmodSync, closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The database holds Secrets: it is made readable by its owner only (0600, as etcd keeps its data
 * files). SQLite gives the -wal and -shm files the mode of the database file, so creating the
 * database 0600 before SQLite opens it covers all three; files left wider by an earlier version
 * are narrowed.
 */
export function ensurePrivateDatabaseFile(file: string): void {
  if (file === '' || file === ':memory:') return;
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

/**
 * A directory that holds keys and state: created 0700 (etcd's data directory mode), each missing
 * level with a plain mkdir so that a failure names its real cause (a recursive mkdir reports ENOENT
 * where the file system is read-only), then checked writable.
 */
export function ensurePrivateDir(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) mkdirSync(d, { mode: 0o700 });
  accessSync(dir, constants.W_OK);
}
