/**
 * C:\Windows\System32\tar.exe of Windows images: bsdtar (libarchive 3.x),
 * as `kubectl cp` drives it (`tar cf - PATH`, `tar -xmf - -C DIR`, with
 * `--no-same-permissions --no-same-owner` for --no-preserve) and as users
 * run it by hand. Paths are Windows paths (ContainerFS's Windows model);
 * member names use '/', as libarchive writes them on Windows.
 *
 * Ground truth, libarchive 3.5.2: tar/bsdtar.c (main, exit status),
 * tar/write.c (write_archive, write_hierarchy), tar/read.c (read_archive),
 * tar/util.c (strip_absolute_path, set_chdir, do_chdir),
 * libarchive/archive_read_disk_windows.c (entry modes, walk errors) and
 * archive_write_disk_windows.c (cleanup_pathname, permissive_name_w,
 * restore_entry). The messages of the C runtime go through stderr in text
 * mode, so each line ends in CRLF; the archive itself is written in binary.
 */
import { joinChdir, parseBsdtarArgs, type BsdtarOptions } from './bsdtar-options.js';
import { fileBytes, type ContainerFS } from './fs.js';
import { readMembers, TarWriter } from './tar.js';
import type { ShellContext, Step } from './types.js';

type Gen = Generator<Step, number, void>;

/** tar.exe is in-box from Windows 10 / Server build 17063 (version 1803) on. */
export const FIRST_BUILD_WITH_TAR = 17063;

/** Whether a Windows container of this kernel (`10.0.<build>.<ubr>`) has tar.exe; unknown kernels are current ones. */
export function windowsHasTar(kernelVersion: string | undefined): boolean {
  const build = Number(/^\d+\.\d+\.(\d+)/.exec(kernelVersion ?? '')?.[1]);
  return !Number.isFinite(build) || build >= FIRST_BUILD_WITH_TAR;
}

export interface BsdtarRun {
  /** argv[0] as the process got it: messages are prefixed with its base name (`tar`, `tar.exe`). */
  argv0: string;
  args: readonly string[];
  ctx: ShellContext;
  /** The process's current directory (a Windows path). */
  cwd: string;
  /** The bytes on stdin, read when the archive is `-`. */
  stdin(): Uint8Array;
  out(text: string): Generator<Step, void, void>;
  /** Binary output (an archive, a member to stdout) unchanged; without it the bytes go to `out` as their text. */
  outBytes?(bytes: Uint8Array): Generator<Step, void, void>;
  err(text: string): Generator<Step, void, void>;
}

/** lafe_setprogname on Windows: what follows the last '\' or '/'. */
export function progName(argv0: string): string {
  return argv0.slice(Math.max(argv0.lastIndexOf('\\'), argv0.lastIndexOf('/')) + 1);
}

/** The running program's shared state: its messages and the once-only warnings. */
class Bsdtar {
  readonly fs: ContainerFS;
  cwd: string;
  failed = false;
  private warnedLeading = false;

  constructor(readonly run: BsdtarRun, readonly prog: string, readonly o: BsdtarOptions) {
    this.fs = run.ctx.fs;
    this.cwd = run.cwd;
  }

  *outBytes(bytes: Uint8Array): Generator<Step, void, void> {
    if (this.run.outBytes) yield* this.run.outBytes(bytes);
    else yield* this.run.out(Buffer.from(bytes).toString('utf8'));
  }

  /** lafe_warnc: `tar: message`, the C runtime turning each '\n' into CRLF. */
  *warn(msg: string): Generator<Step, void, void> {
    yield* this.run.err(`${this.prog}: ${msg}\n`.replace(/\n/g, '\r\n'));
  }

