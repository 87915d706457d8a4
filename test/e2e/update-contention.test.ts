import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/**
 * Unconditional writes (no resourceVersion from the client) retry until they apply, as
 * GuaranteedUpdate does: many writers racing on one object never see a 409. A client-given
 * resourceVersion still makes a stale write fail.
 */
let cluster: TestCluster;
const NS = 'contention';
const WRITERS = 500;
before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

async function createConfigMap(name: string): Promise<string> {
  const r = await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name }, data: {} });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return `/api/v1/namespaces/${NS}/configmaps/${name}`;
}

function statusCounts(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

test(`${WRITERS} concurrent PUTs without a resourceVersion all succeed`, async () => {
  const path = await createConfigMap('put-race');
  const results = await Promise.all(range(WRITERS).map((i) =>
    rawJSON(cluster, 'PUT', path, { metadata: { name: 'put-race', labels: { writer: String(i) } }, data: { v: String(i) } })));
  assert.deepEqual(statusCounts(results.map((r) => r.status)), { 200: WRITERS });
  const last = await rawJSON(cluster, 'GET', path);
  // The object left is one writer's whole body.
  assert.equal(last.body.data.v, last.body.metadata.labels.writer);
});

for (const [kind, contentType] of [['merge', 'application/merge-patch+json'], ['strategic merge', 'application/strategic-merge-patch+json']] as const) {
  test(`${WRITERS} concurrent ${kind} patches without a resourceVersion all succeed and all apply`, async () => {
    const path = await createConfigMap(`${kind.replace(' ', '-')}-race`);
    const results = await Promise.all(range(WRITERS).map((i) =>
      rawJSON(cluster, 'PATCH', path, { metadata: { labels: { [`l${i}`]: String(i) } } }, { 'Content-Type': contentType })));
    assert.deepEqual(statusCounts(results.map((r) => r.status)), { 200: WRITERS });
    const last = await rawJSON(cluster, 'GET', path);
    assert.equal(Object.keys(last.body.metadata.labels).length, WRITERS);
    for (const i of range(WRITERS)) assert.equal(last.body.metadata.labels[`l${i}`], String(i));
  });
}

test('concurrent PUTs that all carry the same resourceVersion: one wins, the others get 409', async () => {
  const path = await createConfigMap('conditional-race');
  const rv = (await rawJSON(cluster, 'GET', path)).body.metadata.resourceVersion as string;
  const results = await Promise.all(range(20).map((i) =>
    rawJSON(cluster, 'PUT', path, { metadata: { name: 'conditional-race', resourceVersion: rv }, data: { v: String(i) } })));
  assert.deepEqual(statusCounts(results.map((r) => r.status)), { 200: 1, 409: 19 });
  const conflict = results.find((r) => r.status === 409)!;
  assert.equal(conflict.body.message,
    'Operation cannot be fulfilled on configmaps "conditional-race": the object has been modified; please apply your changes to the latest version and try again');
});

test('concurrent merge patches that carry a resourceVersion: one wins, the others get 409', async () => {
  const path = await createConfigMap('conditional-patch-race');
  const rv = (await rawJSON(cluster, 'GET', path)).body.metadata.resourceVersion as string;
  const results = await Promise.all(range(20).map((i) =>
    rawJSON(cluster, 'PATCH', path, { metadata: { resourceVersion: rv, labels: { [`l${i}`]: 'x' } } },
      { 'Content-Type': 'application/merge-patch+json' })));
  assert.deepEqual(statusCounts(results.map((r) => r.status)), { 200: 1, 409: 19 });
});
