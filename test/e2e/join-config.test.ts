/**
 * `winkube join-config` against a running winkube as against any cluster:
 * the built CLI reads the cluster through its kubeconfig and writes the
 * files a Windows node joins with, holding the values kubectl reads back
 * from the same cluster; a flag the cluster contradicts stops it with the
 * contradiction named and nothing written.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

let cluster: TestCluster;
let work: string;

before(async () => {
  cluster = await startCluster();
  work = mkdtempSync(join(tmpdir(), 'winkube-joincfg-'));
});
after(async () => {
  if (cluster) { await cluster.stop(); removeDir(cluster.dataDir); }
  if (work) removeDir(work);
});

function joinConfig(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => execFile(process.execPath, [MAIN, 'join-config', '--kubeconfig', cluster.kubeconfig, ...args],
    (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })));
}

const DAEMONSET_WARNINGS = [
  'warning: the cluster runs kube-proxy on Windows nodes as the DaemonSet kube-system/kube-proxy-windows: run install.ps1 with -SkipKubeProxy, or the node runs two',
  'warning: the cluster runs flannel on Windows nodes as the DaemonSet kube-system/kube-flannel-ds-windows-amd64: run install.ps1 with -SkipFlanneld, or the node runs two',
  '',
].join('\n');

test('join-config writes the node\'s files with the service CIDR, DNS, domain, pod CIDR and mode the cluster has', async () => {
  const out = join(work, 'ok');
  const r = await joinConfig(['--node-name', 'win-joined', '--windows-version', '2019', '--out', out]);
  const names = ['kubelet-config.yaml', 'StartKubelet.ps1', 'StartKubeProxy.ps1', 'kube-proxy.conf', 'containerd-config.toml',
    'net-conf.json', '10-flannel.conf', 'StartFlanneld.ps1', 'install.ps1'];
  assert.deepEqual(r, { code: 0, stdout: names.map((n) => `wrote ${join(out, n)}\n`).join(''), stderr: DAEMONSET_WARNINGS });
  const file = (n: string) => readFileSync(join(out, n), 'utf8');

  // What kubectl reads from the same cluster.
  const dnsIP = await kubectlOk(cluster, ['-n', 'kube-system', 'get', 'svc', 'kube-dns', '-o', 'jsonpath={.spec.clusterIP}']);
  const apiIP = await kubectlOk(cluster, ['get', 'svc', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}']);
  const podCIDRs = (await kubectlOk(cluster, ['get', 'nodes', '-o', 'jsonpath={.items[*].spec.podCIDR}'])).split(' ');
  assert.deepEqual([dnsIP, apiIP], ['10.96.0.10', '10.96.0.1']);
  // The default cluster's six nodes, a /24 each of the pod CIDR the files name.
  assert.deepEqual(podCIDRs.sort(), [0, 1, 2, 3, 4, 5].map((i) => `10.244.${i}.0/24`));

  const kubelet = parseYaml(file('kubelet-config.yaml')) as Record<string, unknown>;
  assert.deepEqual([kubelet.kind, kubelet.clusterDNS, kubelet.clusterDomain, kubelet.resolvConf, kubelet.cgroupsPerQOS, kubelet.enforceNodeAllocatable, kubelet.systemReserved],
    ['KubeletConfiguration', ['10.96.0.10'], 'cluster.local', '', false, [], { memory: '2Gi' }]);
  const kubeletFlags = file('StartKubelet.ps1').split('\r\n').filter((l) => l.startsWith('    ')).map((l) => l.trim());
  assert.deepEqual(kubeletFlags.slice(4, 13), [
    '\'--hostname-override=win-joined\',',
    '\'--container-runtime-endpoint=npipe:////./pipe/containerd-containerd\',',
    '\'--pod-infra-container-image=registry.k8s.io/pause:3.10\',',
    '\'--windows-priorityclass=ABOVE_NORMAL_PRIORITY_CLASS\',',
    '\'--cgroups-per-qos=false\',',
    '\'--enforce-node-allocatable=""\',',
    '\'--resolv-conf=""\',',
    '\'--cluster-dns=10.96.0.10\',',
    '\'--cluster-domain=cluster.local\',',
  ]);
  const proxyFlags = file('StartKubeProxy.ps1').split('\r\n').filter((l) => l.startsWith('    \'--') || l.startsWith('    "--')).map((l) => l.trim());
  assert.deepEqual(proxyFlags, [
    '\'--hostname-override=win-joined\',', '\'--v=4\',', '\'--proxy-mode=kernelspace\',', '\'--kubeconfig=C:\\k\\kube-proxy.conf\',',
    '\'--network-name=flannel.4096\',', '\'--cluster-cidr=10.244.0.0/16\',', '\'--feature-gates=WinOverlay=true\',', '"--source-vip=$sourceVip"',
  ]);
  assert.deepEqual(JSON.parse(file('net-conf.json')), { Network: '10.244.0.0/16', EnableNFTables: false, Backend: { Type: 'vxlan', VNI: 4096, Port: 4789 } });
  const cni = JSON.parse(file('10-flannel.conf')) as { name: string; delegate: { type: string; AdditionalArgs: Array<{ Value: { Type: string; Settings: Record<string, unknown> } }> } };
  assert.deepEqual([cni.name, cni.delegate.type, ...cni.delegate.AdditionalArgs.map((a) => [a.Value.Type, a.Value.Settings])], ['flannel.4096', 'sdnoverlay',
    ['OutBoundNAT', { Exceptions: ['10.96.0.0/12', '10.244.0.0/16'] }],
    ['SDNROUTE', { DestinationPrefix: '10.96.0.0/12', NeedEncap: true }],
    ['ProviderAddress', { ProviderAddress: '__MANAGEMENT_IP__' }]]);
  assert.equal(file('containerd-config.toml').split('\n')[8], '  sandbox_image = "registry.k8s.io/pause:3.10"');
  const server = (parseYaml(readFileSync(cluster.kubeconfig, 'utf8')) as { clusters: Array<{ cluster: { server: string } }> }).clusters[0]!.cluster.server;
  assert.equal(file('kube-proxy.conf').split('\n')[5], `    server: ${server}`);
  assert.equal(file('install.ps1').split('\r\n')[0], '# Installs this node\'s files and services for Windows Server 2019 and Kubernetes v1.32.0.');
});

test('join-config stops on flags the cluster contradicts, naming both values, and writes nothing', async () => {
  const out = join(work, 'contradicted');
  const r = await joinConfig(['--mode', 'l2bridge', '--service-cidr', '10.0.0.0/16', '--out', out]);
  assert.deepEqual(r, {
    code: 1, stdout: '',
    stderr: [
      'error: --service-cidr 10.0.0.0/16 contradicts the cluster\'s service CIDR 10.96.0.0/12 (kube-system/kubeadm-config ClusterConfiguration networking.serviceSubnet)',
      'error: the service CIDR 10.0.0.0/16 does not hold the kubernetes Service\'s ClusterIP 10.96.0.1 (default/kubernetes Service)',
      'error: --mode l2bridge contradicts the cluster\'s network mode overlay (kube-system/kube-flannel-cfg net-conf.json Backend.Type vxlan)',
      '',
    ].join('\n'),
  });
  assert.equal(existsSync(out), false);
});
