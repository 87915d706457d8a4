/**
 * The audit log file as kube-apiserver writes it through lumberjack: lines
 * appended to --audit-log-path (created 0600 in a 0700 directory); a write
 * that would take the file past --audit-log-maxsize megabytes (100 when 0)
 * first moves it aside as `<name>-<UTC time>.<ext>`, and then backups beyond
 * --audit-log-maxbackup (0 keeps all) or older than --audit-log-maxage days
 * (0 keeps all) are removed.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

export interface RotationOptions {
  maxAgeDays: number;
  maxBackups: number;
  maxSizeMB: number;
}

const MEGABYTE = 1024 * 1024;
const DEFAULT_MAX_SIZE_MB = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

/** lumberjack's backupTimeFormat, 2006-01-02T15-04-05.000, in UTC. */
export function backupTimestamp(t: Date): string {
  return t.toISOString().replace(/:/g, '-').replace(/Z$/, '');
}

function parseBackupTimestamp(s: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(s);
  return m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) : undefined;
}

export class RotatingLog {
  private fd: number | undefined;
  private size = 0;

  constructor(private readonly path: string, private readonly opts: RotationOptions, private readonly now: () => Date = () => new Date()) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.open();
  }

  private get maxBytes(): number {
    return (this.opts.maxSizeMB || DEFAULT_MAX_SIZE_MB) * MEGABYTE;
  }

  private open(): void {
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(line: string): void {
    const bytes = Buffer.from(line);
    if (this.size + bytes.length > this.maxBytes && this.size > 0) this.rotate();
    writeSync(this.fd!, bytes);
    this.size += bytes.length;
  }

  private rotate(): void {
    closeSync(this.fd!);
    const ext = extname(this.path);
    const stem = basename(this.path, ext);
    renameSync(this.path, join(dirname(this.path), `${stem}-${backupTimestamp(this.now())}${ext}`));
    this.open();
    this.removeOldBackups();
  }

  /** lumberjack's millRunOnce: the newest maxBackups are kept, and none older than maxAge. */
  private removeOldBackups(): void {
    const dir = dirname(this.path);
    const ext = extname(this.path);
    const prefix = `${basename(this.path, ext)}-`;
    const backups = readdirSync(dir)
      .filter((f) => f.startsWith(prefix) && f.endsWith(ext))
      .map((f) => ({ f, t: parseBackupTimestamp(f.slice(prefix.length, f.length - ext.length)) }))
      .filter((b): b is { f: string; t: number } => b.t !== undefined)
      .sort((a, b) => b.t - a.t);
    const cutoff = this.now().getTime() - this.opts.maxAgeDays * DAY_MS;
    for (const [i, b] of backups.entries()) {
      const tooMany = this.opts.maxBackups > 0 && i >= this.opts.maxBackups;
      const tooOld = this.opts.maxAgeDays > 0 && b.t < cutoff;
      if ((tooMany || tooOld) && existsSync(join(dir, b.f))) unlinkSync(join(dir, b.f));
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
