import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { goldenDiscovery } from '../helpers/golden.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

/** Every resource we serve in a group version is described as upstream's discovery document describes it. */
for (const [path, file] of [
  ['/api/v1', 'api_v1.json'], ['/apis/apps/v1', 'apis_apps_v1.json'], ['/apis/batch/v1', 'apis_batch_v1.json'],
  ['/apis/autoscaling/v1', 'apis_autoscaling_v1.json'], ['/apis/autoscaling/v2', 'apis_autoscaling_v2.json'],
  ['/apis/policy/v1', 'apis_policy_v1.json'], ['/apis/networking.k8s.io/v1', 'apis_networking.k8s.io_v1.json'], ['/apis/node.k8s.io/v1', 'apis_node.k8s.io_v1.json'],
  ['/apis/scheduling.k8s.io/v1', 'apis_scheduling.k8s.io_v1.json'], ['/apis/coordination.k8s.io/v1', 'apis_coordination.k8s.io_v1.json'],
  ['/apis/discovery.k8s.io/v1', 'apis_discovery.k8s.io_v1.json'], ['/apis/events.k8s.io/v1', 'apis_events.k8s.io_v1.json'],
  ['/apis/authorization.k8s.io/v1', 'apis_authorization.k8s.io_v1.json'],
  ['/apis/apiregistration.k8s.io/v1', 'apis_apiregistration.k8s.io_v1.json'],
] as const) {
  test(`${path} matches upstream's resource list`, async () => {
    const golden = goldenDiscovery(file);
    const ours = (await rawJSON(cluster, 'GET', path)).body;
    assert.equal(ours.kind, 'APIResourceList');
    assert.equal(ours.groupVersion, golden.groupVersion);
    assert.equal(ours.apiVersion, golden.apiVersion);
    const served = new Map<string, unknown>(ours.resources.map((r: { name: string }) => [r.name, r]));
    for (const r of golden.resources as { name: string }[]) {
      if (!served.has(r.name)) continue;
      assert.deepEqual(served.get(r.name), r, `${path} ${r.name}`);
    }
    // Nothing is served that upstream does not serve in this group version.
    const upstream = new Set((golden.resources as { name: string }[]).map((r) => r.name));
    assert.deepEqual([...served.keys()].filter((n) => !upstream.has(n)), []);
  });
}

test('/version reports v1.32', async () => {
  const v = (await rawJSON(cluster, 'GET', '/version')).body;
  assert.deepEqual([v.major, v.minor, v.gitVersion, v.platform, v.compiler], ['1', '32', 'v1.32.0', 'linux/amd64', 'gc']);
});

test('/api and /apis in legacy form', async () => {
  const api = (await rawJSON(cluster, 'GET', '/api')).body;
  assert.deepEqual(api, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${cluster.port}` }] });
  const apis = (await rawJSON(cluster, 'GET', '/apis')).body;
  assert.equal(apis.kind, 'APIGroupList');
  const apps = apis.groups.find((g: { name: string }) => g.name === 'apps');
  assert.deepEqual(apps, { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } });
  const autoscaling = apis.groups.find((g: { name: string }) => g.name === 'autoscaling');
  assert.deepEqual(autoscaling.preferredVersion, { groupVersion: 'autoscaling/v2', version: 'v2' });
});

for (const v of ['v2', 'v2beta1']) {
  test(`aggregated discovery ${v} answers with its exact Content-Type`, async () => {
    const accept = `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList,application/json`;
    const core = await raw(cluster, 'GET', '/api', { headers: { Accept: accept } });
    assert.equal(core.headers['content-type'], `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`);
    const doc = JSON.parse(core.body);
    assert.equal(doc.apiVersion, `apidiscovery.k8s.io/${v}`);
    assert.equal(doc.items[0].metadata.name, '');
    const pods = doc.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === 'pods');
    assert.equal(pods.scope, 'Namespaced');
    assert.deepEqual(pods.shortNames, ['po']);
    assert.deepEqual(pods.categories, ['all']);
    assert.deepEqual(pods.responseKind, { group: '', version: '', kind: 'Pod' });
    assert.deepEqual(pods.subresources.find((s: { subresource: string }) => s.subresource === 'eviction').responseKind,
      { group: 'policy', version: 'v1', kind: 'Eviction' });
    const groups = JSON.parse((await raw(cluster, 'GET', '/apis', { headers: { Accept: accept } })).body);
    const deploy = groups.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'apps')
      .versions[0].resources.find((r: { resource: string }) => r.resource === 'deployments');
    assert.deepEqual(deploy.subresources.map((s: { subresource: string }) => s.subresource).sort(), ['scale', 'status']);
  });
}

test('health endpoints answer without credentials (system:public-info-viewer); resources do not', async () => {
  for (const p of ['/healthz', '/livez', '/readyz']) {
    const r = await raw(cluster, 'GET', p, { anonymous: true });
    assert.deepEqual([r.status, r.body], [200, 'ok'], p);
  }
  const r = await raw(cluster, 'GET', '/api/v1/namespaces', { anonymous: true });
  assert.equal(r.status, 403);
  assert.equal(JSON.parse(r.body).message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
});

test('unknown paths answer 404 page not found', async () => {
  const r = await raw(cluster, 'GET', '/apis/widgets.example.com/v1');
  assert.deepEqual([r.status, r.body], [404, '404 page not found\n']);
});
