/**
 * agnhost crd-conversion-webhook: the example converter's rules (example_converter.go), the
 * /crdconvert handler's answers (framework.go) and the program's start-up (config.go).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertExampleCR, serveConversion } from '../../src/node/apps/crd-conversion-rules.js';
import { crdConversionFlags, crdConversionWebhook } from '../../src/node/apps/agnhost-crd-conversion.js';
import { loadKeyPair } from '../../src/node/apps/go-tls-keypair.js';
import { createCA, issue } from '../../src/pki/issue.js';
import { ContainerFS } from '../../src/node/shell/fs.js';
import type { Step } from '../../src/node/shell/types.js';

const enc = (s: string) => new Uint8Array(Buffer.from(s));
const ptr = () => '0xc0003a0000';

test('v1 hostPort splits into v2 host and port; v2 joins back', () => {
  assert.deepEqual(convertExampleCR({ apiVersion: 'stable.example.com/v1', kind: 'E', hostPort: 'localhost:8080' }, 'stable.example.com/v2'),
    { converted: { apiVersion: 'stable.example.com/v1', kind: 'E', host: 'localhost', port: '8080' }, status: { status: 'Success' } });
  assert.deepEqual(convertExampleCR({ apiVersion: 'stable.example.com/v2', kind: 'E', host: 'h' }, 'stable.example.com/v1').converted,
    { apiVersion: 'stable.example.com/v2', kind: 'E', hostPort: 'h:' });
  // Without the fields nothing changes.
  assert.deepEqual(convertExampleCR({ apiVersion: 'stable.example.com/v2', kind: 'E' }, 'stable.example.com/v1').converted, { apiVersion: 'stable.example.com/v2', kind: 'E' });
  // fmt's %s of a number.
  assert.equal(convertExampleCR({ apiVersion: 'stable.example.com/v2', kind: 'E', host: 'h', port: 80 }, 'stable.example.com/v1').converted?.hostPort, 'h:%!s(int64=80)');
});

test('the converter refuses same-version, unknown versions and a malformed hostPort', () => {
  assert.deepEqual(convertExampleCR({ apiVersion: 'stable.example.com/v1' }, 'stable.example.com/v1').status,
    { status: 'Failure', message: 'conversion from a version to itself should not call the webhook: stable.example.com/v1' });
  assert.deepEqual(convertExampleCR({ apiVersion: 'stable.example.com/v1' }, 'stable.example.com/v3').status,
    { status: 'Failure', message: 'unexpected conversion version "stable.example.com/v3"' });
  assert.deepEqual(convertExampleCR({ apiVersion: 'other/v1' }, 'stable.example.com/v2').status,
    { status: 'Failure', message: 'unexpected conversion version "other/v1"' });
  assert.deepEqual(convertExampleCR({ apiVersion: 'stable.example.com/v1', hostPort: 'a:b:c' }, 'stable.example.com/v2').status,
    { status: 'Failure', message: 'invalid hostPort value `a:b:c`' });
});

test('a v1 ConversionReview is answered as the JSON serializer writes it', () => {
  const review = {
    kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1',
    request: { uid: 'u-1', desiredAPIVersion: 'stable.example.com/v2', objects: [{ apiVersion: 'stable.example.com/v1', kind: 'E', metadata: { name: 'a' }, hostPort: 'localhost:80' }] },
  };
  const a = serveConversion('application/json', 'application/json, */*', enc(JSON.stringify(review)), ptr);
  assert.equal(a.status, 200);
  assert.deepEqual(a.headers, []);
  assert.equal(a.body, '{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"","desiredAPIVersion":"","objects":null},'
    + '"response":{"uid":"u-1","convertedObjects":[{"apiVersion":"stable.example.com/v2","host":"localhost","kind":"E","metadata":{"name":"a"},"port":"80"}],'
    + '"result":{"metadata":{},"status":"Success"}}}\n');
  assert.deepEqual(a.logs.map((l) => `${l.severity} ${l.source}] ${l.message}`).slice(1), [
    'I example_converter.go:30] converting crd',
    'I framework.go:170] sending response: &{u-1 [{[] 0xc0003a0000}] {{ } {   <nil>} Success   <nil> 0}}',
  ]);
});

