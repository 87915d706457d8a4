/**
 * Node farm figures: time from spawning `winkube up` to every node Ready
 * (the default cluster, then 1,000 and 5,000 nodes from a cluster file),
 * the server's RSS while 5,000 nodes heartbeat over a 60 s window, the
 * heartbeat lateness seen through a watch on kube-node-lease, and pod
 * create→Running p50/p99 for 3,000 pods (definition printed with the figure).
 * Run: npm run build && npm run bench:nodes
 * Env: BENCH_NODES_WINDOW_S=60, BENCH_PODS=3000, BENCH_POD_RATE=20 (pods/s; 0 = all at once, 32 in flight),
 *      BENCH_POD_NODES=100 (cluster size for the pod figure), BENCH_PARTS=default,1000,5000,pods (a subset to run).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:https';
import { parse as parseYaml } from 'yaml';

/** The winkube build to measure (BENCH_MAIN=/path/to/dist/src/cli/main.js for an A/B against another build). */
const MAIN = process.env.BENCH_MAIN ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');
const WINDOW_S = Number(process.env.BENCH_NODES_WINDOW_S ?? 60);
const PODS = Number(process.env.BENCH_PODS ?? 3000);
/** Pods created per second: clusterloader2's density test creates at DENSITY_TEST_THROUGHPUT, 20 pods/s by default; 0 = as fast as 32 clients go. */
const POD_RATE = Number(process.env.BENCH_POD_RATE ?? 20);
const POD_NODES = Number(process.env.BENCH_POD_NODES ?? 100);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'default,1000,5000,pods').split(','));
const RENEW_MS = 10_000;
/** component-helpers' lease controller renews with up to 4 % jitter: later than this is late. */
const LATE_MS = RENEW_MS * 0.04;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The p-th percentile of sorted samples; p = 100 is the largest. */
function pct(sorted: number[], p: number): number {
  const v = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  if (v === undefined) throw new Error('no samples to take a percentile of');
  return v;
}

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
  // BENCH_SERVER_FLAGS: extra node flags for the server (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...flags, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
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
  for (;;) {
    if (exited) throw new Error('winkube up exited');
    try {
      token ??= readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
      if ((await call('GET', '/api/v1/nodes?limit=1')).status === 200) break;
    } catch { /* not listening yet */ }
    await sleep(10);
  }
  const readyMs = await new Promise<number>((resolve, reject) => {
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

/** CPU seconds (user + system) the process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  // The fields after the command name, which ends with ") ".
  const [, afterName = ''] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ');
  const f = afterName.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/**
 * Watches kube-node-lease and counts renewals later than the renew
 * interval plus the lease controller's jitter allowance, until `report`.
 */
async function watchHeartbeats(s: Server): Promise<{ report(nodes: number, seconds: number, label: string): Promise<void> }> {
  const list = JSON.parse((await s.call('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).text);
  const last = new Map<string, number>();
  for (const l of list.items) last.set(l.metadata.name, renewMs(l.spec.renewTime));
  let intervals = 0;
  let maxInterval = 0;
  let late = 0;
  let expired = 0;
  let maxLag = 0;
  let watchError = '';
  const w = s.stream(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?watch=1&resourceVersion=${list.metadata.resourceVersion}`, (line) => {
    const ev = JSON.parse(line);
    if (ev.type === 'ERROR') watchError = `${ev.object?.code} ${ev.object?.message}`;
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
  return {
    async report(nodes, seconds, label) {
      w.close();
      // A renewal that never came is the latest lateness of all: the lease's age at the end of the window (read fresh: the watch may lag).
      const now = Date.now();
      const leases = JSON.parse((await s.call('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).text).items;
      let stale = 0;
      for (const l of leases) if (now - renewMs(l.spec.renewTime) > RENEW_MS + LATE_MS + 1000) stale++;
      console.log(`  ${label}: lease renewals seen ${intervals} (expected about ${Math.round((nodes * seconds * 1000) / RENEW_MS)}); ` +
        `max interval ${(maxInterval / 1000).toFixed(3)} s, max lateness ${Math.max(0, maxInterval - RENEW_MS).toFixed(0)} ms; ` +
        `late renewals (interval > 10 s + 4 % jitter): ${late}; past the 40 s lease: ${expired}; leases not renewed at the end: ${stale}; ` +
        `max renewTime→watch event ${maxLag.toFixed(0)} ms` + (watchError ? `; the lease watch ended with an error (${watchError}): the counts above are incomplete` : ''));
    },
  };
}

/** RSS, CPU and heartbeat lateness while the nodes heartbeat for WINDOW_S seconds. */
async function heartbeats(s: Server, nodes: number, label: string): Promise<void> {
  const hb = await watchHeartbeats(s);
  const rss: number[] = [];
  const cpu0 = cpuSeconds(s.proc.pid!);
  const end = Date.now() + WINDOW_S * 1000;
  while (Date.now() < end) { rss.push(rssMB(s.proc.pid!)); await sleep(1000); }
  const cpu = cpuSeconds(s.proc.pid!) - cpu0;
  rss.sort((a, b) => a - b);
  console.log(`  ${label}: RSS over ${WINDOW_S} s with ${nodes} nodes heartbeating: min ${pct(rss, 0).toFixed(0)} MB, median ${pct(rss, 50).toFixed(0)} MB, max ${pct(rss, 100).toFixed(0)} MB; ` +
    `server CPU ${(cpu / WINDOW_S * 100).toFixed(1)} % of one core`);
  await hb.report(nodes, WINDOW_S, `heartbeats over ${WINDOW_S} s`);
}

/**
 * Waits until the system pods (DaemonSets, CoreDNS) are all bound and have
 * a phase other than Pending or have stopped changing for 5 s; returns what
 * is not Running, by container state reason.
 */
async function settle(s: Server, timeoutMs: number): Promise<{ pods: number; notRunning: string }> {
  const end = Date.now() + timeoutMs;
  let lastRV = '';
  let stableSince = Date.now();
  for (;;) {
    // In chunks of 500, as kubectl lists: one list of 10,000 pods would be a turn of the server's event loop
    // long enough to make the heartbeats measured right after late.
    const items: any[] = [];
    let cont = '';
    do {
      const page = JSON.parse((await s.call('GET', `/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`)).text);
      items.push(...page.items);
      cont = page.metadata?.continue ?? '';
    } while (cont);
    const notRunning = items.filter((p) => p.status?.phase !== 'Running' && p.status?.phase !== 'Succeeded');
    const unbound = items.filter((p) => !p.spec.nodeName).length;
    const byReason = new Map<string, number>();
    for (const p of notRunning) {
      const st = [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].find((c: any) => c.state?.waiting || c.state?.running);
      const r = `${p.metadata.generateName ?? p.metadata.name}: ${st?.state?.waiting?.reason ?? (st?.state?.running ? `${st.name} running` : p.status?.phase)}`;
      byReason.set(r, (byReason.get(r) ?? 0) + 1);
    }
    const fingerprint = items.map((p) => `${p.metadata.name}=${p.status?.phase}`).join(',');
    if (fingerprint !== lastRV) { lastRV = fingerprint; stableSince = Date.now(); }
    if ((notRunning.length === 0 || (unbound === 0 && Date.now() - stableSince > 5000)) || Date.now() > end) {
      return { pods: items.length, notRunning: [...byReason].map(([r, n]) => `${n} × ${r}`).join('; ') || 'none' };
    }
    // Listing thousands of pods is itself load on the server: poll big clusters less often.
    await sleep(items.length > 1000 ? 3000 : 500);
  }
}

/**
 * Pod startup latency, defined as: a cluster of POD_NODES nodes whose
 * system pods are all Running first; PODS pods (one pause container, image
 * present on the node, so zero pull time; nodeSelector kubernetes.io/os=linux)
 * created at POD_RATE pods/s; for each pod, from the moment its create
 * request is sent to the moment the bench's watch on the namespace sees it
 * with status.phase Running. Heartbeats are watched meanwhile.
 */
async function podStartup(s: Server, nodes: number): Promise<void> {
  const linuxWorkers = Math.floor(nodes / 2) - 1;
  const t = performance.now();
  const settled = await settle(s, 120_000);
  console.log(`  system pods before the pod figure (${((performance.now() - t) / 1000).toFixed(1)} s of waiting): ${settled.pods} pods; not Running: ${settled.notRunning}`);
  await s.call('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
  const pod = (name: string) => ({
    metadata: { name, labels: { app: 'bench' } },
    spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
  });
  const list = JSON.parse((await s.call('GET', '/api/v1/namespaces/bench/pods')).text);
  const createdAt = new Map<string, number>();
  const runningAt = new Map<string, number>();
  const boundAt = new Map<string, number>();
  const updates = new Map<string, number>();
  const w = s.stream(`/api/v1/namespaces/bench/pods?watch=1&resourceVersion=${list.metadata.resourceVersion}`, (line) => {
    const ev = JSON.parse(line);
    const name = ev.object?.metadata?.name;
    if (runningAt.has(name)) return;
    updates.set(name, (updates.get(name) ?? 0) + 1);
    if (ev.object?.spec?.nodeName && !boundAt.has(name)) boundAt.set(name, performance.now());
    if (ev.object?.status?.phase === 'Running') runningAt.set(name, performance.now());
  });
  const hb = await watchHeartbeats(s);
  const cpu0 = cpuSeconds(s.proc.pid!);
  const t0 = performance.now();
  let failed = 0;
  const create = async (i: number) => {
    const name = `pod-${i}`;
    const start = performance.now();
    const r = await s.call('POST', '/api/v1/namespaces/bench/pods', pod(name));
    if (r.status === 201) createdAt.set(name, start); else failed++;
  };
  if (POD_RATE > 0) {
    const sends: Promise<void>[] = [];
    for (let i = 0; i < PODS; i++) {
      const due = t0 + (i * 1000) / POD_RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      sends.push(create(i));
    }
    await Promise.all(sends);
  } else {
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => { while (next < PODS) await create(next++); }));
  }
  const createdIn = (performance.now() - t0) / 1000;
  const end = Date.now() + 120_000;
  while (runningAt.size < createdAt.size && Date.now() < end) await sleep(100);
  const allIn = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(s.proc.pid!) - cpu0;
  w.close();
  const lat = [...createdAt].filter(([n]) => runningAt.has(n)).map(([n, t]) => runningAt.get(n)! - t).sort((a, b) => a - b);
  const stage = (from: (n: string) => number | undefined, to: (n: string) => number | undefined) => {
    const xs = [...createdAt.keys()].filter((n) => from(n) !== undefined && to(n) !== undefined).map((n) => to(n)! - from(n)!).sort((a, b) => a - b);
    return xs.length ? `p50 ${pct(xs, 50).toFixed(0)} ms, p99 ${pct(xs, 99).toFixed(0)} ms` : 'n/a';
  };
  const ups = [...createdAt.keys()].map((n) => updates.get(n) ?? 0).sort((a, b) => a - b);
  console.log(`  pod startup: ${PODS} pods (1 pause container, image present: zero pull time) on the ${linuxWorkers} Linux workers of a ${nodes}-node cluster, ` +
    `created ${POD_RATE > 0 ? `at a fixed rate of ${POD_RATE} pods/s` : 'all at once (32 concurrent clients)'} in ${createdIn.toFixed(1)} s (${failed} refused); ` +
    `latency = create request sent → phase Running seen by a watch on the namespace`);
  console.log(`  pod create→Running: ${lat.length}/${createdAt.size} Running ${allIn.toFixed(1)} s after the first create; ` +
    (lat.length ? `p50 ${pct(lat, 50).toFixed(0)} ms, p90 ${pct(lat, 90).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms, max ${pct(lat, 100).toFixed(0)} ms (target p99 <= 1000 ms)` : 'none Running') +
    `; watch events per pod up to Running: median ${pct(ups, 50)}; server CPU ${(cpu * 1000 / Math.max(1, createdAt.size)).toFixed(2)} ms per pod`);
  console.log(`  stages: create sent → bound (nodeName seen by the watch) ${stage((n) => createdAt.get(n), (n) => boundAt.get(n))}; ` +
    `bound → Running ${stage((n) => boundAt.get(n), (n) => runningAt.get(n))}`);
  await hb.report(nodes, allIn, `heartbeats of the ${nodes} nodes while the pods start`);
}

async function main(): Promise<void> {
  if (PARTS.has('default')) {
    const { server, readyMs } = await up(6);
    console.log(`default cluster (6 nodes), new data directory (certificates generated): spawn of winkube up → all nodes Ready in ${readyMs.toFixed(0)} ms`);
    await server.stop(true);
    const again = await up(6, undefined, server.dataDir);
    console.log(`default cluster (6 nodes), existing data directory: spawn of winkube up → all nodes Ready in ${again.readyMs.toFixed(0)} ms (target <= 1000 ms)`);
    await again.server.stop();
  }
  for (const n of [1000, 5000]) {
    if (!PARTS.has(String(n))) continue;
    const { server, readyMs } = await up(n, clusterFile(n));
    console.log(`${n} nodes: spawn of winkube up → all nodes Ready in ${(readyMs / 1000).toFixed(2)} s${n === 5000 ? ' (target <= 30 s)' : ''}; RSS ${rssMB(server.proc.pid!).toFixed(0)} MB`);
    if (n === 5000) {
      // First while the system DaemonSets' pods (two per node) are created and start, then once they all run.
      await heartbeats(server, n, 'right after all nodes are Ready, while the system pods start');
      const t = performance.now();
      const settled = await settle(server, 300_000);
      console.log(`  system pods settled ${((performance.now() - t) / 1000).toFixed(1)} s later: ${settled.pods} pods; not Running: ${settled.notRunning}`);
      await heartbeats(server, n, settled.notRunning === 'none' ? 'steady state' : 'after that wait (system pods not all Running)');
    }
    await server.stop();
  }
  if (PARTS.has('pods')) {
    const { server, readyMs } = await up(POD_NODES, clusterFile(POD_NODES));
    console.log(`${POD_NODES} nodes for the pod figure: all Ready in ${(readyMs / 1000).toFixed(2)} s`);
    await podStartup(server, POD_NODES);
    await server.stop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
