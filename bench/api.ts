/**
 * API server figures: cold start to /readyz, idle RSS, create throughput and
 * latency, GET p99, LIST of 10,000 pods, watch write→event latency.
 * Run: npm run bench  (after npm install). Prints one line per figure.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { Connection, runLoad } from './load.js';
import { startServer } from './server.js';
import { startEtcd } from '../test/helpers/etcd-server.js';

const CONCURRENCY = 32;
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
/** BENCH_ONLY=patch runs only the PATCH figure (and what it needs); BENCH_ONLY=get stops after the GET figure. */
const ONLY = process.env.BENCH_ONLY;
/**
 * The figures are the API server's, as kube-apiserver's are measured: `winkube up --api-only`, no
 * nodes or controllers writing meanwhile. BENCH_WHOLE_CLUSTER=1 measures the whole default cluster
 * instead, where each Deployment template patch is also a rollout the controllers carry out.
 */
const WHOLE_CLUSTER = process.env.BENCH_WHOLE_CLUSTER === '1';
// BENCH_NODE_ARGS: extra node options for the server process (e.g. --cpu-prof).

/** The p-th percentile of sorted samples; p = 100 is the largest. */
function pct(sorted: number[], p: number): number {
  const v = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  if (v === undefined) throw new Error('no samples to take a percentile of');
  return v;
}
const ms = (n: number) => `${n.toFixed(2)} ms`;

/** CPU time (user + system, all threads) a process has used, in µs, from /proc/<pid>/stat. */
function cpuMicros(pid: number, tid?: string): number {
  const fields = readFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // utime and stime are fields 14 and 15 of stat(5), counted from the state field (3).
  return (Number(fields[11]) + Number(fields[12])) * (1e6 / 100);
}

/** CPU time of each thread of a process, in µs, summed by thread name (main thread: "main"). */
function threadMicros(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, '').trim();
      out.set(name, (out.get(name) ?? 0) + cpuMicros(pid, tid));
    } catch { /* the thread ended */ }
  }
  return out;
}