test('a failed conversion answers 200 with a Failure result and no objects (v1beta1 too)', () => {
  const review = { kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1beta1', request: { uid: 'u', desiredAPIVersion: 'stable.example.com/v2', objects: [{ apiVersion: 'stable.example.com/v1', kind: 'E', hostPort: 'x' }] } };
  const a = serveConversion('application/json', '', enc(JSON.stringify(review)), ptr);
  assert.equal(a.body, '{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1beta1","request":{"uid":"","desiredAPIVersion":"","objects":null},'
    + '"response":{"uid":"u","convertedObjects":null,"result":{"metadata":{},"status":"Failure","message":"invalid hostPort value `x`"}}}\n');
  assert.equal(a.logs.find((l) => l.severity === 'E')?.message,
    '&Status{ListMeta:ListMeta{SelfLink:,ResourceVersion:,Continue:,RemainingItemCount:nil,},Status:Failure,Message:invalid hostPort value `x`,Reason:,Details:nil,Code:0,}');
});

test('bad requests answer as http.Error', () => {
  const plain = [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']];
  assert.deepEqual(serveConversion('application/json; charset=utf-8', '', enc('{}'), ptr),
    { status: 400, headers: plain, body: 'invalid Content-Type header `application/json; charset=utf-8`\n', logs: [{ severity: 'E', source: 'framework.go:129', message: 'invalid Content-Type header `application/json; charset=utf-8`' }] });
  assert.equal(serveConversion('application/json', '', enc('{"apiVersion":"v1"}'), ptr).body,
    'failed to deserialize body ({"apiVersion":"v1"}) with error Object \'Kind\' is missing in \'{"apiVersion":"v1"}\'\n');
  assert.equal(serveConversion('application/json', '', enc('{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"}'), ptr).body,
    'Unsupported group version kind: apiextensions.k8s.io/v1, Kind=CustomResourceDefinition\n');
  const ok = JSON.stringify({ kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1', request: { uid: 'u', desiredAPIVersion: 'stable.example.com/v2', objects: [] } });
  assert.equal(serveConversion('application/json', 'text/html', enc(ok), ptr).body, 'invalid accept header `text/html`\n');
});

test('an object without a kind fails the whole review with the unmarshal error', () => {
  const review = { kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1', request: { uid: 'u', desiredAPIVersion: 'stable.example.com/v2', objects: [{ apiVersion: 'stable.example.com/v1' }] } };
  const a = serveConversion('application/json', '', enc(JSON.stringify(review)), ptr);
  assert.match(a.body, /"result":\{"metadata":\{\},"status":"Failure","message":"failed to unmarshall object \(\{\\"apiVersion\\":\\"stable.example.com\/v1\\"\}\) with error: Object 'Kind' is missing in '\{\\"apiVersion\\":\\"stable.example.com\/v1\\"\}'"\}/);
});

test('a hostPort that is not a string panics the handler', () => {
  const review = { kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1', request: { uid: 'u', desiredAPIVersion: 'stable.example.com/v2', objects: [{ apiVersion: 'stable.example.com/v1', kind: 'E', hostPort: 5 }] } };
  assert.equal(serveConversion('application/json', '', enc(JSON.stringify(review)), ptr).panic, 'interface conversion: interface {} is int64, not string');
});

test('flags: klog booleans take no value', () => {
  assert.deepEqual(crdConversionFlags(['--tls-cert-file=/c/tls.crt', '--tls-private-key-file=/c/tls.key', '--alsologtostderr', '-v=4', '--port=9444']),
    { certFile: '/c/tls.crt', keyFile: '/c/tls.key', port: 9444, verbosity: 4 });
  assert.equal(crdConversionFlags([]).port, 443);
});

test('the key pair is loaded as tls.LoadX509KeyPair does', async () => {
  const ca = await createCA();
  const server = await issue(ca, 'CN=e2e-test-crd-conversion-webhook.ns.svc', 'server', { dns: ['e2e-test-crd-conversion-webhook.ns.svc'], ip: [] });
  const files: Record<string, string> = { '/c/tls.crt': server.cert, '/c/tls.key': server.key, '/c/other.key': ca.key };
  const read = (p: string) => files[p];
  assert.deepEqual(loadKeyPair(read, '/c/tls.crt', '/c/tls.key'), { chain: server.cert.endsWith('\n') ? server.cert : `${server.cert}\n` });
  assert.deepEqual(loadKeyPair(read, '/c/missing.crt', '/c/tls.key'), { error: 'open /c/missing.crt: no such file or directory' });
  assert.deepEqual(loadKeyPair(read, '/c/tls.crt', '/c/other.key'), { error: 'tls: private key does not match public key' });
});

test('without the certificate files the program exits 255 with klog.Fatal', () => {
  const fs = new ContainerFS('linux');
  fs.mountFile('/var/run/secrets/kubernetes.io/serviceaccount/token', 't');
  const p = crdConversionWebhook({ now: () => new Date('2026-11-29T05:41:03.013Z'), hostname: 'h', cpus: 1, env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, fs },
    ['--tls-cert-file=/webhook.local.config/certificates/tls.crt', '--tls-private-key-file=/webhook.local.config/certificates/tls.key']);
  const steps: Step[] = [];
  for (let r = p.next(); !r.done; r = p.next()) steps.push(r.value);
  assert.deepEqual(steps, [
    { kind: 'stderr', text: 'F1129 05:41:03.013000       1 config.go:43] open /webhook.local.config/certificates/tls.crt: no such file or directory\n' },
    { kind: 'exit', code: 255 },
  ]);
});
