/**
 * `winkube up --encryption-provider-config`: a Secret created through kubectl
 * is stored encrypted with upstream's aescbc layout (the raw database value
 * starts `k8s:enc:aescbc:v1:key1:` and decrypts with the key as kube-apiserver
 * would), is read back decrypted, and upstream's rotation procedure (new key
 * first, then replace every Secret) rewrites it with the new key.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');
const KEY1 = randomBytes(32);
const KEY2 = randomBytes(32);

function config(keys: [string, Buffer][]): string {
  return `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources:
      - secrets
    providers:
      - aescbc:
          keys:
${keys.map(([name, k]) => `            - name: ${name}\n              secret: ${k.toString('base64')}`).join('\n')}
      - identity: {}
`;
}

/** The value stored for a key, as bytes, read from the database file itself. */
function rawValue(dataDir: string, key: string): Buffer {
  const db = new Database(join(dataDir, 'state.db'), { readonly: true });
  try {
    const row = db.prepare('SELECT l.value FROM current c JOIN log l ON l.rev = c.mod_rev WHERE c.key = ?').get(key) as { value: string };
    return Buffer.from(row.value, 'latin1');
  } finally {
    db.close();
  }
}

/** kube-apiserver's aescbc read: after the prefix, a 16-byte IV and the PKCS#7-padded CBC text. */
function decryptAesCbc(stored: Buffer, prefix: string, key: Buffer): string {
  const data = stored.subarray(prefix.length);
  const d = createDecipheriv('aes-256-cbc', key, data.subarray(0, 16));
  return Buffer.concat([d.update(data.subarray(16)), d.final()]).toString('utf8');
}

const dataDir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
const configFile = join(dataDir, 'encryption.yaml');
let cluster: TestCluster;

before(async () => {
  writeFileSync(configFile, config([['key1', KEY1]]));
  cluster = await startCluster(dataDir, ['--api-only', '--encryption-provider-config', configFile]);
});
after(async () => { await cluster.stop(); removeDir(dataDir); });

test('a Secret is stored with aescbc under key1 and read back decrypted; rotating to key2 rewrites it', async () => {
  await kubectlOk(cluster, ['create', 'secret', 'generic', 'db', '--from-literal=password=hunter2-plaintext']);
  const stored = rawValue(dataDir, '/core/secrets/default/db');
  const prefix = 'k8s:enc:aescbc:v1:key1:';
  assert.equal(stored.subarray(0, prefix.length).toString('latin1'), prefix);
  assert.ok(!stored.includes('hunter2-plaintext') && !stored.includes(Buffer.from('hunter2-plaintext').toString('base64')));
  const plain = JSON.parse(decryptAesCbc(stored, prefix, KEY1)) as { metadata: { name: string }; data: Record<string, string> };
  assert.equal(plain.metadata.name, 'db');
  assert.deepEqual(plain.data, { password: Buffer.from('hunter2-plaintext').toString('base64') });
  assert.equal(await kubectlOk(cluster, ['get', 'secret', 'db', '-o', 'jsonpath={.data.password}']), Buffer.from('hunter2-plaintext').toString('base64'));
  // A ConfigMap is not listed by the configuration: stored as it is.
  await kubectlOk(cluster, ['create', 'configmap', 'plain', '--from-literal=a=visible']);
  assert.ok(rawValue(dataDir, '/core/configmaps/default/plain').toString('latin1').startsWith('{'));

  // Rotation: the new key first, the old one still read; restart; replace every Secret.
  await cluster.stop();
  writeFileSync(configFile, config([['key2', KEY2], ['key1', KEY1]]));
  cluster = await startCluster(dataDir, ['--api-only', '--encryption-provider-config', configFile]);
  assert.equal(await kubectlOk(cluster, ['get', 'secret', 'db', '-o', 'jsonpath={.data.password}']), Buffer.from('hunter2-plaintext').toString('base64'));
  const all = await kubectlOk(cluster, ['get', 'secrets', '-A', '-o', 'json']);
  const replaced = await kubectl(cluster, ['replace', '-f', '-'], { input: all });
  assert.equal(replaced.code, 0, replaced.stderr);
  assert.match(replaced.stdout, /^secret\/db replaced$/m);
  const rotated = rawValue(dataDir, '/core/secrets/default/db');
  assert.equal(rotated.subarray(0, 'k8s:enc:aescbc:v1:key2:'.length).toString('latin1'), 'k8s:enc:aescbc:v1:key2:');
  assert.equal((JSON.parse(decryptAesCbc(rotated, 'k8s:enc:aescbc:v1:key2:', KEY2)) as { data: Record<string, string> }).data.password,
    Buffer.from('hunter2-plaintext').toString('base64'));
  assert.equal(statSync(dataDir).mode & 0o777, 0o700);
  assert.equal(statSync(join(dataDir, 'state.db')).mode & 0o777, 0o600);
});

test('an invalid key stops winkube up with kube-apiserver\'s validation message', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
  try {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, config([['key1', randomBytes(8)]]));
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [MAIN, 'up', '--port', '0', '--data-dir', dir, '--api-only', '--encryption-provider-config', bad], { timeout: 30_000 },
        (_e, _stdout, stderr) => resolve({ code: child.exitCode, stderr }));
    });
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'error: error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": ' +
      'secret is not of the expected length, got 8, expected one of [16 24 32]\n');
  } finally {
    removeDir(dir);
  }
});
