/**
 * The aggregator's proxy to a service-backed APIService (kube-aggregator handler_proxy.go and
 * the UpgradeAwareHandler/ReverseProxy it uses): a local HTTPS extension server with its own CA,
 * which asks for the front-proxy client certificate, behind a throwaway HTTP front that hands
 * every request to the proxy as the API server's routing would.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { APIServiceProxy } from '../../src/api/aggregation-proxy.js';
import type { APIService } from '../../src/apimachinery/apiservice.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { UserInfo } from '../../src/client/types.js';
import type { ObjectGetter } from '../../src/network/service-endpoint.js';
import { createCA, issue } from '../../src/pki/issue.js';

interface Seen { method: string; url: string; rawHeaders: string[]; headers: http.IncomingHttpHeaders; peerCN: string; body: string; servername: string }

let backend: https.Server;
let backendPort = 0;
let front: http.Server;
let frontPort = 0;
let caBundle = '';
let otherCABundle = '';
let seen: Seen | undefined;
let upgraded: { url: string; headers: http.IncomingHttpHeaders; peerCN: string } | undefined;
/** What the backend answers; a test replaces it. */
let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;
let objects: Record<string, KObject | undefined>;
let apiService: APIService;
let proxy: APIServiceProxy;
const user: UserInfo = { name: 'jane', groups: ['dev', 'system:authenticated'], extra: { 'example.com/team': ['a b', 'c'] } };

const getter: ObjectGetter = async (resource, namespace, name) => objects[`${resource}/${namespace}/${name}`];

const available = (status: 'True' | 'False'): APIService['status'] => ({
  conditions: [{ type: 'Available', status, lastTransitionTime: '2026-01-01T00:00:00Z', reason: status === 'True' ? 'Passed' : 'FailedDiscoveryCheck', message: '' }],
});

before(async () => {
  const frontProxyCA = await createCA('CN=front-proxy-ca');
  const proxyClient = await issue(frontProxyCA, 'CN=front-proxy-client', 'client', { dns: [], ip: [] });
  const ca = await createCA('CN=wardle-ca');
  caBundle = Buffer.from(ca.cert).toString('base64');
  otherCABundle = Buffer.from((await createCA('CN=other')).cert).toString('base64');
  const serving = await issue(ca, 'CN=api', 'server', { dns: ['api.wardle.svc'], ip: [] });
  backend = https.createServer({ cert: serving.cert, key: serving.key, ca: frontProxyCA.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const sock = req.socket as TLSSocket;
      seen = {
        method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, headers: req.headers,
        peerCN: String(sock.getPeerCertificate().subject?.CN ?? ''), body: Buffer.concat(chunks).toString(), servername: String((sock as TLSSocket & { servername?: string }).servername ?? ''),
      };
      answer(req, res);
    });
  });
  backend.on('upgrade', (req: http.IncomingMessage, socket: import('node:stream').Duplex) => {
    upgraded = { url: req.url ?? '', headers: req.headers, peerCN: String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '') };
    if (req.url?.includes('refuse')) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 7\r\n\r\ndenied!');
      return;
    }
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(`echo:${d.toString()}`));
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
  backendPort = (backend.address() as AddressInfo).port;
  proxy = new APIServiceProxy({ resolve: getter, proxyClient });
  front = http.createServer((req, res) => { void proxy.proxy(req, res, apiService, user); });
  front.on('upgrade', (req, socket, head) => { void proxy.upgrade(req, socket, head, apiService, user); });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontPort = (front.address() as AddressInfo).port;
});

after(async () => {
  proxy.close();
  front.closeAllConnections();
  backend.closeAllConnections();
  await new Promise((r) => front.close(r));
  await new Promise((r) => backend.close(r));
});

beforeEach(() => {
  seen = undefined;
  answer = (_req, res) => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end('{"kind":"APIResourceList"}'); };
  objects = {
    'services/wardle/api': { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.50', ports: [{ name: 'https', port: 443 }] } } as KObject,
    'endpoints/wardle/api': { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'wardle' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: backendPort }] }] } as KObject,
  };
  apiService = {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.wardle.example.com' },
    spec: { group: 'wardle.example.com', version: 'v1alpha1', service: { namespace: 'wardle', name: 'api', port: 443 }, caBundle, groupPriorityMinimum: 1000, versionPriority: 15 },
    status: available('True'),
  };
});

