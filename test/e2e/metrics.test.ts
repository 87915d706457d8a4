/**
 * kubectl top against metrics-server (`winkube up --metrics-server`), its
 * scrape period shortened to 2 s by WINKUBE_METRIC_RESOLUTION: node and pod
 * rows as the usage model gives them, a Windows container scripted to use
 * twice its memory limit paged at the limit, the same on Linux OOM-killed,
 * CFS throttling at a CPU limit, and the kubelet's stats through the node
 * proxy. Without the flag, kubectl top says what it says on kubeadm.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const PODS = `apiVersion: v1
kind: Pod
metadata:
  name: win-hog
  annotations:
    winkube.io/script: '{"app": {"memory": "512Mi", "cpu": "2"}}'
spec:
  nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: "10.0.17763"}
  containers:
  - name: app
    image: mcr.microsoft.com/windows/servercore:ltsc2019
    command: ["ping", "-t", "localhost"]
    resources: {limits: {memory: 256Mi, cpu: 500m}}
---
apiVersion: v1
kind: Pod
metadata:
  name: linux-hog
  annotations:
    winkube.io/script: '{"app": {"memory": "512Mi", "memoryAfterSeconds": 3}}'
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: app
    image: busybox
    command: ["sleep", "infinity"]
    resources: {limits: {memory: 256Mi}}
---
apiVersion: v1
kind: Pod
metadata:
  name: linux-cpu
  annotations:
    winkube.io/script: '{"app": {"cpu": "1", "memory": "100Mi"}}'
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: app
    image: busybox
    command: ["sleep", "infinity"]
    resources: {limits: {cpu: 200m, memory: 256Mi}}
`;

/** Bytes of a binary-suffixed quantity, as node allocatable memory is written. */
function bytes(q: string): number {
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(q);
  assert.ok(m, `unexpected quantity ${q}`);
  return Number(m[1]) * ({ Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 }[m[2] ?? ''] ?? 1);
}

/** Whitespace-separated cells of each line of a kubectl table. */
const cells = (out: string) => out.trimEnd().split('\n').map((l) => l.trim().split(/\s+/));

