/**
 * `agnhost mounttest` (test/images/agnhost/mounttest/mt.go, mt_utils.go):
 * with the umask cleared, in this order, statfs of --fs_type, a new file
 * written and read back for each --new_file_0644/0666/0660/0777, os.Stat
 * of --file_mode (FileMode.String()) and --file_perm (Mode().Perm()),
 * stat(2) owner of --file_owner, the content of --file_content, and a
 * loop over --file_content_in_loop every 2 s for --retry_time seconds
 * (stopping at the new-file content unless
 * --break_on_expected_content=false). Each failure prints its line and the
 * program goes on; any failure makes the exit code 1.
 */
import type { ContainerFS, FsEntry, FsType } from '../shell/fs.js';
import { ownershipOf } from '../shell/fs.js';
import type { Program, Step } from '../shell/types.js';

/** The process the container runs as: new files get its uid, and its gid unless the directory is setgid. */
export interface ProcessIdentity { uid: number; gid: number }

export interface MounttestContext {
  fs: ContainerFS;
  user: ProcessIdentity;
  /** Milliseconds of the node's clock, for the content loop's deadline. */
  nowMs: () => number;
}

const INITIAL_CONTENT = 'mount-tester new file\n';
const S_ISGID = 0o2000;
const S_ISVTX = 0o1000;
const S_ISUID = 0o4000;

/** statfs(2) f_type as mounttest prints it: tmpfs by name (formatFsType), other magics as decimal. */
const FS_MAGIC: Record<FsType, string> = { tmpfs: 'tmpfs', ext4: String(0xef53), overlay: String(0x794c7630) };

/** Go's os.FileMode.String() of a stat result: type and special letters ("dalTLDpSugct?"), then rwx bits. */
export function goFileModeString(mode: number, isDir: boolean): string {
  let head = '';
  if (isDir) head += 'd';
  if (mode & S_ISUID) head += 'u';
  if (mode & S_ISGID) head += 'g';
  if (mode & S_ISVTX) head += 't';
  return (head || '-') + goPermString(mode);
}

/** FileMode.Perm().String(): always a leading '-'. */
export function goPermString(mode: number): string {
  const rwx = 'rwxrwxrwx';
  let out = '';
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? rwx[i] : '-';
  return out;
}

const q = (s: string) => JSON.stringify(s);

/** The flags mounttest reads (cobra: unknown flags stop it before main, which the caller reports). */
export interface MounttestFlags {
  fsType: string; fileMode: string; filePerm: string; fileOwner: string;
  newFiles: [string, number][]; fileContent: string; fileContentInLoop: string;
  retrySeconds: number; breakOnExpectedContent: boolean;
}

export function mounttestFlags(flags: ReadonlyMap<string, string>): MounttestFlags {
  const f = (n: string) => flags.get(n) ?? '';
  return {
    fsType: f('fs_type'), fileMode: f('file_mode'), filePerm: f('file_perm'), fileOwner: f('file_owner'),
    newFiles: [['new_file_0644', 0o644], ['new_file_0666', 0o666], ['new_file_0660', 0o660], ['new_file_0777', 0o777]]
      .map(([n, m]) => [f(n as string), m as number] as [string, number]),
    fileContent: f('file_content'), fileContentInLoop: f('file_content_in_loop'),
    retrySeconds: flags.has('retry_time') ? Number.parseInt(f('retry_time'), 10) : 180,
    breakOnExpectedContent: flags.get('break_on_expected_content') !== 'false',
  };
}