interface Reply { status: number; headers: http.IncomingHttpHeaders; body: string }

function request(method: string, path: string, headers: Record<string, string | string[]> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: frontPort, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A header's lines as the backend received them. */
function lines(s: Seen, name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.rawHeaders.length; i += 2) if (s.rawHeaders[i]!.toLowerCase() === name) out.push(s.rawHeaders[i + 1]!);
  return out;
}

test('the request reaches the Service endpoint as the front proxy, with the user in X-Remote-* headers and without its credentials', async () => {
  const r = await request('POST', '/apis/wardle.example.com/v1alpha1/namespaces/ns/flunders?b=2&a=x%2Cy&a=z', {
    Authorization: 'Bearer secret', 'Impersonate-User': 'bob', 'Impersonate-Group': 'g', 'Impersonate-Extra-Scope': 's',
    'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Forged': 'x', 'Content-Type': 'application/json',
    'X-Forwarded-For': '192.0.2.1', 'User-Agent': 'kubectl/v1.32.0',
  }, '{"kind":"Flunder"}');
  assert.equal(r.status, 200);
  assert.equal(r.body, '{"kind":"APIResourceList"}');
  assert.equal(r.headers['content-type'], 'application/json');
  const s = seen!;
  assert.equal(s.peerCN, 'front-proxy-client');
  assert.equal(s.servername, 'api.wardle.svc');
  assert.equal(s.method, 'POST');
  assert.equal(s.body, '{"kind":"Flunder"}');
  // Path kept, query as url.Values.Encode gives it: keys sorted, values query-escaped.
  assert.equal(s.url, '/apis/wardle.example.com/v1alpha1/namespaces/ns/flunders?a=x%2Cy&a=z&b=2');
  assert.deepEqual(lines(s, 'x-remote-user'), ['jane']);
  assert.deepEqual(lines(s, 'x-remote-group'), ['dev', 'system:authenticated']);
  assert.deepEqual(lines(s, 'x-remote-extra-example.com%2fteam'), ['a b', 'c']);
  assert.deepEqual(lines(s, 'x-remote-extra-forged'), []);
  assert.deepEqual(lines(s, 'x-remote-uid'), []);
  assert.equal(s.headers.authorization, undefined);
  assert.equal(s.headers['impersonate-user'], undefined);
  assert.equal(s.headers['impersonate-group'], undefined);
  assert.equal(s.headers['impersonate-extra-scope'], undefined);
  // NewRequestForProxy's Host is the Service's cluster address; the proxy transport's X-Forwarded-*.
  assert.equal(s.headers.host, '10.96.0.50:443');
  assert.equal(s.headers['x-forwarded-for'], '192.0.2.1, 127.0.0.1');
  assert.equal(s.headers['x-forwarded-host'], '10.96.0.50:443');
  assert.equal(s.headers['x-forwarded-proto'], 'https');
  assert.equal(s.headers['x-forwarded-uri'], '/apis/wardle.example.com/v1alpha1/namespaces/ns/flunders');
  assert.equal(s.headers['user-agent'], 'kubectl/v1.32.0');
  assert.equal(s.headers['content-type'], 'application/json');
  assert.equal(s.headers['accept-encoding'], 'gzip');
});

test('the path is rebuilt from its decoding, as Go escapes a path', async () => {
  await request('GET', '/apis/wardle.example.com/v1alpha1/namespaces/ns/flunders/a%2Fb%21c%3Ad');
  assert.equal(seen!.url, '/apis/wardle.example.com/v1alpha1/namespaces/ns/flunders/a/b%21c:d');
});

test('an APIService that is not Available answers 503 "service unavailable" in text', async () => {
  apiService.status = available('False');
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1');
  assert.equal(r.status, 503);
  assert.equal(r.body, 'service unavailable\n');
  assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.equal(seen, undefined);
});

