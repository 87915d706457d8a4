/**
 * The command line of bsdtar (libarchive 3.5, the tar.exe of Windows
 * images): tar/cmdline.c's bsdtar_getopt (old-style first word, bundled
 * short options, unambiguous prefixes of long options) and the option
 * checks of tar/bsdtar.c's main, with their messages. Only the options whose
 * effect the emulated filesystem can show are accepted; every other option
 * bsdtar knows ends in its usage text, as an option it does not know does.
 */

/** tar/cmdline.c's short_options: a letter followed by ':' takes an argument. */
const SHORT_OPTIONS = 'aBb:C:cf:HhI:JjkLlmnOoPpqrSs:T:tUuvW:wX:xyZz';

/**
 * tar/cmdline.c's tar_longopts of libarchive 3.5.2, in its order (the order
 * decides which two names an ambiguous prefix reports): name, whether it
 * takes an argument, and the short option it stands for ('' when none).
 */
const LONG_OPTIONS: readonly (readonly [string, boolean, string])[] = [
  ['absolute-paths', false, 'P'], ['append', false, 'r'], ['acls', false, ''], ['auto-compress', false, 'a'],
  ['b64encode', false, ''], ['block-size', true, 'b'], ['blocking-factor', true, 'b'], ['bunzip2', false, 'j'],
  ['bzip', false, 'j'], ['bzip2', false, 'j'], ['cd', true, 'C'], ['check-links', false, ''], ['chroot', false, ''],
  ['clear-nochange-fflags', false, ''], ['compress', false, 'Z'], ['confirmation', false, 'w'], ['create', false, 'c'],
  ['dereference', false, 'L'], ['directory', true, 'C'], ['disable-copyfile', false, ''], ['exclude', true, ''],
  ['exclude-from', true, 'X'], ['exclude-vcs', false, ''], ['extract', false, 'x'], ['fast-read', false, 'q'],
  ['fflags', false, ''], ['file', true, 'f'], ['files-from', true, 'T'], ['format', true, ''], ['gid', true, ''],
  ['gname', true, ''], ['grzip', false, ''], ['gunzip', false, 'z'], ['gzip', false, 'z'], ['help', false, ''],
  ['hfsCompression', false, ''], ['ignore-zeros', false, ''], ['include', true, ''], ['insecure', false, 'P'],
  ['interactive', false, 'w'], ['keep-newer-files', false, ''], ['keep-old-files', false, 'k'], ['list', false, 't'],
  ['lrzip', false, ''], ['lz4', false, ''], ['lzip', false, ''], ['lzma', false, ''], ['lzop', false, ''],
  ['mac-metadata', false, ''], ['modification-time', false, 'm'], ['newer', true, ''], ['newer-ctime', true, ''],
  ['newer-ctime-than', true, ''], ['newer-mtime', true, ''], ['newer-mtime-than', true, ''], ['newer-than', true, ''],
  ['no-acls', false, ''], ['no-fflags', false, ''], ['no-mac-metadata', false, ''], ['no-recursion', false, 'n'],
  ['no-safe-writes', false, ''], ['no-same-owner', false, ''], ['no-same-permissions', false, ''], ['no-xattr', false, ''],
  ['no-xattrs', false, ''], ['nodump', false, ''], ['nopreserveHFSCompression', false, ''], ['norecurse', false, 'n'],
  ['null', false, ''], ['numeric-owner', false, ''], ['older', true, ''], ['older-ctime', true, ''],
  ['older-ctime-than', true, ''], ['older-mtime', true, ''], ['older-mtime-than', true, ''], ['older-than', true, ''],
  ['one-file-system', false, ''], ['options', true, ''], ['passphrase', true, ''], ['posix', false, ''],
  ['preserve-permissions', false, 'p'], ['read-full-blocks', false, 'B'], ['safe-writes', false, ''],
  ['same-owner', false, ''], ['same-permissions', false, 'p'], ['strip-components', true, ''], ['to-stdout', false, 'O'],
  ['totals', false, ''], ['uid', true, ''], ['uname', true, ''], ['uncompress', false, 'Z'], ['unlink', false, 'U'],
  ['unlink-first', false, 'U'], ['update', false, 'u'], ['use-compress-program', true, ''], ['uuencode', false, ''],
  ['verbose', false, 'v'], ['version', false, ''], ['xattrs', false, ''], ['xz', false, 'J'], ['zstd', false, ''],
];

/** One option as main's switch sees it: a short letter, or `--name` for a long option without one. */
type Opt = { opt: string; arg?: string };