describe('kubectl top with metrics-server', () => {
  let cluster: TestCluster;
  const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
  before(async () => {
    process.env.WINKUBE_METRIC_RESOLUTION = '2s';
    cluster = await startCluster(undefined, ['--metrics-server']);
  });
  after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

  test('the APIService v1beta1.metrics.k8s.io is backed by kube-system/metrics-server and Available', async () => {
    const out = await eventually('Available', async () => {
      const o = await ok(['get', 'apiservice', 'v1beta1.metrics.k8s.io']);
      return /\bTrue\b/.test(o) ? o : undefined;
    });
    assert.deepEqual(cells(out).map((r) => r.slice(0, 3)), [['NAME', 'SERVICE', 'AVAILABLE'], ['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'True']]);
  });

  test('kubectl top nodes: each node\'s own use and its pods\', percentages of allocatable', async () => {
    // Every node's system pods running.
    await eventually('system pods running', async () => {
      const phases = await ok(['get', 'pods', '-n', 'kube-system', '-o', 'jsonpath={.items[*].status.phase}']);
      return phases.split(' ').length >= 14 && phases.split(' ').every((p) => p === 'Running') ? true : undefined;
    }, 60_000);
    // The model: a Linux node idles at 45m/420Mi, flannel adds 4m/12Mi, kube-proxy 1m/15Mi, each CoreDNS 3m/13Mi;
    // a Windows node idles at 120m/1400Mi, with the HostProcess flannel (3m/32Mi) and kube-proxy (3m/28Mi).
    const coredns = (await ok(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '-o', 'jsonpath={.items[*].spec.nodeName}'])).split(' ');
    const nodes = JSON.parse(await ok(['get', 'nodes', '-o', 'json'])) as { items: Array<{ metadata: { name: string; labels: Record<string, string> }; status: { allocatable: { cpu: string; memory: string } } }> };
    const expected = nodes.items.map((n) => {
      const windows = n.metadata.labels['kubernetes.io/os'] === 'windows';
      const dns = coredns.filter((c) => c === n.metadata.name).length;
      const milli = windows ? 126 : 50 + 3 * dns;
      const mi = windows ? 1460 : 447 + 13 * dns;
      const allocMilli = Number.parseInt(n.status.allocatable.cpu, 10) * 1000;
      const allocBytes = bytes(n.status.allocatable.memory);
      return [n.metadata.name, `${milli}m`, `${Math.trunc((milli / allocMilli) * 100)}%`, `${mi}Mi`, `${Math.trunc(((mi * 1024 * 1024) / allocBytes) * 100)}%`];
    });
    expected.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
    // metrics-server needs two scrapes of every pod: read until the model's figures show (the last mismatch is the timeout's message).
    const out = await eventually('the nodes at their modelled use', async () => {
      const r = await kubectl(cluster, ['top', 'nodes']);
      if (r.code !== 0) return undefined;
      assert.deepEqual(cells(r.stdout).slice(1), expected);
      return r.stdout;
    });
    assert.match(out.split('\n')[0]!, /^NAME {20}CPU\(cores\) {3}CPU\(%\) {3}MEMORY\(bytes\) {3}MEMORY\(%\) {3}$/);
    assert.deepEqual(cells(await ok(['top', 'node', 'win2022-1'])), [['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)'], expected.find((r) => r[0] === 'win2022-1')]);
  });

  test('a Windows container scripted to use twice its memory limit keeps running, paged at the limit; CpuMaximum caps its CPU', async () => {
    await ok(['apply', '-f', '-'], PODS);
    // Read until the scripted use shows (the last mismatch is the timeout's message).
    const out = await eventually('win-hog metrics', async () => {
      const r = await kubectl(cluster, ['top', 'pod', 'win-hog', '--containers']);
      if (r.code !== 0) return undefined;
      assert.deepEqual(cells(r.stdout), [['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)'], ['win-hog', 'app', '500m', '256Mi']]);
      return r.stdout;
    }, 60_000);
    assert.match(out.split('\n')[0]!, /^POD {7}NAME {3}CPU\(cores\) {3}MEMORY\(bytes\) {3}$/);
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(await ok(['get', 'pod', 'win-hog', '-o', 'jsonpath={.status.phase} {.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].lastState}']), 'Running 0 {}');
    assert.deepEqual(cells(await ok(['top', 'pod', 'win-hog'])), [['NAME', 'CPU(cores)', 'MEMORY(bytes)'], ['win-hog', '500m', '256Mi']]);
  });

  test('the same on Linux is OOMKilled (137) and restarted', async () => {
    const last = await eventually('OOMKilled', async () => {
      const o = await ok(['get', 'pod', 'linux-hog', '-o', 'jsonpath={.status.containerStatuses[0].lastState.terminated.reason} {.status.containerStatuses[0].lastState.terminated.exitCode}']);
      return o.trim() ? o : undefined;
    });
    assert.equal(last, 'OOMKilled 137');
    assert.ok(Number(await ok(['get', 'pod', 'linux-hog', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'])) >= 1);
  });

  test('CFS quota throttles a Linux container at its CPU limit', async () => {
    const out = await eventually('linux-cpu metrics', async () => {
      const r = await kubectl(cluster, ['top', 'pod', 'linux-cpu', '--containers']);
      return r.code === 0 ? r.stdout : undefined;
    }, 30_000);
    assert.deepEqual(cells(out), [['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)'], ['linux-cpu', 'app', '200m', '100Mi']]);
  });

  test('kubectl top pods -A --sort-by: the scripted pods first', async () => {
    // Each pod is listed once metrics-server holds two samples of it.
    const byCPU = await eventually('both scripted pods are measured', async () => {
      const rows = cells(await ok(['top', 'pods', '-A', '--sort-by=cpu']));
      return rows.some((r) => r[1] === 'linux-cpu') && rows.some((r) => r[1] === 'win-hog') ? rows : undefined;
    });
    assert.deepEqual(byCPU[0], ['NAMESPACE', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    assert.deepEqual(byCPU.slice(1, 3), [['default', 'win-hog', '500m', '256Mi'], ['default', 'linux-cpu', '200m', '100Mi']]);
    const byMemory = cells(await ok(['top', 'pods', '-A', '--sort-by=memory']));
    // linux-hog's memory climbs to its limit again after each OOM kill, so its place in this order moves.
    assert.deepEqual(byMemory.filter((r) => r[1] !== 'linux-hog').slice(1, 3), [['default', 'win-hog', '500m', '256Mi'], ['default', 'linux-cpu', '200m', '100Mi']]);
    assert.ok(byMemory.some((r) => r[1]?.startsWith('coredns-') && r[2] === '3m' && r[3] === '13Mi'), JSON.stringify(byMemory));
    const containers = cells(await ok(['top', 'pods', '-n', 'kube-system', '--containers', '-l', 'k8s-app=kube-dns']));
    assert.deepEqual(containers[0], ['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    assert.deepEqual(containers.slice(1).map((r) => r.slice(1)), [['coredns', '3m', '13Mi'], ['coredns', '3m', '13Mi']]);
  });

  test('kubectl get nodemetrics / podmetrics: metrics-server\'s Tables (Name, one column per resource, Window)', async () => {
    const list = JSON.parse(await ok(['get', 'nodemetrics', '-o', 'json'])) as { items: Array<{ metadata: { name: string }; usage: { cpu: string; memory: string }; window: string }> };
    const table = cells(await ok(['get', 'nodemetrics']));
    assert.deepEqual(table[0], ['NAME', 'CPU', 'MEMORY', 'WINDOW']);
    assert.deepEqual(table.slice(1), list.items.map((i) => [i.metadata.name, i.usage.cpu, i.usage.memory, i.window]));
    // A pod's cells sum its containers; kube-system's idle pods do not change between the two reads.
    const pods = JSON.parse(await ok(['get', 'podmetrics', '-n', 'kube-system', '-o', 'json'])) as { items: Array<{ metadata: { name: string }; containers: Array<{ usage: { cpu: string; memory: string } }>; window: string }> };
    const podTable = cells(await ok(['get', 'podmetrics', '-n', 'kube-system']));
    assert.deepEqual(podTable[0], ['NAME', 'CPU', 'MEMORY', 'WINDOW']);
    assert.deepEqual(podTable.slice(1).map((r) => r[0]), pods.items.map((i) => i.metadata.name));
    const one = pods.items.find((i) => i.containers.length === 1)!;
    assert.deepEqual(podTable.find((r) => r[0] === one.metadata.name), [one.metadata.name, one.containers[0]!.usage.cpu, one.containers[0]!.usage.memory, one.window]);
  });

  test('the view role lets a user read metrics (system:aggregated-metrics-reader is aggregated into it)', async () => {
    await ok(['create', 'rolebinding', 'viewer', '--clusterrole=view', '--user=viewer']);
    await eventually('aggregated', async () => ((await ok(['get', 'clusterrole', 'view', '-o', 'jsonpath={.rules}'])).includes('metrics.k8s.io') ? true : undefined));
    assert.deepEqual(cells(await ok(['top', 'pod', 'win-hog', '--as=viewer'])), [['NAME', 'CPU(cores)', 'MEMORY(bytes)'], ['win-hog', '500m', '256Mi']]);
    const denied = await kubectl(cluster, ['top', 'nodes', '--as=viewer']);
    assert.equal(denied.stderr, 'Error from server (Forbidden): nodes.metrics.k8s.io is forbidden: User "viewer" cannot list resource "nodes" in API group "metrics.k8s.io" at the cluster scope\n');
  });

  test('the kubelet\'s /stats/summary and /metrics/resource through the node proxy report the same use', async () => {
    const node = await ok(['get', 'pod', 'win-hog', '-o', 'jsonpath={.spec.nodeName}']);
    const summary = JSON.parse(await ok(['get', '--raw', `/api/v1/nodes/${node}/proxy/stats/summary`])) as { pods: Array<{ podRef: { name: string }; containers: Array<{ name: string; cpu: { usageNanoCores: number }; memory: { workingSetBytes: number; availableBytes: number } }> }> };
    const app = summary.pods.find((p) => p.podRef.name === 'win-hog')?.containers[0];
    assert.deepEqual([app?.name, app?.cpu.usageNanoCores, app?.memory.workingSetBytes, app?.memory.availableBytes], ['app', 500_000_000, 268435456, 0]);
    const text = await ok(['get', '--raw', `/api/v1/nodes/${node}/proxy/metrics/resource`]);
    assert.match(text, /^container_memory_working_set_bytes\{container="app",namespace="default",pod="win-hog"\} 2\.68435456e\+08 \d+$/m);
  });
});

describe('kubectl top without metrics-server', () => {
  let cluster: TestCluster;
  before(async () => { cluster = await startCluster(); });
  after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

  test('kubectl describe node: Allocated resources sum the requests of the node\'s running pods, as percentages of allocatable', async () => {
    await eventually('system pods running', async () => {
      const phases = await kubectlOk(cluster, ['get', 'pods', '-n', 'kube-system', '-o', 'jsonpath={.items[*].status.phase}']);
      return phases.split(' ').length >= 14 && phases.split(' ').every((p) => p === 'Running') ? true : undefined;
    }, 60_000);
    interface P { spec: { nodeName?: string; containers: Array<{ resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }> }; status: { phase: string } }
    const pods = (JSON.parse(await kubectlOk(cluster, ['get', 'pods', '-A', '-o', 'json'])) as { items: P[] }).items;
    const nodes = JSON.parse(await kubectlOk(cluster, ['get', 'nodes', '-o', 'json'])) as { items: Array<{ metadata: { name: string; labels: Record<string, string> }; status: { allocatable: { cpu: string; memory: string } } }> };
    for (const n of nodes.items) {
      const mine = pods.filter((p) => p.spec.nodeName === n.metadata.name && p.status.phase !== 'Succeeded' && p.status.phase !== 'Failed');
      const sum = (key: string, unit: RegExp, kind: 'requests' | 'limits' = 'requests') => mine.flatMap((p) => p.spec.containers).reduce((a, c) => {
        const q = c.resources?.[kind]?.[key];
        if (q === undefined) return a;
        const m = unit.exec(q);
        assert.ok(m, `request ${key}=${q}`);
        return a + Number(m[1]);
      }, 0);
      const cpu = sum('cpu', /^(\d+)m$/);
      const mi = sum('memory', /^(\d+)Mi$/);
      const cpuLimit = sum('cpu', /^(\d+)m$/, 'limits');
      const miLimit = sum('memory', /^(\d+)Mi$/, 'limits');
      const allocMilli = Number.parseInt(n.status.allocatable.cpu, 10) * 1000;
      const row = (v: number, text: string, alloc: number) => (v === 0 ? '0 (0%)' : `${text} (${Math.trunc((v / alloc) * 100)}%)`);
      const out = await kubectlOk(cluster, ['describe', 'node', n.metadata.name]);
      const block = /Allocated resources:\n([\s\S]*?)\nEvents:/.exec(out)?.[1]?.split('\n').map((l) => l.trim().split(/\s{2,}/));
      assert.deepEqual(block?.slice(0, 5), [
        ['(Total limits may be over 100 percent, i.e., overcommitted.)'],
        ['Resource', 'Requests', 'Limits'], ['--------', '--------', '------'],
        ['cpu', row(cpu, `${cpu}m`, allocMilli), row(cpuLimit, `${cpuLimit}m`, allocMilli)],
        ['memory', row(mi, `${mi}Mi`, bytes(n.status.allocatable.memory) / 2 ** 20), row(miLimit, `${miLimit}Mi`, bytes(n.status.allocatable.memory) / 2 ** 20)],
      ], n.metadata.name);
      // Windows nodes report no hugepages.
      assert.deepEqual(block?.slice(5).map((r) => r[0]), n.metadata.labels['kubernetes.io/os'] === 'windows'
        ? ['ephemeral-storage'] : ['ephemeral-storage', 'hugepages-1Gi', 'hugepages-2Mi'], n.metadata.name);
    }
  });

  test('says what it says on a kubeadm cluster', async () => {
    for (const args of [['top', 'nodes'], ['top', 'pods']]) {
      const r = await kubectl(cluster, args);
      assert.deepEqual([r.code, r.stdout, r.stderr], [1, '', 'error: Metrics API not available\n']);
    }
  });
});
