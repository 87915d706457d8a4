import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:https';
import { credentials, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { openTls, parseWire, requestHead, sendRaw } from '../helpers/raw-socket.js';
import { createCA, issue } from '../../src/pki/issue.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

describe('limits and credentials', () => {
  let cluster: TestCluster;
  before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
  after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

  test('request headers up to Go\'s 1 MiB are read: 20 KiB and 1000 KiB', async () => {
    for (const size of [20 * 1024, 1000 * 1024]) {
      const r = await raw(cluster, 'GET', '/api/v1/namespaces/default', { headers: { 'X-Padding': 'a'.repeat(size) } });
      assert.equal(r.status, 200, `${size} bytes of header: ${r.status} ${r.body.slice(0, 200)}`);
    }
  });

  test('headers past 1 MiB (plus Go\'s 4 KiB slack) get Go\'s 431 text', async () => {
    const r = await sendRaw(cluster, requestHead('GET', '/api/v1/namespaces/default', { 'X-Padding': 'a'.repeat((1 << 20) + 8192) }));
    assert.equal(r.raw, 'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large');
  });

  test('a client certificate from a foreign CA is 401 Unauthorized every time, never a closed connection', async () => {
    const ca = await createCA();
    const foreign = await issue(ca, 'CN=kubernetes-admin, O=system:masters', 'client', { dns: [], ip: [] });
    const { ca: clusterCA } = credentials(cluster);
    const one = (agent: Agent) => new Promise<string>((resolve) => {
      const req = request({ host: '127.0.0.1', port: cluster.port, path: '/api/v1/namespaces', agent, headers: { Accept: 'application/json' } }, (res) => {
        let body = '';
        res.on('data', (d) => { body += d; });
        res.on('end', () => resolve(`${res.statusCode} ${body}`));
      });
      req.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code ?? e.message}`));
      req.end();
    });
    const expected = '401 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}';
    // 25 on fresh connections at once, 25 one after another on one kept-alive connection.
    const fresh = await Promise.all(Array.from({ length: 25 }, () => one(new Agent({ ca: clusterCA, cert: foreign.cert, key: foreign.key, keepAlive: false }))));
    const kept = new Agent({ ca: clusterCA, cert: foreign.cert, key: foreign.key, keepAlive: true, maxSockets: 1 });
    const sequential: string[] = [];
    for (let i = 0; i < 25; i++) sequential.push(await one(kept));
    kept.destroy();
    for (const r of [...fresh, ...sequential]) assert.equal(r, expected);
  });

  test('50 creates with a foreign client certificate and a body still arriving all get the 401 Status, not a reset', async () => {
    const ca = await createCA();
    const foreign = await issue(ca, 'CN=kubernetes-admin, O=system:masters', 'client', { dns: [], ip: [] });
    const body = JSON.stringify({ metadata: { name: 'big' }, data: { v: 'z'.repeat(2 << 20) } });
    const expected = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}';
    const one = async () => {
      const s = await openTls(cluster, { cert: foreign.cert, key: foreign.key });
      let answer = '';
      s.on('data', (d) => { answer += d; });
      const closed = new Promise<void>((resolve) => { s.once('close', () => resolve()); s.once('error', () => resolve()); });
      s.write(requestHead('POST', '/api/v1/namespaces/default/configmaps', { 'Content-Type': 'application/json', 'Content-Length': String(body.length) }));
      s.write(body, () => { /* the server may stop reading: that is the point */ });
      await closed;
      return answer;
    };
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, one));
      for (const a of answers) {
        const r = parseWire(a);
        assert.equal(r.status, 401, `no answer: ${JSON.stringify(a.slice(0, 200))}`);
        assert.equal(r.body, expected);
      }
    }
  });

  test('the data directory is 0700; the database, its WAL files, keys, token and kubeconfig 0600', () => {
    const mode = (f: string) => (statSync(join(cluster.dataDir, f)).mode & 0o777).toString(8);
    // mkdtemp made the test's directory 0700 already; a directory winkube makes is checked below.
    for (const f of ['state.db', 'state.db-wal', 'state.db-shm', 'admin.token', 'kubeconfig.yaml', 'pki/ca.key', 'pki/apiserver.key', 'pki/admin.key', 'pki/sa.key']) {
      assert.equal(mode(f), '600', f);
    }
    assert.equal(mode('pki'), '700');
  });
});

describe('a data directory winkube creates', () => {
  test('is 0700, with every level it creates', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'winkube-mode-'));
    const cluster = await startCluster(join(parent, 'a', 'data'), ['--api-only']);
    try {
      assert.equal((statSync(join(parent, 'a', 'data')).mode & 0o777).toString(8), '700');
      assert.equal((statSync(join(parent, 'a')).mode & 0o777).toString(8), '700');
      assert.equal((statSync(join(parent, 'a', 'data', 'state.db')).mode & 0o777).toString(8), '600');
    } finally { await cluster.stop(); removeDir(parent); }
  });
});

/**
 * Root ignores file modes, so an unwritable directory is made with a read-only tmpfs mount, or
 * failing that the immutable attribute; the test is skipped only where neither is allowed.
 */
function readOnlyDir(): { dir: string; undo: () => void } | string {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-ro-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir], { stdio: 'ignore' });
    return { dir, undo: () => { execFileSync('umount', [dir]); removeDir(dir); } };
  } catch { /* no mount permission: try chattr */ }
  try {
    execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
    return { dir, undo: () => { execFileSync('chattr', ['-i', dir]); removeDir(dir); } };
  } catch {
    removeDir(dir);
    return 'neither a read-only mount nor chattr +i is permitted here, and root writes through file modes';
  }
}

describe('an unwritable data directory', () => {
  const ro = readOnlyDir();
  after(() => { if (typeof ro !== 'string') ro.undo(); });
  for (const sub of ['', 'data']) {
    test(`is reported with its real cause in one line and a non-zero exit (${sub ? 'missing below it' : 'existing'})`, { skip: typeof ro === 'string' ? ro : false }, () => {
      if (typeof ro === 'string') return;
      const dataDir = sub ? join(ro.dir, sub) : ro.dir;
      const r = spawnSync(process.execPath, [MAIN, 'up', '--port', '0', '--api-only', '--data-dir', dataDir], { encoding: 'utf8', timeout: 30_000 });
      assert.notEqual(r.status, 0);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0] ?? '', new RegExp(`^error: cannot use data directory ${dataDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: (EROFS: read-only file system|EPERM: operation not permitted|EACCES: permission denied), (mkdir|access) '${dataDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}'$`), r.stderr);
    });
  }
});

describe('slow clients (ReadHeaderTimeout shortened to 1.5 s)', () => {
  let cluster: TestCluster;
  before(async () => {
    process.env.WINKUBE_READ_HEADER_TIMEOUT_MS = '1500';
    try { cluster = await startCluster(undefined, ['--api-only']); } finally { delete process.env.WINKUBE_READ_HEADER_TIMEOUT_MS; }
  });
  after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

  test('headers sent a byte at a time are cut at the deadline, without an answer', async () => {
    const s = await openTls(cluster);
    const head = requestHead('GET', '/api/v1/namespaces/default');
    const started = Date.now();
    let received = '';
    s.on('data', (d) => { received += d; });
    const closed = new Promise<number>((resolve) => s.once('close', () => resolve(Date.now() - started)));
    let i = 0;
    const timer = setInterval(() => { const chunk = head[i++]; if (!s.destroyed && chunk !== undefined) s.write(chunk); }, 200);
    const after = await Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 6000))]);
    clearInterval(timer);
    s.destroy();
    // Each byte arrives within the deadline; only a deadline for the whole head closes the connection before 6 s.
    assert.ok(after > 0, 'the connection was still open after 6 s');
    assert.ok(after >= 1400, `closed after ${after} ms, before the 1.5 s deadline`);
    assert.equal(received, '');
  });

  test('a watch lives past the header deadline and keeps delivering', async () => {
    const s = await openTls(cluster);
    let received = '';
    s.on('data', (d) => { received += d; });
    s.write(requestHead('GET', '/api/v1/namespaces/default/configmaps?watch=1', { Connection: 'keep-alive' }));
    await new Promise((r) => setTimeout(r, 4000));
    assert.ok(!s.destroyed, 'the watch was cut');
    assert.equal((await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-deadline' } })).status, 201);
    await new Promise((r) => setTimeout(r, 300));
    s.destroy();
    assert.equal(parseWire(received).status, 200);
    assert.match(received, /"type":"ADDED","object":\{"kind":"ConfigMap".*"name":"after-deadline"/);
  });

  test('a request whose headers arrived in time is served however long its body takes', async () => {
    const s = await openTls(cluster);
    let received = '';
    s.on('data', (d) => { received += d; });
    const body = JSON.stringify({ metadata: { name: 'slow-body' } });
    s.write(requestHead('POST', '/api/v1/namespaces/default/configmaps', { 'Content-Type': 'application/json', 'Content-Length': String(body.length) }));
    s.write(body.slice(0, 5));
    await new Promise((r) => setTimeout(r, 2500));
    s.write(body.slice(5));
    await new Promise<void>((resolve) => s.once('close', () => resolve()));
    assert.equal(parseWire(received).status, 201, received);
  });
});

describe('SIGTERM', () => {
  test('drains: 20 LISTs in flight all complete, a watch ends, acknowledged writes survive', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'winkube-drain-'));
    const cluster = await startCluster(dataDir, ['--api-only']);
    try {
      const data = { v: 'x'.repeat(8000) };
      for (let i = 0; i < 300; i += 25) {
        await Promise.all(Array.from({ length: 25 }, (_, j) =>
          rawJSON(cluster, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `cm-${i + j}` }, data })));
      }
      const { ca, cert, key } = credentials(cluster);
      const agent = new Agent({ ca, cert, key, keepAlive: true, maxSockets: 25 });
      // A slow reader keeps its LIST in flight: the server cannot write the answer faster than it is read.
      const get = (path: string, method = 'GET', body?: string, slow = false) => new Promise<{ status: number; body: string }>((resolve) => {
        const req = request({ host: '127.0.0.1', port: cluster.port, path, method, agent, headers: { Accept: 'application/json', 'Content-Type': 'application/json' } }, (res) => {
          if (slow) { res.pause(); setTimeout(() => res.resume(), 1500); }
          let b = '';
          res.on('data', (d) => { b += d; });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
          res.on('error', () => resolve({ status: -1, body: b }));
        });
        req.on('error', (e) => resolve({ status: -1, body: String(e) }));
        req.end(body);
      });
      // Connections open beforehand: the requests below are in flight, not waiting to connect.
      await Promise.all(Array.from({ length: 25 }, () => get('/api/v1/namespaces/default')));
      const watch = await openTls(cluster);
      let watched = '';
      watch.on('data', (d) => { watched += d; });
      const watchEnded = new Promise<void>((resolve) => watch.once('close', () => resolve()));
      watch.write(requestHead('GET', '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0', { Connection: 'keep-alive' }));
      await new Promise((r) => setTimeout(r, 300));
      const lists = Array.from({ length: 20 }, () => get('/api/v1/namespaces/default/configmaps', 'GET', undefined, true));
      const writes = Array.from({ length: 5 }, (_, i) => get('/api/v1/namespaces/default/configmaps', 'POST', JSON.stringify({ metadata: { name: `late-${i}` } })));
      // Creates whose bodies are still arriving at SIGTERM: in flight, they must be finished and kept.
      const slowBodies = await Promise.all(Array.from({ length: 5 }, async (_, i) => {
        const s = await openTls(cluster);
        let answer = '';
        s.on('data', (d) => { answer += d; });
        const body = JSON.stringify({ metadata: { name: `slow-${i}` }, data: { v: 'y'.repeat(100) } });
        s.write(requestHead('POST', '/api/v1/namespaces/default/configmaps', { 'Content-Type': 'application/json', 'Content-Length': String(body.length), Connection: 'keep-alive' }));
        s.write(body.slice(0, 20));
        return { rest: () => s.write(body.slice(20)), answer: new Promise<string>((resolve) => s.once('close', () => resolve(answer))) };
      }));
      await new Promise((r) => setTimeout(r, 30));
      const sent = Date.now();
      const exited = cluster.stop('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      // No new connection is accepted while the requests in flight finish.
      const refused = await openTls(cluster).then((s) => { s.destroy(); return 'connected'; }, (e: NodeJS.ErrnoException) => e.code);
      assert.equal(refused, 'ECONNREFUSED');
      await new Promise((r) => setTimeout(r, 500));
      for (const b of slowBodies) b.rest();
      for (const b of slowBodies) {
        const r = parseWire(await b.answer);
        assert.equal(r.status, 201, r.raw);
        assert.equal(r.headers.connection, 'close');
      }
      const answers = await Promise.all(lists);
      for (const a of answers) {
        assert.equal(a.status, 200, a.body.slice(0, 200));
        assert.ok(JSON.parse(a.body).items.length >= 300);
      }
      const written = await Promise.all(writes);
      await watchEnded;
      assert.equal(await exited, 0);
      assert.ok(Date.now() - sent < 20_000, 'the watch held the shutdown');
      assert.equal(parseWire(watched).status, 200);
      agent.destroy();

      const again = await startCluster(dataDir, ['--api-only']);
      try {
        const list = await rawJSON(again, 'GET', '/api/v1/namespaces/default/configmaps');
        const names = new Set((list.body.items as Array<{ metadata: { name: string } }>).map((o) => o.metadata.name));
        for (let i = 0; i < 300; i++) assert.ok(names.has(`cm-${i}`), `cm-${i}`);
        written.forEach((w, i) => { if (w.status === 201) assert.ok(names.has(`late-${i}`), `late-${i} was acknowledged but lost`); });
        for (let i = 0; i < 5; i++) assert.ok(names.has(`slow-${i}`), `slow-${i} was acknowledged but lost`);
      } finally { await again.stop(); }
    } finally { await cluster.stop(); removeDir(dataDir); }
  });
});

