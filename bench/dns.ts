/**
 * Cluster DNS figures: queries/s over UDP. The server is `winkube up
 * --api-only --dns-port 0` in-process with 1,000 ClusterIP Services and 100
 * headless ones (3 ready endpoints each) created through the Store; the load
 * comes from a worker thread (its own event loop, as a separate client would
 * be): BENCH_SOCKETS sockets, each with BENCH_WINDOW queries in flight, for
 * BENCH_QUERIES queries in all, cycling through Service A, headless A, SRV
 * and NXDOMAIN names. A query unanswered within a second is sent again and
 * counted as lost.
 * Run: npm run bench:dns  (BENCH_QUERIES, BENCH_SOCKETS, BENCH_WINDOW to change sizes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { startCluster } from '../src/cluster/start.js';
import { inProcessWriteContext } from '../src/apimachinery/write-context.js';
import type { DNSLoadResult } from './dns-load.js';

const QUERIES = Number(process.env.BENCH_QUERIES ?? 100_000);
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 4);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 64);
const SERVICES = 1000;
const HEADLESS = 100;

const dataDir = mkdtempSync(join(tmpdir(), 'winkube-bench-dns-'));
const cluster = await startCluster({ port: 0, dataDir, bindAddress: '127.0.0.1', nodePools: [], log: () => {}, apiOnly: true, dnsPort: 0 });
try {
  const store = cluster.store;
  const servicesDef = store.find('', 'v1', 'services')!;
  const slicesDef = store.find('discovery.k8s.io', 'v1', 'endpointslices')!;
  const ctx = { ...inProcessWriteContext('bench'), namespace: 'default' };
  for (let i = 0; i < SERVICES; i++) {
    await store.create(servicesDef, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: `svc-${i}` }, spec: { ports: [{ name: 'http', port: 80 }] } }, ctx);
  }
  for (let i = 0; i < HEADLESS; i++) {
    await store.create(servicesDef, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: `hl-${i}` }, spec: { clusterIP: 'None', ports: [{ name: 'http', port: 80 }] } }, ctx);
    await store.create(slicesDef, 'default', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `hl-${i}-x`, labels: { 'kubernetes.io/service-name': `hl-${i}` } },
      addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: [1, 2, 3].map((n) => ({ addresses: [`10.244.${n}.${(i % 250) + 1}`], conditions: { ready: true } })),
    }, ctx);
  }
  // Let the DNS server's informers see the last writes.
  await new Promise((r) => setTimeout(r, 500));
  const names: [string, number][] = [];
  for (let i = 0; i < 64; i++) {
    names.push([`svc-${(i * 37) % SERVICES}.default.svc.cluster.local.`, 1]);
    names.push([`hl-${i % HEADLESS}.default.svc.cluster.local.`, 1]);
    names.push([`_http._tcp.svc-${i}.default.svc.cluster.local.`, 33]);
    names.push([`missing-${i}.default.svc.cluster.local.`, 1]);
  }
  const worker = new Worker(fileURLToPath(new URL('./dns-load.js', import.meta.url)), {
    workerData: { port: cluster.dnsPort, queries: QUERIES, sockets: SOCKETS, window: WINDOW, names },
  });
  const result = await new Promise<DNSLoadResult>((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  console.log(`DNS over UDP: ${result.answered} queries answered in ${(result.ms / 1000).toFixed(2)} s: ${Math.round(result.answered / (result.ms / 1000))} queries/s `
    + `(${SOCKETS} sockets x ${WINDOW} in flight; ${result.lost} lost and re-sent; rcodes ${JSON.stringify(result.rcodes)})`);
  await worker.terminate();
} finally {
  await cluster.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
