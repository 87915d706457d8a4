/**
 * `tar` of Linux images, as far as `kubectl cp` and hand-written
 * `kubectl exec ... -- tar cf - PATH | tar xf -` pipelines use it: create an
 * archive of files and directories to stdout, extract one from stdin.
 * Archives are POSIX ustar (plus the pax and GNU long-name records Go's
 * archive/tar writes when kubectl sends a long path), which is what both
 * GNU tar and busybox tar read and what kubectl's archive/tar reader expects.
 * The ustar writer and the member reader also serve bsdtar, the tar.exe of
 * Windows images (bsdtar.ts), whose headers differ in a few bytes.
 *
 * An archive holds each file's bytes as the filesystem keeps them, and an
 * extracted file keeps the member's bytes (ContainerFS.writeBytes), so
 * UTF-16 text and binary files round-trip byte for byte.
 */
import { fileBytes, type ContainerFS } from './fs.js';

const BLOCK = 512;

/**
 * GNU tar (Debian-based images), busybox tar (busybox, Alpine) or bsdtar
 * (libarchive: C:\Windows\System32\tar.exe): their messages and header bytes differ.
 */
export type TarFlavour = 'gnu' | 'busybox' | 'bsdtar';
/** The tars of Linux images, whose file walking and messages this module has. */
export type PosixTarFlavour = Exclude<TarFlavour, 'bsdtar'>;

export interface TarResult { stdout: Buffer; stderr: string[]; code: number }

/** The exit status of a failed run: GNU tar's 2 ("fatal error"), busybox's 1. */
export const failureCode = (flavour: PosixTarFlavour) => (flavour === 'gnu' ? 2 : 1);

/** A file tar cannot open, in each tar's words. */
export const cannotOpen = (flavour: PosixTarFlavour, name: string, why: string) =>
  (flavour === 'gnu' ? `tar: ${name}: Cannot open: ${why}` : `tar: can't open '${name}': ${why}`);

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

/**
 * A ustar header. GNU tar and busybox end each number with a NUL and name
 * the owner root; libarchive (bsdtar) ends the small fields with space and
 * NUL and the large ones with a space (archive_write_set_format_ustar.c's
 * template), and on Windows has no owner names to write.
 */