test('a Service that cannot be resolved answers 503 "service unavailable"', async () => {
  delete objects['services/wardle/api'];
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1');
  assert.equal(r.status, 503);
  assert.equal(r.body, 'service unavailable\n');
  objects['services/wardle/api'] = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.50', ports: [{ name: 'https', port: 8443 }] } } as KObject;
  const r2 = await request('GET', '/apis/wardle.example.com/v1alpha1');
  assert.equal(r2.status, 503);
  assert.equal(r2.body, 'service unavailable\n');
});

test('a Service without endpoints: the connection to its cluster IP is refused', async () => {
  delete objects['endpoints/wardle/api'];
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1');
  assert.equal(r.status, 503);
  assert.equal(r.body, 'error trying to reach service: dial tcp 10.96.0.50:443: connect: connection refused\n');
});

test('a backend the caBundle does not verify', async () => {
  apiService.spec!.caBundle = otherCABundle;
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1');
  assert.equal(r.status, 503);
  assert.equal(r.body, 'error trying to reach service: tls: failed to verify certificate: x509: certificate signed by unknown authority\n');
  // insecureSkipTLSVerify: no verification at all.
  apiService.spec!.caBundle = undefined;
  apiService.spec!.insecureSkipTLSVerify = true;
  const r2 = await request('GET', '/apis/wardle.example.com/v1alpha1');
  assert.equal(r2.status, 200);
});

test('a backend whose certificate does not name <service>.<namespace>.svc', async () => {
  objects['services/wardle/other'] = { ...objects['services/wardle/api']!, metadata: { name: 'other', namespace: 'wardle' } };
  objects['endpoints/wardle/other'] = { ...objects['endpoints/wardle/api']!, metadata: { name: 'other', namespace: 'wardle' } };
  apiService.spec!.service = { namespace: 'wardle', name: 'other', port: 443 };
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1');
  assert.equal(r.status, 503);
  assert.equal(r.body, 'error trying to reach service: tls: failed to verify certificate: x509: certificate is valid for api.wardle.svc, not other.wardle.svc\n');
});

test('a caBundle TLS cannot use: 500 with the transport building error', async () => {
  apiService.spec!.caBundle = Buffer.from('not a certificate').toString('base64');
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1');
  assert.equal(r.status, 500);
  assert.equal(r.body, 'unable to load root certificates: unable to parse bytes as PEM block\n');
});

test('a redirect of the backend is refused with 502', async () => {
  answer = (_req, res) => { res.writeHead(302, { Location: 'https://elsewhere.example/' }); res.end('moved'); };
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1/flunders');
  assert.equal(r.status, 502);
  assert.equal(r.body, 'the backend attempted to redirect this request, which is not permitted');
  assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
});

test('the backend status and headers come back, less CORS and hop-by-hop ones; gzip asked for by the proxy is undone', async () => {
  answer = (_req, res) => {
    const body = gzipSync(JSON.stringify({ kind: 'Status', code: 409 }));
    res.writeHead(409, {
      'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': body.length, 'X-Custom': 'kept',
      'Access-Control-Allow-Origin': '*', 'Keep-Alive': 'timeout=5', Connection: 'keep-alive, X-Dropped', 'X-Dropped': 'yes',
    });
    res.end(body);
  };
  const r = await request('DELETE', '/apis/wardle.example.com/v1alpha1/flunders/x');
  assert.equal(r.status, 409);
  assert.equal(r.body, '{"kind":"Status","code":409}');
  assert.equal(r.headers['x-custom'], 'kept');
  assert.equal(r.headers['content-encoding'], undefined);
  assert.equal(r.headers['access-control-allow-origin'], undefined);
  assert.equal(r.headers['x-dropped'], undefined);
  // A client that asks for gzip itself gets it as the backend sent it.
  const zipped = await new Promise<{ encoding?: string; length: number }>((resolve) => {
    http.get({ host: '127.0.0.1', port: frontPort, path: '/apis/wardle.example.com/v1alpha1/flunders/x', headers: { 'Accept-Encoding': 'gzip' }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ encoding: res.headers['content-encoding'], length: Buffer.concat(chunks).length }));
    });
  });
  assert.equal(zipped.encoding, 'gzip');
  assert.equal(seen!.headers['accept-encoding'], 'gzip');
});