/** bsdtar_getopt: the options of argv in order, then the operands; a failure ends with '?' (the usage text). */
function* getopt(args: readonly string[], warn: (msg: string) => void): Generator<Opt, string[], void> {
  const argv = [...args];
  if (!argv.length) return [];
  // A first word without '-' is old-style bundled letters whose arguments are the following words.
  if (!argv[0]!.startsWith('-')) {
    const word = argv.shift()!;
    for (const opt of word) {
      const i = SHORT_OPTIONS.indexOf(opt);
      if (i === -1 || opt === ':') { yield { opt: '?' }; return argv; }
      if (SHORT_OPTIONS[i + 1] === ':') {
        const arg = argv.shift();
        if (arg === undefined) { warn(`Option ${opt} requires an argument`); yield { opt: '?' }; return argv; }
        yield { opt, arg };
      } else yield { opt };
    }
  }
  while (argv.length && argv[0]!.startsWith('-')) {
    const word = argv.shift()!;
    if (word === '--') break;
    if (word.startsWith('--')) {
      const o = long(word.slice(2), '--', argv, warn);
      yield o;
      if (o.opt === '?') return argv;
      continue;
    }
    // A lone '-' is a group of no options.
    for (let k = 1; k < word.length; k++) {
      const opt = word[k]!;
      const i = SHORT_OPTIONS.indexOf(opt);
      if (i === -1 || opt === ':') { yield { opt: '?' }; return argv; }
      if (SHORT_OPTIONS[i + 1] !== ':') { yield { opt }; continue; }
      // The argument is the rest of the word, else the next word.
      let arg = word.slice(k + 1);
      if (!arg) {
        const next = argv.shift();
        if (next === undefined) { warn(`Option -${opt} requires an argument`); yield { opt: '?' }; return argv; }
        arg = next;
      }
      if (opt === 'W') {
        const o = long(arg, '-W ', argv, warn);
        yield o;
        if (o.opt === '?') return argv;
      } else yield { opt, arg };
      break;
    }
  }
  return argv;
}

/** A long option (`name` or `name=value`) matched against the table by unique prefix. */
function long(word: string, prefix: string, argv: string[], warn: (msg: string) => void): Opt {
  const eq = word.indexOf('=');
  const name = eq === -1 ? word : word.slice(0, eq);
  let arg = eq === -1 ? undefined : word.slice(eq + 1);
  let match: readonly [string, boolean, string] | undefined;
  let match2: readonly [string, boolean, string] | undefined;
  for (const o of LONG_OPTIONS) {
    if (o[0][0] !== word[0] || !o[0].startsWith(name)) continue;
    match2 = match;
    match = o;
    if (o[0] === name) { match2 = undefined; break; }
  }
  if (!match) { warn(`Option ${prefix}${word} is not supported`); return { opt: '?' }; }
  if (match2) { warn(`Ambiguous option ${prefix}${word} (matches --${match[0]} and --${match2[0]})`); return { opt: '?' }; }
  if (match[1]) {
    if (arg === undefined) {
      arg = argv.shift();
      if (arg === undefined) { warn(`Option ${prefix}${match[0]} requires an argument`); return { opt: '?' }; }
    }
  } else if (arg !== undefined) {
    warn(`Option ${prefix}${match[0]} does not allow an argument`);
    return { opt: '?' };
  }
  return { opt: match[2] || `--${match[0]}`, arg };
}

export type BsdtarMode = 'c' | 'x' | 't';

export interface BsdtarOptions {
  mode: BsdtarMode;
  /** The archive: undefined for stdin/stdout (`-f -`), else a path. */
  file: string | undefined;
  /** A `-C` not yet applied (set_chdir: a relative one is joined to the one before). */
  chdir: string | undefined;
  /** Files to archive (c, with `-C DIR` words among them) or patterns to extract or list (x, t). */
  operands: string[];
  verbose: number;
  /** -P: keep '/', '..' and drive letters in member names. */
  absolutePaths: boolean;
  /** -k: leave existing files alone. */
  keepOld: boolean;
  /** -O: extract to stdout. */
  toStdout: boolean;
  /** -n: do not descend into directories. */
  noRecursion: boolean;
  /** -U: remove what is in the way before extracting a file. */
  unlinkFirst: boolean;
  stripComponents: number;
}

/** What the command line amounts to: options to run with, or the messages and exit code bsdtar stops with. */
export type BsdtarCommandLine = { ok: true; options: BsdtarOptions } | { ok: false; stderr: string[]; code: number };

