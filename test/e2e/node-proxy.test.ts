import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectl, raw, rawJSON, startCluster, type TestCluster } from '../helpers/cluster.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); });

async function getRaw(path: string): Promise<string> {
  const r = await kubectl(cluster, ['get', '--raw', path]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

async function internalIP(node: string): Promise<string> {
  const { body } = await rawJSON(cluster, 'GET', `/api/v1/nodes/${node}`);
  return body.status.addresses.find((a: { type: string }) => a.type === 'InternalIP').address;
}

function winkube(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, 'node', ...args, '--data-dir', cluster.dataDir], { env: { PATH: process.env.PATH ?? '' } },
      (err, _stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }));
  });
}

async function eventsFor(node: string): Promise<string> {
  const r = await kubectl(cluster, ['get', 'events', '--field-selector', `involvedObject.name=${node}`, '-o', 'custom-columns=REASON:.reason,MESSAGE:.message,SOURCE:.source.component', '--no-headers']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

async function waitForEvent(node: string, reason: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = await eventsFor(node);
    const line = out.split('\n').find((l) => l.split(/\s+/)[0] === reason);
    if (line) return line;
    if (Date.now() > deadline) assert.fail(`no ${reason} event for ${node} within ${timeoutMs} ms:\n${out}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('nodes/NAME/proxy reaches the node kubelet', () => {
  for (const node of ['win2022-1', 'linux-1']) {
    test(`kubectl get --raw .../nodes/${node}/proxy/healthz answers ok`, async () => {
      assert.equal(await getRaw(`/api/v1/nodes/${node}/proxy/healthz`), 'ok');
    });
  }

  test('a proxy request is long-running: API Priority and Fairness lets it through unclassified', async () => {
    const proxied = await raw(cluster, 'GET', '/api/v1/nodes/linux-1/proxy/stats/summary');
    assert.equal(proxied.status, 200);
    assert.equal(proxied.headers['x-kubernetes-pf-flowschema-uid'], undefined);
    const plain = await raw(cluster, 'GET', '/api/v1/nodes/linux-1');
    assert.ok(plain.headers['x-kubernetes-pf-flowschema-uid'], 'an ordinary request is classified');
  });

  test('healthz?verbose lists the kubelet checks', async () => {
    assert.equal(await getRaw('/api/v1/nodes/linux-1/proxy/healthz?verbose'), '[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n');
  });

  test('stats/summary is the Summary API of the node: capacities from its pool, the usage model\'s use, its running pods', async () => {
    // Samples are timed to the second: a node read in the second it booted has counted no CPU time yet.
    let summary = JSON.parse(await getRaw('/api/v1/nodes/win2022-1/proxy/stats/summary'));
    for (let i = 0; i < 20 && !(summary.node.cpu.usageCoreNanoSeconds > 0); i++) {
      await new Promise((r) => setTimeout(r, 100));
      summary = JSON.parse(await getRaw('/api/v1/nodes/win2022-1/proxy/stats/summary'));
    }
    assert.equal(summary.node.nodeName, 'win2022-1');
    assert.deepEqual(summary.node.systemContainers.map((c: { name: string }) => c.name), ['pods', 'windows-global-commit-memory']);
    // The node's own idle use (a Windows host: 120m, 1400Mi) and its pods'.
    type Use = { cpu: { usageNanoCores: number }; memory: { workingSetBytes: number } };
    const podsUse = (summary.pods as Use[]).reduce((sum, p) => ({ cpu: sum.cpu + p.cpu.usageNanoCores, ws: sum.ws + p.memory.workingSetBytes }), { cpu: 0, ws: 0 });
    assert.equal(summary.node.memory.workingSetBytes, 1400 * 1024 ** 2 + podsUse.ws);
    assert.equal(summary.node.memory.availableBytes, 16 * 1024 ** 3 - summary.node.memory.workingSetBytes);
    assert.equal(summary.node.cpu.usageNanoCores, 120_000_000 + podsUse.cpu);
    assert.ok(summary.node.cpu.usageCoreNanoSeconds > 0);
    assert.equal(summary.node.fs.capacityBytes, 127 * 1024 ** 3);
    assert.equal(summary.node.fs.inodes, undefined, 'NTFS reports no inodes');
    assert.equal(summary.node.network.name, 'vEthernet (Ethernet)');
    assert.ok(Array.isArray(summary.pods));

    const linux = JSON.parse(await getRaw('/api/v1/nodes/linux-1/proxy/stats/summary'));
    assert.deepEqual(linux.node.systemContainers.map((c: { name: string }) => c.name), ['kubelet', 'pods']);
    assert.equal(linux.node.fs.inodes, Math.floor(100 * 1024 ** 3 / 16384));
    assert.equal(linux.node.network.name, 'eth0');
    const pods = (await rawJSON(cluster, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dlinux-1,status.phase%3DRunning')).body.items;
    for (const p of pods) {
      const stats = linux.pods.find((s: { podRef: { uid: string } }) => s.podRef.uid === p.metadata.uid);
      assert.ok(stats, `pod ${p.metadata.name} in the summary`);
      assert.equal(stats.podRef.name, p.metadata.name);
      assert.equal(stats.startTime, p.status.startTime);
    }
  });

  test('metrics/resource is the resource metrics text with HELP and TYPE lines', async () => {
    const text = await getRaw('/api/v1/nodes/linux-1/proxy/metrics/resource');
    assert.match(text, /^# HELP node_cpu_usage_seconds_total \[STABLE\] Cumulative cpu time consumed by the node in core-seconds\n# TYPE node_cpu_usage_seconds_total counter\nnode_cpu_usage_seconds_total \S+ \d{13}\n/m);
    assert.ok(Number(/^node_cpu_usage_seconds_total (\S+)/m.exec(text)?.[1]) > 0, 'the node has used CPU since it booted');
    assert.match(text, /^# TYPE node_memory_working_set_bytes gauge\nnode_memory_working_set_bytes [1-9][0-9.e+]* \d{13}\n/m);
    assert.match(text, /# HELP resource_scrape_error \[STABLE\] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE resource_scrape_error gauge\nresource_scrape_error 0\n$/);
    assert.doesNotMatch(text, /^scrape_error/m, 'deprecated in 1.29.0: hidden in v1.32');
  });

  test('configz is the node KubeletConfiguration as its pool defines it', async () => {
    const win = JSON.parse(await getRaw('/api/v1/nodes/win2022-1/proxy/configz'));
    assert.equal(win.kubeletconfig.maxPods, 110);
    assert.equal(win.kubeletconfig.containerRuntimeEndpoint, 'npipe:////./pipe/containerd-containerd');
    assert.deepEqual(win.kubeletconfig.evictionHard, { 'memory.available': '500Mi', 'nodefs.available': '10%' });
    assert.equal(win.kubeletconfig.cgroupsPerQOS, false);
    const lin = JSON.parse(await getRaw('/api/v1/nodes/linux-1/proxy/configz'));
    assert.equal(lin.kubeletconfig.containerRuntimeEndpoint, 'unix:///run/containerd/containerd.sock');
    assert.deepEqual(lin.kubeletconfig.clusterDNS, ['10.96.0.10']);
    assert.equal(lin.kubeletconfig.enableSystemLogQuery, false);
  });

  test('logs/?query=kubelet: NodeLogQuery is off in v1.32, the kubelet lists /var/log', async () => {
    const body = await getRaw('/api/v1/nodes/linux-1/proxy/logs/?query=kubelet');
    assert.equal(body, '<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n<a href="containers/">containers/</a>\n<a href="pods/">pods/</a>\n</pre>\n');
  });

  test('a path the kubelet does not serve: its mux answers 404 page not found', async () => {
    const r = await raw(cluster, 'GET', '/api/v1/nodes/win2022-1/proxy/no-such-path');
    assert.equal(r.status, 404);
    assert.equal(r.body, '404 page not found\n');
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    const root = await raw(cluster, 'GET', '/api/v1/nodes/win2022-1/proxy');
    assert.equal(root.status, 404);
    assert.equal(root.body, '404 page not found\n');
  });

  test('a node that does not exist is NotFound', async () => {
    const r = await rawJSON(cluster, 'GET', '/api/v1/nodes/nope/proxy/healthz');
    assert.equal(r.status, 404);
    assert.equal(r.body.reason, 'NotFound');
    assert.equal(r.body.message, 'nodes "nope" not found');
  });

  test('the node may be named scheme:name:port (SplitSchemeNamePort); another port has no kubelet', async () => {
    assert.equal(await getRaw('/api/v1/nodes/https:linux-1:10250/proxy/healthz'), 'ok');
    assert.equal(await getRaw('/api/v1/nodes/linux-1:10250/proxy/healthz'), 'ok');
    const bad = await rawJSON(cluster, 'GET', '/api/v1/nodes/a:b:c:d/proxy/healthz');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.reason, 'BadRequest');
    assert.equal(bad.body.message, 'invalid node request "a:b:c:d"');
    const ftp = await rawJSON(cluster, 'GET', '/api/v1/nodes/ftp:linux-1:10250/proxy/healthz');
    assert.equal(ftp.body.message, 'invalid node request "ftp:linux-1:10250"');
    const other = await rawJSON(cluster, 'GET', '/api/v1/nodes/linux-1:9999/proxy/healthz');
    assert.equal(other.status, 503);
    assert.equal(other.body.message, `error trying to reach service: dial tcp ${await internalIP('linux-1')}:9999: connect: connection refused`);
  });

  test('a stopped kubelet does not answer: the proxy transport error', async () => {
    const ip = await internalIP('win2019-2');
    assert.equal((await winkube(['stop', 'win2019-2'])).code, 0);
    try {
      const r = await rawJSON(cluster, 'GET', '/api/v1/nodes/win2019-2/proxy/healthz');
      assert.equal(r.status, 503);
      assert.equal(r.body.reason, 'ServiceUnavailable');
      assert.equal(r.body.message, `error trying to reach service: dial tcp ${ip}:10250: connect: connection refused`);
      const k = await kubectl(cluster, ['get', '--raw', '/api/v1/nodes/win2019-2/proxy/healthz']);
      assert.equal(k.code, 1);
      assert.equal(k.stderr.trim(), `Error from server (ServiceUnavailable): error trying to reach service: dial tcp ${ip}:10250: connect: connection refused`);
    } finally {
      assert.equal((await winkube(['start', 'win2019-2'])).code, 0);
    }
    assert.equal(await getRaw('/api/v1/nodes/win2019-2/proxy/healthz'), 'ok');
  });
});

describe('cordon and uncordon', () => {
  test('the kubelet records NodeNotSchedulable, then NodeSchedulable, on its next status sync', async () => {
    const c = await kubectl(cluster, ['cordon', 'linux-2']);
    assert.equal(c.code, 0, c.stderr);
    const off = await waitForEvent('linux-2', 'NodeNotSchedulable');
    assert.match(off, /^NodeNotSchedulable\s+Node linux-2 status is now: NodeNotSchedulable\s+kubelet$/);
    const u = await kubectl(cluster, ['uncordon', 'linux-2']);
    assert.equal(u.code, 0, u.stderr);
    const on = await waitForEvent('linux-2', 'NodeSchedulable');
    assert.match(on, /^NodeSchedulable\s+Node linux-2 status is now: NodeSchedulable\s+kubelet$/);
  });
});
