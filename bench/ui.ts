/**
 * The web view's speed in real headless Chromium (playwright-core, Debian's /usr/bin/chromium, as the e2e tests
 * drive it) against a real `winkube up`:
 *  1. the default cluster: first contentful paint of /ui/ and the time until its map is drawn (target < 1 s);
 *  2. BENCH_UI_NODES nodes and BENCH_UI_PODS pods: the time until the map is drawn (target < 3 s), then
 *  3. a stream of BENCH_UI_UPDATES pod status updates (BENCH_UI_RATE a second): the time per update batch, from
 *     applying the batch to the map's commit and to the next frame (the page's `winkube:watch-batch` marks).
 * The big cluster's nodes are created through the API without kubelets (the node farm runs the default pools
 * only); its pods are created bound to them (spec.nodeName), tolerating every taint and without a service account
 * token volume. The DaemonSet and node lifecycle controllers are off so that nothing adds pods to, or evicts
 * pods from, nodes with no kubelet. Times are from navigation start, medians over BENCH_UI_RUNS page loads.
 * Run: npm run build && npm run bench:ui
 * Env: BENCH_UI_RUNS=5, BENCH_UI_NODES=5000, BENCH_UI_PODS=50000, BENCH_UI_UPDATES=2000, BENCH_UI_RATE=200,
 *      BENCH_UI_PARTS=default,big (a subset to run).
 */
import { Agent, request } from 'node:https';
import { chromium, type Browser } from 'playwright-core';
import { startServer, type BenchServer } from './server.js';

const RUNS = Number(process.env.BENCH_UI_RUNS ?? 5);
const NODES = Number(process.env.BENCH_UI_NODES ?? 5000);
const PODS = Number(process.env.BENCH_UI_PODS ?? 50000);
const UPDATES = Number(process.env.BENCH_UI_UPDATES ?? 2000);
const RATE = Number(process.env.BENCH_UI_RATE ?? 200);
const PARTS = new Set((process.env.BENCH_UI_PARTS ?? 'default,big').split(','));
const IN_FLIGHT = 32;
const NAMESPACES = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)] ?? NaN; };
const pct = (xs: number[], p: number): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN; };
const ms = (n: number) => `${n.toFixed(0)} ms`;

interface Api { call(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; body: string }> }

function api(server: BenchServer): Api {
  const { port, ca, cert, key } = server.target;
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT, ca, cert, key });
  return {
    call: (method, path, body, contentType = 'application/json') => new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = request({ host: '127.0.0.1', port, method, path, agent, headers: data ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(data) } : {} }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(data);
    }),
  };
}

/** Runs `work` for each item with IN_FLIGHT at a time; a request the server refuses stops the benchmark. */
async function each<T>(items: readonly T[], work: (item: T) => Promise<{ status: number; body: string }>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      const res = await work(item);
      if (res.status >= 300) throw new Error(`${res.status}: ${res.body.slice(0, 300)}`);
    }
  }));
}

async function uiLink(server: BenchServer): Promise<string> {
  for (;;) {
    const link = /^web view: (\S+)$/m.exec(server.output())?.[1];
    if (link) return link;
    await sleep(100);
  }
}

async function untilNodesReady(client: Api, count: number): Promise<void> {
  for (;;) {
    const list = JSON.parse((await client.call('GET', '/api/v1/nodes')).body) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] };
    const ready = list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
    if (ready >= count) return;
    await sleep(500);
  }
}

/**
 * Loads the page and returns, from navigation start, the first contentful paint and the first frame after the map
 * showed `nodes` nodes and `pods` pods in its summary with node cards drawn.
 */
interface PageLoad { fcp: number; map: number; podsList: { start: number; end: number; bytes: number }; nodesListEnd: number }