function header(name: string, type: '0' | '5', size: number, mode: number, mtime: number, flavour: TarFlavour): Buffer {
  const h = Buffer.alloc(BLOCK);
  let prefix = '';
  let rest = name;
  if (Buffer.byteLength(name) > 100) {
    // ustar splits a long name at a '/' into prefix (155) and name (100).
    const cut = name.lastIndexOf('/', name.length - 1 - (name.endsWith('/') ? 1 : 0));
    prefix = name.slice(0, cut);
    rest = name.slice(cut + 1);
  }
  h.write(rest, 0, 100, 'utf8');
  if (flavour === 'bsdtar') {
    const small = (n: number) => n.toString(8).padStart(6, '0') + ' \0';
    const large = (n: number) => n.toString(8).padStart(11, '0') + ' ';
    h.write(small(mode), 100, 'ascii');
    h.write(small(0), 108, 'ascii');
    h.write(small(0), 116, 'ascii');
    h.write(large(size), 124, 'ascii');
    h.write(large(mtime), 136, 'ascii');
    h.write(small(0), 329, 'ascii');
    h.write(small(0), 337, 'ascii');
  } else {
    h.write(octal(mode, 8), 100, 'ascii');
    h.write(octal(0, 8), 108, 'ascii');
    h.write(octal(0, 8), 116, 'ascii');
    h.write(octal(size, 12), 124, 'ascii');
    h.write(octal(mtime, 12), 136, 'ascii');
    h.write('root', 265, 'ascii');
    h.write('root', 297, 'ascii');
  }
  h.write('        ', 148, 'ascii');
  h.write(type, 156, 'ascii');
  h.write('ustar\x0000', 257, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return h;
}

function padded(data: Buffer): Buffer[] {
  const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
  return pad ? [data, Buffer.alloc(pad)] : [data];
}

/** An archive being written, member by member, in one tar's header format. */
export class TarWriter {
  private readonly parts: Buffer[] = [];

  constructor(private readonly flavour: TarFlavour, private readonly mtime: number) {}

  /** A directory member: its name ends in '/', as every tar writes it. */
  dir(member: string, mode: number): void {
    this.parts.push(header(member.endsWith('/') ? member : member + '/', '5', 0, mode, this.mtime, this.flavour));
  }

  file(member: string, data: Buffer, mode: number): void {
    this.parts.push(header(member, '0', data.length, mode, this.mtime, this.flavour), ...padded(data));
  }

  membersSoFar(): Buffer { return Buffer.concat(this.parts); }

  /**
   * Two zero blocks end the archive. GNU tar pads the whole to its 10 KiB
   * record; bsdtar does the same on stdout or a pipe (archive_write_open_fd
   * pads the last block there) but not in a regular file.
   */
  finish(toFile = false): Buffer {
    let out = Buffer.concat([...this.parts, Buffer.alloc(2 * BLOCK)]);
    const record = this.flavour === 'gnu' || (this.flavour === 'bsdtar' && !toFile) ? 10240 : 0;
    if (record && out.length % record) out = Buffer.concat([out, Buffer.alloc(record - (out.length % record))]);
    return out;
  }
}

/**
 * `tar cf - PATH...`: members named as given, leading '/' removed (with the
 * warning both tars print once), directories recursively.
 */
export function createArchive(fs: ContainerFS, paths: string[], cwd: string, flavour: PosixTarFlavour, now: Date): TarResult {
  const writer = new TarWriter(flavour, Math.floor(now.getTime() / 1000));
  const stderr: string[] = [];
  let warned = false;
  let failed = false;
  const add = (abs: string, member: string): void => {
    const e = fs.stat(abs);
    if (!e) return;
    if (e.type === 'dir') {
      writer.dir(member, 0o755);
      for (const child of fs.list(abs)) add(abs === '/' ? `/${child}` : `${abs}/${child}`, `${member.replace(/\/$/, '')}/${child}`);
      return;
    }
    writer.file(member, fileBytes(e), e.readOnly ? 0o444 : 0o644);
  };
  for (const p of paths) {
    const abs = fs.resolve(p, cwd);
    if (!fs.stat(abs)) {
      stderr.push(flavour === 'gnu' ? `tar: ${p}: Cannot stat: No such file or directory` : `tar: ${p}: No such file or directory`);
      failed = true;
      // busybox stops at once, without the end-of-archive blocks.
      if (flavour === 'busybox') return { stdout: writer.membersSoFar(), stderr, code: 1 };
      continue;
    }
    let member = p.replace(/^\.\//, '');
    if (member.startsWith('/')) {
      if (!warned) stderr.push(flavour === 'gnu' ? "tar: Removing leading `/' from member names" : "tar: removing leading '/' from member names");
      warned = true;
      member = member.replace(/^\/+/, '');
    }
    add(abs, member || '.');
  }
  if (failed) stderr.push('tar: Exiting with failure status due to previous errors');
  return { stdout: writer.finish(), stderr, code: failed ? 2 : 0 };
}

function field(h: Buffer, off: number, len: number): string {
  const end = h.indexOf(0, off);
  return h.toString('utf8', off, end === -1 || end > off + len ? off + len : end);
}

/** The `path` record of a pax extended header ("<len> path=<name>\n" records). */
function paxPath(data: Buffer): string | undefined {
  let i = 0;
  let path: string | undefined;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    if (sp === -1) break;
    const len = Number(data.toString('ascii', i, sp));
    if (!len) break;
    const rec = data.toString('utf8', sp + 1, i + len - 1);
    if (rec.startsWith('path=')) path = rec.slice(5);
    i += len;
  }
  return path;
}

export interface TarMember { name: string; type: string; data: Buffer }

/** The members of an archive, with pax `path` records and GNU long names applied to the member they precede. */
export function* readMembers(archive: Uint8Array): Generator<TarMember> {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  let longName: string | undefined;
  let off = 0;
  while (off + BLOCK <= buf.length) {
    const h = buf.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) return;
    const size = parseInt(field(h, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(h[156] || 0x30);
    const data = buf.subarray(off + BLOCK, off + BLOCK + size);
    off += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x') { longName = paxPath(data) ?? longName; continue; }
    if (type === 'L') { longName = data.toString('utf8').replace(/\0+$/, ''); continue; }
    if (type === 'g') continue;
    const prefix = field(h, 345, 155);
    yield { name: longName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100)), type, data };
    longName = undefined;
  }
}

/**
 * `tar xf - [-C DIR]`: writes the archive's files into the container's
 * filesystem, creating parent directories as both tars do.
 */
export function extractArchive(fs: ContainerFS, archive: Uint8Array, dir: string, flavour: PosixTarFlavour): TarResult {
  const stderr: string[] = [];
  const target = fs.stat(dir);
  if (!target || target.type !== 'dir') {
    if (flavour === 'gnu') return { stdout: Buffer.alloc(0), stderr: [cannotOpen(flavour, dir, 'No such file or directory'), 'tar: Error is not recoverable: exiting now'], code: 2 };
    return { stdout: Buffer.alloc(0), stderr: [`tar: can't change directory to '${dir}': No such file or directory`], code: 1 };
  }
  const ensureDirs = (abs: string): string | undefined => {
    const parts = abs.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const r = fs.mkdir('/' + parts.slice(0, i).join('/'));
      if (r !== 'ok' && r !== 'exists') return r;
    }
    return undefined;
  };
  const why = (r: string) => (r === 'read-only' ? 'Read-only file system' : r === 'is-dir' ? 'Is a directory' : 'No such file or directory');
  let failed = false;
  for (const { name, type, data } of readMembers(archive)) {
    const abs = fs.resolve(name.replace(/^\/+/, ''), dir);
    let r = ensureDirs(abs) ?? 'ok';
    if (r === 'ok' && type === '5') { const made = fs.mkdir(abs); r = made === 'exists' ? 'ok' : made; }
    // Links and devices have no place in this filesystem; regular files (0, NUL, contiguous 7) are written.
    else if (r === 'ok' && (type === '0' || type === '7')) r = fs.writeBytes(abs, data);
    if (r === 'ok' || r === 'exists') continue;
    failed = true;
    stderr.push(cannotOpen(flavour, name, why(r)));
    // busybox dies at the first error; GNU tar goes on and fails at the end.
    if (flavour === 'busybox') break;
  }
  if (failed && flavour === 'gnu') stderr.push('tar: Exiting with failure status due to previous errors');
  return { stdout: Buffer.alloc(0), stderr, code: failed ? failureCode(flavour) : 0 };
}
