/**
 * Traffic model figures: pod → Service connections/s, each a TCP connect
 * through the client node's kube-proxy rules and one HTTP exchange with the
 * listening backend. The model is the cluster network fed with objects, as
 * the kubelets' informer caches feed it (no API server: the figure is the
 * data plane's own cost): BENCH_NODES nodes (every fourth Windows Server
 * 2022), 5,000 pods, BENCH_SERVICES Services over 16 of them each. Clients
 * and Services are drawn at random; a second run changes an EndpointSlice
 * every 100 connections, so the indexes are rebuilt as a busy cluster
 * rebuilds them.
 * Run: npm run bench:traffic  (BENCH_CONNECTIONS, BENCH_PODS, BENCH_NODES, BENCH_SERVICES to change sizes).
 */
import type { KObject } from '../src/apimachinery/object.js';
import { ClusterNetwork } from '../src/node/net/cluster-network.js';
import { Pending } from '../src/node/shell/pending.js';
import type { HttpResponse } from '../src/node/shell/net-types.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 200_000);
const PODS = Number(process.env.BENCH_PODS ?? 5000);
const NODES = Number(process.env.BENCH_NODES ?? 50);
const SERVICES = Number(process.env.BENCH_SERVICES ?? 300);
const PER_SERVICE = 16;

// A deterministic generator, so runs draw the same clients and Services.
let seed = 42;
const random = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };

const nodes: KObject[] = [];
for (let n = 0; n < NODES; n++) {
  const windows = n % 4 === 3;
  nodes.push({
    apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${n}` }, spec: { podCIDR: `10.244.${n}.0/24` },
    status: {
      addresses: [{ type: 'InternalIP', address: `172.18.0.${n + 2}` }],
      nodeInfo: { operatingSystem: windows ? 'windows' : 'linux', kernelVersion: windows ? '10.0.20348.2700' : '5.15.0-1-amd64' },
    },
  });
}
const podIP = (i: number) => `10.244.${i % NODES}.${3 + Math.floor(i / NODES)}`;
const services: KObject[] = [];
const slices: KObject[] = [];
for (let s = 0; s < SERVICES; s++) {
  services.push({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: `svc-${s}` },
    spec: { type: 'ClusterIP', clusterIP: `10.96.${1 + (s >> 8)}.${s & 255}`, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } });
  const endpoints = Array.from({ length: PER_SERVICE }, (_, k) => {
    const i = (s * PER_SERVICE + k) % PODS;
    return { addresses: [podIP(i)], nodeName: `node-${i % NODES}`, conditions: { ready: true, serving: true, terminating: false } };
  });
  slices.push({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: 'default', name: `svc-${s}-abc`, labels: { 'kubernetes.io/service-name': `svc-${s}` } },
    addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }], endpoints });
}

let changed: () => void = () => {};
const net = new ClusterNetwork({
  services: () => services,
  service: (ns, name) => services.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
  endpointSlices: () => slices,
  nodes: () => nodes,
  podNetwork: () => ({ plugin: 'flannel', mode: 'overlay' }),
  onChange: (listener) => { changed = listener; },
}, random);
let served = 0;
const ok: HttpResponse = { status: 200, reason: 'OK', headers: [], body: new Uint8Array() };
for (let i = 0; i < PODS; i++) {
  net.attach(podIP(i), { namespace: 'default', name: `pod-${i}`, node: `node-${i % NODES}` });
  net.listen(podIP(i), 8080, 'TCP', () => { served++; return Pending.of(ok); });
}
const request = { method: 'GET', target: '/', headers: [], body: new Uint8Array() };

function run(churnEvery: number): { perSecond: number; failed: number } {
  let failed = 0;
  const start = performance.now();
  for (let c = 0; c < CONNECTIONS; c++) {
    if (churnEvery && c % churnEvery === 0) changed();
    const from = podIP(Math.floor(random() * PODS));
    const svc = services[Math.floor(random() * SERVICES)]!;
    const conn = net.connect(from, String((svc.spec as { clusterIP: string }).clusterIP), 80);
    if (conn.kind !== 'connected') { failed++; continue; }
    conn.exchange(request);
  }
  const seconds = (performance.now() - start) / 1000;
  return { perSecond: CONNECTIONS / seconds, failed };
}

run(0); // warm-up
for (const [label, churn] of [['steady', 0], ['EndpointSlice change every 100 connections', 100]] as const) {
  served = 0;
  const r = run(churn);
  console.log(`traffic (${label}): ${Math.round(r.perSecond).toLocaleString('en-US')} pod→Service connections/s `
    + `(${PODS} pods, ${NODES} nodes, ${SERVICES} Services × ${PER_SERVICE} endpoints; ${served} exchanges served, ${r.failed} failed)`);
}
