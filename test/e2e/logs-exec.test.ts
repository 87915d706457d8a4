/**
 * kubectl logs, exec and attach against pods the emulated kubelets run:
 * WebSocket (kubectl 1.33) and SPDY (kubectl 1.27), Linux and Windows nodes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;

function pod(name: string, node: string, image: string, command: string[], restartPolicy = 'Always'): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: { nodeName: node, restartPolicy, containers: [{ name: 'app', image, command }] },
  });
}

async function waitFor(name: string, ok: (pod: any) => boolean): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const r = await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${name}`);
    if (r.status === 200 && ok(r.body)) return r.body;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.fail(`pod ${name} never got there`);
}

const isRunning = (p: any) => p.status?.containerStatuses?.[0]?.state?.running !== undefined;

before(async () => {
  cluster = await startCluster();
  const apply = async (manifest: string) => {
    const r = await kubectl(cluster, ['apply', '-f', '-'], { input: manifest });
    assert.equal(r.code, 0, r.stderr);
  };
  await apply(pod('talker', 'linux-1', 'busybox:1.36', ['sh', '-c', 'echo one; echo two; echo three >&2; sleep 3600']));
  await apply(pod('crasher', 'linux-2', 'busybox:1.36', ['sh', '-c', 'echo attempt; exit 1']));
  await apply(pod('wintalker', 'win2022-1', 'mcr.microsoft.com/windows/servercore:ltsc2022', ['ping', '-t', 'localhost']));
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

test('kubectl logs: all, --tail, --timestamps, --previous', async () => {
  await waitFor('talker', isRunning);
  for (const version of ['1.33', '1.27']) {
    const logs = (...args: string[]) => kubectl(cluster, ['logs', ...args], { version });
    assert.deepEqual(await logs('talker'), { code: 0, stdout: 'one\ntwo\nthree\n', stderr: '' });
    assert.equal((await logs('talker', '--tail=1')).stdout, 'three\n');
    assert.match((await logs('talker', '--timestamps', '--tail=2')).stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z two\n\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z three\n$/);
    const prev = await logs('talker', '--previous');
    assert.deepEqual([prev.code, prev.stderr], [1, 'Error from server (BadRequest): previous terminated container "app" in pod "talker" not found\n']);
  }
  await waitFor('crasher', (p) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1);
  const prev = await kubectl(cluster, ['logs', 'crasher', '--previous']);
  assert.deepEqual([prev.code, prev.stdout], [0, 'attempt\n']);
});

test('kubectl logs -f follows until the container exits', async () => {
  const apply = await kubectl(cluster, ['apply', '-f', '-'], { input: pod('counter', 'linux-1', 'busybox:1.36', ['sh', '-c', 'echo a; sleep 1; echo b'], 'Never') });
  assert.equal(apply.code, 0, apply.stderr);
  await waitFor('counter', (p) => p.status?.containerStatuses?.[0]?.state?.running || p.status?.containerStatuses?.[0]?.state?.terminated);
  const r = await kubectl(cluster, ['logs', '-f', 'counter'], { version: '1.33' });
  assert.deepEqual(r, { code: 0, stdout: 'a\nb\n', stderr: '' });
});

test('kubectl exec on Linux over WebSocket and SPDY: output, exit code, stdin', async () => {
  await waitFor('talker', isRunning);
  for (const version of ['1.33', '1.27']) {
    const exec = (args: string[], input?: string) => kubectl(cluster, ['exec', ...args], { version, input });
    assert.deepEqual(await exec(['talker', '--', 'echo', 'hi']), { code: 0, stdout: 'hi\n', stderr: '' });
    assert.deepEqual(await exec(['talker', '--', 'sh', '-c', 'exit 3']), { code: 3, stdout: '', stderr: 'command terminated with exit code 3\n' });
    assert.deepEqual(await exec(['talker', '--', 'hostname']), { code: 0, stdout: 'talker\n', stderr: '' });
    const r = await exec(['-i', 'talker', '--', 'sh'], 'echo hi\necho $HOSTNAME\n');
    assert.deepEqual([r.code, r.stdout], [0, 'hi\ntalker\n']);
  }
});

test('kubectl cp into and out of a Linux container: the files stay for later execs', async () => {
  await waitFor('talker', isRunning);
  const local = mkdtempSync(join(tmpdir(), 'winkube-cp-'));
  const text = 'line one\nzwei — drei ✓\n';
  writeFileSync(join(local, 'notes.txt'), text);
  mkdirSync(join(local, 'site', 'css'), { recursive: true });
  writeFileSync(join(local, 'site', 'index.html'), '<h1>hi</h1>\n');
  writeFileSync(join(local, 'site', 'css', 'a.css'), 'h1 {}\n');
  try {
    for (const version of ['1.33', '1.27']) {
      const k = (...args: string[]) => kubectl(cluster, args, { version });
      assert.deepEqual(await k('cp', join(local, 'notes.txt'), `talker:/tmp/notes-${version}.txt`), { code: 0, stdout: '', stderr: '' });
      assert.deepEqual(await k('exec', 'talker', '--', 'cat', `/tmp/notes-${version}.txt`), { code: 0, stdout: text, stderr: '' });
      // The destination is a directory: the file goes into it under its own name (kubectl asks `test -d` first).
      assert.deepEqual(await k('cp', join(local, 'notes.txt'), 'talker:/tmp'), { code: 0, stdout: '', stderr: '' });
      assert.deepEqual((await k('exec', 'talker', '--', 'cat', '/tmp/notes.txt')).stdout, text);
      // From the pod: kubectl copies tar's stderr to its stdout, but stops reading at the end of the
      // archive, so whether the warning is printed before it exits is a race in kubectl itself.
      const back = join(local, `back-${version}.txt`);
      const fromPod = await k('cp', `talker:/tmp/notes-${version}.txt`, back);
      assert.deepEqual([fromPod.code, fromPod.stderr], [0, '']);
      assert.ok(["tar: removing leading '/' from member names\n", ''].includes(fromPod.stdout), fromPod.stdout);
      assert.equal(readFileSync(back, 'utf8'), text);
      const archive = await k('exec', 'talker', '--', 'tar', 'cf', '-', `/tmp/notes-${version}.txt`);
      assert.deepEqual([archive.code, archive.stderr], [0, "tar: removing leading '/' from member names\n"]);
      assert.ok(archive.stdout.startsWith(`tmp/notes-${version}.txt\0`));
    }
    assert.deepEqual(await kubectl(cluster, ['cp', join(local, 'site'), 'talker:/tmp/site']), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual((await kubectl(cluster, ['exec', 'talker', '--', 'ls', '/tmp/site', '/tmp/site/css'])).stdout, '/tmp/site:\ncss\nindex.html\n\n/tmp/site/css:\na.css\n');
    const copy = join(local, 'copy');
    assert.equal((await kubectl(cluster, ['cp', 'talker:/tmp/site', copy])).code, 0);
    assert.equal(readFileSync(join(copy, 'css', 'a.css'), 'utf8'), 'h1 {}\n');
    assert.equal(readFileSync(join(copy, 'index.html'), 'utf8'), '<h1>hi</h1>\n');
  } finally {
    removeDir(local);
  }
});

test('kubectl cp keeps bytes: a binary file round-trips through Linux and Windows pods, a PowerShell UTF-16 file comes out as written', async () => {
  await waitFor('talker', isRunning);
  await waitFor('wintalker', isRunning);
  const local = mkdtempSync(join(tmpdir(), 'winkube-cpbin-'));
  const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  writeFileSync(join(local, 'all.bin'), binary);
  try {
    assert.equal((await kubectl(cluster, ['cp', join(local, 'all.bin'), 'talker:/tmp/all.bin'])).code, 0);
    assert.equal((await kubectl(cluster, ['exec', 'talker', '--', 'wc', '-c', '/tmp/all.bin'])).stdout, '256 /tmp/all.bin\n');
    assert.equal((await kubectl(cluster, ['cp', 'talker:/tmp/all.bin', join(local, 'linux.bin')])).code, 0);
    assert.deepEqual(readFileSync(join(local, 'linux.bin')), binary);
    assert.equal((await kubectl(cluster, ['cp', join(local, 'all.bin'), 'wintalker:/Users/all.bin'])).code, 0);
    assert.equal((await kubectl(cluster, ['cp', 'wintalker:/Users/all.bin', join(local, 'windows.bin')])).code, 0);
    assert.deepEqual(readFileSync(join(local, 'windows.bin')), binary);
    // Windows PowerShell 5.1's `>` writes UTF-16 LE with a BOM.
    assert.equal((await kubectl(cluster, ['exec', 'wintalker', '--', 'powershell', '-Command', "'hi' > C:\\Users\\ps.txt"])).code, 0);
    assert.equal((await kubectl(cluster, ['cp', 'wintalker:/Users/ps.txt', join(local, 'ps.txt')])).code, 0);
    assert.deepEqual(readFileSync(join(local, 'ps.txt')), Buffer.from([0xff, 0xfe, ...Buffer.from('hi\r\n', 'utf16le')]));
  } finally {
    removeDir(local);
  }
});

test('kubectl cp into and out of a Windows servercore container: tar.exe (bsdtar) on the pod side', async () => {
  await waitFor('wintalker', isRunning);
  const local = mkdtempSync(join(tmpdir(), 'winkube-wincp-'));
  const text = 'line one\r\nzwei — drei ✓\r\n';
  writeFileSync(join(local, 'notes.txt'), text);
  mkdirSync(join(local, 'site', 'css'), { recursive: true });
  writeFileSync(join(local, 'site', 'index.html'), '<h1>hi</h1>\r\n');
  writeFileSync(join(local, 'site', 'css', 'a.css'), 'h1 {}\r\n');
  try {
    for (const version of ['1.33', '1.27']) {
      const k = (...args: string[]) => kubectl(cluster, args, { version });
      // kubectl's `test -d` probe cannot start on Windows, so the destination is the file's new name.
      assert.deepEqual(await k('cp', join(local, 'notes.txt'), `wintalker:/Users/notes-${version}.txt`), { code: 0, stdout: '', stderr: '' });
      assert.deepEqual(await k('exec', 'wintalker', '--', 'cmd', '/c', `type C:\\Users\\notes-${version}.txt`), { code: 0, stdout: text, stderr: '' });
      // kubectl copies tar's stderr to its stdout but stops at the end of the archive: the warning may come or not.
      const back = join(local, `back-${version}.txt`);
      const fromPod = await k('cp', `wintalker:/Users/notes-${version}.txt`, back);
      assert.deepEqual([fromPod.code, fromPod.stderr], [0, '']);
      assert.ok(["tar: Removing leading '/' from member names\r\n", ''].includes(fromPod.stdout), JSON.stringify(fromPod.stdout));
      assert.equal(readFileSync(back, 'utf8'), text);
      // With a drive letter bsdtar strips `C:` from the member names, and kubectl refuses them as upstream does.
      const drive = await k('cp', `wintalker:C:\\Users\\notes-${version}.txt`, join(local, `drive-${version}.txt`));
      assert.deepEqual([drive.code, drive.stderr], [1, 'error: tar contents corrupted\n']);
      // A destination directory that does not exist: bsdtar cannot chdir there.
      const missing = await k('cp', join(local, 'notes.txt'), 'wintalker:/nope/notes.txt');
      assert.equal(missing.code, 1);
      assert.ok(missing.stderr.startsWith("tar: could not chdir to '/nope'\r\n\r\n"), JSON.stringify(missing.stderr));
    }
    assert.deepEqual(await kubectl(cluster, ['cp', join(local, 'site'), 'wintalker:/Users/site']), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(await kubectl(cluster, ['exec', 'wintalker', '--', 'cmd', '/c', 'type C:\\Users\\site\\css\\a.css']), { code: 0, stdout: 'h1 {}\r\n', stderr: '' });
    assert.deepEqual(await kubectl(cluster, ['exec', 'wintalker', '--', 'cmd', '/c', 'dir /b C:\\Users\\site']), { code: 0, stdout: 'css\r\nindex.html\r\n', stderr: '' });
    for (const version of ['1.33', '1.27']) {
      const copy = join(local, `copy-${version}`);
      assert.equal((await kubectl(cluster, ['cp', 'wintalker:/Users/site', copy], { version })).code, 0);
      assert.equal(readFileSync(join(copy, 'css', 'a.css'), 'utf8'), 'h1 {}\r\n');
      assert.equal(readFileSync(join(copy, 'index.html'), 'utf8'), '<h1>hi</h1>\r\n');
    }
  } finally {
    removeDir(local);
  }
});

test('kubectl exec on a Windows node runs cmd', async () => {
  await waitFor('wintalker', isRunning);
  for (const version of ['1.33', '1.27']) {
    const r = await kubectl(cluster, ['exec', 'wintalker', '--', 'cmd', '/c', 'echo %COMPUTERNAME%'], { version });
    assert.deepEqual([r.code, r.stdout.trim()], [0, 'WINTALKER']);
    const h = await kubectl(cluster, ['exec', 'wintalker', '--', 'hostname'], { version });
    assert.deepEqual([h.code, h.stdout.trim()], [0, 'wintalker']);
  }
});