test('a streamed answer (a watch) arrives as the backend writes it', async () => {
  let release: () => void = () => {};
  answer = (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"type":"ADDED"}\n');
    release = () => res.end('{"type":"DELETED"}\n');
  };
  const first = await new Promise<string>((resolve) => {
    http.get({ host: '127.0.0.1', port: frontPort, path: '/apis/wardle.example.com/v1alpha1/flunders?watch=true', agent: false }, (res) => {
      res.once('data', (c: Buffer) => { resolve(c.toString()); res.resume(); });
    });
  });
  assert.equal(first, '{"type":"ADDED"}\n');
  assert.equal(seen!.url, '/apis/wardle.example.com/v1alpha1/flunders?watch=true');
  release();
});

/** A raw upgrade request on its own connection: the answer's head, and the connection to go on with. */
function upgradeRequest(path: string): Promise<{ head: string; rest: string; socket: import('node:net').Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(frontPort, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nAuthorization: Bearer secret\r\nImpersonate-User: bob\r\nX-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n`);
    });
    let got = '';
    const onData = (d: Buffer) => {
      got += d.toString();
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      resolve({ head: got.slice(0, end), rest: got.slice(end + 4), socket });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

test('an upgrade request is joined to the backend once it switches protocols, as the front proxy', async () => {
  upgraded = undefined;
  const { head, socket } = await upgradeRequest('/apis/wardle.example.com/v1alpha1/namespaces/ns/flunders/x/portforward?b=1&a=2');
  assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.match(head, /X-Stream-Protocol-Version: portforward.k8s.io/);
  const echoed = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
  socket.write('ping');
  assert.equal(await echoed, 'echo:ping');
  socket.destroy();
  const u = upgraded!;
  assert.equal(u.url, '/apis/wardle.example.com/v1alpha1/namespaces/ns/flunders/x/portforward?a=2&b=1');
  assert.equal(u.peerCN, 'front-proxy-client');
  assert.equal(u.headers['x-remote-user'], 'jane');
  assert.equal(u.headers['x-remote-group'], 'dev, system:authenticated');
  assert.equal(u.headers.authorization, undefined);
  assert.equal(u.headers['impersonate-user'], undefined);
  assert.equal(u.headers.upgrade, 'SPDY/3.1');
  assert.equal(u.headers.host, '10.96.0.50:443');
  assert.equal(u.headers['x-forwarded-for'], '127.0.0.1');
  assert.equal(u.headers['user-agent'], 'Go-http-client/1.1');
});

test('an upgrade the backend refuses comes back as its answer; an unavailable APIService as 503', async () => {
  const { head, rest, socket } = await upgradeRequest('/apis/wardle.example.com/v1alpha1/refuse');
  assert.match(head, /^HTTP\/1\.1 403 Forbidden\r\n/);
  const body = rest.length >= 7 ? rest : rest + await new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
  assert.equal(body, 'denied!');
  socket.destroy();
  apiService.status = available('False');
  const r = await upgradeRequest('/apis/wardle.example.com/v1alpha1/x');
  assert.match(r.head, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  assert.match(r.head, /Content-Type: text\/plain; charset=utf-8/);
  const body2 = r.rest.length >= 20 ? r.rest : r.rest + await new Promise<string>((resolve) => r.socket.once('data', (d: Buffer) => resolve(d.toString())));
  assert.equal(body2, 'service unavailable\n');
  r.socket.destroy();
});

test('the discovery manager\'s GET goes through the same handler as system:kube-aggregator', async () => {
  const got = await proxy.get(apiService)('/apis', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  assert.deepEqual(got, { status: 200, contentType: 'application/json', body: '{"kind":"APIResourceList"}' });
  assert.equal(seen!.url, '/apis');
  assert.equal(seen!.headers['x-remote-user'], 'system:kube-aggregator');
  assert.equal(seen!.headers['x-remote-group'], 'system:masters');
  assert.equal(seen!.headers.accept, 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  assert.equal(seen!.headers['x-forwarded-for'], undefined);
  apiService.status = available('False');
  assert.deepEqual(await proxy.get(apiService)('/apis', 'application/json'), { status: 503, contentType: 'text/plain; charset=utf-8', body: 'service unavailable\n' });
});
