/**
 * tar.exe of Windows images (bsdtar): its command line and messages
 * (libarchive 3.5.2 tar/cmdline.c, tar/bsdtar.c), the archives it writes
 * and how it extracts into the Windows filesystem model, as kubectl cp
 * drives it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, ContainerFS, interpret, startError, type ShellContext } from '../../src/node/shell/index.js';
import { joinChdir, parseBsdtarArgs } from '../../src/node/shell/bsdtar-options.js';
import { progName, windowsHasTar } from '../../src/node/shell/bsdtar.js';
import { readMembers, TarWriter } from '../../src/node/shell/tar.js';

const USAGE = (p: string) => ['Usage:', `  List:    ${p} -tf <archive-filename>`, `  Extract: ${p} -xf <archive-filename>`,
  `  Create:  ${p} -cf <archive-filename> [filenames...]`, `  Help:    ${p} --help`];
const parse = (...args: string[]) => parseBsdtarArgs(args, 'tar', '\\\\.\\tape0');
const failure = (...args: string[]) => {
  const r = parse(...args);
  assert.equal(r.ok, false, `${args.join(' ')} parsed`);
  return r.ok ? undefined : [r.stderr, r.code];
};

test('bsdtar command line: what kubectl sends, old-style first word, bundled options, long options', () => {
  const create = parse('cf', '-', '/Users/site');
  assert.ok(create.ok);
  assert.deepEqual([create.options.mode, create.options.file, create.options.operands], ['c', undefined, ['/Users/site']]);
  const extract = parse('--no-same-permissions', '--no-same-owner', '-xmf', '-', '-C', 'C:/inetpub');
  assert.ok(extract.ok);
  assert.deepEqual([extract.options.mode, extract.options.file, extract.options.chdir, extract.options.operands], ['x', undefined, 'C:/inetpub', []]);
  const runIn = parse('-xf-', '-Cdir', '--directory=sub', '--strip-components', '2', 'a', 'b');
  assert.ok(runIn.ok);
  assert.deepEqual([runIn.options.file, runIn.options.chdir, runIn.options.stripComponents, runIn.options.operands], [undefined, 'dir/sub', 2, ['a', 'b']]);
  // No -f: the TAPE device, as bsdtar has no stdin default.
  const tape = parse('-t');
  assert.ok(tape.ok);
  assert.deepEqual([tape.options.file, tape.options.verbose], ['\\\\.\\tape0', 1]);
  // A unique prefix of a long option is that option.
  const prefix = parse('--ext', '--file', 'x.tar', '--dir', 'C:\\x');
  assert.ok(prefix.ok);
  assert.deepEqual([prefix.options.mode, prefix.options.file, prefix.options.chdir], ['x', 'x.tar', 'C:\\x']);
});

test('bsdtar command line errors: its messages, usage text and exit 1', () => {
  assert.deepEqual(failure(), [['tar: Must specify one of -c, -r, -t, -u, -x'], 1]);
  assert.deepEqual(failure('-cx'), [["tar: Can't specify both -x and -c"], 1]);
  assert.deepEqual(failure('-xmf'), [['tar: Option -f requires an argument', ...USAGE('tar')], 1]);
  assert.deepEqual(failure('xf'), [['tar: Option f requires an argument', ...USAGE('tar')], 1]);
  assert.deepEqual(failure('-xQ'), [USAGE('tar'), 1]);
  assert.deepEqual(failure('--foo'), [['tar: Option --foo is not supported', ...USAGE('tar')], 1]);
  assert.deepEqual(failure('-x', '--no'), [['tar: Ambiguous option --no (matches --norecurse and --nopreserveHFSCompression)', ...USAGE('tar')], 1]);
  assert.deepEqual(failure('-x', '--file'), [['tar: Option --file requires an argument', ...USAGE('tar')], 1]);
  assert.deepEqual(failure('--create=yes'), [['tar: Option --create does not allow an argument', ...USAGE('tar')], 1]);
  assert.deepEqual(failure('-x', '-W', 'nope'), [['tar: Option -W nope is not supported', ...USAGE('tar')], 1]);
  assert.deepEqual(failure('-x', '-C', ''), [["tar: Meaningless option: -C ''"], 1]);
  assert.deepEqual(failure('-cOf', '-', 'a'), [['tar: Option -O is not permitted in mode -c'], 1]);
  assert.deepEqual(failure('-tof', '-'), [['tar: Option -o is not permitted in mode -t'], 1]);
  assert.deepEqual(failure('-x', '--strip-components=x'), [['tar: Invalid argument to --strip-components'], 1]);
  assert.deepEqual(failure('-rf', '-', 'a'), [['tar: Cannot append to stdout.'], 1]);
  assert.deepEqual(failure('-rf', '-'), [['tar: no files or directories specified'], 1]);
});

test('set_chdir and the program name bsdtar prints', () => {
  assert.equal(joinChdir('/a/', 'b'), '/a/b');
  assert.equal(joinChdir('C:/a', 'D:\\b'), 'D:\\b');
  assert.equal(joinChdir('a', '\\b'), '\\b');
  assert.equal(progName('tar'), 'tar');
  assert.equal(progName('C:\\Windows\\System32\\tar.exe'), 'tar.exe');
  assert.equal(progName('C:/tools\\bin/bsdtar.exe'), 'bsdtar.exe');
});

function ctx(extra: Partial<ShellContext> = {}): ShellContext {
  const fs = new ContainerFS('windows');
  fs.mkdir('C:\\data');
  fs.write('C:\\data\\a.txt', 'één\r\n');
  fs.mkdir('C:\\data\\Sub');
  fs.write('C:\\data\\Sub\\run.cmd', '@echo hi\r\n');
  fs.mountFile('C:\\config\\game.properties', 'lives=3\r\n');
  return { os: 'windows', env: {}, hostname: 'web-0', fs, now: () => new Date('2026-11-23T13:16:57Z'), kernelVersion: '10.0.20348.2582', ...extra };
}
const run = (c: ShellContext, argv: string[]) => collect(interpret(argv, c));
const withStdin = (archive: Buffer, extra: Partial<ShellContext> = {}) => ctx({ stdin: archive.toString('utf8'), stdinBytes: archive, ...extra });

/** An archive as kubectl's archive/tar writes it: the destination's base name first. */
function kubectlArchive(files: Record<string, string>): Buffer {
  const w = new TarWriter('gnu', 0);
  for (const [name, content] of Object.entries(files)) {
    if (name.endsWith('/')) w.dir(name, 0o755); else w.file(name, Buffer.from(content), 0o644);
  }
  return w.finish(true);
}

