import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertLegacyResources, fetchVersionDiscovery, RemoteDiscovery, type ServiceGet } from '../../src/api/remote-discovery.js';
import { sortedByGroupAndVersion } from '../../src/apimachinery/apiservice.js';

const LEGACY = {
  kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'metrics.k8s.io/v1beta1',
  resources: [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'], shortNames: ['pm'] },
    { name: 'pods/status', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get'] },
    { name: 'things/log', singularName: '', namespaced: true, kind: '', verbs: ['get'] },
  ],
};

test('a legacy resource list in aggregated form, as ConvertGroupVersionIntoToDiscovery writes it', () => {
  assert.deepEqual(convertLegacyResources(LEGACY.resources), [
    { resource: 'nodes', responseKind: { group: '', version: '', kind: 'NodeMetrics' }, scope: 'Cluster', singularResource: '', verbs: ['get', 'list'] },
    {
      resource: 'pods', responseKind: { group: '', version: '', kind: 'PodMetrics' }, scope: 'Namespaced', singularResource: '', verbs: ['get', 'list'],
      shortNames: ['pm'], subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'PodMetrics' }, verbs: ['get'] }],
    },
    {
      resource: 'things', responseKind: { group: '', version: '', kind: '' }, scope: 'Namespaced',
      subresources: [{ subresource: 'log', responseKind: { group: '', version: '', kind: '' }, verbs: ['get'] }],
    },
  ]);
});

function service(answers: Record<string, { status: number; contentType: string; body: unknown }>): { get: ServiceGet; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get: async (path, accept) => {
      asked.push(`${path} ${accept.startsWith('application/json;g=') ? 'aggregated' : accept}`);
      const a = answers[path];
      if (!a) return { status: 404, contentType: 'text/plain', body: '404 page not found\n' };
      return { status: a.status, contentType: a.contentType, body: typeof a.body === 'string' ? a.body : JSON.stringify(a.body) };
    },
  };
}

test('a service without aggregated discovery is read through its legacy group version list', async () => {
  const s = service({
    '/apis': { status: 200, contentType: 'application/json', body: { kind: 'APIGroupList', groups: [] } },
    '/apis/metrics.k8s.io/v1beta1': { status: 200, contentType: 'application/json', body: LEGACY },
  });
  const resources = await fetchVersionDiscovery({ group: 'metrics.k8s.io', version: 'v1beta1', get: s.get });
  assert.equal(resources?.length, 3);
  assert.deepEqual(s.asked, ['/apis aggregated', '/apis/metrics.k8s.io/v1beta1 application/json']);
});

test('a service\'s aggregated discovery is used as it is; failures keep the last result, Stale', async () => {
  const resources = [{ resource: 'widgets', responseKind: { group: '', version: '', kind: 'Widget' }, scope: 'Namespaced', singularResource: 'widget', verbs: ['get'] }];
  let up = true;
  const get: ServiceGet = async () => (up
    ? { status: 200, contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      body: JSON.stringify({ items: [{ metadata: { name: 'w.example.com' }, versions: [{ version: 'v1', resources, freshness: 'Current' }] }] }) }
    : { status: 503, contentType: 'text/plain', body: 'service unavailable\n' });
  let changes = 0;
  const d = new RemoteDiscovery(() => { changes++; });
  try {
    d.set('w.example.com/v1', { group: 'w.example.com', version: 'v1', get });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(d.get('w.example.com/v1'), { resources, freshness: 'Current' });
    up = false;
    d.set('w.example.com/v1', { group: 'w.example.com', version: 'v1', get });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(d.get('w.example.com/v1'), { resources, freshness: 'Stale' });
    d.set('w.example.com/v1', undefined);
    assert.equal(d.get('w.example.com/v1'), undefined);
    assert.equal(changes, 3);
  } finally {
    d.stop();
  }
});

test('APIServices sort as SortedByGroupAndVersion: group priority, then name; versions by priority, then kube-aware order', () => {
  const svc = (group: string, version: string, gp: number, vp: number) => ({ name: `${version}.${group}`, group, version, groupPriorityMinimum: gp, versionPriority: vp });
  const sorted = sortedByGroupAndVersion([
    svc('b.example.com', 'v1', 100, 10), svc('a.example.com', 'v1', 100, 10), svc('apps', 'v1', 17800, 15),
    svc('a.example.com', 'v2beta1', 100, 10), svc('a.example.com', 'v1alpha1', 2000, 10), svc('a.example.com', 'v3', 100, 1),
  ]);
  assert.deepEqual(sorted.map((g) => g.map((s) => s.name)), [
    ['v1.apps'], ['v1.a.example.com', 'v2beta1.a.example.com', 'v1alpha1.a.example.com', 'v3.a.example.com'], ['v1.b.example.com'],
  ]);
});
