/**
 * Node farm figures: time from spawning `winkube up` to every node Ready
 * (the default cluster, then 1,000 and 5,000 nodes from a cluster file),
 * the server's RSS while 5,000 nodes heartbeat over a 60 s window, the
 * heartbeat lateness seen through a watch on kube-node-lease, and pod
 * create→Running p50/p99 for 3,000 pods when a kubelet runs pods.
 * Run: npm run build && npm run bench:nodes   (BENCH_NODES_WINDOW_S=60, BENCH_PODS=3000 to change)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:https';
import { parse as parseYaml } from 'yaml';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');
const WINDOW_S = Number(process.env.BENCH_NODES_WINDOW_S ?? 60);
const PODS = Number(process.env.BENCH_PODS ?? 3000);
const RENEW_MS = 10_000;
/** component-helpers' lease controller renews with up to 4 % jitter: later than this is late. */
const LATE_MS = RENEW_MS * 0.04;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface Server {
  proc: ChildProcess; port: number; dataDir: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
  stream(path: string, onLine: (line: string) => void): { close(): void };
  stop(keepDir?: boolean): Promise<void>;
}

function clusterFile(total: number): string {
  const linux = Math.floor(total / 2) - 1;
  const win = total - 1 - linux;
  // 10.244.0.0/16 has room for 256 nodes with a /24 each; big clusters need a wider pod subnet, as real ones do.
  return ['apiVersion: winkube.io/v1alpha1', 'kind: Cluster', 'network: { podSubnet: 10.128.0.0/9 }', 'nodePools:',
    '  - { name: winkube-control-plane, os: linux, role: control-plane, exactName: true }',
    `  - { name: linux, os: linux, count: ${linux} }`,
    `  - { name: win2019, os: windows, windowsVersion: ltsc2019, count: ${Math.floor(win / 2)} }`,
    `  - { name: win2022, os: windows, windowsVersion: ltsc2022, count: ${win - Math.floor(win / 2)} }`, ''].join('\n');
}

/**
 * Spawns `winkube up` and returns once every expected node is Ready, with
 * the time from spawn: the node list is polled from the moment of spawn.
 */