test('tar cf - PATH: members with / and without the root, Windows modes, libarchive header bytes', () => {
  const r = run(ctx(), ['tar', 'cf', '-', '/data']);
  assert.deepEqual([r.stderr, r.code], ["tar: Removing leading '/' from member names\r\n", 0]);
  const archive = Buffer.from(r.stdout, 'utf8');
  // bsdtar pads a pipe to its 10 KiB block.
  assert.equal(archive.length % 10240, 0);
  assert.deepEqual([...readMembers(archive)].map((m) => [m.name, m.type, m.data.toString()]),
    [['data/', '5', ''], ['data/a.txt', '0', 'één\r\n'], ['data/Sub/', '5', ''], ['data/Sub/run.cmd', '0', '@echo hi\r\n']]);
  // Mode, uid and gid end in space and NUL, size and mtime in a space; no owner names on Windows.
  assert.equal(archive.toString('latin1', 100, 124), '000777 \u0000000000 \u0000000000 \u0000');
  assert.equal(archive.toString('latin1', 124, 148), `00000000000 ${Math.floor(Date.parse('2026-11-23T13:16:57Z') / 1000).toString(8).padStart(11, '0')} `);
  assert.equal(archive.toString('latin1', 265, 329), '\u0000'.repeat(64));
  assert.equal(archive.toString('latin1', 329, 345), '000000 \u0000000000 \u0000');
  const file = archive.subarray(512);
  assert.equal(file.toString('latin1', 100, 108), '000666 \u0000');
  // A read-only file is 0444; .cmd, .bat and .exe files are executable.
  const modes = [...readMembers(Buffer.from(run(ctx(), ['tar', '-cf', '-', 'C:\\config\\game.properties', 'data\\Sub']).stdout, 'utf8'))].map((m) => m.name);
  assert.deepEqual(modes, ['config/game.properties', 'data/Sub/', 'data/Sub/run.cmd']);
  const bytes = Buffer.from(run(ctx(), ['tar', '-cf', '-', 'C:\\config\\game.properties', 'data\\Sub']).stdout, 'utf8');
  assert.equal(bytes.toString('latin1', 100, 108), '000444 \u0000');
  assert.equal(bytes.toString('latin1', 3 * 512 + 100, 3 * 512 + 108), '000777 \u0000');
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : bytes[i]!;
  assert.equal(bytes.toString('latin1', 148, 156), sum.toString(8).padStart(6, '0') + '\u0000 ');
});

