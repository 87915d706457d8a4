import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';
import { requestHead, sendRaw } from '../helpers/raw-socket.js';

/**
 * The HTTP layer's corpus: paths that are no plain resource path (dot segments, encoded dots and
 * slashes, `%` in names, broken escapes) and methods the API does not serve. Upstream decodes the
 * path once and never resolves it: `..` is a name, and the storage refuses it.
 */
let cluster: TestCluster;
const NS = 'p2dot';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const KEEP = `${CM}/keep`;

before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  assert.equal((await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
  assert.equal((await rawJSON(cluster, 'POST', CM, { metadata: { name: 'keep' }, data: { a: '1' } })).status, 201);
  assert.equal((await rawJSON(cluster, 'POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'keep' }, data: { a: 'MQ==' } })).status, 201);
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const nameInvalid = (name: string, why: string) => `Name parameter invalid: ${JSON.stringify(name)}: ${why}`;
const patchJSON = { 'Content-Type': 'application/merge-patch+json' };
const cases: MalformedCase[] = [];

// A name that is `.`/`..` (plain or encoded) or holds `%`: the storage key function refuses it (400),
// for every verb that addresses one object; nothing is resolved as a path.
const badNames: Array<[string, string, string]> = [
  ['.', '.', "may not be '.'"],
  ['..', '..', "may not be '..'"],
  ['%2e%2e', '..', "may not be '..'"],
  ['%2E', '.', "may not be '.'"],
  ['a%25b', 'a%b', "may not contain '%'"],
];
for (const [inPath, name, why] of badNames) {
  const path = `${CM}/${inPath}`;
  const message = nameInvalid(name, why);
  cases.push(
    { name: `GET configmap named ${inPath}`, method: 'GET', path, status: 400, reason: 'BadRequest', message, unchanged: KEEP },
    { name: `PUT configmap named ${inPath}`, method: 'PUT', path, body: JSON.stringify({ metadata: { name }, data: { b: '2' } }),
      status: 400, reason: 'BadRequest', message, unchanged: KEEP },
    { name: `PATCH configmap named ${inPath}`, method: 'PATCH', path, body: '{"data":{"b":"2"}}', headers: patchJSON,
      status: 400, reason: 'BadRequest', message, unchanged: KEEP },
    { name: `DELETE configmap named ${inPath} (the namespace survives)`, method: 'DELETE', path, status: 400, reason: 'BadRequest', message,
      unchanged: `/api/v1/namespaces/${NS}` },
    { name: `POST to a configmap named ${inPath} is no route`, method: 'POST', path, body: JSON.stringify({ metadata: { name: 'x' } }),
      status: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource', unchanged: KEEP },
  );
}

// The namespace object itself under such names.
for (const [inPath, name, why] of badNames.slice(0, 3)) {
  const path = `/api/v1/namespaces/${inPath}`;
  const message = nameInvalid(name, why);
  cases.push(
    { name: `GET namespace ${inPath}`, method: 'GET', path, status: 400, reason: 'BadRequest', message },
    { name: `DELETE namespace ${inPath} deletes no namespace`, method: 'DELETE', path, status: 400, reason: 'BadRequest', message,
      unchanged: `/api/v1/namespaces/${NS}` },
  );
}
cases.push(
  { name: 'PUT namespace ..', method: 'PUT', path: '/api/v1/namespaces/..', body: JSON.stringify({ metadata: { name: '..' } }),
    status: 400, reason: 'BadRequest', message: nameInvalid('..', "may not be '..'") },
  { name: 'PATCH namespace %2e%2e', method: 'PATCH', path: '/api/v1/namespaces/%2e%2e', body: '{"metadata":{"labels":{"x":"y"}}}', headers: patchJSON,
    status: 400, reason: 'BadRequest', message: nameInvalid('..', "may not be '..'"), unchanged: `/api/v1/namespaces/${NS}` },
  { name: 'GET namespace status of ..', method: 'GET', path: '/api/v1/namespaces/../status', status: 400, reason: 'BadRequest', message: nameInvalid('..', "may not be '..'") },
  { name: 'GET secret %2e%2e is not the namespace', method: 'GET', path: `/api/v1/namespaces/${NS}/secrets/%2e%2e`,
    status: 400, reason: 'BadRequest', message: nameInvalid('..', "may not be '..'") },
  { name: 'DELETE secret .. deletes nothing', method: 'DELETE', path: `/api/v1/namespaces/${NS}/secrets/..`,
    status: 400, reason: 'BadRequest', message: nameInvalid('..', "may not be '..'"), unchanged: `/api/v1/namespaces/${NS}/secrets/keep` },
  { name: 'GET the log of pod ..', method: 'GET', path: `/api/v1/namespaces/${NS}/pods/../log`,
    status: 400, reason: 'BadRequest', message: nameInvalid('..', "may not be '..'") },
  { name: 'POST exec in pod %2e%2e', method: 'POST', path: `/api/v1/namespaces/${NS}/pods/%2e%2e/exec?command=ls&stdout=true`,
    status: 400, reason: 'BadRequest', message: nameInvalid('..', "may not be '..'") },
  { name: 'GET the log of a pod in namespace ..', method: 'GET', path: '/api/v1/namespaces/../pods/web/log',
    status: 500, message: 'invalid key: "/pods/../web"' },
  { name: 'GET deployment .. in a group', method: 'GET', path: `/apis/apps/v1/namespaces/${NS}/deployments/..`,
    status: 400, reason: 'BadRequest', message: nameInvalid('..', "may not be '..'") },
  { name: 'GET priorityclass %2e', method: 'GET', path: '/apis/scheduling.k8s.io/v1/priorityclasses/%2e',
    status: 400, reason: 'BadRequest', message: nameInvalid('.', "may not be '.'") },
);

// A namespace of `.`/`..`: the key function does not check namespaces, so etcd3's prepareKey refuses
// the key with a plain error (500, no reason); a create is refused by NamespaceLifecycle's lookup.
for (const [inPath, ns] of [['..', '..'], ['%2e%2e', '..'], ['.', '.']]) {
  const base = `/api/v1/namespaces/${inPath}/configmaps`;
  const message = `invalid key: ${JSON.stringify(`/configmaps/${ns}/keep`)}`;
  cases.push(
    { name: `GET configmap in namespace ${inPath}`, method: 'GET', path: `${base}/keep`, status: 500, message },
    { name: `PUT configmap in namespace ${inPath}`, method: 'PUT', path: `${base}/keep`, body: JSON.stringify({ metadata: { name: 'keep' }, data: { b: '2' } }),
      status: 500, message, unchanged: KEEP },
    { name: `PATCH configmap in namespace ${inPath}`, method: 'PATCH', path: `${base}/keep`, body: '{"data":{"b":"2"}}', headers: patchJSON,
      status: 500, message, unchanged: KEEP },
    { name: `DELETE configmap in namespace ${inPath}`, method: 'DELETE', path: `${base}/keep`, status: 500, message, unchanged: KEEP },
    { name: `POST configmap into namespace ${inPath}`, method: 'POST', path: base, body: JSON.stringify({ metadata: { name: 'made-in-dots' } }),
      status: 500, reason: 'InternalError',
      message: `Internal error occurred: invalid resource name ${JSON.stringify(ns)}: [may not be '${ns}']`,
      causes: [{ message: `invalid resource name ${JSON.stringify(ns)}: [may not be '${ns}']` }],
      absent: `/api/v1/namespaces/default/configmaps/made-in-dots` },
  );
}
cases.push(
  { name: 'GET service in namespace .. names its etcd key', method: 'GET', path: '/api/v1/namespaces/../services/kubernetes',
    status: 500, message: 'invalid key: "/services/specs/../kubernetes"' },
  { name: 'POST configmap into namespace .. with another namespace in the body', method: 'POST', path: '/api/v1/namespaces/../configmaps',
    body: JSON.stringify({ metadata: { name: 'made-in-other', namespace: 'default' } }), status: 400, reason: 'BadRequest',
    message: 'the namespace of the provided object does not match the namespace sent on the request', absent: '/api/v1/namespaces/default/configmaps/made-in-other' },
  { name: 'POST configmap into a namespace holding %', method: 'POST', path: '/api/v1/namespaces/a%25b/configmaps',
    body: JSON.stringify({ metadata: { name: 'made-in-pct' } }), status: 500, reason: 'InternalError',
    message: `Internal error occurred: invalid resource name "a%b": [may not contain '%']`, absent: `/api/v1/namespaces/default/configmaps/made-in-pct` },
);

// An encoded slash is a separator once decoded (Go's URL.Path): `a%2Fb` is name a with a subresource b,
// which no route serves; `%2F` alone leaves the collection.
for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
  cases.push({
    name: `${method} configmap a%2Fkeep is no route`, method, path: `${CM}/a%2Fkeep`,
    ...(method === 'PUT' ? { body: '{}' } : method === 'PATCH' ? { body: '{}', headers: patchJSON } : {}),
    status: 404, reason: 'NotFound', message: 'the server could not find the requested resource', unchanged: KEEP,
  });
}
cases.push(
  { name: 'GET configmaps in namespace %2F is no route', method: 'GET', path: '/api/v1/namespaces/%2F/configmaps/keep',
    status: 404, reason: 'NotFound', message: 'the server could not find the requested resource' },
  { name: 'DELETE configmaps in namespace %2F is no route', method: 'DELETE', path: '/api/v1/namespaces/%2F/configmaps/keep',
    status: 404, reason: 'NotFound', message: 'the server could not find the requested resource', unchanged: KEEP },
  { name: 'GET configmap %2F is the list', method: 'GET', path: `${CM}/%2F`, status: 200, unchanged: KEEP },
);

// Dot segments between the parts of a path: too many segments for any route, nothing resolved.
cases.push(
  { name: 'GET configmaps/../secrets/keep does not reach the secret', method: 'GET', path: `${CM}/../secrets/keep`,
    status: 404, reason: 'NotFound', message: 'the server could not find the requested resource' },
  { name: 'DELETE configmaps/keep/../.. deletes neither the configmap nor the namespace', method: 'DELETE', path: `${KEEP}/../..`,
    status: 404, reason: 'NotFound', message: 'the server could not find the requested resource', unchanged: `/api/v1/namespaces/${NS}` },
  { name: 'DELETE configmaps/keep/%2e%2e/%2e%2e leaves the configmap', method: 'DELETE', path: `${KEEP}/%2e%2e/%2e%2e`,
    status: 404, reason: 'NotFound', message: 'the server could not find the requested resource', unchanged: KEEP },
  { name: 'PUT secrets/keep/../../configmaps/keep changes nothing', method: 'PUT', path: `/api/v1/namespaces/${NS}/secrets/keep/../../configmaps/keep`,
    body: JSON.stringify({ metadata: { name: 'keep' }, data: { b: '2' } }), status: 404, reason: 'NotFound',
    message: 'the server could not find the requested resource', unchanged: KEEP },
);

// Escapes Go's url.ParseRequestURI cannot decode: the server answers the request line itself.
const GO_400 = '400 Bad Request';
for (const path of ['/api/v1/namespaces/%ZZ/configmaps', '/api/v1/namespaces/default/configmaps/%E0%A4%A', `${CM}/keep%`, `${CM}/%2`]) {
  for (const method of path === `${CM}/keep%` ? ['GET', 'DELETE'] : ['GET']) {
    cases.push({ name: `${method} ${path} has a broken escape`, method, path, status: 400, text: GO_400, unchanged: KEEP });
  }
}
cases.push({ name: 'a broken escape in the query is not the path\'s problem', method: 'GET', path: `${KEEP}?x=%ZZ`, status: 200 });

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));

test('a broken escape is answered as Go answers it: text, Connection: close, no Date', async () => {
  const r = await sendRaw(cluster, requestHead('GET', '/api/v1/namespaces/%ZZ/configmaps', { Connection: 'keep-alive' }));
  assert.equal(r.raw, 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request');
  assert.equal(r.closed, true);
});

// Methods no route serves: 405 MethodNotAllowed, CONNECT and methods Node's parser does not know included.
const methodCases: Array<[string, string]> = [
  ['CONNECT', CM], ['CONNECT', KEEP], ['CONNECT', `/api/v1/namespaces/${NS}/pods/web/exec`], ['CONNECT', `/api/v1/namespaces/${NS}`],
  ['FOO', CM], ['FOO', KEEP], ['TRACE', KEEP], ['OPTIONS', CM], ['PROPFIND', KEEP],
];
for (const [method, path] of methodCases) {
  test(`${method} ${path} is 405 MethodNotAllowed`, async () => {
    const before = (await raw(cluster, 'GET', KEEP)).body;
    const r = await sendRaw(cluster, requestHead(method, path));
    assert.equal(r.status, 405, r.raw);
    assert.deepEqual(JSON.parse(r.body), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405,
    });
    assert.equal((await raw(cluster, 'GET', KEEP)).body, before);
  });
}

test('CONNECT without credentials is system:anonymous, refused with no verb (RequestInfo has none for CONNECT)', async () => {
  const r = await sendRaw(cluster, requestHead('CONNECT', CM), { tls: { cert: undefined, key: undefined } });
  assert.equal(r.status, 403, r.raw);
  assert.equal(JSON.parse(r.body).message,
    `configmaps is forbidden: User "system:anonymous" cannot  resource "configmaps" in API group "" in the namespace "${NS}"`);
});

test('a method that is no HTTP token gets Go\'s 400', async () => {
  const r = await sendRaw(cluster, requestHead('G(T', CM));
  assert.equal(r.raw, 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request');
});