async function loadMap(browser: Browser, link: string, nodes: number, pods: number): Promise<PageLoad> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(({ nodes: n, pods: p }) => {
    const w = window as unknown as { mapDrawn?: number };
    const observer = new MutationObserver(() => {
      const summary = document.querySelector('.summary')?.textContent ?? '';
      const m = /^(\d+) nodes, (\d+) pods$/.exec(summary);
      if (!m || Number(m[1]) < n || Number(m[2]) < p || !document.querySelector('article.node')) return;
      observer.disconnect();
      requestAnimationFrame(() => { w.mapDrawn = performance.now(); });
    });
    observer.observe(document, { subtree: true, childList: true, characterData: true });
  }, { nodes, pods });
  await page.goto(link);
  await page.waitForFunction(() => (window as unknown as { mapDrawn?: number }).mapDrawn !== undefined, undefined, { timeout: 120_000, polling: 50 });
  const result = await page.evaluate(() => {
    // The lists' (not the watches') responses: when the server started and finished sending them.
    const list = (path: string) => (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .find((e) => new URL(e.name).pathname === path && !e.name.includes('watch='));
    const pods = list('/api/v1/pods');
    const nodes = list('/api/v1/nodes');
    return {
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      map: (window as unknown as { mapDrawn: number }).mapDrawn,
      podsList: { start: pods?.responseStart ?? NaN, end: pods?.responseEnd ?? NaN, bytes: pods?.encodedBodySize ?? NaN },
      nodesListEnd: nodes?.responseEnd ?? NaN,
    };
  });
  await context.close();
  return result;
}

async function pageLoads(browser: Browser, link: string, nodes: number, pods: number, label: string): Promise<void> {
  const runs: PageLoad[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await loadMap(browser, link, nodes, pods));
  console.log(`${label}: first contentful paint median ${ms(median(runs.map((r) => r.fcp)))}, map drawn median ${ms(median(runs.map((r) => r.map)))}` +
    ` (runs, fcp/map: ${runs.map((r) => `${r.fcp.toFixed(0)}/${r.map.toFixed(0)}`).join(', ')} ms)`);
  console.log(`  the pods list (${(median(runs.map((r) => r.podsList.bytes)) / 1048576).toFixed(1)} MiB): first byte median ${ms(median(runs.map((r) => r.podsList.start)))},` +
    ` last byte median ${ms(median(runs.map((r) => r.podsList.end)))}; nodes list done median ${ms(median(runs.map((r) => r.nodesListEnd)))};` +
    ` from the later list's end to the map drawn median ${ms(median(runs.map((r) => r.map - Math.max(r.podsList.end, r.nodesListEnd))))}`);
}

async function defaultCluster(browser: Browser): Promise<void> {
  const server = await startServer({ upArgs: [] });
  try {
    const client = api(server);
    await untilNodesReady(client, 6);
    const pods = (JSON.parse((await client.call('GET', '/api/v1/pods')).body) as { items: unknown[] }).items.length;
    await pageLoads(browser, await uiLink(server), 6, pods, `default cluster (6 nodes, ${pods} pods)`);
  } finally { await server.stop(); }
}

function bigNode(i: number): { name: string; labels: Record<string, string> } {
  const windows = Math.round(NODES / 5);
  if (i < NODES - windows) return { name: `big-linux-${String(i).padStart(4, '0')}`, labels: { 'kubernetes.io/os': 'linux' } };
  const ltsc2019 = i < NODES - windows / 2;
  return {
    name: `big-win${ltsc2019 ? '2019' : '2022'}-${String(i).padStart(4, '0')}`,
    labels: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': ltsc2019 ? '10.0.17763' : '10.0.20348' },
  };
}

function bigPod(k: number): { namespace: string; body: unknown } {
  const node = bigNode(k % NODES);
  const name = `${node.name}-pod-${Math.floor(k / NODES)}`;
  const namespace = `bench-${k % NAMESPACES}`;
  const windows = node.labels['kubernetes.io/os'] === 'windows';
  return {
    namespace,
    body: {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name, namespace, labels: { app: `app-${k % 50}` } },
      spec: {
        nodeName: node.name, automountServiceAccountToken: false, tolerations: [{ operator: 'Exists' }],
        containers: [{ name: 'app', image: windows ? 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' : 'nginx:1.27',
          resources: { requests: { cpu: '100m', memory: '128Mi' } } }],
      },
    },
  };
}

