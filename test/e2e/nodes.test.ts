import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl as run, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/** The oldest and newest kubectl we support, each looking at the default cluster's nodes. */
const VERSIONS = ['1.27', '1.33'];

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const cols = (line: string) => line.trim().split(/\s{2,}/);

for (const version of VERSIONS) {
  describe(`kubectl ${version} nodes`, () => {
    const ok = async (args: string[]) => {
      const r = await run(cluster, args, { version });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };

    test('get nodes -o wide: every node Ready with its OS image, kernel and runtime', async () => {
      const lines = (await ok(['get', 'nodes', '-o', 'wide'])).trimEnd().split('\n');
      assert.deepEqual(cols(lines[0] ?? ''), ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP',
        'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
      const rows = lines.slice(1).map(cols).map(([name, status, roles, _age, ...rest]) => [name, status, roles, ...rest]);
      const linux = (name: string, ip: string, roles = '<none>') =>
        [name, 'Ready', roles, 'v1.32.0', ip, '<none>', 'Debian GNU/Linux 12 (bookworm)', '6.1.0-28-amd64', 'containerd://1.7.24'];
      assert.deepEqual(rows, [
        linux('linux-1', '172.18.0.3'),
        linux('linux-2', '172.18.0.4'),
        ['win2019-1', 'Ready', '<none>', 'v1.32.0', '172.18.0.5', '<none>', 'Windows Server 2019 Datacenter', '10.0.17763.1879', 'containerd://1.7.24'],
        ['win2019-2', 'Ready', '<none>', 'v1.32.0', '172.18.0.6', '<none>', 'Windows Server 2019 Datacenter', '10.0.17763.1879', 'containerd://1.7.24'],
        ['win2022-1', 'Ready', '<none>', 'v1.32.0', '172.18.0.7', '<none>', 'Windows Server 2022 Datacenter', '10.0.20348.2582', 'containerd://1.7.24'],
        linux('winkube-control-plane', '172.18.0.2', 'control-plane'),
      ]);
    });

    test('labels: --show-labels and -L', async () => {
      const shown = await ok(['get', 'nodes', '--show-labels', '--no-headers']);
      assert.match(shown, /^win2019-1\s.*\sbeta\.kubernetes\.io\/arch=amd64,beta\.kubernetes\.io\/os=windows,kubernetes\.io\/arch=amd64,kubernetes\.io\/hostname=win2019-1,kubernetes\.io\/os=windows,node\.kubernetes\.io\/windows-build=10\.0\.17763$/m);
      assert.match(shown, /^winkube-control-plane\s.*,node-role\.kubernetes\.io\/control-plane=$/m);
      const l = (await ok(['get', 'nodes', '-L', 'kubernetes.io/os,node.kubernetes.io/windows-build'])).trimEnd().split('\n');
      assert.deepEqual(cols(l[0] ?? '').slice(-2), ['OS', 'WINDOWS-BUILD']);
      const byName = Object.fromEntries(l.slice(1).map((x) => { const c = x.trim().split(/\s+/); return [c[0], c.slice(-2)]; }));
      assert.deepEqual(byName['linux-1'], ['v1.32.0', 'linux']);
      assert.deepEqual(byName['win2019-2'], ['windows', '10.0.17763']);
      assert.deepEqual(byName['win2022-1'], ['windows', '10.0.20348']);
      const windows = await ok(['get', 'nodes', '-l', 'kubernetes.io/os=windows', '-o', 'name']);
      assert.equal(windows, 'node/win2019-1\nnode/win2019-2\nnode/win2022-1\n');
    });

    test('describe node win2019-1: build label, Lease heartbeat, conditions, system info', async () => {
      const d = await ok(['describe', 'node', 'win2019-1']);
      assert.match(d, /^Name:\s+win2019-1$/m);
      assert.match(d, /^Roles:\s+<none>$/m);
      assert.match(d, /node\.kubernetes\.io\/windows-build=10\.0\.17763$/m);
      assert.match(d, /^Taints:\s+<none>$/m);
      assert.match(d, /^Lease:\n\s+HolderIdentity:\s+win2019-1\n\s+AcquireTime:\s+<unset>\n\s+RenewTime:\s+\w{3}, \d{2} \w{3} \d{4} [\d:]{8} \+0000$/m);
      assert.match(d, /^\s+Ready\s+True\s.*KubeletReady\s+kubelet is posting ready status$/m);
      assert.match(d, /^\s+MemoryPressure\s+False\s.*KubeletHasSufficientMemory\s+kubelet has sufficient memory available$/m);
      assert.match(d, /^\s+InternalIP:\s+172\.18\.0\.5$/m);
      assert.match(d, /^\s+Kernel Version:\s+10\.0\.17763\.1879$/m);
      assert.match(d, /^\s+OS Image:\s+Windows Server 2019 Datacenter$/m);
      assert.match(d, /^\s+Operating System:\s+windows$/m);
      assert.match(d, /^\s+Machine ID:\s+win2019-1$/m);
      assert.match(d, /^PodCIDR:\s+10\.244\.3\.0\/24$/m);
      assert.match(d, /^\s+memory:\s+15884Mi$/m);
    });

    test('control plane taint, and leases in kube-node-lease', async () => {
      assert.equal(await ok(['get', 'node', 'winkube-control-plane', '-o', 'jsonpath={.spec.taints}']),
        '[{"effect":"NoSchedule","key":"node-role.kubernetes.io/control-plane"}]');
      const leases = (await ok(['get', 'leases', '-n', 'kube-node-lease', '--no-headers'])).trimEnd().split('\n').map((x) => x.trim().split(/\s+/).slice(0, 2));
      assert.deepEqual(leases, ['linux-1', 'linux-2', 'win2019-1', 'win2019-2', 'win2022-1', 'winkube-control-plane'].map((n) => [n, n]));
      const lease = JSON.parse(await ok(['get', 'lease', '-n', 'kube-node-lease', 'win2022-1', '-o', 'json']));
      assert.equal(lease.spec.leaseDurationSeconds, 40);
      assert.match(lease.spec.renewTime, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      assert.deepEqual(lease.metadata.ownerReferences.map((o: any) => [o.kind, o.name]), [['Node', 'win2022-1']]);
    });
  });
}

describe('kube-system add-ons', () => {
  test('CoreDNS, kube-proxy (Linux and Windows HostProcess) and flannel, as kubeadm and sig-windows-tools install them', async () => {
    const r = await run(cluster, ['get', 'deploy,ds,svc', '-n', 'kube-system', '-o', 'wide', '--no-headers'], { version: '1.33' });
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout.trimEnd().split('\n').map(cols);
    const byName = Object.fromEntries(rows.map((c) => [c[0], c]));
    assert.deepEqual(Object.keys(byName).sort(), ['daemonset.apps/kube-flannel-ds', 'daemonset.apps/kube-flannel-ds-windows-amd64',
      'daemonset.apps/kube-proxy', 'daemonset.apps/kube-proxy-windows', 'deployment.apps/coredns', 'service/kube-dns']);
    assert.deepEqual(byName['service/kube-dns'].slice(1, 5), ['ClusterIP', '10.96.0.10', '<none>', '53/UDP,53/TCP,9153/TCP']);
    assert.deepEqual(byName['deployment.apps/coredns'].slice(-3), ['coredns', 'registry.k8s.io/coredns/coredns:v1.11.3', 'k8s-app=kube-dns']);
    assert.equal(byName['daemonset.apps/kube-proxy'][6], 'kubernetes.io/os=linux');
    assert.equal(byName['daemonset.apps/kube-proxy-windows'][6], 'kubernetes.io/os=windows');
    const hp = await run(cluster, ['get', 'ds', 'kube-proxy-windows', '-n', 'kube-system', '-o',
      'jsonpath={.spec.template.spec.securityContext.windowsOptions.hostProcess} {.spec.template.spec.securityContext.windowsOptions.runAsUserName} {.spec.template.spec.hostNetwork} {.spec.template.spec.containers[0].env[0].value}']);
    assert.equal(hp.stdout, 'true NT AUTHORITY\\system true flannel.4096');
  });

  test("flannel's Linux pods run: their init containers (install-cni-plugin, install-cni) complete", async () => {
    let phases = '';
    for (let i = 0; i < 100; i++) {
      const r = await run(cluster, ['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=flannel', '-o',
        'jsonpath={range .items[*]}{.status.phase} {.status.initContainerStatuses[*].state.terminated.reason}{"\\n"}{end}']);
      phases = r.stdout;
      if (phases && phases.trimEnd().split('\n').every((l) => l === 'Running Completed Completed')) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const lines = phases.trimEnd().split('\n');
    assert.ok(lines.length >= 3, phases);
    for (const l of lines) assert.equal(l, 'Running Completed Completed');
  });
});

describe('winkube up --config', () => {
  test('a cluster file sets the node pools', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
    const file = join(dir, 'cluster.yaml');
    writeFileSync(file, [
      'apiVersion: winkube.io/v1alpha1', 'kind: Cluster', 'nodePools:',
      '  - { name: cp, os: linux, role: control-plane, exactName: true }',
      '  - { name: win25, os: windows, windowsVersion: ltsc2025, count: 2, maxPods: 30, labels: { team: payments } }', '',
    ].join('\n'));
    const c = await startCluster(dir, ['--config', file]);
    try {
      const r = await run(c, ['get', 'nodes', '-L', 'team', '--no-headers', '-o', 'wide']);
      assert.equal(r.code, 0, r.stderr);
      const rows = r.stdout.trimEnd().split('\n').map(cols);
      assert.deepEqual(rows.map((x) => [x[0], x[1], x[2], x[7], x[8], x.at(-1)]), [
        ['cp', 'Ready', 'control-plane', 'Debian GNU/Linux 12 (bookworm)', '6.1.0-28-amd64', 'containerd://1.7.24'],
        ['win25-1', 'Ready', '<none>', 'Windows Server 2025 Datacenter', '10.0.26100.1742', 'payments'],
        ['win25-2', 'Ready', '<none>', 'Windows Server 2025 Datacenter', '10.0.26100.1742', 'payments'],
      ]);
    } finally {
      await c.stop();
      removeDir(dir);
    }
  });

  test('a Windows control-plane pool is refused before the server starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'winkube-test-'));
    const file = join(dir, 'cluster.yaml');
    writeFileSync(file, 'apiVersion: winkube.io/v1alpha1\nkind: Cluster\nnodePools:\n  - { name: wcp, os: windows, role: control-plane }\n');
    try {
      await assert.rejects(startCluster(dir, ['--config', file]),
        /error: node pool wcp: a Windows pool cannot have the control-plane role: the Kubernetes control plane runs on Linux only/);
    } finally {
      removeDir(dir);
    }
  });
});