  /** strip_absolute_path: drops `\\?\`, drive letters, leading separators and `/../`, warning once. */
  *stripAbsolute(name: string): Generator<Step, string, void> {
    const sep = (c: string | undefined) => c === '/' || c === '\\';
    const warn = (text: string) => {
      if (this.warnedLeading) return [];
      this.warnedLeading = true;
      return [text];
    };
    const warnings: string[] = [];
    let p = name;
    if (sep(p[0]) && sep(p[1]) && (p[2] === '.' || p[2] === '?') && sep(p[3])) {
      p = p[2] === '?' && /^unc$/i.test(p.slice(4, 7)) && sep(p[7]) ? p.slice(8) : p.slice(4);
      warnings.push(...warn('Removing leading drive letter from member names'));
    }
    let rp: string;
    do {
      rp = p;
      if (/^[a-zA-Z]:/.test(p)) {
        p = p.slice(2);
        warnings.push(...warn('Removing leading drive letter from member names'));
      }
      while (sep(p[0])) {
        if (p[1] === '.' && p[2] === '.' && sep(p[3])) p = p.slice(3);
        else if (p[1] === '.' && sep(p[2])) p = p.slice(2);
        else p = p.slice(1);
        warnings.push(...warn(`Removing leading '${rp[0]}' from member names`));
      }
    } while (rp !== p);
    for (const w of warnings) yield* this.warn(w);
    return p;
  }

  /** do_chdir: the pending -C, applied before the first relative path (c) or after the archive is opened (x, t). */
  *chdir(pending: string | undefined): Generator<Step, boolean, void> {
    if (pending === undefined) return true;
    const dir = this.fs.resolve(pending, this.cwd);
    if (this.fs.stat(dir)?.type !== 'dir') {
      yield* this.warn(`could not chdir to '${pending}'\n`);
      return false;
    }
    this.cwd = dir;
    return true;
  }

  /** Files tar cannot open on this filesystem: devices (the default `\\.\tape0`) and network shares. */
  static isDevice(path: string): boolean { return /^[\\/]{2}/.test(path); }
}

/** The bsdtar program: its exit status is 0, or 1 after any error. */
export function* bsdtar(run: BsdtarRun): Gen {
  const prog = progName(run.argv0);
  const cl = parseBsdtarArgs(run.args, prog, run.ctx.env.TAPE ?? '\\\\.\\tape0');
  if (!cl.ok) {
    for (const line of cl.stderr) yield* run.err(line + '\r\n');
    return cl.code;
  }
  const t = new Bsdtar(run, prog, cl.options);
  const ran = cl.options.mode === 'c' ? yield* create(t) : yield* read(t);
  if (!ran) return 1;
  if (t.failed) {
    yield* t.warn('Error exit delayed from previous errors.');
    return 1;
  }
  return 0;
}

/** The mode bits archive_read_disk_windows.c gives an entry: read-only is the only permission Windows has. */
function entryMode(type: 'file' | 'dir', readOnly: boolean, name: string): number {
  let mode = readOnly ? 0o444 : 0o666;
  if (type === 'dir' || /\.(bat|cmd|exe)$/i.test(name)) mode |= 0o111;
  return mode;
}

const childOf = (dir: string, name: string) => (dir.endsWith('\\') ? dir + name : `${dir}\\${name}`);

/** tar_mode_c: false when it stopped at a fatal error (the message is out). */
function* create(t: Bsdtar): Generator<Step, boolean, void> {
  const { o, fs } = t;
  if (!o.operands.length) { yield* t.warn('no files or directories specified'); return false; }
  // archive_write_open_filename creates the archive before anything is read.
  const target = o.file === undefined ? undefined : fs.resolve(o.file, t.cwd);
  if (o.file !== undefined && (Bsdtar.isDevice(o.file) || fs.write(target!, '') !== 'ok')) {
    yield* t.warn(`Failed to open '${o.file}'`);
    return false;
  }
  const writer = new TarWriter('bsdtar', Math.floor((t.run.ctx.now ?? (() => new Date()))().getTime() / 1000));
  let pending = o.chdir;
  const ops = o.operands;
  for (let i = 0; i < ops.length; i++) {
    let arg = ops[i]!;
    if (arg.startsWith('-C')) {
      arg = arg.slice(2);
      if (arg === '') {
        const next = ops[++i];
        if (next === undefined) { yield* t.warn('Missing argument for -C'); t.failed = true; break; }
        if (next === '') { yield* t.warn("Meaningless argument for -C: ''"); t.failed = true; break; }
        arg = next;
      }
      pending = joinChdir(pending, arg);
      continue;
    }
    if (!arg.startsWith('/')) {
      if (!(yield* t.chdir(pending))) return false;
      pending = undefined;
    }
    yield* hierarchy(t, writer, arg);
  }
  const archive = writer.finish(target !== undefined);
  if (target === undefined) yield* t.outBytes(archive);
  else fs.writeBytes(target, archive);
  return true;
}

