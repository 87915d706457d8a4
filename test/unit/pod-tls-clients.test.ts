/**
 * curl and busybox wget in a pod against another pod's TLS listener (a Go server serving HTTPS):
 * curl's exit 60 texts in OpenSSL's order (chain, dates, then curl's own name check), -k and
 * --cacert, exit 35 against a plain listener; wget's unverified TLS; a plain request to the TLS
 * listener getting Go's 400; and the kubelet's httpGet probe over such connections.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCA, issue } from '../../src/pki/issue.js';
import { collect, ContainerFS, interpret } from '../../src/node/shell/index.js';
import { Pending } from '../../src/node/shell/pending.js';
import type { Listening, ServerTLS } from '../../src/node/shell/net-types.js';
import { curlPeerVerification } from '../../src/node/shell/curl-tls.js';
import { httpProbeOver } from '../../src/node/kubelet/http-probe.js';
import { appNetwork, CLIENT_IP, SERVER_IP } from '../helpers/app-network.js';

let caPEM = '';
let otherCA = '';
/** Issued by the CA for the Service's name and the pod's address. */
let servingChain = '';
/** Issued by the CA for the Service's name only. */
let dnsOnlyChain = '';
let selfSigned = '';

before(async () => {
  const ca = await createCA('CN=e2e-server-cert-ca');
  caPEM = ca.cert;
  otherCA = (await createCA('CN=another-ca')).cert;
  servingChain = (await issue(ca, 'e2e-test-webhook.default.svc', 'server', { dns: ['e2e-test-webhook.default.svc'], ip: [SERVER_IP] })).cert;
  dnsOnlyChain = (await issue(ca, 'e2e-test-webhook.default.svc', 'server', { dns: ['e2e-test-webhook.default.svc'], ip: [] })).cert;
  selfSigned = ca.cert;
});

const body = 'ok';
function network(tls: ServerTLS | undefined, port = 8444) {
  const n = appNetwork(port);
  n.net.forPod(SERVER_IP, { os: 'linux', searches: [] }, new Set<Listening>()).listen(port, () => Pending.of({
    status: 200, reason: 'OK', headers: [['Content-Type', 'text/plain; charset=utf-8'], ['Content-Length', '2']], body: Buffer.from(body),
  }), undefined, tls);
  const fs = new ContainerFS('linux');
  fs.write('/ca.crt', caPEM);
  fs.write('/other.crt', otherCA);
  const run = (...argv: string[]) => collect(interpret(argv, {
    os: 'linux', env: {}, hostname: 'client', fs, posixShell: 'ash',
    network: { podIP: CLIENT_IP, prefixLength: 24, dnsServers: ['10.96.0.10'], searches: [] },
    net: n.net.forPod(CLIENT_IP, { os: 'linux', searches: [] }, new Set<Listening>()),
  }));
  return { ...n, run };
}

const MORE = 'More details here: https://curl.se/docs/sslcerts.html\n\ncurl failed to verify the legitimacy of the server and therefore could not\n'
  + 'establish a secure connection to it. To learn more about this situation and\nhow to fix it, please visit the webpage mentioned above.\n';
const url = `https://${SERVER_IP}:8444/readyz`;

test('curl without -k: exit 60, unable to get local issuer certificate, then curl\'s pointer to sslcerts.html', () => {
  const r = network({ certificate: servingChain }).run('curl', '-sS', url);
  assert.deepEqual([r.code, r.stdout, r.stderr], [60, '', `curl: (60) SSL certificate problem: unable to get local issuer certificate\n${MORE}`]);
});

test('curl -k reads the body; --cacert with the CA that issued it too; another CA fails as without one', () => {
  const n = network({ certificate: servingChain });
  assert.deepEqual([n.run('curl', '-sk', url).code, n.run('curl', '-sk', url).stdout], [0, body]);
  const trusted = n.run('curl', '-s', '--cacert', '/ca.crt', url);
  assert.deepEqual([trusted.code, trusted.stdout, trusted.stderr], [0, body, '']);
  const other = n.run('curl', '-sS', '--cacert', '/other.crt', url);
  assert.deepEqual([other.code, other.stderr], [60, `curl: (60) SSL certificate problem: unable to get local issuer certificate\n${MORE}`]);
});

test('curl --cacert with a missing file or one without a certificate: exit 77; -k never reads it', () => {
  const n = network({ certificate: servingChain });
  const missing = n.run('curl', '-sS', '--cacert', '/nope.crt', url);
  assert.deepEqual([missing.code, missing.stderr], [77, 'curl: (77) error setting certificate file: /nope.crt\n']);
  n.run('sh', '-c', 'echo not-a-certificate > /bad.crt');
  assert.equal(n.run('cat', '/bad.crt').stdout, 'not-a-certificate\n');
  const bad = n.run('curl', '-sS', '--cacert', '/bad.crt', url);
  assert.deepEqual([bad.code, bad.stderr], [77, 'curl: (77) error setting certificate file: /bad.crt\n']);
  const insecure = n.run('curl', '-sSk', '--cacert', '/nope.crt', url);
  assert.deepEqual([insecure.code, insecure.stdout], [0, body]);
});

