/**
 * The HorizontalPodAutoscaler walkthrough against a Windows Deployment,
 * through real kubectl: php-apache is Linux-only, so the Windows pods run
 * what upstream's own HPA e2e tests scale on Windows,
 * registry.k8s.io/e2e-test-images/resource-consumer:1.13 (250m requested,
 * 500m limit), behind a Service on port 80. `kubectl autoscale
 * --cpu-percent=50 --min=1 --max=5`, then a Windows load generator
 * (PowerShell and curl.exe on servercore) POSTs `/ConsumeCPU` through the
 * Service every second: each request asks a pod for 250 millicores over
 * 10 s, 2.5 cores in all, more than five pods at their CpuMaximum can
 * give. The HPA scales out to its maximum, `kubectl top` shows no pod over
 * its 500m cap, and once the generator is gone the HPA scales back to one
 * after the stabilization window. Shortened by configuration only: metrics
 * every 2 s, HPA sync every 2 s, a 15 s stabilization window.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, kubectlOk, kubectlRunning, removeDir, startCluster, type RunningKubectl, type TestCluster } from '../helpers/cluster.js';

const MANIFEST = readFileSync(new URL('../../../test/e2e/fixtures/resource-consumer-windows.yaml', import.meta.url), 'utf8');
const LOAD = "while ($true) { curl.exe -s -X POST 'http://resource-consumer/ConsumeCPU?millicores=250&durationSec=10'; Start-Sleep -Seconds 1 }";
const WINDOWS_2022 = '{"spec":{"nodeSelector":{"kubernetes.io/os":"windows","node.kubernetes.io/windows-build":"10.0.20348"}}}';

let cluster: TestCluster;
/** `kubectl get hpa -w` running beside the test. */
let watcher: RunningKubectl | undefined;
const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
before(async () => {
  Object.assign(process.env, { WINKUBE_METRIC_RESOLUTION: '2s', WINKUBE_HPA_SYNC_PERIOD: '2s', WINKUBE_HPA_DOWNSCALE_STABILIZATION: '15s' });
  cluster = await startCluster(undefined, ['--metrics-server']);
});
after(async () => {
  await watcher?.stop();
  await cluster.stop();
  removeDir(cluster.dataDir);
});

