/**
 * `mv` in the container's filesystem: coreutils' (Debian-based images, dash)
 * and busybox's (ash) texts. A move within the container is a rename: the
 * entry keeps its content, mode and owner. `-v` prints coreutils'
 * `renamed 'a' -> 'b'`; busybox's mv has no -v in the model (it prints
 * nothing for it).
 */
import type { ContainerFS, FsEntry } from './fs.js';
import type { ToolResult } from './posix-id.js';

/** Copies an entry (a directory with everything below it) to `to`, then removes the source. */
function moveEntry(fs: ContainerFS, from: string, to: string): 'ok' | 'read-only' | 'no-dir' {
  const copy = (src: string, dst: string, e: FsEntry): 'ok' | 'read-only' | 'no-dir' => {
    const r = e.type === 'dir' ? fs.mkdir(dst) : fs.writeBytes(dst, e.bytes ?? Buffer.from(e.content, 'utf8'));
    if (r === 'read-only' || r === 'no-dir') return r;
    if (r === 'is-dir') return 'no-dir';
    if (e.mode !== undefined || e.uid !== undefined || e.gid !== undefined) {
      fs.setOwnership(dst, { ...(e.mode !== undefined ? { mode: e.mode } : {}), ...(e.uid !== undefined ? { uid: e.uid } : {}), ...(e.gid !== undefined ? { gid: e.gid } : {}) });
    }
    if (e.type === 'dir') {
      for (const name of fs.list(src)) {
        const child = fs.stat(`${src}/${name}`);
        if (!child) continue;
        const r2 = copy(`${src}/${name}`, `${dst}/${name}`, child);
        if (r2 !== 'ok') return r2;
      }
    }
    return 'ok';
  };
  const entry = fs.stat(from);
  if (!entry) return 'no-dir';
  if (entry.readOnly) return 'read-only';
  const r = copy(from, to, entry);
  if (r !== 'ok') return r;
  return fs.remove(from) === 'read-only' ? 'read-only' : 'ok';
}

export function mvCommand(fs: ContainerFS, cwd: string, args: readonly string[], coreutils: boolean): ToolResult {
  const verbose = args.some((a) => /^-[a-zA-Z]*v/.test(a) || a === '--verbose');
  const operands = args.filter((a) => !a.startsWith('-'));
  const prog = 'mv';
  if (operands.length === 0) {
    return { out: '', err: coreutils ? `${prog}: missing file operand\nTry 'mv --help' for more information.\n` : 'BusyBox: mv: missing operand\n', code: 1 };
  }
  if (operands.length === 1) {
    return { out: '', err: coreutils ? `${prog}: missing destination file operand after '${operands[0]}'\nTry 'mv --help' for more information.\n` : 'BusyBox: mv: missing operand\n', code: 1 };
  }
  const target = operands[operands.length - 1]!;
  const sources = operands.slice(0, -1);
  const targetAbs = fs.resolve(target, cwd);
  const intoDir = fs.stat(targetAbs)?.type === 'dir';
  if (sources.length > 1 && !intoDir) {
    return { out: '', err: coreutils ? `mv: target '${target}' is not a directory\n` : `mv: '${target}' is not a directory\n`, code: 1 };
  }
  let out = '';
  let err = '';
  let code = 0;
  for (const src of sources) {
    const srcAbs = fs.resolve(src, cwd);
    if (!fs.stat(srcAbs)) {
      err += coreutils ? `mv: cannot stat '${src}': No such file or directory\n` : `mv: can't stat '${src}': No such file or directory\n`;
      code = 1;
      continue;
    }
    const base = srcAbs.slice(srcAbs.lastIndexOf('/') + 1);
    const dest = intoDir ? `${targetAbs.replace(/\/$/, '')}/${base}` : targetAbs;
    const shown = intoDir ? `${target.replace(/\/+$/, '')}/${base}` : target;
    const r = moveEntry(fs, srcAbs, dest);
    if (r !== 'ok') {
      const why = r === 'read-only' ? 'Read-only file system' : 'No such file or directory';
      err += coreutils ? `mv: cannot move '${src}' to '${shown}': ${why}\n` : `mv: can't rename '${src}': ${why}\n`;
      code = 1;
      continue;
    }
    if (verbose && coreutils) out += `renamed '${src}' -> '${shown}'\n`;
  }
  return { out, err, code };
}
