import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { credentials, eventually, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
const NS = 'behaviour';
before(async () => {
  cluster = await startCluster();
  await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });

test('bodies without kind and apiVersion get them from the URL', async () => {
  const r = await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'typeless' }, data: { a: 'b' } });
  assert.equal(r.status, 201);
  assert.equal(r.body.kind, 'ConfigMap');
  assert.equal(r.body.apiVersion, 'v1');
  const d = await rawJSON(cluster, 'POST', '/apis/apps/v1/namespaces/' + NS + '/deployments', {
    metadata: { name: 'typeless' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  assert.equal(d.status, 201, JSON.stringify(d.body));
  assert.deepEqual([d.body.kind, d.body.apiVersion, d.body.metadata.generation], ['Deployment', 'apps/v1', 1]);
});

test('generateName produces a five-character suffix', async () => {
  const r = await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { generateName: 'gen-' } });
  assert.equal(r.status, 201);
  assert.match(r.body.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

test('a body over 3 MiB is refused with 413 and nothing is stored', async () => {
  const big = JSON.stringify(cm('huge', {}, { blob: 'x'.repeat(3 * 1024 * 1024) }));
  const r = await raw(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: big });
  assert.equal(r.status, 413);
  assert.deepEqual(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Request entity too large: limit is 3145728', reason: 'RequestEntityTooLarge', code: 413 });
  assert.equal((await raw(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps/huge`)).status, 404);
});

test('YAML bodies are accepted; broken YAML is a 400', async () => {
  const ok = await raw(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n', headers: { 'Content-Type': 'application/yaml' },
  });
  assert.equal(ok.status, 201);
  assert.equal(JSON.parse(ok.body).data.k, 'v');
  const bad = await raw(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: 'metadata: [unclosed', headers: { 'Content-Type': 'application/yaml' } });
  assert.equal(bad.status, 400);
  assert.equal(JSON.parse(bad.body).reason, 'BadRequest');
});

test('query booleans parse like Go (watch=True from the Python client)', async () => {
  const r = await raw(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps?watch=True&timeoutSeconds=1&fieldSelector=metadata.name%3Dtypeless`);
  assert.equal(r.status, 200);
  const events = r.body.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'typeless']]);
  // runtime.Convert_Slice_string_To_bool: only "0" and "false" (any case) are false.
  const yes = await raw(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps?watch=yes&timeoutSeconds=1&fieldSelector=metadata.name%3Dtypeless`);
  assert.equal(yes.status, 200);
  assert.equal(JSON.parse(yes.body.trim().split('\n')[0] ?? 'null').type, 'ADDED');
  const no = await rawJSON(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps?watch=FALSE`);
  assert.equal(no.body.kind, 'ConfigMapList');
});

test('paginated lists are consistent snapshots', async () => {
  for (let i = 0; i < 5; i++) await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, cm(`page-${i}`, { page: 'yes' }));
  const first = await rawJSON(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps?labelSelector=page%3Dyes&limit=2`);
  assert.deepEqual(first.body.items.map((i: any) => i.metadata.name), ['page-0', 'page-1']);
  const token = first.body.metadata.continue;
  assert.ok(token);
  await rawJSON(cluster, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/page-3`);
  const second = await rawJSON(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps?labelSelector=page%3Dyes&limit=2&continue=${encodeURIComponent(token)}`);
  assert.deepEqual(second.body.items.map((i: any) => i.metadata.name), ['page-2', 'page-3']);
  assert.equal(second.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
  const third = await rawJSON(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps?labelSelector=page%3Dyes&limit=2&continue=${encodeURIComponent(second.body.metadata.continue)}`);
  assert.deepEqual(third.body.items.map((i: any) => i.metadata.name), ['page-4']);
  assert.equal(third.body.metadata.continue, undefined);
});

test('a stale resourceVersion on update is a 409 Conflict with upstream\'s message', async () => {
  const created = (await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, cm('stale'))).body;
  const updated = { ...created, data: { v: '2' } };
  assert.equal((await rawJSON(cluster, 'PUT', `/api/v1/namespaces/${NS}/configmaps/stale`, updated)).status, 200);
  const again = await rawJSON(cluster, 'PUT', `/api/v1/namespaces/${NS}/configmaps/stale`, { ...created, data: { v: '3' } });
  assert.equal(again.status, 409);
  assert.deepEqual(again.body, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again',
    reason: 'Conflict', details: { name: 'stale', kind: 'configmaps' }, code: 409,
  });
});