const rescales = async () => (await ok(['get', 'events', '--field-selector', 'involvedObject.name=resource-consumer,reason=SuccessfulRescale',
  '--sort-by=.lastTimestamp', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}'])).split('\n').filter(Boolean);

test('resource-consumer on Windows scales out under the load generator, capped at CpuMaximum, and back in after it stops', async () => {
  assert.equal(await ok(['apply', '-f', '-'], MANIFEST), 'deployment.apps/resource-consumer created\nservice/resource-consumer created\n');
  await ok(['rollout', 'status', 'deployment/resource-consumer', '--timeout=90s']);
  assert.equal(await ok(['autoscale', 'deployment', 'resource-consumer', '--cpu-percent=50', '--min=1', '--max=5']),
    'horizontalpodautoscaler.autoscaling/resource-consumer autoscaled\n');
  const idle = await eventually('idle metrics', async () => {
    const t = await ok(['get', 'hpa', 'resource-consumer', '-o', 'jsonpath={.status.currentMetrics[0].resource.current.averageUtilization}']);
    return t === '' ? undefined : Number(t);
  }, 60_000);
  assert.ok(idle < 5, `idle resource-consumer uses ${idle}% of its request`);
  watcher = kubectlRunning(cluster, ['get', 'hpa', 'resource-consumer', '-w'], { env: { HOME: join(cluster.dataDir, 'home-watch') } });

  await ok(['run', 'load-generator', '--image=mcr.microsoft.com/windows/servercore:ltsc2022', '--restart=Never', `--overrides=${WINDOWS_2022}`,
    '--', 'powershell', '-Command', LOAD]);
  // One pod at its 500m cap is 200 % of its request: the HPA scales out, up to its maximum of 5.
  const loaded = await eventually('scale out', async () => {
    const row = (await ok(['get', 'hpa', 'resource-consumer', '--no-headers'])).trim().split(/\s+/);
    return Number(row[row.length - 2]) > 1 ? row : undefined;
  }, 120_000);
  assert.deepEqual(loaded.slice(0, 2), ['resource-consumer', 'Deployment/resource-consumer']);
  assert.match(`${loaded[2]} ${loaded[3]}`, /^cpu: \d+%\/50%$/);
  assert.deepEqual(loaded.slice(4, 6), ['1', '5']);
  const first = (await rescales())[0];
  assert.match(first ?? '', /^New size: [2345]; reason: cpu resource utilization \(percentage of request\) above target$/);
  // The generator's requests go through the Service: curl.exe prints the consumer's answer, the consumer logs the run.
  assert.equal(await ok(['logs', 'load-generator', '--tail=3']), 'ConsumeCPU\n250 millicores\n10 durationSec\n');
  assert.match(await ok(['logs', 'deployment/resource-consumer', '--tail=1']), /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} ConsumeCPU millicores: 250, durationSec: 10\n$/);

  // 2.5 cores of demand is more than five pods' caps: all five, each held at CpuMaximum's 500m.
  await eventually('five replicas', async () => (await ok(['get', 'deployment', 'resource-consumer', '-o', 'jsonpath={.spec.replicas}'])) === '5' || undefined, 120_000);
  const top = await eventually('a pod at its cap in kubectl top', async () => {
    const rows = (await ok(['top', 'pod', '-l', 'app=resource-consumer', '--no-headers'])).trim().split('\n').map((l) => l.split(/\s+/));
    return rows.length === 5 && rows.some((r) => r[1] === '500m') ? rows : undefined;
  }, 90_000);
  for (const [name, cpu, memory] of top) {
    assert.match(name ?? '', /^resource-consumer-[a-z0-9]+-[a-z0-9]{5}$/);
    assert.match(`${cpu} ${memory}`, /^\d+m \d+Mi$/);
    assert.ok(Number(cpu!.slice(0, -1)) <= 500, `${name} uses ${cpu}, over its 500m CpuMaximum`);
  }
  const full = await eventually('at the maximum in kubectl describe', async () => {
    const d = await ok(['describe', 'hpa', 'resource-consumer']);
    return /ScalingLimited\s+True\s+TooManyReplicas/.test(d) ? d : undefined;
  }, 60_000);
  assert.match(full, /^Reference:\s+Deployment\/resource-consumer$/m);
  assert.match(full, /^Metrics:\s+\( current \/ target \)\n {2}resource cpu on pods {2}\(as a percentage of request\): {2}\d+% \(\d+m\) \/ 50%$/m);
  assert.match(full, /^Min replicas:\s+1\nMax replicas:\s+5\nDeployment pods:\s+5 current \/ 5 desired$/m);
  assert.match(full, /^ {2}ScalingLimited\s+True\s+TooManyReplicas\s+the desired replica count is more than the maximum replica count$/m);
  assert.match(full, /^ {2}Normal\s+SuccessfulRescale\s+\S+\s+horizontal-pod-autoscaler\s+New size: 5; reason: cpu resource utilization \(percentage of request\) above target$/m);

  await ok(['delete', 'pod', 'load-generator', '--wait=false']);
  await eventually('scale in', async () => (await ok(['get', 'deployment', 'resource-consumer', '-o', 'jsonpath={.spec.replicas}'])) === '1' || undefined, 180_000);
  assert.equal((await rescales()).at(-1), 'New size: 1; reason: All metrics below target');

  // What `kubectl get hpa -w` printed along the way: the header, then a row per change.
  const lines = watcher.out().trim().split('\n');
  await watcher.stop();
  watcher = undefined;
  assert.match(lines[0] ?? '', /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
  const rows = lines.slice(1).map((l) => l.split(/\s+/));
  for (const r of rows) {
    assert.deepEqual(r.slice(0, 2), ['resource-consumer', 'Deployment/resource-consumer']);
    assert.match(`${r[2]} ${r[3]}`, /^cpu: (\d+%|<unknown>)\/50%$/);
    assert.match(r[r.length - 1] ?? '', /^\d+(s|m\d*s?)$/);
  }
  assert.ok(rows.some((r) => r[r.length - 2] === '5'), 'the watch saw five replicas');
});