/** write_hierarchy: one command-line path and, for a directory, everything below it. */
function* hierarchy(t: Bsdtar, writer: TarWriter, arg: string): Generator<Step, void, void> {
  const abs = t.fs.resolve(arg, t.cwd);
  if (!t.fs.stat(abs)) {
    // FindFirstFileW fails before the walk has a path: libarchive prints its still empty path buffer.
    yield* t.warn(": Couldn't visit directory: No such file or directory");
    t.failed = true;
    return;
  }
  // The walk names entries as given, with '/' for '\' and without a trailing '/'.
  let top = arg.replace(/\\/g, '/');
  while (top.length > 1 && top.endsWith('/')) top = top.slice(0, -1);
  yield* visit(t, writer, abs, top);
}

function* visit(t: Bsdtar, writer: TarWriter, abs: string, path: string): Generator<Step, void, void> {
  const e = t.fs.stat(abs);
  if (!e) return;
  let name = path;
  if (!t.o.absolutePaths) name = (yield* t.stripAbsolute(path)) || '.';
  // Printed before the writer gives a directory its trailing '/'.
  if (t.o.verbose) yield* t.run.err(`a ${name}\r\n`);
  if (e.type === 'file') {
    writer.file(name, fileBytes(e), entryMode('file', e.readOnly, abs));
    return;
  }
  writer.dir(name, entryMode('dir', e.readOnly, abs));
  if (t.o.noRecursion) return;
  for (const child of t.fs.list(abs)) yield* visit(t, writer, childOf(abs, child), path.endsWith('/') ? path + child : `${path}/${child}`);
}

/** An inclusion pattern (archive_match): wildcards, and a directory's name includes what is below it. */
function matcher(pattern: string): (name: string) => boolean {
  const body = pattern.replace(/\/+$/, '').split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  const re = new RegExp(`^${body}(/.*)?$`, 's');
  return (name) => re.test(name);
}

/** tar_mode_x and tar_mode_t (read_archive): false when it stopped at a fatal error. */
function* read(t: Bsdtar): Generator<Step, boolean, void> {
  const { o, fs } = t;
  let archive: Uint8Array;
  if (o.file === undefined) archive = t.run.stdin();
  else {
    const entry = Bsdtar.isDevice(o.file) ? undefined : fs.stat(fs.resolve(o.file, t.cwd));
    if (entry?.type !== 'file') { yield* t.warn(`Error opening archive: Failed to open '${o.file}'`); return false; }
    archive = fileBytes(entry);
  }
  if (!(yield* t.chdir(o.chdir))) return false;
  const patterns = o.operands.map((p) => ({ pattern: p, test: matcher(p), matched: false }));
  for (const m of readMembers(archive)) {
    const hits = patterns.filter((p) => p.test(m.name));
    if (patterns.length && !hits.length) continue;
    for (const p of hits) p.matched = true;
    if (o.mode === 't') { yield* t.run.out(`${m.name}\r\n`); continue; }
    yield* extractOne(t, m.name, m.type, m.data);
  }
  for (const p of patterns) {
    if (p.matched) continue;
    yield* t.warn(`${p.pattern}: Not found in archive`);
    t.failed = true;
  }
  return true;
}

/** strip_components: the name without its first `n` elements, undefined when it has no more. */
function stripComponents(name: string, n: number): string | undefined {
  let p = name;
  for (let i = 0; i < n; i++) {
    const slash = p.search(/[\\/]/);
    if (slash === -1) return undefined;
    p = p.slice(slash + 1);
  }
  p = p.replace(/^[\\/]+/, '');
  return p || undefined;
}

