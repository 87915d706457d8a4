/**
 * The network model a real node has, through the real server: `winkube
 * describe-node-network` for a Windows and a Linux node (flannel overlay by
 * default; flannel host-gw with kube-proxy in ipvs mode from a cluster file),
 * and the CNI config file as a pod mounting the node's CNI directory reads it.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { nodeNetworkFiles } from '../../src/node/net/node-network-model.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');
const WIN_IMAGE = 'mcr.microsoft.com/windows/nanoserver:ltsc2022';

let cluster: TestCluster;
let hostGw: TestCluster;
const dirs: string[] = [];

before(async () => {
  cluster = await startCluster();
  const dir = mkdtempSync(join(tmpdir(), 'winkube-netmodel-'));
  dirs.push(dir);
  const file = join(dir, 'cluster.yaml');
  writeFileSync(file, `apiVersion: winkube.io/v1alpha1
kind: Cluster
network: {plugin: flannel, mode: l2bridge, kubeProxy: {mode: ipvs}}
nodePools:
  - {name: cp, os: linux, role: control-plane, exactName: true}
  - {name: lin, os: linux, count: 1}
  - {name: win, os: windows, windowsVersion: ltsc2022, count: 1}
`);
  hostGw = await startCluster(undefined, ['--config', file]);
});
after(async () => {
  for (const c of [cluster, hostGw]) if (c) { await c.stop(); removeDir(c.dataDir); }
  for (const d of dirs) removeDir(d);
});

function describeNode(c: TestCluster, node: string): Promise<string> {
  return new Promise((resolve, reject) => execFile(process.execPath, [MAIN, 'describe-node-network', node, '--kubeconfig', c.kubeconfig],
    (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))));
}

async function nodeAddr(c: TestCluster, node: string): Promise<{ cidr: string; ip: string; net: string }> {
  const [cidr = '', ip = ''] = (await kubectlOk(c, ['get', 'node', node, '-o', 'jsonpath={.spec.podCIDR} {.status.addresses[?(@.type=="InternalIP")].address}'])).split(' ');
  return { cidr, ip, net: cidr.replace(/\.0\/24$/, '') };
}

const section = (out: string, title: string) => {
  const lines = out.split('\n');
  const i = lines.indexOf(title);
  assert.ok(i >= 0, out);
  const rest = lines.slice(i + 1);
  const end = rest.findIndex((l) => !l.startsWith(' '));
  return rest.slice(0, end < 0 ? undefined : end);
};

test('describe-node-network: a Windows node of the default cluster has flannel\'s Overlay HNS network and the flannel kube-proxy flags', async () => {
  const a = await nodeAddr(cluster, 'win2022-1');
  const out = await describeNode(cluster, 'win2022-1');
  assert.deepEqual(out.split('\n').slice(0, 5), [
    'Name:       win2022-1',
    'OS:         windows (build 10.0.20348)',
    `InternalIP: ${a.ip}`,
    `PodCIDR:    ${a.cidr}`,
    'Network:    flannel overlay (vxlan, VNI 4096, UDP port 4789)',
  ]);
  const hns = section(out, 'HNS Network:');
  assert.deepEqual(hns.filter((l) => !l.includes('DrMacAddress')), [
    '  Name:           flannel.4096',
    '  Type:           Overlay',
    `  AddressPrefix:  ${a.cidr}`,
    `  GatewayAddress: ${a.net}.1`,
    `  ManagementIP:   ${a.ip}`,
    '  VSID:           4096',
    '  VxlanPort:      4789',
    `  SourceVIP:      ${a.net}.2`,
  ]);
  assert.deepEqual(section(out, 'kube-proxy:'), [
    '  Mode:          kernelspace',
    '  DSR:           off',
    '  Feature Gates: WinDSR=false,WinOverlay=true',
    '  Env:           KUBE_NETWORK=flannel.4096',
    `  Command:       $env:CONTAINER_SANDBOX_MOUNT_POINT/kube-proxy/kube-proxy.exe --v=6 --hostname-override=win2022-1 --feature-gates=WinOverlay=true --proxy-mode=kernelspace --source-vip=${a.net}.2 --kubeconfig=$env:CONTAINER_SANDBOX_MOUNT_POINT/mounts/var/lib/kube-proxy/kubeconfig-win.conf`,
  ]);
  assert.ok(section(out, 'Windows Support:').includes('  - IPv6 communication between Windows pods connected to overlay networks is not supported'), out);
  const cni = section(out, 'CNI Files:');
  assert.equal(cni[0], '  C:\\etc\\cni\\net.d\\10-flannel.conf:');
  const [conf] = nodeNetworkFiles({ node: { name: 'win2022-1', os: 'windows', podCIDR: a.cidr, internalIP: a.ip }, network: { plugin: 'flannel', mode: 'overlay' } });
  assert.deepEqual(cni.slice(1, cni.indexOf('  C:\\etc\\kube-flannel\\net-conf.json:')), conf!.content.trimEnd().split('\r\n').map((l) => `    ${l}`));
  assert.ok(cni.includes('      "Network": "10.244.0.0/16",'), out);
});

test('a pod mounting the Windows node\'s CNI directory reads 10-flannel.conf; its endpoint is listed with the overlay MAC', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata: {name: cni-reader}
spec:
  nodeName: win2022-1
  containers:
  - {name: app, image: "${WIN_IMAGE}", command: ["ping", "-t", "localhost"], volumeMounts: [{name: cni, mountPath: 'C:\\cni'}]}
  volumes:
  - {name: cni, hostPath: {path: 'C:\\etc\\cni\\net.d'}}`);
  const ip = await eventually('cni-reader running', async () => {
    const o = JSON.parse(await kubectlOk(cluster, ['get', 'pod', 'cni-reader', '-o', 'json']));
    return o.status.phase === 'Running' ? o.status.podIP as string : undefined;
  }, 60_000);
  const a = await nodeAddr(cluster, 'win2022-1');
  assert.equal(ip, `${a.net}.3`);
  const [expected] = nodeNetworkFiles({ node: { name: 'win2022-1', os: 'windows', podCIDR: a.cidr, internalIP: a.ip }, network: { plugin: 'flannel', mode: 'overlay' } });
  assert.equal(await kubectlOk(cluster, ['exec', 'cni-reader', '--', 'cmd', '/c', 'type', 'C:\\cni\\10-flannel.conf']), expected!.content);
  const eps = section(await describeNode(cluster, 'win2022-1'), 'Endpoints:');
  const mac = ['0E', '2A', ...ip.split('.').map((o) => Number(o).toString(16).toUpperCase().padStart(2, '0'))].join('-');
  assert.equal(eps[0], '  POD                  IP           MAC                 NAME');
  assert.match(eps.find((l) => l.includes('default/cni-reader')) ?? '', new RegExp(`^  default/cni-reader   ${ip.replace(/\./g, '\\.')}\\s+${mac}   [0-9a-f]{64}_flannel\\.4096$`));
});

test('describe-node-network: a Linux node of the default cluster has flannel.4096 and cni0, kube-proxy in iptables mode', async () => {
  const a = await nodeAddr(cluster, 'linux-1');
  const out = await describeNode(cluster, 'linux-1');
  assert.deepEqual(section(out, 'Devices:'), [
    '  NAME           KIND     ADDRESS         MTU    DETAIL',
    `  flannel.4096   vxlan    ${a.net}.0/32   1450   id 4096 dstport 4789`,
    `  cni0           bridge   ${a.net}.1/24   1450`,
  ]);
  assert.deepEqual(section(out, 'kube-proxy:'), [
    '  Mode:          iptables',
    '  Feature Gates: <none>',
    '  Command:       /usr/local/bin/kube-proxy --config=/var/lib/kube-proxy/config.conf --hostname-override=linux-1',
  ]);
  assert.ok(!out.includes('Windows Support:'));
});

test('a flannel host-gw cluster file: the Windows node\'s L2Bridge cbr0 with its bridge endpoint, the Linux kube-proxy in ipvs mode', async () => {
  const w = await nodeAddr(hostGw, 'win-1');
  const win = await describeNode(hostGw, 'win-1');
  assert.equal(win.split('\n')[4], 'Network:    flannel l2bridge (host-gw)');
  assert.deepEqual(section(win, 'HNS Network:'), [
    '  Name:           cbr0',
    '  Type:           L2Bridge',
    `  AddressPrefix:  ${w.cidr}`,
    `  GatewayAddress: ${w.net}.1`,
    `  ManagementIP:   ${w.ip}`,
    `  HostEndpoint:   cbr0_ep ${w.net}.2`,
  ]);
  assert.ok(section(win, 'kube-proxy:').includes('  Command:       $env:CONTAINER_SANDBOX_MOUNT_POINT/kube-proxy/kube-proxy.exe --v=6 --hostname-override=win-1 --proxy-mode=kernelspace --kubeconfig=$env:CONTAINER_SANDBOX_MOUNT_POINT/mounts/var/lib/kube-proxy/kubeconfig-win.conf'), win);
  const lin = await describeNode(hostGw, 'lin-1');
  assert.equal(section(lin, 'kube-proxy:')[0], '  Mode:          ipvs');
  assert.deepEqual(section(lin, 'CNI Files:').slice(-5), [
    '  /run/flannel/subnet.env:',
    '    FLANNEL_NETWORK=10.244.0.0/16',
    `    FLANNEL_SUBNET=${(await nodeAddr(hostGw, 'lin-1')).net}.1/24`,
    '    FLANNEL_MTU=1500',
    '    FLANNEL_IPMASQ=true',
  ]);
});