test('status is written only through the status subresource, and generation follows spec', async () => {
  const path = `/apis/apps/v1/namespaces/${NS}/deployments/typeless`;
  const d = (await rawJSON(cluster, 'GET', path)).body;
  // The Deployment controller writes status meanwhile: no resourceVersion precondition, and only 7 is foreign.
  const withStatus = await rawJSON(cluster, 'PUT', path, { ...d, metadata: { ...d.metadata, resourceVersion: undefined }, status: { replicas: 7 } });
  assert.notEqual(withStatus.body.status?.replicas, 7);
  assert.equal(withStatus.body.metadata.generation, 1);
  const st = await rawJSON(cluster, 'PATCH', `${path}/status`, { status: { replicas: 7 } }, { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(st.status, 200);
  assert.equal(st.body.status.replicas, 7);
  assert.equal(st.body.metadata.generation, 1);
  const scaled = await rawJSON(cluster, 'PATCH', `${path}/scale`, { spec: { replicas: 3 } }, { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(scaled.status, 200);
  assert.deepEqual([scaled.body.kind, scaled.body.apiVersion, scaled.body.spec.replicas, scaled.body.status.selector], ['Scale', 'autoscaling/v1', 3, 'a=b']);
  const after = (await rawJSON(cluster, 'GET', path)).body;
  assert.deepEqual([after.spec.replicas, after.metadata.generation], [3, 2]);
  // Annotations are copied to ReplicaSets, so they count as a Deployment change; labels do not.
  const annotated = await rawJSON(cluster, 'PATCH', path, { metadata: { annotations: { a: 'b' } } }, { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(annotated.body.metadata.generation, 3);
  const labeled = await rawJSON(cluster, 'PATCH', path, { metadata: { labels: { l: 'm' } } }, { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(labeled.body.metadata.generation, 3);
});

test('finalizers hold a deleted object until they are removed', async () => {
  await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { ...cm('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  const del = await rawJSON(cluster, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/held`);
  assert.equal(del.status, 200);
  assert.ok(del.body.metadata.deletionTimestamp);
  assert.equal((await rawJSON(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps/held`)).status, 200);
  const rm = await rawJSON(cluster, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/held`, { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(rm.status, 200);
  assert.equal((await rawJSON(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps/held`)).status, 404);
});

test('creating in a terminating namespace is Forbidden with the NamespaceTerminating cause', async () => {
  await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
  await rawJSON(cluster, 'POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'x', finalizers: ['example.com/hold'] } });
  await rawJSON(cluster, 'DELETE', '/api/v1/namespaces/doomed');
  const ns = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/doomed')).body;
  assert.equal(ns.status.phase, 'Terminating');
  const r = await rawJSON(cluster, 'POST', '/api/v1/namespaces/doomed/configmaps', cm('late'));
  assert.deepEqual(r.body, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    reason: 'Forbidden',
    details: { name: 'late', kind: 'configmaps', causes: [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }] },
    code: 403,
  });
  await rawJSON(cluster, 'PATCH', '/api/v1/namespaces/doomed/configmaps/x', { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
  await eventually('namespace doomed gone', async () => ((await raw(cluster, 'GET', '/api/v1/namespaces/doomed')).status === 404 ? true : undefined));
});

test('owner deletion cascades to dependents in the background', async () => {
  const owner = (await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, cm('owner'))).body;
  await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
    ...cm('dependent'), metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] },
  });
  await rawJSON(cluster, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/owner`);
  await eventually('the dependent collected', async () => ((await raw(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps/dependent`)).status === 404 ? true : undefined));
});

test('watch with bookmarks streams events as they are written', async () => {
  const list = (await rawJSON(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps?limit=1`)).body;
  const c = credentials(cluster);
  const events: any[] = [];
  const done = new Promise<void>((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: cluster.port, ca: c.ca, cert: c.cert, key: c.key,
      path: `/api/v1/namespaces/${NS}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=30&labelSelector=w%3D1`,
    }, (res) => {
      let buf = '';
      // Done at the second event (the writes may land late on a loaded machine), or when the server ends the watch.
      res.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) { events.push(JSON.parse(buf.slice(0, i))); buf = buf.slice(i + 1); }
        if (events.length >= 2) { res.destroy(); resolve(); }
      });
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
  await new Promise((r) => setTimeout(r, 200));
  await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, cm('watched', { w: '1' }));
  await rawJSON(cluster, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/watched`, { metadata: { labels: { w: '2' } } }, { 'Content-Type': 'application/merge-patch+json' });
  await done;
  assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'watched'], ['DELETED', 'watched']]);
});

test('a watch as Table carries column definitions on its first event only', async () => {
  await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, cm('table-a', { tw: '1' }));
  await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, cm('table-b', { tw: '1' }));
  const r = await raw(cluster, 'GET', `/api/v1/namespaces/${NS}/configmaps?watch=true&labelSelector=tw%3D1&timeoutSeconds=1`, {
    headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
  });
  const events = r.body.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.rows[0].cells[0]]), [['ADDED', 'Table', 'table-a'], ['ADDED', 'Table', 'table-b']]);
  assert.deepEqual(events[0].object.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Data', 'Age']);
  assert.equal(events[1].object.columnDefinitions, null);
});

test('YAML duplicate keys are refused under Strict and warned about under Warn', async () => {
  const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup-yaml\ndata:\n  a: "1"\n  a: "2"\n';
  const strict = await raw(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps?fieldValidation=Strict`, { body, headers: { 'Content-Type': 'application/yaml' } });
  assert.equal(strict.status, 400);
  assert.equal(JSON.parse(strict.body).message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
  const warn = await raw(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps?fieldValidation=Warn`, { body, headers: { 'Content-Type': 'application/yaml' } });
  assert.equal(warn.status, 201);
  assert.equal(warn.headers.warning, '299 - "line 7: key \\"a\\" already set in map"');
  assert.deepEqual(JSON.parse(warn.body).data, { a: '2' });
});
