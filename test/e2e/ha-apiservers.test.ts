/**
 * Two `winkube up --storage etcd` processes on one real etcd member and one data directory (the
 * second on 127.0.0.2, the same port) serve one cluster: kubectl on either sees the other's
 * writes and watches; the controllers, the scheduler and the emulated nodes run once, in the
 * leases' holder; `kill -9` of that server moves every lease to the other, which keeps
 * reconciling; the `kubernetes` Endpoints list the live servers. Leases and the endpoint
 * reconciler's TTL are shortened through the WINKUBE_ variables.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, kubectl, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { startEtcd, type EtcdServer } from '../helpers/etcd-server.js';
import { WINKUBE_MAIN } from '../helpers/winkube-cli.js';

Object.assign(process.env, {
  WINKUBE_LEADER_ELECT_LEASE_DURATION: '6s', WINKUBE_LEADER_ELECT_RENEW_DEADLINE: '4s', WINKUBE_LEADER_ELECT_RETRY_PERIOD: '500ms',
  WINKUBE_ENDPOINT_RECONCILER_TTL: '4s', WINKUBE_ENDPOINT_INTERVAL: '500ms',
});

const dataDir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
let etcd: EtcdServer;
let a: TestCluster;
let b: TestCluster;

before(async () => {
  etcd = await startEtcd();
  const storage = ['--storage', 'etcd', '--etcd-servers', etcd.url];
  a = await startCluster(dataDir, storage);
  b = await startCluster(dataDir, [...storage, '--port', String(a.port), '--bind-address', '127.0.0.2']);
});
after(async () => {
  await a?.stop('SIGKILL');
  await b?.stop();
  await etcd?.stop();
  removeDir(dataDir);
});

const server = (c: TestCluster) => `https://${c === a ? '127.0.0.1' : '127.0.0.2'}:${c.port}`;
/** kubectl against one server (the data directory's kubeconfig names the last one started). */
async function on(c: TestCluster, args: string[], input?: string): Promise<string> {
  const r = await kubectl(c, ['--server', server(c), ...args], input === undefined ? {} : { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} on ${server(c)} failed: ${r.stderr}`);
  return r.stdout;
}
const holder = (c: TestCluster, lease: string) => on(c, ['get', 'lease', '-n', 'kube-system', lease, '-o', 'jsonpath={.spec.holderIdentity}']);
const endpointsOf = (c: TestCluster) => on(c, ['get', 'endpoints', 'kubernetes', '-o', 'jsonpath={range .subsets[*].addresses[*]}{.ip} {end}{.subsets[*].ports[*].port}']);

function deployment(name: string, replicas: number): string {
  return JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] } },
    },
  });
}
/** The app's pods as `name node phase`, and its ReplicaSets, through the given server. */
async function podsOf(c: TestCluster, app: string): Promise<{ pods: string[]; replicaSets: string }> {
  const pods = (await on(c, ['get', 'pods', '-l', `app=${app}`, '-o', 'jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{"\\n"}{end}'])).split('\n').filter(Boolean);
  return { pods, replicaSets: await on(c, ['get', 'replicasets', '-l', `app=${app}`, '-o', 'name']) };
}
async function runningPods(c: TestCluster, app: string, n: number): Promise<string[] | undefined> {
  const { pods } = await podsOf(c, app);
  return pods.length === n && pods.every((p) => /^linux-\d+ Running$/.test(p)) ? pods : undefined;
}

test('either server sees the other\'s writes, and a watch on one sees writes through the other', async () => {
  const watch = spawn('kubectl', ['--kubeconfig', b.kubeconfig, '--server', server(b), 'get', 'configmaps', '-n', 'default', '--watch', '-o', 'name'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let watched = '';
  watch.stdout.on('data', (d: Buffer) => { watched += d.toString(); });
  try {
    await eventually('the watch on b to list', async () => (watched.includes('configmap/kube-root-ca.crt') ? true : undefined));
    assert.equal(await on(a, ['create', 'configmap', 'from-a', '--from-literal=k=1']), 'configmap/from-a created\n');
    assert.equal(await on(b, ['get', 'configmap', 'from-a', '-o', 'jsonpath={.data.k}']), '1');
    assert.equal(await on(b, ['create', 'configmap', 'from-b', '--from-literal=k=2']), 'configmap/from-b created\n');
    assert.equal(await on(a, ['get', 'configmap', 'from-b', '-o', 'jsonpath={.data.k}']), '2');
    await eventually('the watch on b to see both writes', async () => (watched.includes('configmap/from-b\n') ? true : undefined));
    assert.deepEqual(watched.split('\n').filter(Boolean), ['configmap/kube-root-ca.crt', 'configmap/from-a', 'configmap/from-b']);
  } finally {
    watch.kill();
  }
});

test('the kubernetes Endpoints and EndpointSlice list both servers', async () => {
  await eventually('both servers listed', async () => ((await endpointsOf(a)) === `127.0.0.1 127.0.0.2 ${a.port}` ? true : undefined));
  assert.equal(await on(b, ['get', 'endpointslice', 'kubernetes', '-o', 'jsonpath={.endpoints[*].addresses[*]}']), '127.0.0.1 127.0.0.2');
});

test('the first server leads; a Deployment created through it is reconciled once', async () => {
  const leases = await on(b, ['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', 'kube-scheduler', 'winkube-node-farm', '-o', 'jsonpath={range .items[*]}{.spec.holderIdentity}{"\\n"}{end}']);
  const holders = leases.split('\n').filter(Boolean);
  assert.equal(holders.length, 3);
  for (const h of holders) assert.match(h, /^[^_]+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  // Each lease's one LeaderElection event names its holder: the second server never became leader.
  const events = await on(a, ['get', 'events', '-n', 'kube-system', '--field-selector', 'reason=LeaderElection', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}']);
  assert.deepEqual(events.split('\n').filter(Boolean).sort(), holders.map((h) => `${h} became leader`).sort());
  const sources = await on(a, ['get', 'events', '-n', 'kube-system', '--field-selector', 'reason=LeaderElection',
    '-o', 'jsonpath={range .items[*]}{.involvedObject.kind}/{.involvedObject.name} {.source.component}{"\\n"}{end}']);
  assert.deepEqual(sources.split('\n').filter(Boolean).sort(),
    ['Lease/kube-controller-manager kube-controller-manager', 'Lease/kube-scheduler default-scheduler', 'Lease/winkube-node-farm winkube-node-farm']);
  assert.equal(await on(a, ['apply', '-f', '-'], deployment('once', 3)), 'deployment.apps/once created\n');
  await eventually('3 running pods', () => runningPods(b, 'once', 3), 40_000);
  const { replicaSets } = await podsOf(a, 'once');
  assert.equal(replicaSets.split('\n').filter(Boolean).length, 1);
  // One Scheduled event per pod: no pod was bound twice.
  const scheduled = await on(b, ['get', 'events', '--field-selector', 'reason=Scheduled', '-o', 'jsonpath={range .items[*]}{.involvedObject.name}{"\\n"}{end}']);
  const once = scheduled.split('\n').filter((n) => n.startsWith('once-'));
  assert.equal(once.length, 3);
  assert.equal(new Set(once).size, 3);
});

test('winkube node, through the server that does not run the nodes, is refused', async () => {
  // The data directory's kubeconfig names the server started last: b.
  const r = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [WINKUBE_MAIN, 'node', 'stop', 'linux-1', '--data-dir', dataDir], { env: { PATH: process.env.PATH ?? '' } },
      (err, _stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }));
  });
  assert.deepEqual(r, { code: 1, stderr: 'Error from server (ServiceUnavailable): the emulated nodes run in the server holding the kube-system/winkube-node-farm Lease, not in this one\n' });
  assert.equal(await on(a, ['get', 'node', 'linux-1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']), 'True');
});

test('kill -9 of the leader: the other server takes every lease, keeps reconciling, and the dead one leaves the endpoints', async () => {
  const leases = ['kube-controller-manager', 'kube-scheduler', 'winkube-node-farm'];
  const holders = await Promise.all(leases.map((l) => holder(b, l)));
  const before = holders[0]!;
  await a.stop('SIGKILL');
  for (const [i, lease] of leases.entries()) {
    const previous = holders[i];
    const next = await eventually(`${lease} taken over`, async () => { const h = await holder(b, lease); return h !== previous ? h : undefined; });
    assert.match(next, /^[^_]+_[0-9a-f-]{36}$/);
  }
  const taker = await holder(b, 'kube-controller-manager');
  assert.notEqual(taker, before);
  // The new leader's event is written behind its lease: wait for it.
  const events = await eventually('the new leader\'s LeaderElection event', async () => {
    const out = await on(b, ['get', 'events', '-n', 'kube-system', '--field-selector', 'reason=LeaderElection,involvedObject.name=kube-controller-manager',
      '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}']);
    return out.includes(`${taker} became leader`) ? out : undefined;
  });
  assert.deepEqual(events.split('\n').filter(Boolean).sort(), [`${before} became leader`, `${taker} became leader`].sort());
  assert.equal(await on(b, ['apply', '-f', '-'], deployment('after', 2)), 'deployment.apps/after created\n');
  await eventually('2 running pods after the failover', () => runningPods(b, 'after', 2), 40_000);
  // The first Deployment kept its 3 pods under the new controllers: none duplicated.
  const first = await podsOf(b, 'once');
  assert.equal(first.pods.length, 3);
  assert.equal(first.replicaSets.split('\n').filter(Boolean).length, 1);
  await eventually('the dead server out of the endpoints', async () => ((await endpointsOf(b)) === `127.0.0.2 ${b.port}` ? true : undefined));
  assert.equal(await on(b, ['get', 'endpointslice', 'kubernetes', '-o', 'jsonpath={.endpoints[*].addresses[*]}']), '127.0.0.2');
});
