/**
 * `winkube lint` as users run it: the built CLI on fixture manifests (files,
 * directories, standard input with Helm output), each report format, exit
 * codes and usage errors; and against a started winkube through
 * --kubeconfig, whose nodes it reads.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { runWinkube, type WinkubeResult } from '../helpers/winkube-cli.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIX = 'test/fixtures/lint';

function lint(args: string[], input = ''): Promise<WinkubeResult> {
  return runWinkube(['lint', ...args], { cwd: ROOT, input });
}

test('errors: the report on stdout, exit code 2', async () => {
  const r = await lint([`${FIX}/WK103.pos.yaml`, `${FIX}/WK108.pos.yaml`]);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, `${FIX}/WK103.pos.yaml:1: error WK103 Pod mixed spec.containers[1].image: image nginx:1.27 has no windows platform, and the pod targets Windows nodes
  fix: use a Windows (or multi-OS) image for this container, or run it in a separate Linux pod
${FIX}/WK108.pos.yaml:1: warning WK108 Pod uid spec.containers[0].securityContext.runAsGroup: securityContext.runAsGroup is not supported on Windows (no numeric user IDs)
  fix: remove it and set securityContext.windowsOptions.runAsUserName (ContainerUser or ContainerAdministrator)
${FIX}/WK108.pos.yaml:1: warning WK108 Pod uid spec.securityContext.runAsUser: securityContext.runAsUser is not supported on Windows (no numeric user IDs)
  fix: remove it and set securityContext.windowsOptions.runAsUserName (ContainerUser or ContainerAdministrator)
3 findings: 1 error, 2 warnings, 0 info
`);
  assert.equal(r.code, 2);
});

test('warnings only: exit code 1, or 0 with --fail-on error; no findings: 0', async () => {
  assert.equal((await lint([`${FIX}/WK108.pos.yaml`])).code, 1);
  assert.equal((await lint(['--fail-on', 'error', `${FIX}/WK108.pos.yaml`])).code, 0);
  const clean = await lint([`${FIX}/WK108.neg.yaml`]);
  assert.deepEqual([clean.code, clean.stdout], [0, '0 findings: 0 errors, 0 warnings, 0 info\n']);
});

test('standard input with Helm template output: findings name the chart template', async () => {
  const helm = `---
# Source: agent/templates/daemonset.yaml
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: busybox:1.36}]
`;
  const r = await lint(['--enable', 'WK102', '-'], helm);
  assert.equal(r.stdout.split('\n')[0], '-:3 (agent/templates/daemonset.yaml): error WK102 DaemonSet agent spec.template.spec.nodeSelector: '
    + 'pod template without a kubernetes.io/os nodeSelector, and nothing in it is Windows-only: the DaemonSet runs a pod on each of the Windows nodes win2019-1, win2019-2, win2022-1');
  assert.equal(r.code, 2);
});

test('a directory, a cluster file and JSON output', async () => {
  const r = await lint(['--cluster', `${FIX}/cluster-docker.yaml`, '--enable', 'WK110,WK112', '-o', 'json', FIX]);
  const out = JSON.parse(r.stdout) as { cluster: string; findings: Array<{ rule: string; source: { file: string; line: number }; path: string }> };
  assert.equal(out.cluster, `${FIX}/cluster-docker.yaml`);
  assert.deepEqual(out.findings.map((f) => [f.rule, f.source.file, f.source.line, f.path]), [
    ['WK110', `${FIX}/WK110.pos.yaml`, 1, 'spec.containers[0].volumeMounts[0].subPath'],
    ['WK112', `${FIX}/WK112.pos.yaml`, 1, 'spec.terminationGracePeriodSeconds'],
  ]);
  assert.equal(r.code, 1);
});

test('SARIF and JUnit outputs', async () => {
  const sarif = JSON.parse((await lint(['-o', 'sarif', `${FIX}/WK119.pos.yaml`])).stdout);
  assert.equal(sarif.version, '2.1.0');
  assert.deepEqual(sarif.runs[0].results.map((x: { ruleId: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }> }) =>
    [x.ruleId, x.locations[0]?.physicalLocation.artifactLocation.uri, x.locations[0]?.physicalLocation.region.startLine]),
  [['WK119', `${FIX}/WK119.pos.yaml`, 1]]);
  const junit = (await lint(['-o', 'junit', '--enable', 'WK111', `${FIX}/WK111.pos.yaml`])).stdout;
  assert.match(junit, /<testcase classname="test\/fixtures\/lint\/WK111.pos.yaml" name="WK111 Pod ramdisk spec.volumes\[0\].emptyDir.medium">\n {6}<failure type="warning" message="emptyDir.medium Memory is not supported on Windows nodes">/);
});

test('usage errors as commander reports them, exit code 1', async () => {
  const bad = await lint(['-o', 'xml', `${FIX}/WK100.pos.yaml`]);
  assert.deepEqual([bad.code, bad.stdout, bad.stderr], [1, '', "error: option '-o, --output <format>' argument 'xml' is invalid. Allowed choices are human, json, sarif, junit.\n"]);
  const both = await lint(['--cluster', 'a', '--kubeconfig', 'b', `${FIX}/WK100.pos.yaml`]);
  assert.deepEqual([both.code, both.stderr], [1, "error: option '--kubeconfig <file>' cannot be used with option '--cluster <file>'\n"]);
  const missing = await lint(['no-such.yaml']);
  assert.deepEqual([missing.code, missing.stderr], [1, 'error: no-such.yaml: no such file or directory\n']);
});

let cluster: TestCluster | undefined;
before(async () => { cluster = await startCluster(); });
after(async () => { if (cluster) { await cluster.stop(); removeDir(cluster.dataDir); } });

test('--kubeconfig: the live cluster\'s nodes, and its lack of a GMSA webhook', async () => {
  assert.ok(cluster);
  const r = await lint(['--kubeconfig', cluster.kubeconfig, '--enable', 'WK102,WK105,WK120', `${FIX}/WK102.pos.yaml`, `${FIX}/WK105.pos.yaml`, `${FIX}/WK120.pos.yaml`]);
  const lines = r.stdout.split('\n').filter((l) => !l.startsWith('  fix:'));
  assert.deepEqual(lines, [
    `${FIX}/WK102.pos.yaml:1: error WK102 DaemonSet kube-system/node-agent spec.template.spec.nodeSelector: pod template without a kubernetes.io/os nodeSelector, and nothing in it is Windows-only: the DaemonSet runs a pod on each of the Windows nodes win2019-1, win2019-2, win2022-1`,
    `${FIX}/WK102.pos.yaml:12: warning WK102 Job migrate spec.template.spec.nodeSelector: pod template without a kubernetes.io/os nodeSelector, and nothing in it is Windows-only: the Helm hook (pre-install) can be scheduled on the Windows nodes win2019-1, win2019-2, win2022-1`,
    `${FIX}/WK105.pos.yaml:1: error WK105 Deployment old-build spec.template.spec.containers[0].image: image mcr.microsoft.com/windows/servercore:ltsc2025 (Windows build 26100) matches no Windows node under process isolation (17763, 20348): The container operating system does not match the host operating system. (0xc0370101)`,
    `${FIX}/WK120.pos.yaml:1: warning WK120 Pod gmsa spec.securityContext.windowsOptions.gmsaCredentialSpecName: gmsaCredentialSpecName webapp1 is never resolved: the cluster (https://127.0.0.1:${cluster.port}) runs no GMSA admission webhook`,
    '4 findings: 2 errors, 2 warnings, 0 info',
    '',
  ]);
  assert.equal(r.code, 2);
});
