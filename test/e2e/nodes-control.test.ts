import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, kubectl, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { callControl, targetFromKubeconfig } from '../../src/node/control/client.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

/** A small cluster whose kubelets use a 4 s lease (renewed every second), so stopping shows quickly. */
const CLUSTER_FILE = `apiVersion: winkube.io/v1alpha1
kind: Cluster
nodePools:
  - { name: cp, os: linux, role: control-plane, exactName: true, nodeLeaseDurationSeconds: 4 }
  - { name: lin, os: linux, count: 1, nodeLeaseDurationSeconds: 4 }
  - { name: win2019, os: windows, windowsVersion: ltsc2019, count: 2, nodeLeaseDurationSeconds: 4, labels: { team: a } }
`;

let cluster: TestCluster;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
  writeFileSync(join(dir, 'cluster.yaml'), CLUSTER_FILE);
  cluster = await startCluster(dir, ['--config', join(dir, 'cluster.yaml')]);
});
after(async () => { await cluster.stop(); removeDir(dir); });

interface Run { code: number; stdout: string; stderr: string }

function winkube(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, 'node', ...args, '--data-dir', cluster.dataDir], { env: { PATH: process.env.PATH ?? '' } },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

async function ok(args: string[]): Promise<string> {
  const r = await kubectl(cluster, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const renewTime = async (node: string) => ok(['get', 'lease', '-n', 'kube-node-lease', node, '-o', 'jsonpath={.spec.renewTime}']);
const bootID = async (node: string) => ok(['get', 'node', node, '-o', 'jsonpath={.status.nodeInfo.bootID}']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('winkube node add|remove|stop|start', () => {
  test('add --pool: new nodes named after the pool, registered Ready with its labels and a Lease', async () => {
    const r = await winkube(['add', '--pool', 'win2019', '--count', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'node/win2019-3 added\nnode/win2019-4 added\n');
    const rows = (await ok(['get', 'nodes', '-l', 'team=a', '-L', 'node.kubernetes.io/windows-build', '--no-headers']))
      .trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows.map((c) => [c[0], c[1], c.at(-1)]), [
      ['win2019-1', 'Ready', '10.0.17763'], ['win2019-2', 'Ready', '10.0.17763'],
      ['win2019-3', 'Ready', '10.0.17763'], ['win2019-4', 'Ready', '10.0.17763'],
    ]);
    assert.equal(await ok(['get', 'lease', '-n', 'kube-node-lease', 'win2019-4', '-o', 'jsonpath={.spec.holderIdentity} {.spec.leaseDurationSeconds}']), 'win2019-4 4');
    // The next pod CIDR after the configured nodes' 10.244.0-3.
    assert.equal(await ok(['get', 'node', 'win2019-3', '-o', 'jsonpath={.spec.podCIDR}']), '10.244.4.0/24');
  });

  test('add NAME with explicit fields: a Docker (Mirantis) Windows 2022 node', async () => {
    const r = await winkube(['add', 'mcr-1', '--os', 'windows', '--windows-version', 'ltsc2022', '--container-runtime', 'docker',
      '--cpu', '8', '--label', 'runtime=mcr', '--taint', 'runtime=docker:NoSchedule']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'node/mcr-1 added\n');
    assert.equal(await ok(['get', 'node', 'mcr-1', '-o', 'jsonpath={.status.nodeInfo.containerRuntimeVersion} {.status.nodeInfo.osImage} {.status.capacity.cpu} {.metadata.labels.runtime}']),
      'docker://20.10.9 Windows Server 2022 Datacenter 8 mcr');
    assert.equal(await ok(['get', 'node', 'mcr-1', '-o', 'jsonpath={.spec.taints}']), '[{"effect":"NoSchedule","key":"runtime","value":"docker"}]');
  });

  test('add errors: an unknown pool, a field the kubelet refuses, a name taken', async () => {
    let r = await winkube(['add', '--pool', 'gpu']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error from server (BadRequest): node pool "gpu" not found (pools: cp, lin, win2019)\n');
    r = await winkube(['add', 'w9', '--os', 'windows', '--windows-priority-class', 'TURBO']);
    assert.equal(r.stderr, 'Error from server (BadRequest): node pool w9: windowsPriorityClass: unknown priority class TURBO, valid ones are available at https://docs.microsoft.com/en-us/windows/win32/procthread/scheduling-priorities\n');
    r = await winkube(['add', 'lin-1', '--os', 'linux']);
    assert.equal(r.stderr, 'Error from server (AlreadyExists): nodes "lin-1" already exists\n');
  });

  test('stop: the Lease is no longer renewed and the node stays; start: a new boot, renewals resume', async () => {
    const first = await renewTime('win2019-1');
    await eventually('a renewal', async () => ((await renewTime('win2019-1')) !== first ? true : undefined));
    assert.equal(await bootID('win2019-1'), '1');
    const linuxBoot = await bootID('lin-1');

    const r = await winkube(['stop', 'win2019-1', 'lin-1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'node/win2019-1 stopped\nnode/lin-1 stopped\n');
    await sleep(1500); // a renewal already in flight lands
    const frozen = await renewTime('win2019-1');
    await sleep(2500); // more than two renew intervals
    assert.equal(await renewTime('win2019-1'), frozen, 'a stopped node renewed its lease');
    assert.equal((await ok(['get', 'node', 'win2019-1', '-o', 'name'])), 'node/win2019-1\n');
    const list = await winkube(['list']);
    assert.match(list.stdout, /^win2019-1\s+win2019\s+windows\s+Stopped\s+1$/m);
    assert.match(list.stdout, /^win2019-2\s+win2019\s+windows\s+Running\s+1$/m);

    const s = await winkube(['start', 'win2019-1', 'lin-1']);
    assert.equal(s.code, 0, s.stderr);
    assert.equal(s.stdout, 'node/win2019-1 started\nnode/lin-1 started\n');
    await eventually('renewals again', async () => ((await renewTime('win2019-1')) > frozen ? true : undefined));
    // Windows counts boots (BootId); Linux has a new random boot_id.
    assert.equal(await bootID('win2019-1'), '2');
    const newLinuxBoot = await bootID('lin-1');
    assert.notEqual(newLinuxBoot, linuxBoot);
    assert.match(newLinuxBoot, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(await ok(['get', 'node', 'win2019-1', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']), 'True');
    // The kubelet's events: started twice, and the reboot it noticed from the boot ID.
    const events = await eventually('the Rebooted event and the second Starting', async () => {
      const d = await ok(['describe', 'node', 'win2019-1']);
      return /Rebooted/.test(d) && /Starting\s+\S+ \(x2 over/.test(d) ? d : undefined;
    });
    assert.match(events, /^\s+Warning\s+Rebooted\s+\S+\s+kubelet\s+Node win2019-1 has been rebooted, boot id: 2$/m);
    assert.match(events, /^\s+Normal\s+Starting\s+\S+ \(x2 over \S+\)\s+kubelet\s+Starting kubelet\.$/m);
    assert.match(events, /^\s+Normal\s+NodeHasSufficientMemory\s+\S+\s+kubelet\s+Node win2019-1 status is now: NodeHasSufficientMemory$/m);
    assert.doesNotMatch(events, /NodeAllocatableEnforced/, 'the Windows kubelet does not enforce node allocatable');
    assert.match(await ok(['describe', 'node', 'lin-1']), /^\s+Normal\s+NodeAllocatableEnforced\s+.*kubelet\s+Updated Node Allocatable limit across pods$/m);
  });

  test('remove: the Node and its Lease are deleted', async () => {
    const r = await winkube(['remove', 'win2019-4']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'node/win2019-4 removed\n');
    const get = await kubectl(cluster, ['get', 'node', 'win2019-4']);
    assert.equal(get.code, 1);
    assert.equal(get.stderr, 'Error from server (NotFound): nodes "win2019-4" not found\n');
    const lease = await kubectl(cluster, ['get', 'lease', '-n', 'kube-node-lease', 'win2019-4']);
    assert.equal(lease.stderr, 'Error from server (NotFound): leases.coordination.k8s.io "win2019-4" not found\n');
    // The freed name is the next one of the pool again.
    const again = await winkube(['add', '--pool', 'win2019']);
    assert.equal(again.stdout, 'node/win2019-4 added\n');
  });

  test('unknown nodes: kubectl-style errors, exit code 1, other names still handled', async () => {
    const r = await winkube(['stop', 'nope', 'lin-1']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error from server (NotFound): nodes "nope" not found\n');
    assert.equal(r.stdout, 'node/lin-1 stopped\n');
    assert.equal((await winkube(['start', 'lin-1'])).stdout, 'node/lin-1 started\n');
    const rm = await winkube(['remove', 'nope']);
    assert.equal(rm.stderr, 'Error from server (NotFound): nodes "nope" not found\n');
  });

  test('only cluster admins may change machines', async () => {
    const token = (await ok(['create', 'token', 'default', '-n', 'default'])).trim();
    const admin = targetFromKubeconfig(cluster.kubeconfig);
    const stop = () => callControl({ server: admin.server, ca: admin.ca, token }, 'POST', '/winkube/v1/nodes/lin-1/stop');
    // RBAC first: the path is granted to no one but the admins.
    const r = await stop();
    assert.equal(r.status, 403);
    assert.equal(r.body.message, 'forbidden: User "system:serviceaccount:default:default" cannot post path "/winkube/v1/nodes/lin-1/stop"');
    const anon = await callControl({ server: admin.server, ca: admin.ca }, 'GET', '/winkube/v1/nodes');
    assert.equal(anon.status, 403);
    assert.equal(anon.body.message, 'forbidden: User "system:anonymous" cannot get path "/winkube/v1/nodes"');
    // Granted the path, the account still is no member of system:masters.
    await ok(['create', 'clusterrole', 'machines', '--verb=post', '--non-resource-url=/winkube/*']);
    await ok(['create', 'clusterrolebinding', 'machines', '--clusterrole=machines', '--serviceaccount=default:default']);
    const granted = await stop();
    assert.equal(granted.status, 403);
    assert.equal(granted.body.message, 'User "system:serviceaccount:default:default" cannot stop winkube nodes: only members of system:masters can');
  });

  test('a restarted server keeps the machines as they were left', async () => {
    assert.equal((await winkube(['stop', 'win2019-2'])).code, 0);
    await cluster.stop();
    cluster = await startCluster(dir, ['--config', join(dir, 'cluster.yaml')]);
    const list = (await winkube(['list'])).stdout.trimEnd().split('\n').map((l) => l.trim().split(/\s+/).slice(0, 4));
    assert.deepEqual(list, [
      ['NAME', 'POOL', 'OS', 'STATE'],
      ['cp', 'cp', 'linux', 'Running'],
      ['lin-1', 'lin', 'linux', 'Running'],
      ['mcr-1', 'mcr-1', 'windows', 'Running'],
      ['win2019-1', 'win2019', 'windows', 'Running'],
      ['win2019-2', 'win2019', 'windows', 'Stopped'],
      ['win2019-3', 'win2019', 'windows', 'Running'],
      ['win2019-4', 'win2019', 'windows', 'Running'],
    ]);
    assert.equal(await ok(['get', 'node', 'win2019-3', '-o', 'jsonpath={.spec.podCIDR} {.status.nodeInfo.bootID}']), '10.244.4.0/24 2');
  });

  test('winkube agent: nodes of a separate process register over HTTPS, heartbeat, and stop when it exits', async () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(file, 'apiVersion: winkube.io/v1alpha1\nkind: Cluster\nnodePools:\n  - { name: remote, os: windows, windowsVersion: ltsc2025, count: 2, nodeLeaseDurationSeconds: 4 }\n');
    const agent = spawn(process.execPath, [MAIN, 'agent', '--data-dir', cluster.dataDir, '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    agent.stdout!.on('data', (d) => { out += d; });
    agent.stderr!.on('data', (d) => { out += d; });
    const exited = new Promise((r) => agent.once('exit', r));
    try {
      await eventually('the agent', async () => (out.includes('winkube agent:') ? true : undefined), 20_000);
      assert.match(out, /^winkube agent: 2 nodes registered with https:\/\/127\.0\.0\.1:\d+: remote-1, remote-2$/m);
      const rows = (await ok(['get', 'nodes', 'remote-1', 'remote-2', '-o', 'custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status,BUILD:.metadata.labels.node\\.kubernetes\\.io/windows-build,CIDR:.spec.podCIDR', '--no-headers']))
        .trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
      // The lowest /24s that no other node of the cluster holds.
      const held = new Set((await ok(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.podCIDR}{"\\n"}{end}']))
        .trimEnd().split('\n').map((l) => l.split(' ')).filter(([n = '']) => !n.startsWith('remote-')).map(([, c]) => c));
      const free = Array.from({ length: 256 }, (_, i) => `10.244.${i}.0/24`).filter((c) => !held.has(c));
      assert.deepEqual(rows, [['remote-1', 'True', '10.0.26100', free[0]], ['remote-2', 'True', '10.0.26100', free[1]]]);
      // Each machine writes as its kubelet (field manager "kubelet") and records its node events on the server.
      assert.match(await ok(['get', 'node', 'remote-1', '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields[*].manager}']), /^kubelet( kubelet)*$/);
      await eventually('the agent\'s Starting event', async () => ((await ok(['get', 'events', '-A', '--field-selector', 'involvedObject.name=remote-1',
        '-o', 'jsonpath={.items[*].reason}'])).split(' ').includes('Starting') ? true : undefined));
      // Each machine obtained its own client certificate through the certificates API (the kubelet's TLS bootstrap),
      // auto-approved because the agent's credentials may create certificatesigningrequests/nodeclient.
      const csrs = (await ok(['get', 'csr', '-o', 'jsonpath={range .items[*]}{.spec.signerName}|{.spec.username}|{.spec.usages}|{.status.conditions[0].reason}|{.status.certificate}{"\\n"}{end}']))
        .trimEnd().split('\n').map((l) => l.split('|'));
      assert.deepEqual(csrs.map((c) => c.slice(0, 4)), [
        ['kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes-admin', '["digital signature","client auth"]', 'AutoApproved'],
        ['kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes-admin', '["digital signature","client auth"]', 'AutoApproved'],
      ]);
      const subjects = csrs.map((c) => new X509Certificate(Buffer.from(c[4] ?? '', 'base64')).subject.replace(/\n/g, ',')).sort();
      assert.deepEqual(subjects, ['O=system:nodes,CN=system:node:remote-1', 'O=system:nodes,CN=system:node:remote-2']);
      const first = await renewTime('remote-1');
      await eventually('a renewal by the agent', async () => ((await renewTime('remote-1')) > first ? true : undefined));
    } finally {
      agent.kill('SIGTERM');
      await exited;
    }
    await sleep(1500);
    const frozen = await renewTime('remote-1');
    await sleep(2500);
    assert.equal(await renewTime('remote-1'), frozen, 'the lease of an agent that exited was renewed');
  });
});