/** tar/bsdtar.c's usage(): stderr, exit 1. */
export const usage = (prog: string): string[] => ['Usage:', `  List:    ${prog} -tf <archive-filename>`,
  `  Extract: ${prog} -xf <archive-filename>`, `  Create:  ${prog} -cf <archive-filename> [filenames...]`, `  Help:    ${prog} --help`];

/** Options that change nothing in a filesystem without owners, permissions beyond read-only, or times. */
const NO_EFFECT = new Set(['m', 'p', 'B', '--no-same-owner', '--no-same-permissions', '--same-owner', '--numeric-owner']);

/** Options of main that refuse some modes (only_mode), with the modes they allow. */
const ONLY_MODE: Readonly<Record<string, string>> = { O: 'xt', U: 'x' };

/**
 * Parses a bsdtar command line. `prog` is how messages name the program (the
 * base name of argv[0]: `tar` when kubectl runs `tar`), `tape` the default
 * archive (the TAPE variable, else `\\.\tape0`).
 */
export function parseBsdtarArgs(args: readonly string[], prog: string, tape: string): BsdtarCommandLine {
  const stderr: string[] = [];
  const warn = (msg: string) => { stderr.push(`${prog}: ${msg}`); };
  const fail = (msg: string): BsdtarCommandLine => { warn(msg); return { ok: false, stderr, code: 1 }; };
  let mode: BsdtarMode | 'r' | 'u' | undefined;
  let file: string | undefined = tape;
  let chdir: string | undefined;
  let verbose = 0; let absolutePaths = false; let keepOld = false; let toStdout = false; let noRecursion = false;
  let unlink = false; let oldFormat = false; let stripComponents = 0;
  const g = getopt(args, warn);
  let operands: string[];
  for (;;) {
    const r = g.next();
    if (r.done) { operands = r.value; break; }
    const { opt, arg = '' } = r.value;
    switch (opt) {
      case 'c': case 'x': case 't': case 'r': case 'u':
        if (mode !== undefined && mode !== opt) return fail(`Can't specify both -${opt} and -${mode}`);
        mode = opt;
        if (opt === 't') verbose++;
        break;
      case 'f': file = arg; break;
      case 'C': {
        if (arg === '') return fail("Meaningless option: -C ''");
        chdir = joinChdir(chdir, arg);
        break;
      }
      case 'v': verbose++; break;
      case 'P': absolutePaths = true; break;
      case 'k': keepOld = true; break;
      case 'O': toStdout = true; break;
      case 'n': noRecursion = true; break;
      case 'U': unlink = true; break;
      case 'o': oldFormat = true; break;
      case '--strip-components': {
        if (!/^\d+$/.test(arg)) return fail('Invalid argument to --strip-components');
        stripComponents = Number(arg);
        break;
      }
      default:
        if (NO_EFFECT.has(opt)) break;
        // Unknown options and the ones the emulated filesystem cannot show (compression, other formats, ...).
        stderr.push(...usage(prog));
        return { ok: false, stderr, code: 1 };
    }
  }
  if (mode === undefined) return fail('Must specify one of -c, -r, -t, -u, -x');
  if (mode === 'r' || mode === 'u') {
    // Appending rewrites an archive file in place; only the checks before it are modelled.
    if (!operands.length) return fail('no files or directories specified');
    if (file === '-') return fail('Cannot append to stdout.');
    stderr.push(...usage(prog));
    return { ok: false, stderr, code: 1 };
  }
  if (oldFormat && mode === 't') return fail('Option -o is not permitted in mode -t');
  if (toStdout && !ONLY_MODE.O!.includes(mode)) return fail(`Option -O is not permitted in mode -${mode}`);
  if (unlink && !ONLY_MODE.U!.includes(mode)) return fail(`Option -U is not permitted in mode -${mode}`);
  // -tv and -vv print ls-style lines (list_item_verbose), which are not modelled.
  if (verbose > 1) {
    stderr.push(...usage(prog));
    return { ok: false, stderr, code: 1 };
  }
  if (file === '-') file = undefined;
  return { ok: true, options: { mode, file, chdir, operands, verbose, absolutePaths, keepOld, toStdout, noRecursion, unlinkFirst: unlink, stripComponents } };
}

/** Whether a -C directory replaces the pending one (absolute on Windows: `\`, `/`, `C:\`, `C:/`). */
const absoluteDir = (d: string) => /^[\\/]/.test(d) || /^[a-zA-Z]:[\\/]/.test(d);

/** set_chdir: `-C /a -C b` is `/a/b`; an absolute one starts over. */
export function joinChdir(pending: string | undefined, dir: string): string {
  if (pending === undefined || absoluteDir(dir)) return dir;
  return `${pending.replace(/\/$/, '')}/${dir}`;
}
