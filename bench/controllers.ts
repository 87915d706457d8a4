/**
 * Workload controller figures: 1,000 Deployments × 3 replicas created at
 * once on a cluster of 1,000 Linux nodes; time until every ReplicaSet and
 * pod exists, and until every Deployment is Available (which needs the
 * scheduler and the kubelet to bind, run and ready the pods); Deployments/s.
 * Run: npm run bench:controllers. BENCH_DEPLOYMENTS / BENCH_NODES change the sizes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Connection, runLoad } from './load.js';
import { startServer } from './server.js';

const DEPLOYMENTS = Number(process.env.BENCH_DEPLOYMENTS ?? 1000);
const NODES = Number(process.env.BENCH_NODES ?? 1000);
const REPLICAS = 3;
const CONCURRENCY = 32;
/** How long to wait for availability once every pod exists and nothing becomes available. */
const STALL_MS = Number(process.env.BENCH_STALL_MS ?? 15_000);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 300_000);

/** CPU seconds (user + system) a process has used, from /proc (independent of other load on the machine). */
function cpuSeconds(pid: number): number {
  // The fields after the command name, which ends with ") ".
  const [, afterName = ''] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ');
  const f = afterName.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** What a write changed: created, deleted, or which top-level parts (metadata without resourceVersion/managedFields, spec, status). */
function writeKind(prev: string | null, value: string | null, deleted: number): string {
  if (deleted) return 'delete';
  if (prev === null) {
    const o = value ? JSON.parse(value) : {};
    // Events: who reported what.
    return o.kind === 'Event' ? `create ${o.reportingComponent || o.source?.component || ''} ${o.reason}` : 'create';
  }
  const a = JSON.parse(prev); const b = JSON.parse(value!);
  const meta = (o: any) => { const m = { ...o.metadata }; delete m.resourceVersion; delete m.managedFields; return JSON.stringify(m); };
  const parts: string[] = [];
  if (meta(a) !== meta(b)) parts.push('metadata');
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (k === 'metadata') continue;
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) parts.push(k);
  }
  return `update ${parts.join('+') || '(managedFields only)'}`;
}

/**
 * Every write from the first create to the end, from the storage's history
 * (kept five minutes), by resource and kind of change, per Deployment.
 */
function printWrites(dbFile: string, from: number, to: number): void {
  const db = new Database(dbFile, { readonly: true });
  const rows = db.prepare('SELECT l.key, l.deleted, l.value, p.value AS prev_value FROM log l LEFT JOIN log p ON p.rev = l.prev_rev WHERE l.rev > ? AND l.rev <= ? ORDER BY l.rev').all(from, to) as { key: string; deleted: number; value: string | null; prev_value: string | null }[];
  db.close();
  const counts = new Map<string, number>();
  for (const r of rows) {
    // The key without the name, and without the namespace for the namespaces here.
    const parts = r.key.split('/').slice(0, -1);
    if (['bench', 'kube-system', 'kube-node-lease', 'default', 'kube-public'].includes(parts.at(-1) ?? '')) parts.pop();
    const resource = parts.join('/');
    const k = `${resource.padEnd(40)} ${writeKind(r.prev_value, r.value, r.deleted)}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  console.log(`writes from the first create to the end: ${to - from} revisions, ${rows.length} in the history (${((to - from) / DEPLOYMENTS).toFixed(1)} per Deployment)`);
  for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(7)}  ${(n / DEPLOYMENTS).toFixed(2).padStart(6)}/Deployment  ${k}`);
}

