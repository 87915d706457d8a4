/**
 * The Kubernetes docs' HorizontalPodAutoscaler walkthrough, through real
 * kubectl: php-apache (registry.k8s.io/hpa-example, 200m requested, 500m
 * limit), `kubectl autoscale --cpu-percent=50 --min=1 --max=10`, and a
 * busybox load generator requesting it in a loop. The requests' CPU
 * (served-work.ts) drives the pods' usage: the HPA scales out under load,
 * and back to one replica after the stabilization window once the
 * generator is gone. Shortened by configuration only: metrics every 2 s,
 * HPA sync every 2 s, a 15 s stabilization window. On a mixed cluster the
 * pods are pinned to Linux nodes, as the image is Linux-only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { PHP_APACHE_MANIFEST } from '../helpers/php-apache.js';

let cluster: TestCluster;
const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
before(async () => {
  Object.assign(process.env, { WINKUBE_METRIC_RESOLUTION: '2s', WINKUBE_HPA_SYNC_PERIOD: '2s', WINKUBE_HPA_DOWNSCALE_STABILIZATION: '15s' });
  cluster = await startCluster(undefined, ['--metrics-server']);
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

test('php-apache scales out under the load generator and back in after it stops', async () => {
  await ok(['apply', '-f', '-'], PHP_APACHE_MANIFEST);
  await ok(['rollout', 'status', 'deployment/php-apache', '--timeout=60s']);
  assert.equal(await ok(['autoscale', 'deployment', 'php-apache', '--cpu-percent=50', '--min=1', '--max=10']), 'horizontalpodautoscaler.autoscaling/php-apache autoscaled\n');
  // Idle: a fraction of its request.
  const idle = await eventually('idle metrics', async () => {
    const t = await ok(['get', 'hpa', 'php-apache', '-o', 'jsonpath={.status.currentMetrics[0].resource.current.averageUtilization}']);
    return t === '' ? undefined : Number(t);
  }, 60_000);
  assert.ok(idle < 5, `idle php-apache uses ${idle}% of its request`);
  await ok(['run', 'load-generator', '--image=busybox:1.28', '--restart=Never', '--overrides={"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}',
    '--', '/bin/sh', '-c', 'while sleep 0.01; do wget -q -O- http://php-apache; done']);
  // Loaded: the one pod at its 500m limit, 250 % of its request; the HPA scales out.
  const loaded = await eventually('scale out', async () => {
    const rows = (await ok(['get', 'hpa', 'php-apache', '--no-headers'])).trim().split(/\s+/);
    return Number(rows[rows.length - 2]) > 1 ? rows : undefined;
  }, 90_000);
  assert.equal(loaded[0], 'php-apache');
  assert.equal(loaded[1], 'Deployment/php-apache');
  assert.match(`${loaded[2]} ${loaded[3]}`, /^cpu: \d+%\/50%$/);
  const events = await ok(['get', 'events', '--field-selector', 'involvedObject.name=php-apache,reason=SuccessfulRescale', '-o', 'jsonpath={.items[0].message}']);
  // At most max(2 × 1, 4) in one step; fewer when the first sample caught the load only part of its window.
  assert.match(events, /^New size: [234]; reason: cpu resource utilization \(percentage of request\) above target$/);
  const logs = await ok(['logs', 'deployment/php-apache', '--tail=1']);
  assert.match(logs, /^10\.244\.\d+\.\d+ - - \[\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000\] "GET \/ HTTP\/1\.1" 200 \d+ "-" "Wget"\n$/);
  await ok(['delete', 'pod', 'load-generator', '--wait=false']);
  await eventually('scale in', async () => (await ok(['get', 'deployment', 'php-apache', '-o', 'jsonpath={.spec.replicas}'])) === '1' || undefined, 120_000);
  // The HPA records the rescale behind the scale it wrote: wait for the event.
  const lastRescale = () => ok(['get', 'events', '--field-selector', 'involvedObject.name=php-apache,reason=SuccessfulRescale', '--sort-by=.lastTimestamp', '-o', 'jsonpath={.items[-1:].message}']);
  await eventually('the scale-in event', async () => ((await lastRescale()).startsWith('New size: 1;') ? true : undefined));
  assert.equal(await lastRescale(), 'New size: 1; reason: All metrics below target');
});