export function mounttest(ctx: MounttestContext, flags: MounttestFlags): Program {
  return (function* (): Generator<Step, void> {
    const { fs } = ctx;
    let failed = false;
    const out = (text: string): Step => ({ kind: 'stdout', text });
    const stat = (p: string): FsEntry | undefined => fs.stat(fs.resolve(p));
    const enoent = 'no such file or directory';

    const readContent = (p: string): Step => {
      const e = stat(p);
      if (e?.type === 'file') return out(`content of file ${q(p)}: ${e.content}\n`);
      failed = true;
      return out(`error reading file content for ${q(p)}: ${e ? `read ${p}: is a directory` : `open ${p}: ${enoent}`}\n`);
    };

    if (flags.fsType) {
      if (stat(flags.fsType)) yield out(`mount type of ${q(flags.fsType)}: ${FS_MAGIC[fs.fsTypeOf(fs.resolve(flags.fsType))]}\n`);
      else { failed = true; yield out(`error from statfs(${q(flags.fsType)}): ${enoent}\n`); }
    }
    for (const [path, perm] of flags.newFiles) {
      if (!path) continue;
      const err = writeNewFile(fs, path, perm, ctx.user);
      if (err) { failed = true; yield out(`error writing new file ${q(path)}: open ${path}: ${err}\n`); continue; }
      yield readContent(path);
    }
    if (flags.fileMode) {
      const e = stat(flags.fileMode);
      if (e) yield out(`mode of file ${q(flags.fileMode)}: ${goFileModeString(ownershipOf(e).mode, e.type === 'dir')}\n`);
      else { failed = true; yield out(`error from Stat(${q(flags.fileMode)}): stat ${flags.fileMode}: ${enoent}\n`); }
    }
    if (flags.filePerm) {
      const e = stat(flags.filePerm);
      if (e) yield out(`perms of file ${q(flags.filePerm)}: -${goPermString(ownershipOf(e).mode)}\n`);
      else { failed = true; yield out(`error from Stat(${q(flags.filePerm)}): stat ${flags.filePerm}: ${enoent}\n`); }
    }
    if (flags.fileOwner) {
      const e = stat(flags.fileOwner);
      if (e) {
        const o = ownershipOf(e);
        yield out(`owner UID of ${q(flags.fileOwner)}: ${o.uid}\n`);
        yield out(`owner GID of ${q(flags.fileOwner)}: ${o.gid}\n`);
      } else { failed = true; yield out(`error from stat(${q(flags.fileOwner)}): ${enoent}\n`); }
    }
    if (flags.fileContent) yield readContent(flags.fileContent);
    if (flags.fileContentInLoop) {
      const p = flags.fileContentInLoop;
      const start = ctx.nowMs();
      let lastFailed = false;
      for (let first = true; ctx.nowMs() - start < flags.retrySeconds * 1000; first = false) {
        if (!first) yield { kind: 'sleep', ms: 2000 };
        if (!(ctx.nowMs() - start < flags.retrySeconds * 1000)) break;
        const e = stat(p);
        if (e?.type !== 'file') {
          lastFailed = true;
          yield out(`Error reading file ${p}: ${e ? `read ${p}: is a directory` : `open ${p}: ${enoent}`}, retrying\n`);
          continue;
        }
        lastFailed = false;
        yield out(`content of file ${q(p)}: ${e.content}\n`);
        if (flags.breakOnExpectedContent) {
          if (e.content !== INITIAL_CONTENT) { yield out(`Unexpected content. Expected: ${INITIAL_CONTENT}. Retrying`); continue; }
          break;
        }
      }
      if (lastFailed) failed = true;
    }
    yield { kind: 'exit', code: failed ? 1 : 0 };
  })();
}

/**
 * ioutil.WriteFile(path, content, perm) under umask 0: an existing file is
 * truncated and keeps its mode; a new one gets `perm`, the process's uid,
 * and the directory's group when the directory is setgid (else the
 * process's gid). Returns the errno text on failure.
 */
function writeNewFile(fs: ContainerFS, path: string, perm: number, user: ProcessIdentity): string | undefined {
  const abs = fs.resolve(path);
  const existed = fs.stat(abs) !== undefined;
  const r = fs.write(abs, INITIAL_CONTENT);
  if (r === 'read-only') return 'read-only file system';
  if (r === 'no-dir') return 'no such file or directory';
  if (r === 'is-dir') return 'is a directory';
  if (!existed) {
    const dirAbs = abs.slice(0, abs.lastIndexOf('/')) || '/';
    const dir = fs.stat(dirAbs);
    const dirOwn = dir ? ownershipOf(dir) : undefined;
    const gid = dirOwn && dirOwn.mode & S_ISGID ? dirOwn.gid : user.gid;
    fs.setOwnership(abs, { mode: perm, uid: user.uid, gid });
  }
  return undefined;
}
