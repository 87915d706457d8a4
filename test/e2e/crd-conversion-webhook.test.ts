/**
 * Webhook conversion of custom resources: a conversion webhook served by the test over HTTPS
 * (its own CA, given to the CRD as caBundle) converts between v1 (storage: spec.hostPort "h:1")
 * and v2 (spec.host and spec.port), driven with real kubectl and raw requests; and the failures
 * the client sees, in upstream's words (webhook_converter.go), as a 500 without reason.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCA, issue } from '../../src/pki/issue.js';
import { eventually, kubectl, kubectlOk, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, any>; spec?: Record<string, any> };

/** What the webhook does: convert, or one of the faults a broken webhook makes. */
let mode: 'convert' | 'count' | 'rename' | 'uid' | 'metadata' = 'convert';
let calls = 0;
const requests: { desiredAPIVersion: string; objects: Obj[] }[] = [];

function convertObject(o: Obj, desired: string): Obj {
  const spec = { ...o.spec };
  if (desired.endsWith('/v2') && typeof spec.hostPort === 'string') {
    const [host, port] = spec.hostPort.split(':');
    delete spec.hostPort;
    Object.assign(spec, { host, port: Number(port) });
  } else if (desired.endsWith('/v1') && spec.host !== undefined) {
    spec.hostPort = `${spec.host}:${spec.port}`;
    delete spec.host;
    delete spec.port;
  }
  const out: Obj = { ...o, apiVersion: desired, spec, metadata: { ...o.metadata } };
  if (mode === 'rename') out.metadata.name = `${o.metadata.name}-renamed`;
  if (mode === 'uid') out.metadata.uid = 'wrong';
  if (mode === 'metadata') {
    out.metadata.labels = { ...o.metadata.labels, converted: 'true' };
    out.metadata.generation = 42;
    out.metadata.finalizers = ['foo'];
    out.metadata.garbage = 'x';
  }
  return out;
}

let webhook: Server;
let webhookURL: string;
let deadURL: string;
let caBundle: string;
let cluster: TestCluster;

before(async () => {
  const ca = await createCA();
  const cert = await issue(ca, 'CN=localhost', 'server', { dns: ['localhost'], ip: ['127.0.0.1'] });
  caBundle = Buffer.from(ca.cert).toString('base64');
  webhook = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls++;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const { uid, desiredAPIVersion, objects } = review.request as { uid: string; desiredAPIVersion: string; objects: Obj[] };
      requests.push({ desiredAPIVersion, objects });
      const convertedObjects = mode === 'count' ? [] : objects.map((o) => convertObject(o, desiredAPIVersion));
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid, convertedObjects, result: { status: 'Success' } } }));
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  webhookURL = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/convert`;
  // A port nothing listens on: a webhook that is down.
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  deadURL = `https://127.0.0.1:${(closed.address() as AddressInfo).port}/convert`;
  await new Promise((r) => closed.close(r));
  cluster = await startCluster(undefined, ['--api-only']);
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(crd(webhookURL)));
  await eventually('gadgets served in v2', async () => {
    const r = await rawJSON(cluster, 'GET', '/apis/conv.example.com/v2/namespaces/default/gadgets');
    return r.status === 200 ? true : undefined;
  });
});
after(async () => {
  await cluster?.stop();
  if (cluster) removeDir(cluster.dataDir);
  webhook?.closeAllConnections();
  await new Promise((r) => webhook?.close(r));
});

function crd(url: string) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.conv.example.com' },
    spec: {
      group: 'conv.example.com', scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url, caBundle } } },
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { hostPort: { type: 'string' } } } } } } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { host: { type: 'string' }, port: { type: 'integer' } } } } } } },
      ],
    },
  };
}

const V1 = '/apis/conv.example.com/v1/namespaces/default/gadgets';
const V2 = '/apis/conv.example.com/v2/namespaces/default/gadgets';
const gadget = (name: string, port: number) => ({ apiVersion: 'conv.example.com/v2', kind: 'Gadget', metadata: { name, namespace: 'default' }, spec: { host: 'h', port } });

async function withMode<T>(m: typeof mode, f: () => Promise<T>): Promise<T> {
  mode = m;
  try { return await f(); } finally { mode = 'convert'; }
}

/** A get's failure as the client sees it: 500, no reason, the message. */
async function failure(path: string): Promise<string> {
  const r = await rawJSON(cluster, 'GET', path);
  assert.equal(r.status, 500, JSON.stringify(r.body));
  assert.equal(r.body.reason, undefined);
  assert.equal(r.body.code, 500);
  return r.body.message;
}

