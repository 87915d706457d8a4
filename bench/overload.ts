/**
 * Overload figures: (a) the server's peak RSS while 300 LISTs of 10,000
 * ConfigMaps are in flight at once (target < 1 GB: lists are written as they
 * are read); (b) 2,000 concurrent LISTs as one service account (not exempt:
 * workload-low) against the admin's requests meanwhile (system:masters:
 * exempt): how many were refused with 429, and the admin's latency.
 * Run: npm run bench:overload. Prints one line per figure.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type TLSSocket } from 'node:tls';
import { parse as parseYaml } from 'yaml';
import { Connection, runLoad, type LoadTarget } from './load.js';

const MAIN = process.env.BENCH_SERVER ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const LISTS = Number(process.env.BENCH_LISTS ?? 300);
const BURST = Number(process.env.BENCH_BURST ?? 2000);
/** BENCH_ONLY=lists or burst: one of the two figures. */
const ONLY = process.env.BENCH_ONLY;
/** Each ConfigMap carries about a kilobyte, so one LIST is some 12 MB of JSON. */
const VALUE = 'v'.repeat(1000);

const ms = (n: number) => `${n.toFixed(1)} ms`;
/** The p-th percentile of sorted samples; p = 100 is the largest. */
function pct(sorted: number[], p: number): number {
  const v = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  if (v === undefined) throw new Error('no samples to take a percentile of');
  return v;
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The highest RSS seen while `run` runs, sampled every 20 ms. */
async function peakRSS<T>(pid: number, run: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssMB(pid);
  const timer = setInterval(() => { peak = Math.max(peak, rssMB(pid)); }, 20);
  try {
    const result = await run();
    return { result, peak: Math.max(peak, rssMB(pid)) };
  } finally {
    clearInterval(timer);
  }
}

interface Answer { status: number; bytes: number; retryAfter?: string; ms: number; tail: string }

/** A TLS connection, open and ready for one request (as the admin's certificate, or anonymous for a bearer token). */
function openConnection(t: LoadTarget, asAdmin: boolean): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: t.port, ca: t.ca, ...(asAdmin ? { cert: t.cert, key: t.key } : {}) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * One request on its own connection (closed after it), its body counted
 * rather than kept (300 lists of 15 MB would not fit in this process either).
 */
function send(socket: TLSSocket, path: string, token?: string): Promise<Answer> {
  return new Promise((resolve) => {
    const start = performance.now();
    if (socket.destroyed) { resolve({ status: 0, bytes: 0, ms: 0, tail: '' }); return; }
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nConnection: close\r\n` +
      `${token ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`);
    let head = '';
    let headDone = false;
    let bytes = 0;
    let tail = '';
    socket.on('data', (d: Buffer) => {
      if (!headDone) {
        head += d.toString('latin1');
        const i = head.indexOf('\r\n\r\n');
        if (i < 0) return;
        headDone = true;
        bytes = head.length - i - 4;
        tail = head.slice(-16);
        head = head.slice(0, i);
        return;
      }
      bytes += d.length;
      tail = (tail + d.subarray(-16).toString('latin1')).slice(-16);
    });
    // The server closes the connection after the response; one closed before any answer counts as status 0.
    socket.on('close', () => resolve({
      status: headDone ? Number(head.slice(9, 12)) : 0, bytes, ms: performance.now() - start, tail,
      retryAfter: /\r\nretry-after: *(\S+)/i.exec(head)?.[1],
    }));
    socket.on('error', () => {});
  });
}

async function oneShot(t: LoadTarget, path: string, token?: string): Promise<Answer> {
  return send(await openConnection(t, !token), path, token);
}

/** n connections opened ahead, 100 at a time (a burst of handshakes would overflow the listen backlog). */
async function openConnections(t: LoadTarget, n: number, asAdmin: boolean): Promise<TLSSocket[]> {
  const out: TLSSocket[] = [];
  while (out.length < n) out.push(...await Promise.all(Array.from({ length: Math.min(100, n - out.length) }, () => openConnection(t, asAdmin))));
  return out;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'winkube-bench-'));
  // BENCH_NODE_ARGS: extra node options for the server process.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, MAIN, 'up', '--port', '0', '--data-dir', dataDir, '--api-only'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /winkube is up: https:\/\/[\d.]+:(\d+)/.exec(out);
      if (m && out.includes('export KUBECONFIG=')) resolve(Number(m[1]));
    });
    proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  const stop = async () => {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const cfg = parseYaml(readFileSync(join(dataDir, 'kubeconfig.yaml'), 'utf8'));
  const b = (s: string) => Buffer.from(s, 'base64');
  const target: LoadTarget = { port, ca: b(cfg.clusters[0].cluster['certificate-authority-data']),
    cert: b(cfg.users[0].user['client-certificate-data']), key: b(cfg.users[0].user['client-key-data']) };
  try {
    await measure(target, proc.pid!);
  } finally {
    await stop();
  }
}

async function measure(target: LoadTarget, pid: number): Promise<void> {
  // A connection per call: one kept across the long phases would be closed by the server as idle.
  const call = async (method: string, path: string, body?: unknown, expect = 201) => {
    const admin = await Connection.open(target);
    const r = await admin.request(method, path, body === undefined ? undefined : JSON.stringify(body));
    admin.close();
    if (r.status !== expect) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 300)}`);
    return r.body;
  };
  await call('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
  await runLoad(target, 32, OBJECTS, (i) => ({
    method: 'POST', path: '/api/v1/namespaces/bench/configmaps', expect: 201,
    body: JSON.stringify({ metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { key: `${i}-${VALUE}` } }),
  }));
  const one = await oneShot(target, '/api/v1/namespaces/bench/configmaps');
  console.log(`${OBJECTS} ConfigMaps: one LIST is ${(one.bytes / 1e6).toFixed(1)} MB; server RSS before the LISTs ${rssMB(pid).toFixed(0)} MB`);

  if (ONLY !== 'burst') await manyLists(target, pid, one.bytes);
  if (ONLY !== 'lists') await burstFromAccount(target, call);
}

/** (a) Many large LISTs at once. */
async function manyLists(target: LoadTarget, pid: number, listBytes: number): Promise<void> {
  const conns = await openConnections(target, LISTS, true);
  const { result: lists, peak } = await peakRSS(pid, () => Promise.all(conns.map((c) => send(c, '/api/v1/namespaces/bench/configmaps'))));
  const bad = lists.filter((l) => l.status !== 200 || !/\]\}(\r\n0\r\n\r\n)?$/.test(l.tail) || l.bytes < listBytes * 0.99);
  if (bad.length) throw new Error(`${bad.length} LISTs failed or were cut short (first: ${JSON.stringify(bad[0])})`);
  const lat = lists.map((l) => l.ms).sort((x, y) => x - y);
  console.log(`${LISTS} concurrent LISTs of ${OBJECTS} ConfigMaps (${(LISTS * listBytes / 1e9).toFixed(1)} GB in all): peak server RSS ${peak.toFixed(0)} MB (target < 1024 MB), all 200; latency p50 ${ms(pct(lat, 50))}, max ${ms(pct(lat, 100))}`);

}

/** (b) A burst from one service account while the admin works. */
async function burstFromAccount(target: LoadTarget, call: (method: string, path: string, body?: unknown) => Promise<string>): Promise<void> {
  await call('POST', '/api/v1/namespaces/bench/serviceaccounts', { metadata: { name: 'burst' } });
  const token = JSON.parse(await call('POST', '/api/v1/namespaces/bench/serviceaccounts/burst/token',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} })).status.token as string;
  // Every connection is open before the first request goes: the 2,000 requests arrive at once.
  const conns = await openConnections(target, BURST, false);
  let bursting = true;
  const adminLat: number[] = [];
  const adminStatus = new Map<number, number>();
  const adminLoop = (async () => {
    const conns = await Promise.all(Array.from({ length: 4 }, () => Connection.open(target)));
    let i = 0;
    await Promise.all(conns.map(async (c) => {
      while (bursting) {
        const s = performance.now();
        const r = await c.request('GET', `/api/v1/namespaces/bench/configmaps/cm-${i++ % OBJECTS}`);
        adminLat.push(performance.now() - s);
        adminStatus.set(r.status, (adminStatus.get(r.status) ?? 0) + 1);
      }
      c.close();
    }));
  })();
  const t0 = performance.now();
  const burst = await Promise.all(conns.map((c) => send(c, '/api/v1/namespaces/bench/configmaps', token)));
  const seconds = (performance.now() - t0) / 1000;
  bursting = false;
  await adminLoop;
  const byStatus = new Map<number, number>();
  for (const r of burst) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  const retryAfter = [...new Set(burst.filter((r) => r.status === 429).map((r) => r.retryAfter))].join(', ');
  const fmt = (m: Map<number, number>) => [...m].sort((x, y) => x[0] - y[0]).map(([s, n]) => `${n} × ${s < 0 ? 'connection error' : s === 0 ? 'closed without answer' : s}`).join(', ');
  console.log(`${BURST} concurrent LISTs of the ${OBJECTS} ConfigMaps as one service account (workload-low: 245 seats, 10 per LIST; 128 queues of 50, hand of 6), over ${seconds.toFixed(1)} s: ${fmt(byStatus)}; Retry-After ${retryAfter || '-'}`);
  adminLat.sort((x, y) => x - y);
  console.log(`admin (system:masters, exempt) meanwhile: ${adminLat.length} GETs, ${fmt(adminStatus)}; latency p50 ${ms(pct(adminLat, 50))}, p99 ${ms(pct(adminLat, 99))}, max ${ms(pct(adminLat, 100))}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