/** Runs a load phase and measures the CPU server and client spent per request. */
async function measured<T>(pid: number, n: number, run: () => Promise<T>): Promise<T & { cpu: string }> {
  const server0 = cpuMicros(pid);
  const threads0 = threadMicros(pid);
  const client0 = process.cpuUsage();
  const out = await run();
  const client = process.cpuUsage(client0);
  const perReq = (us: number) => (us / n).toFixed(0);
  // Where the server's CPU went: its event loop, V8's GC helpers, SQLite's checkpoint thread, ...
  const threads = [...threadMicros(pid)].map(([name, us]) => [name, us - (threads0.get(name) ?? 0)] as const)
    .filter(([, us]) => us / n >= 5).sort((a, b) => b[1] - a[1]).map(([name, us]) => `${name} ${perReq(us)}`).join(', ');
  return { ...out, cpu: `CPU per request: server ${perReq(cpuMicros(pid) - server0)} µs (${threads}), bench client ${perReq(client.user + client.system)} µs` };
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main(): Promise<void> {
  // BENCH_STORAGE=etcd: the server's state in an etcd member started here (Debian's etcd-server), not SQLite.
  const etcd = process.env.BENCH_STORAGE === 'etcd' ? await startEtcd() : undefined;
  const t0 = performance.now();
  const server = await startServer({
    upArgs: [...WHOLE_CLUSTER ? [] : ['--api-only'], ...etcd ? ['--storage', 'etcd', '--etcd-servers', etcd.url] : []],
    nodeArgs: (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  });
  const { port, ca, cert, key } = server.target;
  const agent = new Agent({ ca, cert, key, keepAlive: true, maxSockets: CONCURRENCY });
  const call = (method: string, path: string, body?: unknown) => new Promise<{ status: number; text: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers: { Accept: 'application/json', ...(payload ? { 'Content-Type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(payload);
  });
  const stop = async () => {
    await server.stop();
    await etcd?.stop();
    agent.destroy();
  };
  while ((await call('GET', '/readyz')).status !== 200) await new Promise((r) => setTimeout(r, 5));
  const startMs = performance.now() - t0;
  console.log(`cold start to /readyz ok: ${ms(startMs)} (target <= 1000 ms)`);
  await new Promise((r) => setTimeout(r, 1000));
  console.log(`idle RSS: ${rssMB(server.pid).toFixed(1)} MB (target <= 100 MB)`);

  await call('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
  const { target, pid } = server;
  if (ONLY !== 'patch') {
    const creates = await measured(pid, OBJECTS, () => runLoad(target, CONCURRENCY, OBJECTS, (i) => ({
      method: 'POST', path: '/api/v1/namespaces/bench/configmaps', expect: 201,
      body: JSON.stringify({ metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { key: `value-${i}` } }),
    })));
    console.log(`create ${OBJECTS} configmaps at concurrency ${CONCURRENCY}: ${(OBJECTS / creates.seconds).toFixed(0)} creates/s (target >= 5000), p50 ${ms(pct(creates.lat, 50))}, p99 ${ms(pct(creates.lat, 99))} (target <= 25 ms); ${creates.cpu}`);

    const gets = await measured(pid, OBJECTS, () => runLoad(target, CONCURRENCY, OBJECTS, (i) => ({ method: 'GET', path: `/api/v1/namespaces/bench/configmaps/cm-${i}`, expect: 200 })));
    console.log(`GET at concurrency ${CONCURRENCY}: ${(OBJECTS / gets.seconds).toFixed(0)} gets/s, p50 ${ms(pct(gets.lat, 50))}, p99 ${ms(pct(gets.lat, 99))}; ${gets.cpu}`);
    if (ONLY === 'get') return stop();

    await runLoad(target, CONCURRENCY, OBJECTS, (i) => ({
      method: 'POST', path: '/api/v1/namespaces/bench/pods', expect: 201,
      body: JSON.stringify({ metadata: { name: `pod-${i}`, labels: { app: 'bench' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] } }),
    }));
  }
  // Strategic merge patches of 3-container Deployments, as `kubectl apply` sends them.
  const DEPLOYMENTS = 1000;
  const containers = ['web', 'sidecar', 'metrics'].map((name) => ({ name, image: `nginx:1.25`, env: [{ name: 'N', value: '0' }] }));
  await runLoad(target, CONCURRENCY, DEPLOYMENTS, (i) => ({
    method: 'POST', path: '/apis/apps/v1/namespaces/bench/deployments', expect: 201,
    body: JSON.stringify({ metadata: { name: `d-${i}` }, spec: { replicas: 1, selector: { matchLabels: { app: `d-${i}` } },
      template: { metadata: { labels: { app: `d-${i}` } }, spec: { containers } } } }),
  }));
  const patch = (i: number) => ({
    method: 'PATCH', path: `/apis/apps/v1/namespaces/bench/deployments/d-${i % DEPLOYMENTS}`, expect: 200,
    contentType: 'application/strategic-merge-patch+json',
    body: JSON.stringify({ spec: { template: { spec: {
      '$setElementOrder/containers': containers.map((c) => ({ name: c.name })),
      containers: [{ name: 'sidecar', image: `nginx:1.${26 + (i % 3)}`, env: [{ name: 'N', value: String(i) }] }],
    } } } }),
  });
  // A server that just started runs its patch path unoptimized at first (V8 compiles the hot functions
  // over the first seconds): those patches are measured apart, the figure is of the steady state.
  const WARMUP = Number(process.env.BENCH_PATCH_WARMUP ?? 5000);
  if (WARMUP > 0) {
    const warm = await measured(pid, WARMUP, () => runLoad(target, CONCURRENCY, WARMUP, (i) => patch(OBJECTS + i)));
    console.log(`PATCH warm-up, the first ${WARMUP} patches after start: ${(WARMUP / warm.seconds).toFixed(0)} patches/s, p50 ${ms(pct(warm.lat, 50))}, p99 ${ms(pct(warm.lat, 99))}; ${warm.cpu}`);
  }
  const patches = await measured(pid, OBJECTS, () => runLoad(target, CONCURRENCY, OBJECTS, patch));
  console.log(`PATCH (strategic merge) of 3-container Deployments at concurrency ${CONCURRENCY}: ${(OBJECTS / patches.seconds).toFixed(0)} patches/s, p50 ${ms(pct(patches.lat, 50))}, p99 ${ms(pct(patches.lat, 99))} (target <= 25 ms); ${patches.cpu}`);
  // BENCH_TRACE=1: latency by half second of the run, to see where the tail comes from (warm-up, pauses).
  if (process.env.BENCH_TRACE) {
    for (let w = 0; w * 500 < patches.seconds * 1000; w++) {
      const win = patches.series.filter((x) => x.at >= w * 500 && x.at < (w + 1) * 500).map((x) => x.ms).sort((a, b) => a - b);
      if (win.length) console.log(`  ${(w * 0.5).toFixed(1)}s: ${win.length} done, p50 ${ms(pct(win, 50))}, p99 ${ms(pct(win, 99))}, max ${ms(pct(win, 100))}`);
    }
  }
  if (ONLY === 'patch') return stop();

  const listConn = await Connection.open(target);
  const lists: number[] = [];
  let listBytes = 0;
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    const r = await listConn.request('GET', '/api/v1/namespaces/bench/pods');
    lists.push(performance.now() - s);
    listBytes = r.body.length;
    if (JSON.parse(r.body).items.length !== OBJECTS) throw new Error('short list');
  }
  listConn.close();
  lists.sort((x, y) => x - y);
  console.log(`LIST ${OBJECTS} pods (JSON, ${(listBytes / 1e6).toFixed(1)} MB): median ${ms(pct(lists, 50))}, max ${ms(pct(lists, 100))} (target <= 300 ms)`);

  // Watch latency: from sending a write to receiving its event.
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const WRITES = 1000;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => { resolveDone = r; });
  const watchReq = request({ host: '127.0.0.1', port, agent: new Agent({ ...agent.options, keepAlive: false }), path: '/api/v1/namespaces/bench/configmaps?watch=true&resourceVersion=' +
    JSON.parse((await call('GET', '/api/v1/namespaces/bench/configmaps?limit=1')).text).metadata.resourceVersion }, (res) => {
    let buf = '';
    res.on('data', (d) => {
      const now = performance.now();
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const ev = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        const s = sentAt.get(ev.object.metadata.name);
        if (s !== undefined) { latencies.push(now - s); if (latencies.length === WRITES) resolveDone(); }
      }
    });
  });
  watchReq.end();
  await new Promise((r) => setTimeout(r, 300));
  for (let i = 0; i < WRITES; i++) {
    const name = `w-${i}`;
    sentAt.set(name, performance.now());
    await call('POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name } });
  }
  await done;
  watchReq.destroy();
  latencies.sort((x, y) => x - y);
  console.log(`watch write sent → event received: p50 ${ms(pct(latencies, 50))}, p99 ${ms(pct(latencies, 99))} (target commit→event <= 10 ms)`);
  console.log(`RSS after ${OBJECTS * 2} objects: ${rssMB(server.pid).toFixed(1)} MB`);
  await stop();
}

main().catch((e) => { console.error(e); process.exit(1); });