test('an object created in v2 is stored in v1 and read in either version', async () => {
  await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify(gadget('g1', 1)));
  const asV1 = JSON.parse(await kubectlOk(cluster, ['get', 'gadgets.v1.conv.example.com', 'g1', '-o', 'json']));
  assert.equal(asV1.apiVersion, 'conv.example.com/v1');
  assert.deepEqual(asV1.spec, { hostPort: 'h:1' });
  const asV2 = JSON.parse(await kubectlOk(cluster, ['get', 'gadgets.v2.conv.example.com', 'g1', '-o', 'json']));
  assert.equal(asV2.apiVersion, 'conv.example.com/v2');
  assert.deepEqual(asV2.spec, { host: 'h', port: 1 });
  assert.equal(asV2.metadata.uid, asV1.metadata.uid);
  assert.equal(asV2.metadata.resourceVersion, asV1.metadata.resourceVersion);
  // What the webhook is sent carries no resourceVersion, and only objects not in the desired version.
  const last = requests.at(-1)!;
  assert.equal(last.desiredAPIVersion, 'conv.example.com/v2');
  assert.equal(last.objects.length, 1);
  assert.equal(last.objects[0]!.metadata.resourceVersion, undefined);
  const before = calls;
  await kubectlOk(cluster, ['get', 'gadgets.v1.conv.example.com', 'g1', '-o', 'json']);
  assert.equal(calls, before, 'a read in the storage version calls no webhook');
});

test('a list converts all its items in one call', async () => {
  for (const n of ['l1', 'l2', 'l3']) assert.equal((await rawJSON(cluster, 'POST', V2, gadget(n, 7))).status, 201);
  const before = calls;
  const list = await rawJSON(cluster, 'GET', V2);
  assert.equal(list.status, 200);
  assert.equal(calls, before + 1);
  assert.equal(list.body.apiVersion, 'conv.example.com/v2');
  assert.equal(list.body.kind, 'GadgetList');
  assert.ok(list.body.items.length >= 4);
  for (const o of list.body.items) { assert.equal(o.apiVersion, 'conv.example.com/v2'); assert.equal(o.spec.host, 'h'); }
  const v1 = await rawJSON(cluster, 'GET', V1);
  assert.equal(calls, before + 1, 'the storage version lists without the webhook');
  assert.ok(v1.body.items.every((o: Obj) => o.spec!.hostPort === `h:${o.metadata.name === 'g1' ? 1 : 7}`));
  const table = await kubectlOk(cluster, ['get', 'gadgets.v2.conv.example.com']);
  assert.match(table, /^NAME\s+AGE\n/);
  assert.match(table, /\nl3 /);
});

test('a patch in v2 applies to the object in v2', async () => {
  await kubectlOk(cluster, ['patch', 'gadgets.v2.conv.example.com', 'g1', '--type=merge', '-p', '{"spec":{"port":2}}']);
  const asV1 = JSON.parse(await kubectlOk(cluster, ['get', 'gadgets.v1.conv.example.com', 'g1', '-o', 'json']));
  assert.deepEqual(asV1.spec, { hostPort: 'h:2' });
});

test('a watch in v2 gets its events converted', async () => {
  const rv = (await rawJSON(cluster, 'GET', `${V1}/g1`)).body.metadata.resourceVersion;
  // Open long enough for both writes to land inside it, however slow kubectl starts.
  const watching = raw(cluster, 'GET', `${V2}?watch=1&resourceVersion=${rv}&timeoutSeconds=10`);
  await new Promise((r) => setTimeout(r, 300));
  await kubectlOk(cluster, ['patch', 'gadgets.v1.conv.example.com', 'g1', '--type=merge', '-p', '{"spec":{"hostPort":"h:3"}}']);
  await kubectlOk(cluster, ['delete', 'gadgets.v1.conv.example.com', 'l3']);
  const events = (await watching).body.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(events.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec]), [
    ['MODIFIED', 'conv.example.com/v2', 'g1', { host: 'h', port: 3 }],
    ['DELETED', 'conv.example.com/v2', 'l3', { host: 'h', port: 7 }],
  ]);
});

