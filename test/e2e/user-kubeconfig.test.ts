/**
 * `winkube kubeconfig --user NAME --group G`: a kubeconfig whose client
 * certificate (signed by the cluster CA) authenticates as that user in those
 * groups, authorized by RBAC like any user.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { eventually, kubectl, removeDir, startCluster, type KubectlResult, type TestCluster } from '../helpers/cluster.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

let cluster: TestCluster;

before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

function winkube(args: string[]): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Issues a kubeconfig into the cluster's data directory and returns its path. */
async function issueKubeconfig(name: string, args: string[]): Promise<string> {
  const file = join(cluster.dataDir, `${name}.kubeconfig`);
  const r = await winkube(['kubeconfig', '--data-dir', cluster.dataDir, '--output', file, ...args]);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
  return file;
}

const as = (kubeconfig: string, args: string[]) => kubectl(cluster, args, { env: { KUBECONFIG: kubeconfig } });

test('the user and groups of the certificate are who the server sees', async () => {
  const dev = await issueKubeconfig('dev', ['--user', 'dev', '--group', 'team-a']);
  const whoami = await as(dev, ['auth', 'whoami', '-o', 'json']);
  assert.equal(whoami.code, 0, whoami.stderr);
  assert.deepEqual(JSON.parse(whoami.stdout).status, { userInfo: { username: 'dev', groups: ['team-a', 'system:authenticated'] } });
  assert.equal((statSync(dev).mode & 0o777).toString(8), '600');

  const two = await issueKubeconfig('ops', ['--user', 'ops', '--group', 'team-a', '--group', 'oncall']);
  const r = await as(two, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo}']);
  assert.deepEqual(JSON.parse(r.stdout), { username: 'ops', groups: ['team-a', 'oncall', 'system:authenticated'] });

  const none = await issueKubeconfig('solo', ['--user', 'system:serviceaccount-like:solo']);
  const s = await as(none, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo}']);
  assert.deepEqual(JSON.parse(s.stdout), { username: 'system:serviceaccount-like:solo', groups: ['system:authenticated'] });
});

test('RBAC decides: 403 with upstream text, then a rolebinding to its group lets it list pods', async () => {
  const dev = await issueKubeconfig('dev', ['--user', 'dev', '--group', 'team-a']);
  const denied = await as(dev, ['get', 'pods']);
  assert.equal(denied.code, 1);
  assert.equal(denied.stderr,
    'Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "default"\n');

  const bind = await kubectl(cluster, ['create', 'rolebinding', 'team-a-view', '--clusterrole=view', '--group=team-a', '-n', 'default']);
  assert.equal(bind.code, 0, bind.stderr);
  const made = await kubectl(cluster, ['run', 'web', '--image=nginx', '-n', 'default']);
  assert.equal(made.code, 0, made.stderr);
  // The view ClusterRole's rules come from the aggregation controller.
  const listed = await eventually('dev lists pods', async () => {
    const r = await as(dev, ['get', 'pods', '-o', 'name']);
    return r.code === 0 ? r : undefined;
  });
  assert.equal(listed.stdout, 'pod/web\n');
  const write = await as(dev, ['delete', 'pod', 'web']);
  assert.equal(write.stderr,
    'Error from server (Forbidden): pods "web" is forbidden: User "dev" cannot delete resource "pods" in API group "" in the namespace "default"\n');
});

test('printed without --output: the admin kubeconfig\'s cluster, a context and user named after the user', async () => {
  const r = await winkube(['kubeconfig', '--user', 'dev', '--group', 'team-a', '--data-dir', cluster.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  const cfg = parse(r.stdout);
  const admin = parse(readFileSync(cluster.kubeconfig, 'utf8'));
  assert.deepEqual(cfg.clusters, admin.clusters);
  assert.deepEqual(cfg.contexts, [{ name: 'dev', context: { cluster: 'winkube', user: 'dev', namespace: 'default' } }]);
  assert.equal(cfg['current-context'], 'dev');
  assert.deepEqual(cfg.users.map((u: { name: string }) => u.name), ['dev']);
  assert.deepEqual(Object.keys(cfg.users[0].user).sort(), ['client-certificate-data', 'client-key-data']);
});

test('an existing output file is replaced and made 0600', async () => {
  const file = join(cluster.dataDir, 'existing.kubeconfig');
  writeFileSync(file, 'old', { mode: 0o644 });
  await issueKubeconfig('existing', ['--user', 'dev']);
  assert.equal((statSync(file).mode & 0o777).toString(8), '600');
  assert.equal(parse(readFileSync(file, 'utf8'))['current-context'], 'dev');
});

test('a data directory without a CA is one line and exit 1', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'winkube-empty-'));
  try {
    const r = await winkube(['kubeconfig', '--user', 'dev', '--data-dir', empty]);
    assert.deepEqual([r.code, r.stdout, r.stderr], [1, '',
      `error: no cluster CA in ${join(empty, 'pki')} (ca.crt, ca.key): start the cluster with winkube up --data-dir ${empty} first\n`]);
  } finally { removeDir(empty); }
  const noUser = await winkube(['kubeconfig', '--data-dir', cluster.dataDir]);
  assert.deepEqual([noUser.code, noUser.stderr], [1, "error: required option '--user <name>' not specified\n"]);
  const emptyUser = await winkube(['kubeconfig', '--user', '', '--data-dir', cluster.dataDir]);
  assert.deepEqual([emptyUser.code, emptyUser.stderr], [1, 'error: --user must not be empty\n']);
});
