/**
 * A container's filesystem as the emulated shells see it: files of mounted
 * volumes (configMap, secret, projected, downwardAPI; read-only, as the
 * kubelet mounts them) under a small writable overlay for what the
 * container's own commands create (`touch /tmp/healthy`). Paths are kept
 * normalised: POSIX with `/`, Windows as upper-case drive + `\`, compared
 * case-insensitively as NTFS does.
 */
import { decodeText, encodeText, type TextEncoding } from './text-encoding.js';
import type { ShellOS } from './types.js';

/**
 * A file's `content` is its text as a reader shows it; `bytes` is kept only
 * when the bytes on disk are not that text's UTF-8 (a UTF-16 file PowerShell
 * wrote, or one with a BOM).
 */
export type FsEntry = ({ type: 'file'; content: string; readOnly: boolean; bytes?: Buffer } | { type: 'dir'; readOnly: boolean }) & Partial<FileOwnership>;

/**
 * What stat(2) reports beyond the type: the permission bits with setuid,
 * setgid and sticky (07777), and the owning uid and gid. An entry without
 * them is what a root process created under umask 022 (0644, 0755, 0:0).
 */
export interface FileOwnership { mode: number; uid: number; gid: number }

export function ownershipOf(e: FsEntry): FileOwnership {
  return { mode: e.mode ?? (e.type === 'dir' ? 0o755 : 0o644), uid: e.uid ?? 0, gid: e.gid ?? 0 };
}

/** The filesystem type statfs(2) reports for a mount, by name (tmpfs, ext4 for the kubelet's disk, overlay for the image's root). */
export type FsType = 'tmpfs' | 'ext4' | 'overlay';

/** The bytes a file holds on disk (its size, what `kubectl cp` copies). */
export function fileBytes(e: Extract<FsEntry, { type: 'file' }>): Buffer {
  return e.bytes ?? Buffer.from(e.content, 'utf8');
}

/**
 * A directory of the node's own filesystem (a hostPath volume): its entries
 * by path below it, kept by the node and shared by every container that
 * mounts it, so what one pod writes the others on the node read.
 */
export class HostDir {
  readonly entries = new Map<string, FsEntry>([['', { type: 'dir', readOnly: false }]]);
  readonly names = new Map<string, string>();

  /** Creates the directory of `segments` and its parents, as the kubelet creates a subPath before binding it; its key. */
  mkdirAll(segments: readonly string[], sep: string, foldCase: boolean): string {
    let k = ''; let name = '';
    for (const seg of segments) {
      k += sep + (foldCase ? seg.toLowerCase() : seg); name += sep + seg;
      if (!this.entries.has(k)) { this.entries.set(k, { type: 'dir', readOnly: false }); this.names.set(k, name); }
    }
    return k;
  }
}

/** A node directory bound into the container: at `key`, from `sub` inside `dir` ('' its root). */
interface HostMount { key: string; dir: HostDir; readOnly: boolean; sub: string }

/** Where a path's entry lives: the container's own table, or a host directory mounted over it. */
interface Located { entries: Map<string, FsEntry>; names: Map<string, string>; k: string; name: string; mountReadOnly: boolean; hostRoot: boolean }

/** Rewriting a file keeps its mode and owner. */
function kept(e: FsEntry | undefined): Partial<FileOwnership> {
  if (!e) return {};
  const out: Partial<FileOwnership> = {};
  if (e.mode !== undefined) out.mode = e.mode;
  if (e.uid !== undefined) out.uid = e.uid;
  if (e.gid !== undefined) out.gid = e.gid;
  return out;
}

export class ContainerFS {
  private readonly entries = new Map<string, FsEntry>();

  constructor(readonly os: ShellOS) {
    this.mkdirs(os === 'windows' ? 'C:\\' : '/', false);
    if (os === 'linux') for (const d of ['/tmp', '/etc', '/var', '/dev', '/proc', '/root', '/bin', '/usr', '/home']) this.mkdirs(d, false);
    else for (const d of ['C:\\Windows', 'C:\\Users', 'C:\\Program Files']) this.mkdirs(d, false);
    if (os === 'linux') this.entries.set('/dev/null', { type: 'file', content: '', readOnly: false });
    // /dev is the runtime's tmpfs, writable under a read-only root.
    if (os === 'linux') this.writableMounts.add('/dev');
  }

