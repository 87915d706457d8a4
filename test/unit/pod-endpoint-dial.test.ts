/**
 * Reaching an emulated pod's HTTPS server: the TCP outcome, then crypto/tls's checks of the
 * certificate against the caller's CA bundle and name, with Go's texts.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createCA, issue } from '../../src/pki/issue.js';

type PemPair = Awaited<ReturnType<typeof createCA>>;
import { httpsExchange, type PodEndpointConnection } from '../../src/network/pod-endpoint-dial.js';
import { verifyServerCertificate } from '../../src/network/tls-verify.js';
import type { HttpRequest } from '../../src/apimachinery/http-exchange.js';

let ca: PemPair;
let other: PemPair;
let serving: PemPair;
const NAME = 'e2e-test-webhook.ns-1.svc';
const req: HttpRequest = { method: 'POST', target: '/always-deny', headers: [], body: new Uint8Array() };

before(async () => {
  ca = await createCA('CN=webhook-ca');
  other = await createCA('CN=someone-else');
  serving = await issue(ca, 'e2e-test-webhook.ns-1.svc', 'server', { dns: [NAME], ip: [] });
});

const connected = (serverCertificate?: string): PodEndpointConnection => ({
  kind: 'connected', ...(serverCertificate !== undefined ? { serverCertificate } : {}),
  exchange: async () => ({ status: 200, reason: 'OK', headers: [['Content-Type', 'application/json']], body: new Uint8Array(Buffer.from('{}')) }),
});

test('a certificate for the name, signed by the bundle\'s CA: the exchange happens', async () => {
  const out = await httpsExchange(connected(serving.cert), '10.244.1.5', 8444, { caBundle: ca.cert, serverName: NAME }, req, new Date());
  assert.equal(out.kind, 'response');
  if (out.kind === 'response') assert.equal(out.response.status, 200);
});

test('another CA, another name, no TLS, a refused or dropped connection: Go\'s words', async () => {
  const fail = async (conn: PodEndpointConnection, caBundle = ca.cert, serverName = NAME) =>
    httpsExchange(conn, '10.244.1.5', 8444, { caBundle, serverName }, req, new Date());
  assert.deepEqual(await fail(connected(serving.cert), other.cert), { kind: 'failed', reason: 'tls: failed to verify certificate: x509: certificate signed by unknown authority' });
  assert.deepEqual(await fail(connected(serving.cert), '', NAME), { kind: 'failed', reason: 'tls: failed to verify certificate: x509: certificate signed by unknown authority' });
  assert.deepEqual(await fail(connected(serving.cert), ca.cert, 'other.ns-1.svc'),
    { kind: 'failed', reason: 'tls: failed to verify certificate: x509: certificate is valid for e2e-test-webhook.ns-1.svc, not other.ns-1.svc' });
  assert.deepEqual(await fail(connected()), { kind: 'failed', reason: 'http: server gave HTTP response to HTTPS client' });
  assert.deepEqual(await fail({ kind: 'refused' }), { kind: 'failed', reason: 'dial tcp 10.244.1.5:8444: connect: connection refused' });
  assert.deepEqual(await fail({ kind: 'timeout' }), { kind: 'unanswered' });
  const reset: PodEndpointConnection = { kind: 'connected', serverCertificate: serving.cert, exchange: async () => 'reset' };
  assert.deepEqual(await fail(reset), { kind: 'failed', reason: 'EOF' });
});

test('expiry is checked before the name, the name before the authority', () => {
  const after = new Date(Date.now() + 50 * 365 * 86400_000);
  const msg = verifyServerCertificate(serving.cert, other.cert, 'wrong.name', after) ?? '';
  assert.match(msg, /^x509: certificate has expired or is not yet valid: current time \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ is after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(verifyServerCertificate(serving.cert, other.cert, 'wrong.name', new Date()), 'x509: certificate is valid for e2e-test-webhook.ns-1.svc, not wrong.name');
});