interface Progress { replicaSets: number; podsCounted: number; available: number }

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'winkube-bench-ctl-'));
  const clusterFile = join(dataDir, 'cluster.yaml');
  // A /24 of pod addresses per node: 10.244.0.0/16 holds 256 nodes, so a wider subnet.
  writeFileSync(clusterFile, `apiVersion: winkube.io/v1alpha1\nkind: Cluster\nnetwork: { podSubnet: 10.128.0.0/9 }\nnodePools:\n- name: linux\n  os: linux\n  count: ${NODES}\n  maxPods: 110\n`);
  // BENCH_SERVER_ARGS: extra node flags for the server (e.g. --cpu-prof).
  const nodeArgs = process.env.BENCH_SERVER_ARGS ? process.env.BENCH_SERVER_ARGS.split(' ') : [];
  // BENCH_UP_ARGS: extra `winkube up` flags (e.g. --authorization-mode AlwaysAllow, to measure what authorization costs).
  const upArgs = process.env.BENCH_UP_ARGS ? process.env.BENCH_UP_ARGS.split(' ') : [];
  const server = await startServer({ upArgs: ['--config', clusterFile, ...upArgs], nodeArgs, dataDir });
  const { target } = server;
  const conn = await Connection.open(target);
  const get = async (path: string) => {
    const r = await conn.request('GET', path);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body.slice(0, 200)}`);
    return JSON.parse(r.body);
  };
  while ((await conn.request('GET', '/readyz')).status !== 200) await sleep(20);
  const nodes = (await get('/api/v1/nodes')).items.length;
  await conn.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'bench' } }));
  // Pods need the namespace's default service account, which the service account controller creates.
  while ((await conn.request('GET', '/api/v1/namespaces/bench/serviceaccounts/default')).status !== 200) await sleep(20);
  // The system DaemonSets (kube-proxy, the CNI) put a pod on every node at start-up: the clock starts once
  // they have all been created and no kube-system pod changed for a second, so that the figures are the
  // Deployments' and not the cluster's bootstrap.
  const settleStart = performance.now();
  const settleCpu0 = cpuSeconds(server.pid);
  let dsPods = 0;
  let versions = '';
  while (performance.now() - settleStart < TIMEOUT_MS) {
    const dss = (await get('/apis/apps/v1/namespaces/kube-system/daemonsets')).items;
    dsPods = dss.reduce((n: number, d: any) => n + (d.status?.desiredNumberScheduled ?? 0), 0);
    const created = dss.every((d: any) => d.status?.observedGeneration === d.metadata.generation && d.status?.currentNumberScheduled === d.status?.desiredNumberScheduled);
    const pods = (await get('/api/v1/namespaces/kube-system/pods')).items;
    const now = pods.map((p: any) => p.metadata.resourceVersion).join(',');
    if (created && now === versions) break;
    versions = now;
    await sleep(1000);
  }
  console.log(`cluster settled (${dsPods} system DaemonSet pods) in ${secs(performance.now() - settleStart)}, server CPU ${(cpuSeconds(server.pid) - settleCpu0).toFixed(1)} s`);
  const startRevision = Number((await get('/api/v1/namespaces')).metadata.resourceVersion);

  let replicaSets = 0;
  const progress = async (): Promise<Progress> => {
    // Listing costs the server CPU that the figures include: ReplicaSets only until they all exist.
    if (replicaSets < DEPLOYMENTS) replicaSets = (await get('/apis/apps/v1/namespaces/bench/replicasets')).items.length;
    const ds = await get('/apis/apps/v1/namespaces/bench/deployments');
    let podsCounted = 0;
    let available = 0;
    for (const d of ds.items) {
      podsCounted += d.status?.replicas ?? 0;
      const cond = (d.status?.conditions ?? []).find((c: any) => c.type === 'Available');
      if (cond?.status === 'True' && d.status?.availableReplicas === REPLICAS) available++;
    }
    return { replicaSets, podsCounted, available };
  };

  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  const mono0 = process.hrtime.bigint() / 1000n;
  const creates = await runLoad(target, CONCURRENCY, DEPLOYMENTS, (i) => ({
    method: 'POST', path: '/apis/apps/v1/namespaces/bench/deployments', expect: 201,
    body: JSON.stringify({
      metadata: { name: `d-${i}` },
      spec: {
        replicas: REPLICAS, selector: { matchLabels: { app: `d-${i}` } },
        template: { metadata: { labels: { app: `d-${i}` } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
      },
    }),
  }));
  console.log(`nodes: ${nodes}; created ${DEPLOYMENTS} Deployments × ${REPLICAS} in ${secs(creates.seconds * 1000)}`);

  let allRS: number | undefined;
  let allPods: number | undefined;
  let allAvailable: number | undefined;
  let lastAvailable = -1;
  let lastChange = performance.now();
  let p: Progress = { replicaSets: 0, podsCounted: 0, available: 0 };
  while (performance.now() - t0 < TIMEOUT_MS) {
    p = await progress();
    const now = performance.now();
    if (allRS === undefined && p.replicaSets >= DEPLOYMENTS) allRS = now - t0;
    if (allPods === undefined && p.podsCounted >= DEPLOYMENTS * REPLICAS) allPods = now - t0;
    if (p.available >= DEPLOYMENTS) { allAvailable = now - t0; break; }
    if (p.available !== lastAvailable || now - t0 < STALL_MS) { lastAvailable = p.available; lastChange = now; }
    if (allPods !== undefined && now - lastChange > STALL_MS) break;
    // Polling lists costs the server CPU too: not too often.
    await sleep(500);
  }
  const cpu = cpuSeconds(server.pid) - cpu0;
  // The same clock as a --cpu-prof profile's sample times (CLOCK_MONOTONIC, µs): to look at this window only.
  if (nodeArgs.length) console.log(`measured window, monotonic µs: ${mono0} ${process.hrtime.bigint() / 1000n}`);
  const rate = (ms: number | undefined) => (ms === undefined ? 'not reached' : `${secs(ms)} (${(DEPLOYMENTS / (ms / 1000)).toFixed(0)} Deployments/s)`);
  console.log(`all ${DEPLOYMENTS} ReplicaSets created: ${rate(allRS)}`);
  console.log(`all ${DEPLOYMENTS * REPLICAS} pods created and counted in Deployment status: ${rate(allPods)}`);
  if (allAvailable !== undefined) {
    console.log(`all ${DEPLOYMENTS} Deployments Available: ${rate(allAvailable)} (target >= 100 Deployments/s)`);
  } else {
    console.log(`Deployments Available: ${p.available}/${DEPLOYMENTS} after ${secs(performance.now() - t0)} — availability needs the scheduler and the kubelet to run pods Ready`);
  }
  console.log(`server CPU from the first create to the end: ${cpu.toFixed(1)} s (${((cpu * 1000) / DEPLOYMENTS).toFixed(1)} ms per Deployment, load-independent)`);
  const endRevision = Number((await get('/api/v1/namespaces')).metadata.resourceVersion);
  conn.close();
  await server.stop(() => printWrites(join(dataDir, 'state.db'), startRevision, endRevision));
}

main().catch((e) => { console.error(e); process.exit(1); });