test('curl --cacert to a certificate without the address among its SANs: curl\'s own name check, exit 60', () => {
  const r = network({ certificate: dnsOnlyChain }).run('curl', '-sS', '--cacert', '/ca.crt', url);
  assert.deepEqual([r.code, r.stderr], [60, `curl: (60) SSL: no alternative certificate subject name matches target ipv4 address '${SERVER_IP}'\n${MORE}`]);
});

test('OpenSSL\'s chain errors: a self-signed leaf, a self-signed root sent along; the chain before the dates, the dates before the name', () => {
  const now = new Date();
  assert.equal(curlPeerVerification(selfSigned, '', SERVER_IP, now), 'SSL certificate problem: self-signed certificate');
  assert.equal(curlPeerVerification(`${servingChain}\n${caPEM}`, '', SERVER_IP, now), 'SSL certificate problem: self-signed certificate in certificate chain');
  const later = new Date(Date.now() + 20 * 365 * 86_400_000);
  assert.equal(curlPeerVerification(dnsOnlyChain, '', SERVER_IP, later), 'SSL certificate problem: unable to get local issuer certificate');
  assert.equal(curlPeerVerification(dnsOnlyChain, caPEM, SERVER_IP, later), 'SSL certificate problem: certificate has expired');
  assert.equal(curlPeerVerification(dnsOnlyChain, caPEM, 'e2e-test-webhook.default.svc', now), undefined);
  assert.equal(curlPeerVerification(dnsOnlyChain, caPEM, 'other.default.svc', now), "SSL: no alternative certificate subject name matches target hostname 'other.default.svc'");
});

test('curl\'s name check falls back to the Common Name only for a certificate without SANs', async () => {
  const ca = await createCA('CN=cn-ca');
  const cnOnly = (await issue(ca, 'CN=web.default.svc', 'server', { dns: [], ip: [] })).cert;
  const now = new Date();
  assert.equal(curlPeerVerification(cnOnly, ca.cert, 'web.default.svc', now), undefined);
  assert.equal(curlPeerVerification(cnOnly, ca.cert, 'web', now), "SSL: certificate subject name 'web.default.svc' does not match target hostname 'web'");
  assert.equal(curlPeerVerification(servingChain, caPEM, '10.244.1.9', now), "SSL: no alternative certificate subject name matches target ipv4 address '10.244.1.9'");
  assert.equal(curlPeerVerification(servingChain, caPEM, 'fd00::5', now), "SSL: no alternative certificate subject name matches target ipv6 address 'fd00::5'");
});

test('curl https:// to a plain-HTTP listener: exit 35, wrong version number', () => {
  const r = network(undefined).run('curl', '-sS', url);
  assert.deepEqual([r.code, r.stderr], [35, 'curl: (35) TLS connect error: error:0A00010B:SSL routines::wrong version number\n']);
});

test('curl http:// to the TLS listener: Go\'s HTTP/1.0 400 without header fields', () => {
  const r = network({ certificate: servingChain }).run('curl', '-si', `http://${SERVER_IP}:8444/readyz`);
  assert.deepEqual([r.code, r.stdout], [0, 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n']);
});

test('busybox wget: its TLS checks nothing and says so (not with --no-check-certificate); plain http gets the 400', () => {
  const n = network({ certificate: servingChain });
  const r = n.run('wget', '-qO-', url);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, body, 'wget: note: TLS certificate validation not implemented\n']);
  const quiet = n.run('wget', '-qO-', '--no-check-certificate', url);
  assert.deepEqual([quiet.code, quiet.stdout, quiet.stderr], [0, body, '']);
  const plain = n.run('wget', '-qO-', `http://${SERVER_IP}:8444/readyz`);
  assert.deepEqual([plain.code, plain.stderr], [1, 'wget: server returned error: HTTP/1.0 400 Bad Request\n']);
});

test('httpGet probes: HTTPS skips verification but needs TLS; HTTP to a TLS listener fails with the 400', () => {
  const from = SERVER_IP.replace(/\.\d+$/, '.1');
  const tls = network({ certificate: selfSigned });
  const plain = network(undefined);
  const req = { host: SERVER_IP, port: 8444, target: '/readyz' };
  const connect = (n: ReturnType<typeof network>) => {
    const c = n.net.connect(from, SERVER_IP, 8444);
    assert.equal(c.kind, 'connected');
    return c;
  };
  assert.deepEqual(httpProbeOver(connect(tls), { ...req, scheme: 'https' }), { ok: true, output: '' });
  assert.deepEqual(httpProbeOver(connect(plain), { ...req, scheme: 'https' }),
    { ok: false, output: `Get "https://${SERVER_IP}:8444/readyz": http: server gave HTTP response to HTTPS client` });
  assert.deepEqual(httpProbeOver(connect(tls), { ...req, scheme: 'http' }), { ok: false, output: 'HTTP probe failed with statuscode: 400' });
  assert.deepEqual(httpProbeOver(connect(plain), { ...req, scheme: 'http' }), { ok: true, output: '' });
});
