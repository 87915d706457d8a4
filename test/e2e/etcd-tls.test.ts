/**
 * `winkube up --storage etcd` on an etcd member that serves clients over TLS
 * and requires a client certificate (`--client-cert-auth`), with
 * kube-apiserver's flags: `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createCA, issue } from '../../src/pki/issue.js';
import { kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { startEtcd, type EtcdServer, type EtcdTLS } from '../helpers/etcd-server.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');
const certDir = mkdtempSync(join(tmpdir(), 'winkube-etcd-pki-'));
const file = (name: string, text: string): string => { const p = join(certDir, name); writeFileSync(p, text, { mode: 0o600 }); return p; };
let etcd: EtcdServer;
let cluster: TestCluster;
let server: EtcdTLS;
let client: { certFile: string; keyFile: string };

before(async () => {
  const ca = await createCA('CN=etcd-ca');
  const serving = await issue(ca, 'CN=etcd', 'server', { dns: ['localhost'], ip: ['127.0.0.1'] });
  const apiserver = await issue(ca, 'CN=kube-apiserver-etcd-client', 'client', { dns: [], ip: [] });
  const caFile = file('ca.crt', ca.cert);
  client = { certFile: file('apiserver-etcd-client.crt', apiserver.cert), keyFile: file('apiserver-etcd-client.key', apiserver.key) };
  server = { caFile, certFile: file('server.crt', serving.cert), keyFile: file('server.key', serving.key), client };
  etcd = await startEtcd(server);
  cluster = await startCluster(undefined, ['--api-only', '--storage', 'etcd', '--etcd-servers', etcd.url,
    '--etcd-cafile', caFile, '--etcd-certfile', client.certFile, '--etcd-keyfile', client.keyFile]);
});
after(async () => { await cluster?.stop(); removeDir(cluster?.dataDir ?? ''); await etcd?.stop(); removeDir(certDir); });

test('kubectl writes through TLS with a client certificate; etcdctl with the same files reads the object at its key', async () => {
  assert.equal(etcd.url.startsWith('https://127.0.0.1:'), true);
  assert.equal(await kubectlOk(cluster, ['create', 'configmap', 'over-tls', '--from-literal=k=v']), 'configmap/over-tls created\n');
  assert.equal(await kubectlOk(cluster, ['get', 'configmap', 'over-tls', '-o', 'jsonpath={.data.k}']), 'v');
  const { stdout } = await promisify(execFile)('etcdctl', ['--endpoints', etcd.url, '--cacert', server.caFile, '--cert', client.certFile,
    '--key', client.keyFile, 'get', '/registry/configmaps/default/over-tls', '--print-value-only'], { env: { ...process.env, ETCDCTL_API: '3' } });
  assert.deepEqual((JSON.parse(stdout) as { data: unknown }).data, { k: 'v' });
});

test('without a client certificate the member refuses the handshake: winkube up exits 1 naming etcd and the TLS alert', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
  try {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const p = execFile(process.execPath, [MAIN, 'up', '--api-only', '--port', '0', '--data-dir', dataDir, '--storage', 'etcd', '--etcd-servers', etcd.url,
        '--etcd-cafile', server.caFile], { timeout: 60_000 }, (_err, _stdout, stderr) => resolve({ code: p.exitCode, stderr }));
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`^error: failed to reach etcd at ${etcd.url.replace(/[.]/g, '\\.')}: 14 UNAVAILABLE: No connection established\\. Last error: .*alert bad certificate`, 'm'));
  } finally {
    removeDir(dataDir);
  }
});
