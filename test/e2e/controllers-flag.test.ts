/**
 * `winkube up --controllers` (kube-controller-manager's flag): a controller
 * the flag disables does not run while the others do, and an unknown name
 * stops the server from starting with upstream's validation message.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--controllers=*,-deployment-controller']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
});

test('--controllers=*,-deployment-controller: a Deployment gets no ReplicaSet while a ReplicaSet gets its pods', async () => {
  const d = await rawJSON(cluster, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template('web') },
  });
  assert.equal(d.status, 201);
  const rs = await rawJSON(cluster, 'POST', '/apis/apps/v1/namespaces/default/replicasets', {
    apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'other' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'other' } }, template: template('other') },
  });
  assert.equal(rs.status, 201);
  // The replicaset-controller runs: once it has made the other set's pods, the controllers have long seen the Deployment.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pods = await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dother');
    if (pods.body.items.length === 2) break;
    assert.ok(Date.now() < deadline, 'the ReplicaSet never got its pods');
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const sets = await rawJSON(cluster, 'GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dweb');
  assert.deepEqual(sets.body.items, []);
  const web = await rawJSON(cluster, 'GET', '/apis/apps/v1/namespaces/default/deployments/web');
  assert.equal(web.body.status?.observedGeneration, undefined, 'no deployment-controller status either');
});

test('--controllers with an unknown name: winkube up fails with the validation error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
  try {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [MAIN, 'up', '--port', '0', '--data-dir', dir, '--controllers', '*,-deploy-controller'], { timeout: 30_000 },
        (_e, _stdout, stderr) => resolve({ code: child.exitCode, stderr }));
    });
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `error: option '--controllers <names>' argument '*,-deploy-controller' is invalid. "deploy-controller" is not in the list of known controllers\n`);
  } finally {
    removeDir(dir);
  }
});
