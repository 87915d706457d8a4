import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, ContainerFS, interpret, type ShellContext } from '../../src/node/shell/index.js';
import { readMembers } from '../../src/node/shell/tar.js';
import { fileBytes } from '../../src/node/shell/fs.js';

function ctx(posixShell: 'ash' | 'dash', extra: Partial<ShellContext> = {}): ShellContext {
  const fs = new ContainerFS('linux');
  fs.mountFile('/etc/config/game.properties', 'lives=3\n');
  return { os: 'linux', env: {}, hostname: 'pod-1', fs, posixShell, now: () => new Date('2026-11-23T13:16:57Z'), ...extra };
}
const run = (c: ShellContext, argv: string[]) => collect(interpret(argv, c));

test('tar cf -: ustar members without the leading slash, each tar with its own warning', () => {
  const busybox = run(ctx('ash'), ['tar', 'cf', '-', '/etc/config']);
  assert.equal(busybox.stderr, "tar: removing leading '/' from member names\n");
  assert.equal(busybox.code, 0);
  const members = [...readMembers(Buffer.from(busybox.stdout, 'utf8'))];
  assert.deepEqual(members.map((m) => [m.name, m.type, m.data.toString()]), [['etc/config/', '5', ''], ['etc/config/game.properties', '0', 'lives=3\n']]);
  const gnu = run(ctx('dash'), ['tar', 'cf', '-', '/etc/config/game.properties']);
  assert.equal(gnu.stderr, "tar: Removing leading `/' from member names\n");
  // GNU tar writes whole 10 KiB records.
  assert.equal(Buffer.byteLength(gnu.stdout, 'utf8') % 10240, 0);
});

test('tar cf - of a missing path: GNU goes on and exits 2, busybox stops with 1', () => {
  assert.deepEqual([run(ctx('dash'), ['tar', 'cf', '-', '/nope']).stderr, run(ctx('dash'), ['tar', 'cf', '-', '/nope']).code],
    ['tar: /nope: Cannot stat: No such file or directory\ntar: Exiting with failure status due to previous errors\n', 2]);
  const b = run(ctx('ash'), ['tar', 'cf', '-', '/nope']);
  assert.deepEqual([b.stderr, b.code], ['tar: /nope: No such file or directory\n', 1]);
  assert.deepEqual(run(ctx('dash'), ['tar', 'cf', '-']).stderr, "tar: Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.\n");
});

test('tar -xmf - -C DIR: stdin bytes become files, parents created; a pipeline copies a tree', () => {
  const src = ctx('ash');
  src.fs.mkdir('/data');
  src.fs.write('/data/a.txt', 'ä\n');
  const archive = Buffer.from(run(src, ['tar', 'cf', '-', 'data']).stdout, 'utf8');
  const dst = ctx('ash', { stdin: archive.toString('utf8'), stdinBytes: archive });
  assert.deepEqual(run(dst, ['tar', '-xmf', '-', '-C', '/tmp']), { stdout: '', stderr: '', code: 0, slept: 0 });
  assert.equal(dst.fs.read('/tmp/data/a.txt'), 'ä\n');
  const c = ctx('dash');
  assert.equal(run(c, ['sh', '-c', 'mkdir /tmp/copy && tar cf - /etc/config | tar xf - -C /tmp/copy && cat /tmp/copy/etc/config/game.properties']).stdout, 'lives=3\n');
  assert.equal(run(c, ['sh', '-c', 'tar cf - /etc/config 2>/dev/null | tar tf -']).stdout, 'etc/config/\netc/config/game.properties\n');
});

test('tar x into a read-only volume or a missing directory fails as each tar does', () => {
  const archive = Buffer.from(run(ctx('ash'), ['tar', 'cf', '-', '/etc/config/game.properties']).stdout, 'utf8');
  const gnu = ctx('dash', { stdinBytes: archive, stdin: archive.toString('utf8') });
  const r = run(gnu, ['tar', 'xf', '-', '-C', '/']);
  assert.deepEqual([r.stderr, r.code], ['tar: etc/config/game.properties: Cannot open: Read-only file system\ntar: Exiting with failure status due to previous errors\n', 2]);
  const missing = run(ctx('ash', { stdinBytes: archive, stdin: archive.toString('utf8') }), ['tar', 'xf', '-', '-C', '/nope']);
  assert.deepEqual([missing.stderr, missing.code], ["tar: can't change directory to '/nope': No such file or directory\n", 1]);
});

test('tar x reads the pax path records Go writes for long names', () => {
  const long = 'd/' + 'x'.repeat(120) + '.txt';
  const record = (k: string, v: string) => { let n = k.length + v.length + 3; n += String(n).length; if (`${n} ${k}=${v}\n`.length !== n) n++; return `${n} ${k}=${v}\n`; };
  const block = (s: Buffer) => Buffer.concat([s, Buffer.alloc((512 - (s.length % 512)) % 512)]);
  const hdr = (name: string, type: string, size: number) => {
    const h = Buffer.alloc(512);
    h.write(name.slice(0, 99), 0); h.write('0000644\0', 100); h.write(size.toString(8).padStart(11, '0') + '\0', 124);
    h.write('        ', 148); h.write(type, 156); h.write('ustar\x0000', 257);
    let sum = 0; for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    return h;
  };
  const pax = Buffer.from(record('path', long));
  const body = Buffer.from('long\n');
  const archive = Buffer.concat([hdr('PaxHeaders/x', 'x', pax.length), block(pax), hdr('truncated', '0', body.length), block(body), Buffer.alloc(1024)]);
  const c = ctx('ash', { stdinBytes: archive, stdin: '' });
  assert.equal(run(c, ['tar', 'xf', '-', '-C', '/tmp']).code, 0);
  assert.equal(c.fs.read('/tmp/' + long), 'long\n');
});

test('tar keeps bytes: a binary member extracted and archived again is the same bytes, to stdout and to a file', () => {
  const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const src = ctx('dash');
  src.fs.writeBytes('/tmp/all.bin', binary);
  // What exec sends the client: each stdout step's bytes, or its text's.
  const chunks: Buffer[] = [];
  const program = interpret(['tar', 'cf', '-', '-C', '/tmp', 'all.bin'], src);
  for (let r = program.next(); !r.done; r = program.next()) {
    if (r.value.kind === 'stdout') chunks.push(Buffer.from(r.value.bytes ?? Buffer.from(r.value.text, 'utf8')));
  }
  const archive = Buffer.concat(chunks);
  assert.deepEqual([...readMembers(archive)].map((m) => [m.name, m.data]), [['all.bin', binary]]);
  const dst = ctx('ash', { stdin: archive.toString('utf8'), stdinBytes: archive });
  assert.equal(run(dst, ['tar', 'xf', '-', '-C', '/tmp']).code, 0);
  const entry = dst.fs.stat('/tmp/all.bin');
  assert.ok(entry?.type === 'file');
  assert.deepEqual(fileBytes(entry), binary);
  assert.equal(run(dst, ['sh', '-c', 'tar cf /tmp/again.tar -C /tmp all.bin']).code, 0);
  const again = dst.fs.stat('/tmp/again.tar');
  assert.ok(again?.type === 'file');
  assert.deepEqual([...readMembers(fileBytes(again))].map((m) => m.data), [binary]);
});
