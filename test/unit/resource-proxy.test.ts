/**
 * pods/proxy and services/proxy: the URL forms, the proxied path, where the
 * registry's ResourceLocation sends a request and its errors, and the
 * request the backend receives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { StatusError } from '../../src/apimachinery/errors.js';
import { backendRequest, canonicalHeaderKey, lookupPort, matchResourceProxy, proxiedResponseHeaders, subpath } from '../../src/api/resource-proxy.js';
import { isGlobalUnicastIPv4, podProxyLocation, serviceProxyLocation, splitSchemeNamePort, type CoreGetter } from '../../src/registry/core/proxy-location.js';

function getter(objects: Record<string, KObject>): CoreGetter {
  return async (resource, namespace, name) => objects[`${resource}/${namespace}/${name}`];
}

const pod = (name: string, ip: string | undefined, ports: number[] = []): KObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ns', name },
  spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y', ports: ports.map((containerPort) => ({ containerPort })) }] },
  status: ip ? { podIP: ip, podIPs: [{ ip }], hostIP: '172.18.0.2' } : { phase: 'Pending' },
});

async function statusOf(p: Promise<unknown>): Promise<{ code: number; reason?: string; message?: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return { code: e.status.code, reason: e.status.reason, message: e.status.message };
    throw e;
  }
  assert.fail('no error');
}

test('the id forms: name, name:port, scheme:name:port; anything else is invalid', () => {
  assert.deepEqual(splitSchemeNamePort('web'), { scheme: '', name: 'web', port: '' });
  assert.deepEqual(splitSchemeNamePort('web:8080'), { scheme: '', name: 'web', port: '8080' });
  assert.deepEqual(splitSchemeNamePort('https:web:443'), { scheme: 'https', name: 'web', port: '443' });
  assert.equal(splitSchemeNamePort('ftp:web:21'), undefined);
  assert.equal(splitSchemeNamePort(':80'), undefined);
  assert.equal(splitSchemeNamePort('a:b:c:d'), undefined);
});

test('the proxy URL: namespace, resource, id and the path below proxy, trailing slash kept and dot segments cleaned', () => {
  assert.deepEqual(matchResourceProxy('/api/v1/namespaces/default/pods/web:9376/proxy/read'), { namespace: 'default', resource: 'pods', id: 'web:9376', prefix: '/api/v1/namespaces/default/pods/web:9376/proxy', path: '/read' });
  assert.deepEqual(matchResourceProxy('/api/v1/namespaces/default/services/frontend/proxy'), { namespace: 'default', resource: 'services', id: 'frontend', prefix: '/api/v1/namespaces/default/services/frontend/proxy', path: '' });
  assert.equal(matchResourceProxy('/api/v1/namespaces/default/pods/web/log'), undefined);
  assert.equal(matchResourceProxy('/api/v1/namespaces/default/configmaps/web/proxy'), undefined);
  assert.equal(subpath(''), '');
  assert.equal(subpath('/'), '/');
  assert.equal(subpath('/logs/'), '/logs/');
  assert.equal(subpath('/a//b/../c'), '/a/c');
});

test('pods: the first declared container port, the pod IP; a pod without an address is not allowed', async () => {
  const get = getter({ 'pods/ns/web': pod('web', '10.244.1.5', [9376, 80]), 'pods/ns/bare': pod('bare', '10.244.1.6'), 'pods/ns/pending': pod('pending', undefined, [80]) });
  assert.deepEqual(await podProxyLocation(get, 'ns', 'web'), { scheme: '', ip: '10.244.1.5', port: '9376', hostIP: '172.18.0.2' });
  assert.deepEqual(await podProxyLocation(get, 'ns', 'https:web:8443'), { scheme: 'https', ip: '10.244.1.5', port: '8443', hostIP: '172.18.0.2' });
  assert.equal((await podProxyLocation(get, 'ns', 'bare')).port, '80');
  assert.equal((await podProxyLocation(get, 'ns', 'https:bare:')).port, '443');
  assert.deepEqual(await statusOf(podProxyLocation(get, 'ns', 'pending')), { code: 400, reason: 'BadRequest', message: 'address not allowed' });
  assert.deepEqual(await statusOf(podProxyLocation(get, 'ns', 'gone')), { code: 404, reason: 'NotFound', message: 'pods "gone" not found' });
  assert.deepEqual(await statusOf(podProxyLocation(get, 'ns', 'a:b:c:d')), { code: 400, reason: 'BadRequest', message: 'invalid pod request "a:b:c:d"' });
});

test('only global unicast pod addresses are proxied to', () => {
  assert.equal(isGlobalUnicastIPv4('10.244.1.5'), true);
  for (const ip of ['', '127.0.0.1', '0.0.0.0', '169.254.1.1', '224.0.0.1', '255.255.255.255', '10.0.0.256']) assert.equal(isGlobalUnicastIPv4(ip), false, ip);
});

test('services: a port number names its Service port, the endpoints must be pods that have the address', async () => {
  const svc: KObject = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'ns', name: 'fe' }, spec: { ports: [{ name: 'http', port: 80 }, { name: 'admin', port: 9000 }] } };
  const eps: KObject = {
    apiVersion: 'v1', kind: 'Endpoints', metadata: { namespace: 'ns', name: 'fe' },
    subsets: [{
      addresses: [{ ip: '10.244.9.9', targetRef: { kind: 'Pod', namespace: 'ns', name: 'stale' } }, { ip: '10.244.1.5', targetRef: { kind: 'Pod', namespace: 'ns', name: 'web' } }],
      ports: [{ name: 'http', port: 8080 }, { name: 'admin', port: 9090 }],
    }],
  };
  const get = getter({ 'services/ns/fe': svc, 'endpoints/ns/fe': eps, 'pods/ns/web': pod('web', '10.244.1.5'), 'pods/ns/stale': pod('stale', '10.244.3.3'),
    'endpoints/ns/empty': { apiVersion: 'v1', kind: 'Endpoints', metadata: { namespace: 'ns', name: 'empty' } } });
  const first = () => 0;
  assert.deepEqual(await serviceProxyLocation(get, 'ns', 'fe:80', first), { scheme: '', ip: '10.244.1.5', port: '8080', hostIP: '172.18.0.2' });
  assert.deepEqual(await serviceProxyLocation(get, 'ns', 'https:fe:admin', first), { scheme: 'https', ip: '10.244.1.5', port: '9090', hostIP: '172.18.0.2' });
  assert.deepEqual(await statusOf(serviceProxyLocation(get, 'ns', 'fe:81', first)), { code: 503, reason: 'ServiceUnavailable', message: 'no service port 81 found for service "fe"' });
  assert.deepEqual(await statusOf(serviceProxyLocation(get, 'ns', 'fe', first)), { code: 503, reason: 'ServiceUnavailable', message: 'no endpoints available for service "fe"' });
  assert.deepEqual(await statusOf(serviceProxyLocation(get, 'ns', 'fe:nope', first)), { code: 503, reason: 'ServiceUnavailable', message: 'no endpoints available for service "fe:nope"' });
  assert.deepEqual(await statusOf(serviceProxyLocation(get, 'ns', 'empty', first)), { code: 503, reason: 'ServiceUnavailable', message: 'no endpoints available for service "empty"' });
  assert.deepEqual(await statusOf(serviceProxyLocation(get, 'ns', 'missing', first)), { code: 404, reason: 'NotFound', message: 'endpoints "missing" not found' });
  assert.deepEqual(await statusOf(serviceProxyLocation(get, 'ns', 'ftp:fe:80', first)), { code: 400, reason: 'BadRequest', message: 'invalid service request "ftp:fe:80"' });
});

test('the backend request: hop-by-hop headers (and those Connection names) and credentials dropped, X-Forwarded-For appended, X-Forwarded-Uri set, in Go\'s order', () => {
  const req = backendRequest('POST', '/write', 'a=1', ['Host', 'api:6443', 'authorization', 'Bearer x', 'Connection', 'keep-alive, X-Trace', 'X-Trace', '1', 'Impersonate-User', 'u',
    'x-forwarded-for', '1.2.3.4', 'Content-Type', 'application/json', 'User-Agent', 'kubectl/v1.32.0', 'Content-Length', '2', 'Accept', '*/*'],
  Buffer.from('{}'), '127.0.0.1', '/api/v1/namespaces/ns/pods/server/proxy/write');
  assert.equal(req.method, 'POST');
  assert.equal(req.target, '/write?a=1');
  assert.deepEqual(req.headers, [['Host', 'api:6443'], ['User-Agent', 'kubectl/v1.32.0'], ['Content-Length', '2'], ['Accept', '*/*'],
    ['Content-Type', 'application/json'], ['X-Forwarded-For', '1.2.3.4, 127.0.0.1'], ['X-Forwarded-Uri', '/api/v1/namespaces/ns/pods/server/proxy/write'],
    ['Accept-Encoding', 'gzip']]);
  const plain = backendRequest('GET', '', '', ['Accept-Encoding', 'gzip'], new Uint8Array(), '10.0.0.1', '/x/proxy/');
  assert.equal(plain.target, '/');
  assert.deepEqual(plain.headers, [['Accept-Encoding', 'gzip'], ['X-Forwarded-For', '10.0.0.1'], ['X-Forwarded-Uri', '/x/proxy/']]);
});

test('the backend response: CORS and hop-by-hop headers (and those Connection names) stripped, keys canonical and sorted, Content-Length of the body', () => {
  assert.deepEqual(proxiedResponseHeaders([['Cache-Control', 'private'], ['Access-Control-Allow-Origin', '*'], ['date', 'Sat, 28 Nov 2026 17:16:21 GMT'],
    ['Connection', 'close, x-backend'], ['X-Backend', 'b1'], ['Content-Length', '99'], ['content-type', 'application/json']], 30),
  [['Cache-Control', 'private'], ['Content-Length', '30'], ['Content-Type', 'application/json'], ['Date', 'Sat, 28 Nov 2026 17:16:21 GMT']]);
  assert.equal(canonicalHeaderKey('x-forwarded-FOR'), 'X-Forwarded-For');
  assert.equal(canonicalHeaderKey('bad key'), 'bad key');
});

test('ports the proxy dials: numbers up to 65535 and the HTTP service names', () => {
  assert.equal(lookupPort('9376'), 9376);
  assert.equal(lookupPort('http'), 80);
  assert.equal(lookupPort('https'), 443);
  assert.equal(lookupPort('web'), undefined);
  assert.equal(lookupPort('70000'), undefined);
});