/** cleanup_pathname: '\' separators, no `.` elements or doubled separators, `:*?"<>|` made `_` after the drive. */
function cleanupPathname(name: string): string {
  let s = name.replace(/\//g, '\\');
  let drive = '';
  if (/^[a-zA-Z]:\\/.test(s)) { drive = s.slice(0, 2); s = s.slice(2); }
  s = s.replace(/[:*?"<>|]/g, '_');
  const lead = s.startsWith('\\') ? '\\' : '';
  const parts = s.split('\\').filter((p) => p !== '' && p !== '.');
  return drive + (parts.length ? lead + parts.join('\\') : lead || '.');
}

/** permissive_name_w: the `\\?\` name the error messages show, built on GetCurrentDirectory as libarchive builds it. */
function permissiveName(cleaned: string, cwd: string): string {
  if (/^[a-zA-Z]:\\/.test(cleaned)) return `\\\\?\\${cleaned}`;
  if (cleaned.startsWith('\\')) return `\\\\?\\${cwd.slice(0, 2)}${cleaned}`;
  // GetCurrentDirectory keeps the '\' of a drive root, and libarchive adds one more.
  return `\\\\?\\${cwd}\\${cleaned}`;
}

/** One member of `tar -x`: its name edited as bsdtar edits it, then restored on disk. */
function* extractOne(t: Bsdtar, original: string, type: string, data: Buffer): Generator<Step, void, void> {
  const { o } = t;
  let name: string | undefined = original;
  if (o.stripComponents > 0) {
    name = stripComponents(name, o.stripComponents);
    if (name === undefined) return;
  }
  if (!o.absolutePaths) name = (yield* t.stripAbsolute(name)) || '.';
  const prefix = o.verbose ? `x ${name}` : '';
  if (o.toStdout) {
    if (type !== '5') yield* t.outBytes(data);
    if (o.verbose) yield* t.run.err(`${prefix}\r\n`);
    return;
  }
  const problem = restore(t, name, type, data);
  if (problem === undefined) {
    if (o.verbose) yield* t.run.err(`${prefix}\r\n`);
    return;
  }
  t.failed = true;
  yield* t.run.err(`${o.verbose ? prefix : name}: ${problem}\r\n`);
}

/**
 * restore_entry of archive_write_disk_windows.c: the message of a member
 * that cannot be written, or undefined. Missing parents are created; a file
 * in the way is replaced unless read-only; a directory in the way of a file
 * is removed only when empty.
 */
function restore(t: Bsdtar, name: string, type: string, data: Buffer): string | undefined {
  const { fs, o } = t;
  const cleaned = cleanupPathname(name);
  if (!o.absolutePaths && cleaned.split('\\').includes('..')) return "Path contains '..'";
  // Links and devices have no place in this filesystem; regular files (0, contiguous 7) and directories are written.
  if (type !== '0' && type !== '7' && type !== '5') return undefined;
  const abs = fs.resolve(cleaned, t.cwd);
  const cantCreate = `Can't create '${permissiveName(cleaned, t.cwd)}'`;
  const cur = fs.stat(abs);
  if (o.unlinkFirst && type !== '5' && cur) {
    const gone = cur.type === 'file' ? !cur.readOnly && fs.remove(abs) === 'ok' : !fs.list(abs).length && fs.remove(abs) === 'ok';
    if (!gone) return 'Could not unlink';
  }
  const now = fs.stat(abs);
  if (now && o.keepOld) return undefined;
  if (type === '5') {
    if (now?.type === 'dir') return undefined;
    if (now && (now.readOnly || fs.remove(abs) !== 'ok')) return "Can't unlink already-existing object";
    createParents(fs, abs);
    return fs.mkdir(abs) === 'ok' ? undefined : cantCreate;
  }
  if (now?.type === 'dir') {
    if (fs.list(abs).length || fs.remove(abs) !== 'ok') return "Can't remove already-existing dir";
  } else if (now?.readOnly) return "Can't unlink already-existing object";
  createParents(fs, abs);
  return fs.writeBytes(abs, data) === 'ok' ? undefined : cantCreate;
}

/** create_parent_dir: every missing directory above `abs`; a failure shows as the member's own. */
function createParents(fs: ContainerFS, abs: string): void {
  const parts = abs.split('\\');
  for (let i = 2; i < parts.length; i++) fs.mkdir(parts.slice(0, i).join('\\'));
}