  /** Normalises a path against `cwd` (absolute paths unchanged). */
  resolve(path: string, cwd?: string): string {
    if (this.os === 'windows') {
      let p = path.replace(/\//g, '\\');
      const base = cwd ?? 'C:\\';
      if (/^[a-zA-Z]:/.test(p)) { if (!/^[a-zA-Z]:\\/.test(p)) p = p.slice(0, 2) + '\\' + p.slice(2); }
      else if (p.startsWith('\\')) p = base.slice(0, 2) + p;
      else p = base.replace(/\\$/, '') + '\\' + p;
      const drive = p.slice(0, 2).toUpperCase();
      const parts: string[] = [];
      for (const seg of p.slice(3).split('\\')) {
        if (!seg || seg === '.') continue;
        if (seg === '..') parts.pop(); else parts.push(seg);
      }
      return `${drive}\\${parts.join('\\')}`;
    }
    const abs = path.startsWith('/') ? path : `${cwd ?? '/'}/${path}`;
    const parts: string[] = [];
    for (const seg of abs.split('/')) {
      if (!seg || seg === '.') continue;
      if (seg === '..') parts.pop(); else parts.push(seg);
    }
    return '/' + parts.join('/');
  }

  private key(abs: string): string { return this.os === 'windows' ? abs.toLowerCase() : abs; }
  private get sep(): string { return this.os === 'windows' ? '\\' : '/'; }
  /** Host directories mounted into the container (hostPath volumes); `sub` the directory inside it that is bound (a subPath). */
  private readonly hostMounts: HostMount[] = [];
  /** Mount points in the container's own table that stay writable when the root is read-only (volumes, /etc/hosts, /dev). */
  private readonly writableMounts = new Set<string>();
  /** readOnlyRootFilesystem: the image's own files and directories cannot be written. */
  private rootReadOnly = false;

  /** Mounts the image's root filesystem read-only (securityContext.readOnlyRootFilesystem); volumes keep their own mode. */
  setRootReadOnly(): void { this.rootReadOnly = true; }

  /** Whether a key of the container's own table lies on the image's layer rather than under a mount. */
  private onRootLayer(k: string): boolean {
    for (const m of this.writableMounts) if (k === m || k.startsWith(m + this.sep)) return false;
    return true;
  }
  /** Filesystem types of mount points other than the root (overlay). */
  private readonly fsTypes = new Map<string, FsType>();

  /** Records what filesystem is mounted at `path` (a volume's medium). */
  setFsType(path: string, type: FsType): void { this.fsTypes.set(this.key(this.resolve(path)), type); }

  /** The filesystem a path lies on: its innermost mount point's. */
  fsTypeOf(abs: string): FsType {
    const k = this.key(abs);
    let best: [string, FsType] | undefined;
    for (const [m, t] of this.fsTypes) {
      if ((k === m || k.startsWith(m + this.sep)) && (!best || m.length > best[0].length)) best = [m, t];
    }
    return best?.[1] ?? 'overlay';
  }

  /** Changes an existing entry's mode, owner or group (chmod, chown); false when it does not exist. */
  setOwnership(abs: string, o: Partial<FileOwnership>): boolean {
    const l = this.locate(abs);
    const e = l.entries.get(l.k);
    if (!e) return false;
    Object.assign(e, o);
    return true;
  }

  /** The table holding `abs`: the innermost host directory mounted over it, else the container's own. */
  private locate(abs: string): Located {
    const k = this.key(abs);
    let best: HostMount | undefined;
    for (const m of this.hostMounts) {
      const root = m.key.endsWith(this.sep) ? m.key.slice(0, -1) : m.key;
      if ((k === m.key || k.startsWith(root + this.sep)) && (!best || m.key.length > best.key.length)) best = m;
    }
    if (!best) return { entries: this.entries, names: this.names, k, name: abs, mountReadOnly: false, hostRoot: false };
    const rel = k === best.key ? '' : k.slice(best.key.replace(/[\\/]$/, '').length);
    return { entries: best.dir.entries, names: best.dir.names, k: best.sub + rel, name: (best.sub ? best.dir.names.get(best.sub) ?? best.sub : '') + abs.slice(abs.length - rel.length), mountReadOnly: best.readOnly, hostRoot: rel === '' };
  }

  /**
   * Mounts a node directory (hostPath, a pod's emptyDir) at `path`: writes go
   * to the node's copy unless the mount is read-only. `sub` binds only that
   * directory of it (a subPath, `/a/b`), which is then created as the kubelet does.
   */
  mountHostDir(path: string, dir: HostDir, readOnly: boolean, sub = ''): void {
    const abs = this.resolve(path);
    this.mkdirs(abs, false);
    const rel = dir.mkdirAll(sub.split(/[\\/]/).filter(Boolean), this.sep, this.os === 'windows');
    this.hostMounts.push({ key: this.key(abs), dir, readOnly, sub: rel });
    this.writableMounts.add(this.key(abs));
  }

  private relParent(k: string): string | undefined {
    if (k === '') return undefined;
    const i = k.lastIndexOf(this.sep);
    return i <= 0 ? '' : k.slice(0, i);
  }
  private parent(abs: string): string | undefined {
    const sep = this.os === 'windows' ? '\\' : '/';
    const root = this.os === 'windows' ? abs.slice(0, 3) : '/';
    if (abs === root) return undefined;
    const i = abs.lastIndexOf(sep);
    return i < root.length ? root : abs.slice(0, i);
  }
  private baseName(abs: string): string {
    const sep = this.os === 'windows' ? '\\' : '/';
    return abs.slice(abs.lastIndexOf(sep) + 1);
  }
  /** The name as first written (entries are keyed case-insensitively on Windows). */
  private readonly names = new Map<string, string>();

  private mkdirs(abs: string, readOnly: boolean): void {
    const chain: string[] = [];
    for (let p: string | undefined = abs; p !== undefined; p = this.parent(p)) chain.unshift(p);
    for (const p of chain) {
      if (!this.entries.has(this.key(p))) { this.entries.set(this.key(p), { type: 'dir', readOnly }); this.names.set(this.key(p), p); }
    }
  }

  /** Mounts a file (a volume's key: read-only; a bind-mounted node file) with its parent directories, and its mode and owner. */
  mountFile(path: string, content: string | Uint8Array, readOnly = true, ownership?: FileOwnership): void {
    const abs = this.resolve(path);
    const dir = this.parent(abs);
    if (dir) this.mkdirs(dir, readOnly);
    // Bytes (a configMap's binaryData) are kept as bytes unless they are the UTF-8 of their text.
    const text = typeof content === 'string' ? content : decodeText(Buffer.from(content));
    const bytes = typeof content === 'string' || Buffer.from(text, 'utf8').equals(Buffer.from(content)) ? undefined : Buffer.from(content);
    this.entries.set(this.key(abs), { type: 'file', content: text, readOnly, ...(bytes ? { bytes } : {}), ...ownership });
    this.names.set(this.key(abs), abs);
    if (!readOnly) this.writableMounts.add(this.key(abs));
  }

  /** Mounts an empty directory (emptyDir, an empty volume): writable or not. */
  mountDir(path: string, readOnly: boolean, ownership?: FileOwnership): void {
    this.mkdirs(this.resolve(path), readOnly);
    const e = this.entries.get(this.key(this.resolve(path)));
    if (e) { e.readOnly = readOnly; if (ownership) Object.assign(e, ownership); }
    if (!readOnly) this.writableMounts.add(this.key(this.resolve(path)));
  }

  /** Drops a mounted volume's files below `path` (the container's own table), so they can be mounted anew. */
  clearBelow(path: string): void {
    const k = this.key(this.resolve(path));
    for (const key of [...this.entries.keys()]) {
      if (key.startsWith(k + this.sep)) { this.entries.delete(key); this.names.delete(key); }
    }
  }

  stat(abs: string): FsEntry | undefined {
    const l = this.locate(abs);
    const e = l.entries.get(l.k);
    const imageLayer = this.rootReadOnly && l.entries === this.entries && this.onRootLayer(l.k);
    return e && !e.readOnly && (l.mountReadOnly || imageLayer) ? { ...e, readOnly: true } : e;
  }

  read(abs: string): string | undefined {
    const e = this.stat(abs);
    return e?.type === 'file' ? e.content : undefined;
  }

  /** Names directly inside a directory, sorted. */
  list(abs: string): string[] {
    const l = this.locate(abs);
    const out: string[] = [];
    const parentOf = (key: string) => (l.entries === this.entries ? this.parent(key) : this.relParent(key));
    for (const [key, name] of l.names) {
      if (key === l.k) continue;
      if (parentOf(key) === l.k) out.push(this.baseName(name));
    }
    return out.sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0));
  }

  /**
   * Writes a file; 'read-only' when it or its directory is a read-only mount,
   * 'no-dir' when the directory is missing. `encoding` lays the text out as
   * the writing program does, its BOM only at the start of the file: what is
   * appended to a file of another encoding is mixed into it byte for byte.
   */
  write(abs: string, content: string, append = false, encoding: TextEncoding = 'utf8'): 'ok' | 'read-only' | 'no-dir' | 'is-dir' {
    if (this.os === 'linux' && abs === '/dev/null') return 'ok';
    const dir = this.parent(abs);
    const d = dir ? this.stat(dir) : undefined;
    if (!d || d.type !== 'dir') return 'no-dir';
    const cur = this.stat(abs);
    if (cur?.type === 'dir') return 'is-dir';
    if (cur?.readOnly || (!cur && d.readOnly)) return 'read-only';
    const l = this.locate(abs);
    const before = append && cur?.type === 'file' ? cur : undefined;
    if (encoding === 'utf8' && !before?.bytes) {
      l.entries.set(l.k, { type: 'file', content: (before?.content ?? '') + content, readOnly: false, ...kept(cur) });
    } else {
      const old = before ? fileBytes(before) : Buffer.alloc(0);
      const bytes = Buffer.concat([old, encodeText(content, encoding, old.length === 0)]);
      l.entries.set(l.k, { type: 'file', content: decodeText(bytes), readOnly: false, bytes, ...kept(cur) });
    }
    l.names.set(l.k, l.name);
    return 'ok';
  }

  /**
   * Writes a file's exact bytes (what tar extracts): they are kept as bytes
   * unless they are the UTF-8 of their own text, so a UTF-16 or binary file
   * is copied in and out unchanged.
   */
  writeBytes(abs: string, data: Uint8Array, append = false): 'ok' | 'read-only' | 'no-dir' | 'is-dir' {
    const cur = append ? this.stat(abs) : undefined;
    const bytes = Buffer.concat([cur?.type === 'file' ? fileBytes(cur) : Buffer.alloc(0), data]);
    const text = decodeText(bytes);
    if (Buffer.from(text, 'utf8').equals(bytes)) return this.write(abs, text);
    const r = this.write(abs, '');
    if (r !== 'ok') return r;
    const l = this.locate(abs);
    l.entries.set(l.k, { type: 'file', content: text, readOnly: false, bytes, ...kept(this.stat(abs)) });
    return 'ok';
  }

  mkdir(abs: string): 'ok' | 'exists' | 'read-only' | 'no-dir' {
    if (this.stat(abs)) return 'exists';
    const dir = this.parent(abs);
    const d = dir ? this.stat(dir) : undefined;
    if (!d || d.type !== 'dir') return 'no-dir';
    if (d.readOnly) return 'read-only';
    const l = this.locate(abs);
    l.entries.set(l.k, { type: 'dir', readOnly: false });
    l.names.set(l.k, l.name);
    return 'ok';
  }

  remove(abs: string): 'ok' | 'missing' | 'read-only' {
    const e = this.stat(abs);
    if (!e) return 'missing';
    const l = this.locate(abs);
    if (e.readOnly || l.hostRoot) return 'read-only';
    for (const key of [...l.entries.keys()]) {
      if (key === l.k || key.startsWith(l.k + this.sep)) { l.entries.delete(key); l.names.delete(key); }
    }
    return 'ok';
  }
}
