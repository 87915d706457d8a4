/**
 * The webhook client's call to a Service whose endpoint is an emulated pod: through the dialer,
 * not a socket; the request as the REST client sends it, and Go's transport errors after
 * `Post "<url>": ` (refused, a dropped SYN or a silent handler reaching the call's deadline).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KObject } from '../../src/apimachinery/object.js';
import type { HttpRequest } from '../../src/apimachinery/http-exchange.js';
import { CallFailure, newWebhookAgent, postReview, postToWebhook } from '../../src/admission/webhook-client.js';
import type { PodEndpointConnection, PodEndpointDialer } from '../../src/network/pod-endpoint-dial.js';
import { createCA, issue } from '../../src/pki/issue.js';

const objects: Record<string, KObject> = {
  services: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook', namespace: 'ns' }, spec: { ports: [{ port: 8443 }] } },
  endpoints: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hook', namespace: 'ns' }, subsets: [{ addresses: [{ ip: '10.244.1.7' }], ports: [{ port: 8444 }] }] },
};
const getObject = async (resource: 'services' | 'endpoints') => objects[resource];
const URL_ = 'https://hook.ns.svc:8443/check?timeout=1s';

async function setup() {
  const ca = await createCA('CN=hook-ca');
  const cert = await issue(ca, 'hook.ns.svc', 'server', { dns: ['hook.ns.svc'], ip: [] });
  const endpoint = { clientConfig: { service: { namespace: 'ns', name: 'hook', path: '/check', port: 8443 }, caBundle: Buffer.from(ca.cert).toString('base64') }, agent: new https.Agent() };
  return { cert: cert.cert, endpoint };
}

/** A dialer that records where it was asked to connect and what was sent. */
function dialer(conn: (sent: HttpRequest[]) => PodEndpointConnection): { d: PodEndpointDialer; dialled: string[]; sent: HttpRequest[] } {
  const dialled: string[] = [];
  const sent: HttpRequest[] = [];
  return { dialled, sent, d: { dial: (ip, port) => { dialled.push(`${ip}:${port}`); return conn(sent); }, dialFrom: () => assert.fail('webhook calls dial from the pod itself') } };
}

async function failure(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (e) { assert.ok(e instanceof CallFailure, String(e)); return e.message; }
  assert.fail('the call succeeded');
}

test('the review goes to the endpoint through the model, Host naming the Service', async () => {
  const { cert, endpoint } = await setup();
  const { d, dialled, sent } = dialer((sent) => ({
    kind: 'connected', serverCertificate: cert,
    exchange: async (req) => { sent.push(req); return { status: 200, reason: 'OK', headers: [['Content-Type', 'application/json']], body: new Uint8Array(Buffer.from('{"ok":1}')) }; },
  }));
  const body = await postReview(endpoint, getObject, '{"x":1}', 1, d);
  assert.equal(body, '{"ok":1}');
  assert.deepEqual(dialled, ['10.244.1.7:8444']);
  assert.equal(sent[0]!.target, '/check?timeout=1s');
  assert.deepEqual(sent[0]!.headers, [['Host', 'hook.ns.svc:8443'], ['Content-Length', '7'], ['Accept', 'application/json, */*'], ['Content-Type', 'application/json']]);
  endpoint.agent.destroy();
});

test('refused, and a dropped SYN or a handler that never answers until the deadline', async () => {
  const { cert, endpoint } = await setup();
  assert.equal(await failure(postReview(endpoint, getObject, '{}', 1, dialer(() => ({ kind: 'refused' })).d)),
    `Post "${URL_}": dial tcp 10.244.1.7:8444: connect: connection refused`);
  assert.equal(await failure(postReview(endpoint, getObject, '{}', 1, dialer(() => ({ kind: 'timeout' })).d)), `Post "${URL_}": context deadline exceeded`);
  const silent = dialer(() => ({ kind: 'connected', serverCertificate: cert, exchange: () => new Promise(() => { /* never answers */ }) })).d;
  assert.equal(await failure(postReview(endpoint, getObject, '{}', 1, silent)), `Post "${URL_}": context deadline exceeded`);
  endpoint.agent.destroy();
});

test('an address the dialer does not hold is reached with a real socket', async () => {
  const ca = await createCA('CN=local-ca');
  const cert = await issue(ca, 'local', 'server', { dns: [], ip: ['127.0.0.1'] });
  const server = https.createServer({ cert: cert.cert, key: cert.key }, (_req, res) => { res.setHeader('Content-Type', 'application/json'); res.end('{"real":true}'); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const { d, dialled } = dialer(() => ({ kind: 'refused' }));
  const notHeld: PodEndpointDialer = { ...d, dial: (ip, p) => { d.dial(ip, p); return undefined; } };
  const clientConfig = { url: `https://127.0.0.1:${port}/x`, caBundle: Buffer.from(ca.cert).toString('base64') };
  const endpoint = { clientConfig, agent: newWebhookAgent(clientConfig) };
  const answer = await postToWebhook(endpoint, getObject, '{}', { podEndpoints: notHeld }).finally(() => { endpoint.agent.destroy(); server.close(); });
  assert.deepEqual([answer.code, answer.body, dialled], [200, '{"real":true}', [`127.0.0.1:${port}`]]);
});
