/**
 * The aggregator's proxy to an APIService whose endpoint is an emulated pod: the request goes
 * through the cluster network model (a PodEndpointDialer), the pod's serving certificate checked
 * against the caBundle for <service>.<namespace>.svc, failures worded as Go's client words them.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIServiceProxy } from '../../src/api/aggregation-proxy.js';
import type { APIService } from '../../src/apimachinery/apiservice.js';
import type { HttpReply, HttpRequest } from '../../src/apimachinery/http-exchange.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { PodEndpointConnection, PodEndpointDialer } from '../../src/network/pod-endpoint-dial.js';
import { createCA, issue } from '../../src/pki/issue.js';

let front: http.Server;
let frontPort = 0;
let caBundle = '';
let goodChain = '';
let strangerChain = '';
let seen: HttpRequest | undefined;
/** How the pod's port answers a dial; a test replaces it. */
let dial: (ip: string, port: number) => PodEndpointConnection | undefined;

const objects: Record<string, KObject> = {
  'services/wardle/api': { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.50', ports: [{ name: 'https', port: 443 }] } } as KObject,
  'endpoints/wardle/api': { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'wardle' }, subsets: [{ addresses: [{ ip: '10.244.1.7' }], ports: [{ name: 'https', port: 8443 }] }] } as KObject,
};

const apiService: APIService = {
  apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.wardle.example.com' },
  spec: { group: 'wardle.example.com', version: 'v1alpha1', service: { namespace: 'wardle', name: 'api', port: 443 }, caBundle: '', groupPriorityMinimum: 1000, versionPriority: 15 },
  status: { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Passed', message: '' }] },
};

const answering = (chain: string | undefined): PodEndpointConnection => ({
  kind: 'connected', ...(chain !== undefined ? { serverCertificate: chain } : {}),
  exchange: async (req: HttpRequest): Promise<HttpReply> => {
    seen = req;
    return { status: 201, reason: 'Created', headers: [['Content-Type', 'application/json'], ['Access-Control-Allow-Origin', '*'], ['Content-Length', '2']], body: new Uint8Array(Buffer.from('{}')) };
  },
});

before(async () => {
  const ca = await createCA('CN=wardle-ca');
  caBundle = Buffer.from(ca.cert).toString('base64');
  goodChain = (await issue(ca, 'CN=api', 'server', { dns: ['api.wardle.svc'], ip: [] })).cert;
  strangerChain = (await issue(await createCA('CN=other'), 'CN=api', 'server', { dns: ['api.wardle.svc'], ip: [] })).cert;
  // The proxy dials endpoints only (dialFrom is pods/proxy's).
  const dialer: PodEndpointDialer = { dial: (ip, port) => dial(ip, port), dialFrom: () => ({ kind: 'timeout' }) };
  const proxy = new APIServiceProxy({
    resolve: async (resource, namespace, name) => objects[`${resource}/${namespace}/${name}`], proxyClient: { cert: '', key: '' }, podEndpoints: () => dialer,
  });
  front = http.createServer((req, res) => {
    void proxy.proxy(req, res, { ...apiService, spec: { ...apiService.spec!, caBundle } }, { name: 'jane', groups: ['dev'], extra: {} });
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontPort = (front.address() as AddressInfo).port;
});

after(async () => { await new Promise((r) => front.close(r)); });

beforeEach(() => { seen = undefined; dial = (ip, port) => (ip === '10.244.1.7' && port === 8443 ? answering(goodChain) : undefined); });

function request(method: string, path: string, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: frontPort, method, path, headers: { Authorization: 'Bearer secret', 'Content-Type': 'application/json' }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const header = (req: HttpRequest, name: string) => req.headers.filter(([k]) => k.toLowerCase() === name).map(([, v]) => v);

test('the request reaches the pod through the model as the front proxy would send it; the answer comes back less CORS headers', async () => {
  const r = await request('POST', '/apis/wardle.example.com/v1alpha1/namespaces/ns/flunders', '{"kind":"Flunder"}');
  assert.deepEqual([r.status, r.body, r.headers['content-type'], r.headers['access-control-allow-origin']], [201, '{}', 'application/json', undefined]);
  const s = seen!;
  assert.equal(s.method, 'POST');
  assert.equal(s.target, '/apis/wardle.example.com/v1alpha1/namespaces/ns/flunders');
  assert.equal(Buffer.from(s.body).toString(), '{"kind":"Flunder"}');
  assert.deepEqual(header(s, 'host'), ['10.96.0.50:443']);
  assert.deepEqual(header(s, 'x-remote-user'), ['jane']);
  assert.deepEqual(header(s, 'x-remote-group'), ['dev']);
  assert.deepEqual(header(s, 'authorization'), []);
});

test('a pod whose certificate the caBundle does not verify: 503 with x509\'s words', async () => {
  dial = () => answering(strangerChain);
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1/flunders');
  assert.deepEqual([r.status, r.body], [503, 'error trying to reach service: tls: failed to verify certificate: x509: certificate signed by unknown authority\n']);
  assert.equal(seen, undefined);
});

test('a pod that refuses the connection: the cluster address is named, as upstream dials it', async () => {
  dial = () => ({ kind: 'refused' });
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1/flunders');
  assert.deepEqual([r.status, r.body], [503, 'error trying to reach service: dial tcp 10.96.0.50:443: connect: connection refused\n']);
});

test('a pod serving plain HTTP', async () => {
  dial = () => answering(undefined);
  const r = await request('GET', '/apis/wardle.example.com/v1alpha1/flunders');
  assert.deepEqual([r.status, r.body], [503, 'error trying to reach service: http: server gave HTTP response to HTTPS client\n']);
});
