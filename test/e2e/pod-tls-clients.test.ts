/**
 * TLS between pods: `agnhost webhook` serving HTTPS with its Secret's certificate, reached from
 * another pod through real `kubectl exec` with curl (exit 60 and OpenSSL's text without -k, the
 * body with -k or --cacert, curl's name check) and busybox-style wget; and the kubelet's httpGet
 * probes over TLS, whose failures `kubectl get events` shows in the prober's words.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCA, issue } from '../../src/pki/issue.js';
import { kubectl, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
let webhookIP = '';
let probedIP = '';
const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.52';
const WEBHOOK_ARGS = ['webhook', '--tls-cert-file=/certs/tls.crt', '--tls-private-key-file=/certs/tls.key', '--port=8444'];

async function apply(obj: object): Promise<void> {
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: JSON.stringify(obj) });
  assert.equal(r.code, 0, r.stderr);
}

async function runningIP(name: string): Promise<string> {
  for (let i = 0; ; i++) {
    const r = await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${name}`);
    const status = (r.body as { status?: { phase?: string; podIP?: string } }).status;
    if (status?.phase === 'Running' && status.podIP) return status.podIP;
    assert.ok(i < 600, `${name} never ran: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

const exec = (...argv: string[]) => kubectl(cluster, ['exec', 'client', '--', ...argv]);

before(async () => {
  cluster = await startCluster();
  const ca = await createCA('CN=e2e-server-cert-ca');
  const serving = await issue(ca, 'e2e-test-webhook.default.svc', 'server', { dns: ['e2e-test-webhook.default.svc'], ip: [] });
  await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'webhook-certs' }, type: 'Opaque', stringData: { 'tls.crt': serving.cert, 'tls.key': serving.key, 'ca.crt': ca.cert } });
  const certs = { volumeMounts: [{ name: 'certs', mountPath: '/certs', readOnly: true }] };
  const certVolume = { volumes: [{ name: 'certs', secret: { secretName: 'webhook-certs' } }] };
  await apply({
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'e2e-test-webhook' },
    spec: { selector: { app: 'webhook' }, ports: [{ protocol: 'TCP', port: 8443, targetPort: 8444 }] },
  });
  await apply({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'webhook', labels: { app: 'webhook' } },
    spec: { nodeName: 'linux-1', containers: [{ name: 'webhook', image: AGNHOST, args: WEBHOOK_ARGS, ports: [{ containerPort: 8444 }], ...certs }], ...certVolume },
  });
  await apply({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client' },
    spec: { nodeName: 'linux-1', containers: [{ name: 'client', image: AGNHOST, args: ['pause'], ...certs }], ...certVolume },
  });
  // Probes on the wrong scheme: HTTP against the TLS listener, HTTPS against netexec's plain one.
  await apply({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probed' },
    spec: {
      nodeName: 'linux-1',
      containers: [
        { name: 'webhook', image: AGNHOST, args: WEBHOOK_ARGS, ...certs, readinessProbe: { httpGet: { scheme: 'HTTP', port: 8444, path: '/readyz' }, periodSeconds: 1 } },
        { name: 'netexec', image: AGNHOST, args: ['netexec', '--http-port=8080', '--udp-port=-1'], readinessProbe: { httpGet: { scheme: 'HTTPS', port: 8080, path: '/healthz' }, periodSeconds: 1 } },
      ],
      ...certVolume,
    },
  });
  webhookIP = await runningIP('webhook');
  await runningIP('client');
  probedIP = await runningIP('probed');
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const MORE = 'More details here: https://curl.se/docs/sslcerts.html\n\ncurl failed to verify the legitimacy of the server and therefore could not\n'
  + 'establish a secure connection to it. To learn more about this situation and\nhow to fix it, please visit the webpage mentioned above.\n';

test('curl to the webhook pod\'s TLS listener: exit 60 without -k, the body with -k', async () => {
  const url = `https://${webhookIP}:8444/readyz`;
  const untrusted = await exec('curl', '-sS', url);
  assert.deepEqual([untrusted.code, untrusted.stdout, untrusted.stderr],
    [60, '', `curl: (60) SSL certificate problem: unable to get local issuer certificate\n${MORE}command terminated with exit code 60\n`]);
  const insecure = await exec('curl', '-sk', url);
  assert.deepEqual([insecure.code, insecure.stdout, insecure.stderr], [0, 'ok', '']);
});

test('curl --cacert with the issuing CA: the Service\'s name passes, the pod address fails curl\'s name check', async () => {
  const byName = await exec('curl', '-sS', '--cacert', '/certs/ca.crt', 'https://e2e-test-webhook.default.svc:8443/readyz');
  assert.deepEqual([byName.code, byName.stdout, byName.stderr], [0, 'ok', '']);
  const r = await exec('curl', '-sS', '--cacert', '/certs/ca.crt', `https://${webhookIP}:8444/readyz`);
  assert.deepEqual([r.code, r.stderr],
    [60, `curl: (60) SSL: no alternative certificate subject name matches target ipv4 address '${webhookIP}'\n${MORE}command terminated with exit code 60\n`]);
});

test('plain http to the TLS listener gets Go\'s 400; https to a plain listener fails the handshake', async () => {
  const plain = await exec('curl', '-si', `http://${webhookIP}:8444/readyz`);
  assert.deepEqual([plain.code, plain.stdout], [0, 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n']);
  const wrong = await exec('curl', '-sS', `https://${probedIP}:8080/healthz`);
  assert.deepEqual([wrong.code, wrong.stderr], [35, 'curl: (35) TLS connect error: error:0A00010B:SSL routines::wrong version number\ncommand terminated with exit code 35\n']);
  const wget = await exec('wget', '-qO-', `https://${webhookIP}:8444/readyz`);
  assert.deepEqual([wget.code, wget.stdout, wget.stderr], [0, 'ok', 'wget: note: TLS certificate validation not implemented\n']);
});

test('kubectl get events: the prober\'s texts for an HTTP probe on TLS and an HTTPS probe on plain HTTP', async () => {
  const want = [
    `Readiness probe failed: Get "https://${probedIP}:8080/healthz": http: server gave HTTP response to HTTPS client`,
    'Readiness probe failed: HTTP probe failed with statuscode: 400',
  ];
  for (let i = 0; ; i++) {
    const r = await kubectl(cluster, ['get', 'events', '--field-selector', 'involvedObject.name=probed,reason=Unhealthy', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}']);
    assert.equal(r.code, 0, r.stderr);
    const seen = [...new Set(r.stdout.split('\n').filter(Boolean))].sort();
    if (seen.length >= 2) { assert.deepEqual(seen, want); break; }
    assert.ok(i < 300, `no Unhealthy events yet: ${r.stdout}`);
    await new Promise((res) => setTimeout(res, 100));
  }
});
