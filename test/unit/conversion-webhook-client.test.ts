/**
 * The conversion webhook call as Go's client reports its failures (apiserver's webhook client,
 * client-go's rest.Result.Into and errors.NewGenericServerResponse): a local HTTPS server answers
 * each way a webhook can fail.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCA, issue } from '../../src/pki/issue.js';
import { ConversionWebhookClients } from '../../src/registry/apiextensions/conversion-webhook-client.js';
import type { ObjectGetter } from '../../src/network/service-endpoint.js';
import { WebhookConverter } from '../../src/registry/apiextensions/webhook-converter.js';

let server: Server;
let base: string;
let caBundle: string;
let otherCA: string;
let lastPath = '';
let answer: { status: number; type: string; body: string } = { status: 200, type: 'application/json', body: '{}' };
/** What the clients read Services and Endpoints through: nothing, unless a test sets it. */
let resolver: ObjectGetter = async () => undefined;
const clients = new ConversionWebhookClients((resource, namespace, name) => resolver(resource, namespace, name));

before(async () => {
  const ca = await createCA();
  const cert = await issue(ca, 'CN=localhost', 'server', { dns: ['localhost'], ip: ['127.0.0.1'] });
  caBundle = Buffer.from(ca.cert).toString('base64');
  otherCA = Buffer.from((await createCA()).cert).toString('base64');
  server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    lastPath = req.url ?? '';
    req.resume();
    req.on('end', () => { res.writeHead(answer.status, { 'Content-Type': answer.type }); res.end(answer.body); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  clients.release('t');
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const post = (url: string, ca = caBundle) => clients.post('t', { url, caBundle: ca }, { kind: 'ConversionReview' });

test('answers that are not 2xx', async () => {
  answer = { status: 500, type: 'text/plain; charset=utf-8', body: 'boom\n' };
  await assert.rejects(post(`${base}/convert`), { message: 'an error on the server ("boom") has prevented the request from succeeding' });
  answer = { status: 500, type: 'application/json', body: '{"x":1}' };
  await assert.rejects(post(`${base}/convert`), { message: 'an error on the server ("unknown") has prevented the request from succeeding' });
  answer = { status: 400, type: 'text/plain', body: 'no' };
  await assert.rejects(post(`${base}/convert`), { message: 'the server rejected our request for an unknown reason' });
  answer = { status: 403, type: 'application/json', body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'denied by policy' }) };
  await assert.rejects(post(`${base}/convert`), { message: 'denied by policy' });
  answer = { status: 200, type: 'application/json', body: '' };
  await assert.rejects(post(`${base}/convert`), { message: '0-length response with status code: 200 and content type: application/json' });
});

test('the path is cleaned as path.Join does and the answer decoded', async () => {
  answer = { status: 200, type: 'application/json', body: '{"kind":"ConversionReview"}' };
  assert.deepEqual(await post(`${base}/convert/`), { kind: 'ConversionReview' });
  assert.equal(lastPath, '/convert');
  await post(base);
  assert.equal(lastPath, '/');
});

test('a server the caBundle does not verify', async () => {
  await assert.rejects(post(`${base}/convert`, otherCA),
    { message: `Post "${base}/convert": tls: failed to verify certificate: x509: certificate signed by unknown authority` });
});

test('a Service target that cannot be resolved', async () => {
  const converter = new WebhookConverter({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.conv.example.com' },
    spec: {
      group: 'conv.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'ns', name: 'conv', path: '/convert' } } } },
    },
  }, clients);
  await assert.rejects(converter.convert([{ apiVersion: 'conv.example.com/v1', kind: 'Gadget', metadata: { name: 'a' }, spec: {} }], 'conv.example.com/v2'),
    { message: 'conversion webhook for conv.example.com/v1, Kind=Gadget failed: Post "https://conv.ns.svc:443/convert": service "conv" not found' });
  clients.release('gadgets.conv.example.com');
});

test('a Service target is reached through its Endpoints and verified as <service>.<namespace>.svc', async () => {
  const ca = await createCA();
  const cert = await issue(ca, 'CN=conv.ns.svc', 'server', { dns: ['conv.ns.svc'], ip: [] });
  let hostHeader = '';
  const svcServer = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    hostHeader = req.headers.host ?? '';
    req.resume();
    req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end('{"kind":"ConversionReview"}'); });
  });
  await new Promise<void>((r) => svcServer.listen(0, '127.0.0.1', r));
  const port = (svcServer.address() as AddressInfo).port;
  resolver = async (resource, namespace, name) => {
    if (namespace !== 'ns' || name !== 'conv') return undefined;
    return resource === 'services'
      ? { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 443 }] } }
      : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }] };
  };
  try {
    const config = { service: { namespace: 'ns', name: 'conv', path: '/convert' }, caBundle: Buffer.from(ca.cert).toString('base64') };
    assert.deepEqual(await clients.post('svc', config, { kind: 'ConversionReview' }), { kind: 'ConversionReview' });
    assert.equal(hostHeader, 'conv.ns.svc:443');
  } finally {
    resolver = async () => undefined;
    clients.release('svc');
    svcServer.closeAllConnections();
    await new Promise((r) => svcServer.close(r));
  }
});