test('a webhook that is down fails reads, and a CRD update changes the webhook for the next request', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(crd(deadURL)));
  const port = new URL(deadURL).port;
  const expected = `conversion webhook for conv.example.com/v1, Kind=Gadget failed: Post "${deadURL}": dial tcp 127.0.0.1:${port}: connect: connection refused`;
  await eventually('the new webhook URL used', async () => ((await rawJSON(cluster, 'GET', `${V2}/g1`)).status === 500 ? true : undefined));
  assert.equal(await failure(`${V2}/g1`), expected);
  const r = await kubectl(cluster, ['get', 'gadgets.v2.conv.example.com', 'g1']);
  assert.equal(r.stderr.trim(), `Error from server: ${expected}`);
  // A create in v2 fails to be stored; nothing is written.
  const created = await rawJSON(cluster, 'POST', V2, gadget('never', 1));
  assert.equal(created.status, 500);
  assert.equal(created.body.message, `conversion webhook for conv.example.com/v2, Kind=Gadget failed: Post "${deadURL}": dial tcp 127.0.0.1:${port}: connect: connection refused`);
  assert.equal((await rawJSON(cluster, 'GET', `${V1}/never`)).status, 404);
  // The storage version needs no webhook.
  assert.equal((await rawJSON(cluster, 'GET', `${V1}/g1`)).status, 200);
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(crd(webhookURL)));
  await eventually('the webhook back', async () => ((await rawJSON(cluster, 'GET', `${V2}/g1`)).status === 200 ? true : undefined));
});

test('a webhook answering with the wrong number of objects', async () => {
  await withMode('count', async () => {
    assert.equal(await failure(`${V2}/g1`), 'conversion webhook for conv.example.com/v1, Kind=Gadget returned 0 objects, expected 1');
    const n = (await rawJSON(cluster, 'GET', V1)).body.items.length;
    assert.equal(await failure(V2), `conversion webhook for conv.example.com/v1, Kind=GadgetList returned 0 objects, expected ${n}`);
  });
});

test('a webhook that changes the name or the uid', async () => {
  const uid = (await rawJSON(cluster, 'GET', `${V1}/g1`)).body.metadata.uid;
  await withMode('rename', async () => {
    assert.equal(await failure(`${V2}/g1`), 'conversion webhook for conv.example.com/v1, Kind=Gadget returned invalid object: must have the same name: g1 != g1-renamed');
    assert.match(await failure(V2), /^conversion webhook for conv\.example\.com\/v1, Kind=GadgetList returned invalid converted object at index 0: must have the same name: (\S+) != \1-renamed$/);
  });
  await withMode('uid', async () => {
    assert.equal(await failure(`${V2}/g1`), `conversion webhook for conv.example.com/v1, Kind=Gadget returned invalid object: must have the same UID: ${uid} != wrong`);
    // Upstream's integration test: a create in a version to convert fails with the same words.
    const created = await rawJSON(cluster, 'POST', V2, gadget('uid-mutation', 1));
    assert.equal(created.status, 500);
    assert.match(created.body.message, /^conversion webhook for conv\.example\.com\/v2, Kind=Gadget returned invalid object: must have the same UID: [0-9a-f-]+ != wrong$/);
  });
});

test('a watch whose event cannot be converted ends', async () => {
  const rv = (await rawJSON(cluster, 'GET', V1)).body.metadata.resourceVersion;
  const started = Date.now();
  const watching = raw(cluster, 'GET', `${V2}?watch=1&resourceVersion=${rv}&timeoutSeconds=30`);
  await new Promise((r) => setTimeout(r, 300));
  await withMode('rename', async () => {
    await kubectlOk(cluster, ['patch', 'gadgets.v1.conv.example.com', 'g1', '--type=merge', '-p', '{"spec":{"hostPort":"h:4"}}']);
    const res = await watching;
    assert.equal(res.status, 200);
    assert.equal(res.body, '');
    assert.ok(Date.now() - started < 30_000, 'the watch ended before its 30 s timeout');
  });
});

test('labels set by the webhook are kept, the rest of the metadata restored', async () => {
  const asV1 = (await rawJSON(cluster, 'GET', `${V1}/g1`)).body;
  await withMode('metadata', async () => {
    const asV2 = (await rawJSON(cluster, 'GET', `${V2}/g1`)).body;
    assert.deepEqual(asV2.metadata.labels, { converted: 'true' });
    assert.equal(asV2.metadata.generation, asV1.metadata.generation);
    assert.equal(asV2.metadata.finalizers, undefined);
    assert.equal(asV2.metadata.garbage, undefined);
    assert.deepEqual({ ...asV2.metadata, labels: undefined }, { ...asV1.metadata, labels: undefined });
  });
});

test('a CRD whose webhook is down is deleted with its instances (the finalizer works in the storage version)', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(crd(deadURL)));
  await eventually('the webhook down', async () => ((await rawJSON(cluster, 'GET', `${V2}/g1`)).status === 500 ? true : undefined));
  await kubectlOk(cluster, ['delete', 'crd', 'gadgets.conv.example.com', '--timeout=30s']);
  assert.equal((await rawJSON(cluster, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.conv.example.com')).status, 404);
});