async function up(expectedNodes: number, config?: string, reuseDir?: string): Promise<{ server: Server; readyMs: number }> {
  const dataDir = reuseDir ?? mkdtempSync(join(tmpdir(), 'winkube-bench-nodes-'));
  const args = [MAIN, 'up', '--port', String(await freePort()), '--data-dir', dataDir, '--quiet'];
  if (config) { writeFileSync(join(dataDir, 'cluster.yaml'), config); args.push('--config', join(dataDir, 'cluster.yaml')); }
  const port = Number(args[3]);
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  let exited = false;
  proc.once('exit', () => { exited = true; });
  let agent: Agent | undefined;
  const credentials = () => {
    const cfg = parseYaml(readFileSync(join(dataDir, 'kubeconfig.yaml'), 'utf8'));
    const b = (s: string) => Buffer.from(s, 'base64');
    return { ca: b(cfg.clusters[0].cluster['certificate-authority-data']), cert: b(cfg.users[0].user['client-certificate-data']), key: b(cfg.users[0].user['client-key-data']) };
  };
  // Until the kubeconfig is written, the admin token file (written before the server listens) authenticates.
  let token: string | undefined;
  const call: Server['call'] = (method, path, body) => new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({
      host: '127.0.0.1', port, method, path, agent: agent ?? new Agent({ rejectUnauthorized: false }),
      headers: { Accept: 'application/json', ...(payload ? { 'Content-Type': 'application/json' } : {}), ...(!agent && token ? { Authorization: `Bearer ${token}` } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(payload);
  });
  // Watch the nodes from the moment the server listens (a watch without resourceVersion starts with
  // every existing node), and stop the clock when the expected number report Ready.
  let readyMs = NaN;
  for (;;) {
    if (exited) throw new Error('winkube up exited');
    try {
      token ??= readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
      if ((await call('GET', '/api/v1/nodes?limit=1')).status === 200) break;
    } catch { /* not listening yet */ }
    await sleep(10);
  }
  readyMs = await new Promise<number>((resolve, reject) => {
    const ready = new Set<string>();
    let buf = '';
    const req = request({
      host: '127.0.0.1', port, method: 'GET', path: '/api/v1/nodes?watch=1', agent: new Agent({ rejectUnauthorized: false }),
      headers: { Accept: 'application/json', Authorization: `Bearer ${token}` },
    }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const ev = JSON.parse(buf.slice(0, i));
          buf = buf.slice(i + 1);
          const n = ev.object;
          if (n?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')) ready.add(n.metadata.name);
          if (ready.size >= expectedNodes) { resolve(performance.now() - t0); req.destroy(); return; }
        }
      });
    });
    req.on('error', (e) => { if (ready.size < expectedNodes) reject(e); });
    req.end();
  });
  while (!agent) {
    try { agent = new Agent({ ...credentials(), keepAlive: true, maxSockets: 64 }); } catch { await sleep(20); }
  }
  const stream: Server['stream'] = (path, onLine) => {
    let buf = '';
    const req = request({ host: '127.0.0.1', port, method: 'GET', path, agent: new Agent({ ...credentials() }), headers: { Accept: 'application/json' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); if (line) onLine(line); }
      });
    });
    req.on('error', () => {});
    req.end();
    return { close: () => req.destroy() };
  };
  const server: Server = {
    proc, port, dataDir, call, stream,
    async stop(keepDir = false) {
      if (!exited) { proc.kill('SIGTERM'); await new Promise((r) => proc.once('exit', r)); }
      if (!keepDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return { server, readyMs };
}

const renewMs = (t: string) => Date.parse(t);

/** RSS and heartbeat lateness while the nodes heartbeat for WINDOW_S seconds. */
async function heartbeats(s: Server, nodes: number): Promise<void> {
  const list = JSON.parse((await s.call('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).text);
  const last = new Map<string, number>();
  for (const l of list.items) last.set(l.metadata.name, renewMs(l.spec.renewTime));
  let intervals = 0;
  let maxInterval = 0;
  let late = 0;
  let expired = 0;
  let maxLag = 0;
  const w = s.stream(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?watch=1&resourceVersion=${list.metadata.resourceVersion}`, (line) => {
    const ev = JSON.parse(line);
    if (ev.type !== 'MODIFIED') return;
    const name = ev.object.metadata.name;
    const t = renewMs(ev.object.spec.renewTime);
    maxLag = Math.max(maxLag, Date.now() - t);
    const prev = last.get(name);
    last.set(name, t);
    if (prev === undefined) return;
    const interval = t - prev;
    intervals++;
    maxInterval = Math.max(maxInterval, interval);
    if (interval > RENEW_MS + LATE_MS) late++;
    if (interval > 40_000) expired++;
  });
  const rss: number[] = [];
  const end = Date.now() + WINDOW_S * 1000;
  while (Date.now() < end) { rss.push(rssMB(s.proc.pid!)); await sleep(1000); }
  w.close();
  // A renewal that never came is the latest lateness of all: the lease's age at the end of the window.
  const now = Date.now();
  let stale = 0;
  for (const t of last.values()) if (now - t > RENEW_MS + LATE_MS + 1000) stale++;
  rss.sort((a, b) => a - b);
  console.log(`  RSS over ${WINDOW_S} s with ${nodes} nodes heartbeating: min ${rss[0].toFixed(0)} MB, median ${pct(rss, 50).toFixed(0)} MB, max ${rss.at(-1)!.toFixed(0)} MB`);
  console.log(`  lease renewals seen: ${intervals} (expected about ${Math.round((nodes * WINDOW_S * 1000) / RENEW_MS)}); ` +
    `max interval ${(maxInterval / 1000).toFixed(3)} s, max lateness ${Math.max(0, maxInterval - RENEW_MS).toFixed(0)} ms; ` +
    `${late} renewals later than 10 s + 4 % jitter, ${expired} past the 40 s lease; ${stale} leases not renewed at the end; ` +
    `max renewTime→watch event ${maxLag.toFixed(0)} ms`);
}

/** Pod create→Running for PODS pods on Linux nodes, or a note when no kubelet runs pods. */
async function podStartup(s: Server): Promise<void> {
  await s.call('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
  const pod = (name: string) => ({
    metadata: { name, labels: { app: 'bench' } },
    spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
  });
  const created = await s.call('POST', '/api/v1/namespaces/bench/pods', pod('probe'));
  if (created.status !== 201) { console.log(`  pod startup: SKIPPED (the probe pod was refused: ${created.status} ${created.text.slice(0, 200)})`); return; }
  const probeEnd = Date.now() + 20_000;
  let running = false;
  while (Date.now() < probeEnd && !running) {
    const p = JSON.parse((await s.call('GET', '/api/v1/namespaces/bench/pods/probe')).text);
    running = p.status?.phase === 'Running';
    if (!running) await sleep(200);
  }
  if (!running) {
    console.log('  pod startup: SKIPPED — no pod reached Running within 20 s (no scheduler or kubelet pod lifecycle in this build)');
    return;
  }
  const list = JSON.parse((await s.call('GET', '/api/v1/namespaces/bench/pods')).text);
  const createdAt = new Map<string, number>();
  const runningAt = new Map<string, number>();
  const w = s.stream(`/api/v1/namespaces/bench/pods?watch=1&resourceVersion=${list.metadata.resourceVersion}`, (line) => {
    const ev = JSON.parse(line);
    const name = ev.object?.metadata?.name;
    if (ev.object?.status?.phase === 'Running' && !runningAt.has(name)) runningAt.set(name, performance.now());
  });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < PODS) {
      const name = `pod-${next++}`;
      const start = performance.now();
      const r = await s.call('POST', '/api/v1/namespaces/bench/pods', pod(name));
      if (r.status === 201) createdAt.set(name, start);
    }
  }));
  const end = Date.now() + 120_000;
  while (runningAt.size < createdAt.size && Date.now() < end) await sleep(100);
  w.close();
  const lat = [...createdAt].filter(([n]) => runningAt.has(n)).map(([n, t]) => runningAt.get(n)! - t).sort((a, b) => a - b);
  console.log(`  pod create→Running for ${createdAt.size} pods: ${lat.length} Running in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
    (lat.length ? `p50 ${pct(lat, 50).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms (target p99 <= 1000 ms)` : 'none Running'));
}

async function main(): Promise<void> {
  {
    const { server, readyMs } = await up(6);
    console.log(`default cluster (6 nodes), new data directory (certificates generated): spawn of winkube up → all nodes Ready in ${readyMs.toFixed(0)} ms`);
    await server.stop(true);
    const again = await up(6, undefined, server.dataDir);
    console.log(`default cluster (6 nodes), existing data directory: spawn of winkube up → all nodes Ready in ${again.readyMs.toFixed(0)} ms (target <= 1000 ms)`);
    await again.server.stop();
  }
  for (const n of [1000, 5000]) {
    const { server, readyMs } = await up(n, clusterFile(n));
    console.log(`${n} nodes: spawn of winkube up → all nodes Ready in ${(readyMs / 1000).toFixed(2)} s${n === 5000 ? ' (target <= 30 s)' : ''}; RSS ${rssMB(server.proc.pid!).toFixed(0)} MB`);
    if (n === 1000) await podStartup(server);
    if (n === 5000) await heartbeats(server, n);
    await server.stop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
