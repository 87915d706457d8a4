/**
 * The HPA's API clients: the scale subresource's paths and the REST
 * mapping of a target's kind (scale-client.ts), and how PodMetrics become
 * per-pod usage (metrics-client.ts, upstream's resourceMetricsClient).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '../../src/client/types.js';
import { deployments, replicationcontrollers } from '../../src/client/resources.js';
import { apiScales, restMappings } from '../../src/controllers/podautoscaler/scale-client.js';
import { apiResourceMetrics } from '../../src/controllers/podautoscaler/metrics-client.js';

test('scale subresource: GET and PUT .../scale of the mapped resource', async () => {
  const calls: [string, string, unknown][] = [];
  const scales = apiScales({ call: (method, path, body) => { calls.push([method, path, body]); return Promise.resolve({ kind: 'Scale' }); } });
  await scales.get(deployments, 'web', 'php-apache');
  await scales.update(replicationcontrollers, 'web', { metadata: { name: 'rc', resourceVersion: '7' }, spec: { replicas: 3 } });
  assert.deepEqual(calls, [
    ['GET', '/apis/apps/v1/namespaces/web/deployments/php-apache/scale', undefined],
    ['PUT', '/api/v1/namespaces/web/replicationcontrollers/rc/scale?fieldManager=kube-controller-manager',
      { metadata: { name: 'rc', resourceVersion: '7' }, spec: { replicas: 3 }, apiVersion: 'autoscaling/v1', kind: 'Scale' }],
  ]);
});

test('REST mapping: a kind of the group, not a subresource; otherwise NoKindMatchError', () => {
  const webapps = { group: 'example.com', version: 'v1', resource: 'webapps', kind: 'WebApp', namespaced: true };
  const scale = { group: 'example.com', version: 'v1', resource: 'webapps/scale', kind: 'Scale', namespaced: true };
  assert.deepEqual(restMappings([deployments, webapps, scale], 'example.com', 'WebApp'), [webapps]);
  assert.throws(() => restMappings([deployments, webapps], 'apps', 'WebApp'), { message: 'no matches for kind "WebApp" in group "apps"' });
});

function metricsOf(items: unknown[]): Client {
  return { resource: () => ({ list: () => Promise.resolve({ items, resourceVersion: '1' }) }) } as unknown as Client;
}
const podMetrics = (name: string, containers: { name: string; usage: Record<string, string> }[]) =>
  ({ metadata: { name, namespace: 'web' }, timestamp: '2026-11-28T12:00:00Z', window: '15s', containers });

test('PodMetrics: each pod the sum of its containers, or the named one; a pod without it is an error', async () => {
  const client = apiResourceMetrics(metricsOf([
    podMetrics('a', [{ name: 'app', usage: { cpu: '250m', memory: '10Mi' } }, { name: 'log', usage: { cpu: '5m', memory: '1Mi' } }]),
    podMetrics('b', [{ name: 'app', usage: { memory: '10Mi' } }]),
  ]));
  const all = await client.resourceMetric('cpu', 'web', 'app=x');
  // b reports no cpu: left out, as upstream leaves it.
  assert.deepEqual([...all.metrics], [['a', { timestampMs: Date.parse('2026-11-28T12:00:00Z'), windowMs: 15_000, value: 255 }]]);
  assert.equal((await client.resourceMetric('cpu', 'web', 'app=x', 'app')).metrics.get('a')?.value, 250);
  await assert.rejects(client.resourceMetric('cpu', 'web', 'app=x', 'sidecar'),
    { message: 'failed to get container metrics: container sidecar not present in metrics for pod web/a' });
  await assert.rejects(apiResourceMetrics(metricsOf([])).resourceMetric('cpu', 'web', 'app=x'), { message: 'no metrics returned from resource metrics API' });
});
