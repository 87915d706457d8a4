/**
 * The `tar` program of the POSIX shells: option parsing and messages of GNU
 * tar (Debian-based images) and busybox tar (busybox, Alpine) around the
 * archive functions of tar.ts. kubectl cp runs `tar cf - PATH` and
 * `tar -xmf - [-C DIR]` (with `--no-same-permissions --no-same-owner` for
 * --no-preserve). Compressed archives (z, j, J) are not modelled: program
 * output is text, and compressed bytes are not.
 */
import { fileBytes } from './fs.js';
import type { PosixShell } from './posix.js';
import { cannotOpen, createArchive, extractArchive, failureCode, readMembers, type PosixTarFlavour } from './tar.js';
import type { Step } from './types.js';

interface TarOptions { mode?: 'c' | 'x' | 't'; file?: string; dir?: string; operands: string[]; bad?: string }

function parseTarArgs(args: string[]): TarOptions {
  const o: TarOptions = { operands: [] };
  const rest = [...args];
  // The first word may be bundled letters without a dash (`tar cf - x`).
  const [first] = rest;
  if (first !== undefined && !first.startsWith('-')) rest[0] = '-' + first;
  while (rest.length) {
    const a = rest.shift()!;
    if (a === '--') { o.operands.push(...rest); break; }
    if (a.startsWith('--')) {
      const [name, value] = a.slice(2).split('=', 2);
      if (name === 'file') o.file = value ?? rest.shift();
      else if (name === 'directory') o.dir = value ?? rest.shift();
      else if (name === 'create') o.mode = 'c';
      else if (name === 'extract' || name === 'get') o.mode = 'x';
      else if (name === 'list') o.mode = 't';
      // Ownership, permission and time options change nothing in a filesystem without them.
      continue;
    }
    if (!a.startsWith('-') || a === '-') { o.operands.push(a); continue; }
    for (let i = 1; i < a.length; i++) {
      const ch = a.charAt(i);
      if (ch === 'c' || ch === 'x' || ch === 't') o.mode = ch;
      else if (ch === 'f' || ch === 'C') {
        // The value is the rest of the word, or the next word.
        const value = i + 1 < a.length ? a.slice(i + 1) : rest.shift();
        if (ch === 'f') o.file = value; else o.dir = value;
        break;
      } else if (!'vmpoh'.includes(ch)) { o.bad = ch; return o; }
    }
  }
  return o;
}

/** The `tar` builtin of PosixShell. */
export function* tar(sh: PosixShell, args: string[]): Generator<Step, number, void> {
  const flavour: PosixTarFlavour = (sh.ctx.posixShell ?? 'ash') === 'ash' ? 'busybox' : 'gnu';
  const o = parseTarArgs(args);
  const fail = failureCode(flavour);
  // GNU tar's pointer to its help; busybox prints its whole usage text instead, which is not modelled.
  const usage = "Try 'tar --help' or 'tar --usage' for more information.";
  if (o.bad) { yield* sh.err(`tar: invalid option -- '${o.bad}'`); if (flavour === 'gnu') yield* sh.err(usage); return fail; }
  if (!o.mode) {
    yield* sh.err(flavour === 'gnu' ? "tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options" : 'tar: need one of -c, -x or -t');
    if (flavour === 'gnu') yield* sh.err(usage);
    return fail;
  }
  const fs = sh.ctx.fs;
  const toStdio = o.file === undefined || o.file === '-';
  if (o.mode === 'c') {
    if (!o.operands.length) {
      yield* sh.err(flavour === 'gnu' ? 'tar: Cowardly refusing to create an empty archive' : 'tar: empty archive');
      if (flavour === 'gnu') yield* sh.err(usage);
      return fail;
    }
    const cwd = o.dir ? fs.resolve(o.dir, sh.cwd) : sh.cwd;
    const r = createArchive(fs, o.operands, cwd, flavour, (sh.ctx.now ?? (() => new Date()))());
    for (const line of r.stderr) yield* sh.err(line);
    if (toStdio) yield* sh.outBytes(r.stdout);
    else if (fs.writeBytes(fs.resolve(o.file!, sh.cwd), r.stdout) !== 'ok') {
      yield* sh.err(cannotOpen(flavour, o.file!, 'Read-only file system'));
      return fail;
    }
    return r.code;
  }
  let archive: Uint8Array;
  if (toStdio) archive = sh.readStdinBytes();
  else {
    const entry = fs.stat(fs.resolve(o.file!, sh.cwd));
    if (entry?.type !== 'file') {
      yield* sh.err(cannotOpen(flavour, o.file!, 'No such file or directory'));
      if (flavour === 'gnu') yield* sh.err('tar: Error is not recoverable: exiting now');
      return fail;
    }
    archive = fileBytes(entry);
  }
  const dir = fs.resolve(o.dir ?? '.', sh.cwd);
  if (o.mode === 't') {
    for (const m of readMembers(archive)) yield* sh.out(m.name + '\n');
    return 0;
  }
  const r = extractArchive(fs, archive, dir, flavour);
  for (const line of r.stderr) yield* sh.err(line);
  return r.code;
}