async function bigCluster(browser: Browser): Promise<void> {
  const server = await startServer({ upArgs: ['--controllers', '*,-daemonset-controller,-node-lifecycle-controller'] });
  try {
    const client = api(server);
    await untilNodesReady(client, 6);
    const started = Date.now();
    await each(Array.from({ length: NODES }, (_, i) => i), (i) => {
      const { name, labels } = bigNode(i);
      return client.call('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
    });
    await each(Array.from({ length: NAMESPACES }, (_, i) => i), (i) => client.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `bench-${i}` } }));
    await each(Array.from({ length: PODS }, (_, k) => k), (k) => {
      const { namespace, body } = bigPod(k);
      return client.call('POST', `/api/v1/namespaces/${namespace}/pods`, body);
    });
    console.log(`created ${NODES} nodes and ${PODS} pods through the API in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const nodes = (JSON.parse((await client.call('GET', '/api/v1/nodes')).body) as { items: unknown[] }).items.length;
    const pods = (JSON.parse((await client.call('GET', '/api/v1/pods')).body) as { items: unknown[] }).items.length;
    const link = await uiLink(server);
    await pageLoads(browser, link, nodes, pods, `big cluster (${nodes} nodes, ${pods} pods)`);
    await updateStream(browser, client, link, nodes, pods);
  } finally { await server.stop(); }
}

interface BatchMeasure { commit: number; painted: number; events: number }

/** Marks PODS pods Running, spread over the nodes, at RATE a second, with the map open; the page's batch marks. */
async function updateStream(browser: Browser, client: Api, link: string, nodes: number, pods: number): Promise<void> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(link);
  await page.waitForFunction(({ n, p }) => document.querySelector('.summary')?.textContent === `${n} nodes, ${p} pods`, { n: nodes, p: pods }, { timeout: 120_000, polling: 100 });
  await page.evaluate(() => performance.clearMeasures());
  const started = Date.now();
  await each(Array.from({ length: UPDATES }, (_, i) => i), async (i) => {
    const due = started + (i * 1000) / RATE;
    if (due > Date.now()) await sleep(due - Date.now());
    const { namespace, body } = bigPod(i * Math.floor(PODS / UPDATES));
    const name = (body as { metadata: { name: string } }).metadata.name;
    return client.call('PATCH', `/api/v1/namespaces/${namespace}/pods/${name}/status`, { status: { phase: 'Running' } }, 'application/merge-patch+json');
  });
  const sent = (Date.now() - started) / 1000;
  await sleep(2000);
  const batches = await page.evaluate(() => {
    const commits = performance.getEntriesByName('winkube:watch-batch') as PerformanceMeasure[];
    const painted = performance.getEntriesByName('winkube:watch-batch-painted') as PerformanceMeasure[];
    return commits.map((c, i) => ({ commit: c.duration, painted: painted[i]?.duration ?? NaN, events: (c.detail as { events?: number } | null)?.events ?? NaN }));
  }) as BatchMeasure[];
  await context.close();
  const podBatches = batches.filter((b) => b.events > 0);
  console.log(`update stream: ${UPDATES} pod status updates in ${sent.toFixed(1)} s, ${podBatches.length} batches (median ${median(podBatches.map((b) => b.events))} events a batch)`);
  console.log(`  per batch, to commit: median ${ms(median(podBatches.map((b) => b.commit)))}, p95 ${ms(pct(podBatches.map((b) => b.commit), 95))}, max ${ms(pct(podBatches.map((b) => b.commit), 100))}`);
  console.log(`  per batch, to the next frame: median ${ms(median(podBatches.map((b) => b.painted)))}, p95 ${ms(pct(podBatches.map((b) => b.painted), 95))}, max ${ms(pct(podBatches.map((b) => b.painted), 100))}`);
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true,
  args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
try {
  if (PARTS.has('default')) await defaultCluster(browser);
  if (PARTS.has('big')) await bigCluster(browser);
} finally { await browser.close(); }