test('tar cf - C:\\PATH: the drive letter is stripped with its own warning, once', () => {
  const r = run(ctx(), ['tar', 'cf', '-', 'C:\\data\\a.txt', '/data/Sub']);
  assert.deepEqual([r.stderr, r.code], ['tar: Removing leading drive letter from member names\r\n', 0]);
  assert.deepEqual([...readMembers(Buffer.from(r.stdout, 'utf8'))].map((m) => m.name), ['data/a.txt', 'data/Sub/', 'data/Sub/run.cmd']);
  // The name comes from argv[0]: tar.exe run by its file name says so.
  const exe = run(ctx(), ['C:\\Windows\\System32\\tar.exe', '-cf', '-', '\\data\\a.txt']);
  // The walk has turned '\' into '/' before the name is edited.
  assert.equal(exe.stderr, "tar.exe: Removing leading '/' from member names\r\n");
});

test('tar cf - of a missing path: the walk error, the delayed exit 1 and still an empty archive', () => {
  const r = run(ctx(), ['tar', 'cf', '-', '/nope', '/data/a.txt']);
  assert.equal(r.stderr, "tar: : Couldn't visit directory: No such file or directory\r\n" +
    "tar: Removing leading '/' from member names\r\ntar: Error exit delayed from previous errors.\r\n");
  assert.equal(r.code, 1);
  assert.deepEqual([...readMembers(Buffer.from(r.stdout, 'utf8'))].map((m) => m.name), ['data/a.txt']);
  assert.deepEqual(run(ctx(), ['tar', '-c']), { stdout: '', stderr: 'tar: no files or directories specified\r\n', code: 1, slept: 0 });
  // Without -f the archive is the tape drive, which a container does not have.
  assert.deepEqual(run(ctx(), ['tar', '-x']), { stdout: '', stderr: "tar: Error opening archive: Failed to open '\\\\.\\tape0'\r\n", code: 1, slept: 0 });
  assert.deepEqual(run(ctx(), ['tar', '-c', 'data']), { stdout: '', stderr: "tar: Failed to open '\\\\.\\tape0'\r\n", code: 1, slept: 0 });
});

test('tar -xmf - -C DIR as kubectl cp runs it: files and directories land case-insensitively', () => {
  const archive = kubectlArchive({ 'site/index.html': '<h1>hi</h1>\r\n', 'site/css/a.css': 'h1 {}\r\n', 'empty/': '' });
  const c = withStdin(archive);
  assert.deepEqual(run(c, ['tar', '--no-same-permissions', '--no-same-owner', '-xmf', '-', '-C', '/users']), { stdout: '', stderr: '', code: 0, slept: 0 });
  assert.equal(c.fs.read('C:\\Users\\SITE\\index.html'), '<h1>hi</h1>\r\n');
  assert.equal(c.fs.read('c:\\users\\site\\css\\a.css'), 'h1 {}\r\n');
  assert.equal(c.fs.stat('C:\\Users\\empty')?.type, 'dir');
  // Extracting again replaces the files.
  const again = withStdin(kubectlArchive({ 'a.txt': 'new\r\n' }), { fs: c.fs });
  assert.equal(run(again, ['tar', '-xf', '-', '-C', 'C:\\data']).code, 0);
  assert.equal(c.fs.read('C:\\data\\a.txt'), 'new\r\n');
  // cmd runs tar.exe too, and reads back what it wrote.
  assert.deepEqual(run(c, ['cmd', '/c', 'type C:\\Users\\site\\index.html']).stdout, '<h1>hi</h1>\r\n');
});

