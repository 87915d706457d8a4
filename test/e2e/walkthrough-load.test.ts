/**
 * Load from traffic, seen through real kubectl top (`winkube up
 * --metrics-server`, metrics every 2 s): the HPA walkthrough's php-apache
 * idles at its image's 1m, and under the walkthrough's busybox loop sits at
 * its 500m CFS quota; on Windows, IIS behind a Service counts its light
 * requests, and CpuMaximum caps them.
 *
 * The ranges come from the model: php-apache answers a request after its
 * 30 ms of CPU, so the loop (10 ms sleep, then wget) sends about 25 a second,
 * 750m of work, and every second with 17 or more answers is capped at
 * exactly 500m. IIS answers at once at 0.25 ms each; the loop can send at
 * most 100 a second to it (one per 10 ms sleep), so its pod shows at most
 * 25m over its 5m idle; a 10m limit on 4 CPUs is CpuMaximum 25, 10m exactly.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { PHP_APACHE_MANIFEST } from '../helpers/php-apache.js';

const iis = (name: string, resources: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: "10.0.20348"}
      containers:
      - name: iis
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
        ports: [{containerPort: 80}]
        resources: ${resources}
---
apiVersion: v1
kind: Service
metadata: {name: ${name}}
spec:
  ports: [{port: 80}]
  selector: {app: ${name}}
`;

const LINUX = '--overrides={"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}';

let cluster: TestCluster;
const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
before(async () => {
  process.env.WINKUBE_METRIC_RESOLUTION = '2s';
  cluster = await startCluster(undefined, ['--metrics-server']);
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

/** `kubectl top pod -l SELECTOR --no-headers`'s one row, once metrics-server has it. */
async function topRow(selector: string): Promise<string[]> {
  return eventually(`metrics of ${selector}`, async () => {
    const r = await kubectl(cluster, ['top', 'pod', '-l', selector, '--no-headers']);
    const rows = r.stdout.trim().split('\n').filter(Boolean);
    return r.code === 0 && rows.length === 1 ? rows[0]!.trim().split(/\s+/) : undefined;
  }, 60_000);
}

/** Reads the pod's CPU until it reaches `until` millicores; every reading on the way, in millicores. */
async function cpuUntil(selector: string, until: number): Promise<number[]> {
  const seen: number[] = [];
  await eventually(`${selector} at ${until}m`, async () => {
    const row = await topRow(selector);
    const m = /^(\d+)m$/.exec(row[1]!);
    assert.ok(m, `CPU column ${row[1]}`);
    seen.push(Number(m[1]));
    if (Number(m[1]) >= until) return true;
    // metrics-server has a new point every 2 s; reading more often only repeats the last.
    await new Promise((r) => setTimeout(r, 1000));
    return undefined;
  }, 90_000);
  return seen;
}

test('php-apache idles at 1m and sits at its 500m CFS quota under the walkthrough\'s load generator', async () => {
  await ok(['apply', '-f', '-'], PHP_APACHE_MANIFEST);
  await ok(['rollout', 'status', 'deployment/php-apache', '--timeout=60s']);
  const pod = (await ok(['get', 'pods', '-l', 'run=php-apache', '-o', 'jsonpath={.items[0].metadata.name}']));
  assert.deepEqual(await topRow('run=php-apache'), [pod, '1m', '9Mi']);
  await ok(['run', 'load-generator', '--image=busybox:1.28', '--restart=Never', LINUX,
    '--', '/bin/sh', '-c', 'while sleep 0.01; do wget -q -O- http://php-apache; done']);
  const seen = await cpuUntil('run=php-apache', 500);
  // Never above the quota on the way up, and at it once whole windows are under load.
  assert.ok(seen.every((m) => m >= 1 && m <= 500), `readings ${seen.join(', ')}`);
  assert.deepEqual(await topRow('run=php-apache'), [pod, '500m', '9Mi']);
  // The requests are the loop's: busybox wget's, from the load generator's address, in Apache's combined format.
  const client = (await ok(['get', 'pod', 'load-generator', '-o', 'jsonpath={.status.podIP}'])).replace(/\./g, '\\.');
  assert.match(await ok(['logs', 'deployment/php-apache', '--tail=1']),
    new RegExp(`^${client} - - \\[\\d{2}/\\w{3}/\\d{4}:\\d{2}:\\d{2}:\\d{2} \\+0000\\] "GET / HTTP/1\\.1" 200 176 "-" "Wget"\\n$`));
  await ok(['delete', 'pod', 'load-generator', '--wait=false']);
});

test('IIS on Windows counts its light requests; CpuMaximum caps a 10m limit at 10m', async () => {
  await ok(['apply', '-f', '-'], iis('iis', '{}') + '---\n' + iis('iis-capped', '{limits: {cpu: 10m}}'));
  await ok(['rollout', 'status', 'deployment/iis', '--timeout=60s']);
  await ok(['rollout', 'status', 'deployment/iis-capped', '--timeout=60s']);
  assert.deepEqual((await topRow('app=iis')).slice(1), ['5m', '85Mi']);
  assert.deepEqual((await topRow('app=iis-capped')).slice(1), ['5m', '85Mi']);
  await ok(['run', 'iis-load', '--image=busybox:1.28', '--restart=Never', LINUX,
    '--', '/bin/sh', '-c', 'while sleep 0.01; do wget -q -O- http://iis >/dev/null; wget -q -O- http://iis-capped >/dev/null; done']);
  const capped = await cpuUntil('app=iis-capped', 10);
  assert.ok(capped.every((m) => m >= 5 && m <= 10), `readings ${capped.join(', ')}`);
  assert.deepEqual((await topRow('app=iis-capped')).slice(1), ['10m', '85Mi']);
  // The uncapped one: its idle 5m plus 0.25 ms per answer, at most 100 answers a second.
  const free = await cpuUntil('app=iis', 6);
  const last = free[free.length - 1]!;
  assert.ok(last >= 6 && last <= 30, `iis at ${last}m`);
  await ok(['delete', 'pod', 'iis-load', '--wait=false']);
});