test('tar -x errors: missing -C directory, read-only volume, a directory in the way, with exit 1', () => {
  const archive = kubectlArchive({ 'config/new.txt': 'x', 'config/game.properties': 'lives=9', 'data/': '', 'data/a.txt/': '', 'data': 'file' });
  const missing = run(withStdin(archive), ['tar', '-xmf', '-', '-C', '/nope']);
  assert.deepEqual([missing.stderr, missing.code], ["tar: could not chdir to '/nope'\r\n\r\n", 1]);
  const c = withStdin(archive);
  const r = run(c, ['tar', '-xmf', '-', '-C', '/']);
  assert.equal(r.stderr,
    "config/new.txt: Can't create '\\\\?\\C:\\\\config\\new.txt'\r\n" +
    "config/game.properties: Can't unlink already-existing object\r\n" +
    "data: Can't remove already-existing dir\r\n" +
    'tar: Error exit delayed from previous errors.\r\n');
  assert.equal(r.code, 1);
  assert.equal(c.fs.read('C:\\config\\game.properties'), 'lives=3\r\n');
  // A directory member over a file replaces the file (data/a.txt/ above): the file is gone, the directory is there.
  assert.equal(c.fs.stat('C:\\data\\a.txt')?.type, 'dir');
  const sub = run(withStdin(kubectlArchive({ 'x.txt': 'x' })), ['tar', '-xf', '-', '-C', 'C:\\config']);
  assert.equal(sub.stderr, "x.txt: Can't create '\\\\?\\C:\\config\\x.txt'\r\ntar: Error exit delayed from previous errors.\r\n");
  const dots = run(withStdin(kubectlArchive({ 'a/../../x.txt': 'x' })), ['tar', '-xf', '-', '-C', 'C:\\data']);
  assert.deepEqual([dots.stderr, dots.code], ["a/../../x.txt: Path contains '..'\r\ntar: Error exit delayed from previous errors.\r\n", 1]);
  const keep = withStdin(kubectlArchive({ 'a.txt': 'kept?' }));
  assert.equal(run(keep, ['tar', '-xkf', '-', '-C', 'C:\\data']).code, 0);
  assert.equal(keep.fs.read('C:\\data\\a.txt'), 'één\r\n');
});

test('tar -t and patterns: CRLF listing, what is not in the archive, -O, -v and --strip-components', () => {
  const archive = kubectlArchive({ 'site/': '', 'site/index.html': 'hi\r\n', 'other.txt': 'o' });
  assert.deepEqual(run(withStdin(archive), ['tar', '-tf', '-']), { stdout: 'site/\r\nsite/index.html\r\nother.txt\r\n', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(run(withStdin(archive), ['tar', '-tf', '-', 'site', 'nothere']),
    { stdout: 'site/\r\nsite/index.html\r\n', stderr: 'tar: nothere: Not found in archive\r\ntar: Error exit delayed from previous errors.\r\n', code: 1, slept: 0 });
  assert.deepEqual(run(withStdin(archive), ['tar', '-xOf', '-', 'site/index.html']), { stdout: 'hi\r\n', stderr: '', code: 0, slept: 0 });
  const v = withStdin(archive);
  assert.deepEqual(run(v, ['tar', '-xvf', '-', '-C', 'C:\\data', '--strip-components=1']), { stdout: '', stderr: 'x index.html\r\n', code: 0, slept: 0 });
  assert.equal(v.fs.read('C:\\data\\index.html'), 'hi\r\n');
  assert.equal(run(ctx(), ['tar', '-cvf', '-', 'data\\Sub']).stderr, 'a data/Sub\r\na data/Sub/run.cmd\r\n');
  // A listing in ls style (-tv) is not modelled: bsdtar's usage instead.
  assert.equal(run(withStdin(archive), ['tar', '-tvf', '-']).stderr, USAGE('tar').map((l) => l + '\r\n').join(''));
});

test('an archive file: -cf writes it unpadded, cmd lists it; tar.exe is missing before build 17063', () => {
  const c = ctx();
  assert.equal(run(c, ['tar', '-cf', 'C:\\out.tar', '-C', 'C:\\data', 'a.txt']).code, 0);
  // Header, one data block and the two end blocks: a regular file is not padded to the 10 KiB block.
  assert.equal(Buffer.byteLength(c.fs.read('C:\\out.tar')!, 'utf8'), 4 * 512);
  assert.deepEqual(run(c, ['cmd', '/c', 'tar -tf C:\\out.tar']), { stdout: 'a.txt\r\n', stderr: '', code: 0, slept: 0 });
  assert.equal(run(c, ['tar', '-xf', 'C:\\missing.tar']).stderr, "tar: Error opening archive: Failed to open 'C:\\missing.tar'\r\n");
  assert.equal(windowsHasTar('10.0.17763.1879'), true);
  assert.equal(windowsHasTar('10.0.14393.7428'), false);
  assert.equal(startError(['tar', 'cf', '-', 'x'], { os: 'windows', kernelVersion: '10.0.20348.2582' }), undefined);
  assert.equal(startError(['tar', 'cf', '-', 'x'], { os: 'windows', kernelVersion: '10.0.14393.7428' }),
    'failed to create containerd task: failed to create shim task: hcs::System::CreateProcess: The system cannot find the file specified.: unknown');
  const old = run(ctx({ kernelVersion: '10.0.14393.7428' }), ['cmd', '/c', 'tar -tf C:\\out.tar']);
  assert.deepEqual([old.stderr, old.code], ["'tar' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n", 9009]);
});
