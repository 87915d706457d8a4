/**
 * The network model of a node: the files flannel writes on each OS (the
 * Windows CNI config as sig-windows-tools' start.ps1 writes it with
 * PowerShell 5.1), the HNS network and endpoints, kube-proxy's command lines,
 * the cluster file's network.kubeProxy and what a client reads back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertToJsonPS51 } from '../../src/node/net/powershell-json.js';
import { flannelSubnetEnv } from '../../src/node/net/flannel-files.js';
import { nodeNetworkModel, nodeNetworkFiles } from '../../src/node/net/node-network-model.js';
import type { HNSEndpoint } from '../../src/node/net/hns-network.js';
import { windowsKubeProxyCommand } from '../../src/node/net/kube-proxy-command.js';
import { clusterNetworkFromKubeSystem } from '../../src/node/net/cluster-network-config.js';
import { parseClusterFile } from '../../src/node/cluster-file.js';
import { systemWorkloads } from '../../src/cluster/system-workloads.js';
import { HostDirs } from '../../src/node/kubelet/host-dirs.js';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';

const win = { name: 'win-1', os: 'windows' as const, podCIDR: '10.244.1.0/24', internalIP: '172.18.0.3' };
const lin = { name: 'lin-1', os: 'linux' as const, podCIDR: '10.244.0.0/24', internalIP: '172.18.0.2' };

test('PowerShell 5.1 ConvertTo-Json: nested values indented past their bracket, two spaces after the colon, CRLF', () => {
  assert.equal(convertToJsonPS51({ a: 1, b: { c: 'x' }, d: ['p', 'q'] }),
    '{\r\n    "a":  1,\r\n    "b":  {\r\n              "c":  "x"\r\n          },\r\n    "d":  [\r\n              "p",\r\n              "q"\r\n          ]\r\n}');
  assert.equal(convertToJsonPS51({ s: '<&>' }), '{\r\n    "s":  "\\u003c\\u0026\\u003e"\r\n}');
});

test('Windows flannel overlay: 10-flannel.conf with the OutBoundNAT exceptions, the service route and the provider address', () => {
  const files = nodeNetworkFiles({ node: win, network: { plugin: 'flannel', mode: 'overlay' } });
  assert.deepEqual(files.map((f) => f.path), ['C:\\etc\\cni\\net.d\\10-flannel.conf', 'C:\\etc\\kube-flannel\\net-conf.json', 'C:\\run\\flannel\\subnet.env']);
  assert.equal(files[0]!.content, [
    '{',
    '    "name":  "flannel.4096",',
    '    "cniVersion":  "0.3.0",',
    '    "type":  "flannel",',
    '    "capabilities":  {',
    '                         "portMappings":  true,',
    '                         "dns":  true',
    '                     },',
    '    "delegate":  {',
    '                     "type":  "sdnoverlay",',
    '                     "AdditionalArgs":  [',
    '                                            {',
    '                                                "Name":  "EndpointPolicy",',
    '                                                "Value":  {',
    '                                                              "Type":  "OutBoundNAT",',
    '                                                              "Settings":  {',
    '                                                                               "Exceptions":  [',
    '                                                                                                  "10.96.0.0/12",',
    '                                                                                                  "10.244.0.0/16"',
    '                                                                                              ]',
    '                                                                           }',
    '                                                          }',
    '                                            },',
    '                                            {',
    '                                                "Name":  "EndpointPolicy",',
    '                                                "Value":  {',
    '                                                              "Type":  "SDNROUTE",',
    '                                                              "Settings":  {',
    '                                                                               "DestinationPrefix":  "10.96.0.0/12",',
    '                                                                               "NeedEncap":  true',
    '                                                                           }',
    '                                                          }',
    '                                            },',
    '                                            {',
    '                                                "Name":  "EndpointPolicy",',
    '                                                "Value":  {',
    '                                                              "Type":  "ProviderAddress",',
    '                                                              "Settings":  {',
    '                                                                               "ProviderAddress":  "172.18.0.3"',
    '                                                                           }',
    '                                                          }',
    '                                            }',
    '                                        ]',
    '                 }',
    '}',
    '',
  ].join('\r\n'));
  assert.equal(files[2]!.content, 'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=false\n');
});

test('Windows flannel host-gw: sdnbridge, no provider address, no encapsulation', () => {
  const conf = JSON.parse(nodeNetworkFiles({ node: win, network: { plugin: 'flannel', mode: 'l2bridge' } })[0]!.content);
  assert.equal(conf.name, 'cbr0');
  assert.equal(conf.delegate.type, 'sdnbridge');
  assert.deepEqual(conf.delegate.AdditionalArgs.map((a: { Value: { Type: string } }) => a.Value.Type), ['OutBoundNAT', 'SDNROUTE']);
  assert.equal(conf.delegate.AdditionalArgs[1].Value.Settings.NeedEncap, false);
  // On l2bridge the management (node) subnet is excepted from OutBoundNAT too, else pod→node replies are lost.
  assert.deepEqual(conf.delegate.AdditionalArgs[0].Value.Settings.Exceptions, ['10.96.0.0/12', '10.244.0.0/16', '172.18.0.0/16']);
});

test('Linux flannel: the conflist kube-flannel copies and subnet.env with --ip-masq', () => {
  const files = nodeNetworkFiles({ node: lin, network: { plugin: 'flannel', mode: 'l2bridge', podSubnet: '10.128.0.0/9' } });
  assert.deepEqual(files.map((f) => f.path), ['/etc/cni/net.d/10-flannel.conflist', '/run/flannel/subnet.env']);
  assert.equal(JSON.parse(files[0]!.content).plugins[0].type, 'flannel');
  assert.equal(files[1]!.content, flannelSubnetEnv('10.128.0.0/9', '10.244.0.0/24', 1500, true));
  assert.equal(files[1]!.content, 'FLANNEL_NETWORK=10.128.0.0/9\nFLANNEL_SUBNET=10.244.0.1/24\nFLANNEL_MTU=1500\nFLANNEL_IPMASQ=true\n');
});

test('Windows: the HNS network, endpoints of the pod-network pods only, kube-proxy flags of the flannel start script', () => {
  const m = nodeNetworkModel({
    node: win, network: { plugin: 'flannel', mode: 'overlay' },
    pods: [{ namespace: 'default', name: 'web', uid: 'u1', ip: '10.244.1.3' }, { namespace: 'kube-system', name: 'kube-proxy-windows-x', uid: 'u2', ip: '172.18.0.3', hostNetwork: true }],
  });
  const { DrMacAddress, ...hns } = m.hns!;
  assert.match(DrMacAddress!, /^00-15-5D-[0-9A-F]{2}-[0-9A-F]{2}-[0-9A-F]{2}$/);
  assert.deepEqual(hns, {
    Name: 'flannel.4096', Type: 'Overlay', AddressPrefix: '10.244.1.0/24', GatewayAddress: '10.244.1.1', ManagementIP: '172.18.0.3',
    VSID: 4096, VxlanPort: 4789, HostEndpoint: { Name: '(source VIP)', IPAddress: '10.244.1.2' },
  });
  assert.deepEqual((m.endpoints as HNSEndpoint[]).map((e) => ({ ...e, Name: e.Name.replace(/^[0-9a-f]{64}_/, '<sandbox>_') })),
    [{ Name: '<sandbox>_flannel.4096', IPAddress: '10.244.1.3', MacAddress: '0E-2A-0A-F4-01-03', Pod: 'default/web' }]);
  assert.deepEqual(m.kubeProxy.command, [
    '$env:CONTAINER_SANDBOX_MOUNT_POINT/kube-proxy/kube-proxy.exe', '--v=6', '--hostname-override=win-1', '--feature-gates=WinOverlay=true',
    '--proxy-mode=kernelspace', '--source-vip=10.244.1.2', '--kubeconfig=$env:CONTAINER_SANDBOX_MOUNT_POINT/mounts/var/lib/kube-proxy/kubeconfig-win.conf',
  ]);
  assert.deepEqual(m.kubeProxy.env, { KUBE_NETWORK: 'flannel.4096' });
  assert.deepEqual(m.kubeProxy.featureGates, { WinDSR: false, WinOverlay: true });
  assert.equal(m.kubeProxy.dsr, false);
  assert.ok(m.notes.includes('IPv6 communication between Windows pods connected to overlay networks is not supported'));
  assert.ok(m.notes.includes('DSR off: Local Traffic Policy in non-DSR mode is not supported, and client IPs are not preserved'));
});

test('Windows kube-proxy: Calico\'s start script turns DSR on; the cluster file can enable it for flannel with the gate', () => {
  assert.deepEqual(windowsKubeProxyCommand('calico', 'overlay', 'w', 'Calico', '10.244.1.2').command.slice(1), [
    '--hostname-override=w', '--v=4', '--proxy-mode=kernelspace', '--kubeconfig=$env:CONTAINER_SANDBOX_MOUNT_POINT/var/lib/kube-proxy/kubeconfig-win.conf',
    '--enable-dsr=true', '--source-vip=10.244.1.2', '--feature-gates=WinDSR=true,WinOverlay=true',
  ]);
  assert.deepEqual(windowsKubeProxyCommand('calico', 'l2bridge', 'w', 'Calico', '10.244.1.2', { enableDSR: false }).command.slice(1), [
    '--hostname-override=w', '--v=4', '--proxy-mode=kernelspace', '--kubeconfig=$env:CONTAINER_SANDBOX_MOUNT_POINT/var/lib/kube-proxy/kubeconfig-win.conf',
  ]);
  const dsr = windowsKubeProxyCommand('flannel', 'overlay', 'w', 'flannel.4096', '10.244.1.2', { enableDSR: true, featureGates: { WinDSR: true } });
  assert.ok(dsr.command.includes('--enable-dsr=true'));
  assert.ok(dsr.command.includes('--feature-gates=WinDSR=true,WinOverlay=true'));
});

test('Linux: flannel.4096 and cni0 on vxlan, veths on cni0, kube-proxy from its config file', () => {
  const m = nodeNetworkModel({ node: lin, network: { plugin: 'flannel', mode: 'overlay', kubeProxy: { mode: 'ipvs' } }, pods: [{ namespace: 'default', name: 'a', uid: 'u', ip: '10.244.0.2' }] });
  assert.deepEqual(m.devices, [
    { name: 'flannel.4096', kind: 'vxlan', address: '10.244.0.0/32', mtu: 1450, detail: 'id 4096 dstport 4789' },
    { name: 'cni0', kind: 'bridge', address: '10.244.0.1/24', mtu: 1450 },
  ]);
  assert.match((m.endpoints[0] as { name: string }).name, /^veth[0-9a-f]{8}$/);
  assert.equal(m.kubeProxy.mode, 'ipvs');
  assert.deepEqual(m.kubeProxy.command, ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=lin-1']);
  assert.deepEqual(m.notes, []);
});

const head = 'apiVersion: winkube.io/v1alpha1\nkind: Cluster\nnodePools:\n  - { name: w, os: windows }\n';
const refused = (network: string, message: string) => assert.throws(() => parseClusterFile(`${head}network: ${network}\n`), { message });

test('cluster file network.kubeProxy: mode, enableDSR behind WinDSR, WinOverlay for overlay', () => {
  assert.deepEqual(parseClusterFile(`${head}network: { kubeProxy: { mode: ipvs, enableDSR: true, featureGates: { WinDSR: true } } }\n`)[0]!.network,
    { plugin: 'flannel', mode: 'overlay', kubeProxy: { mode: 'ipvs', enableDSR: true, featureGates: { WinDSR: true } } });
  refused('{ kubeProxy: { enableDSR: true } }', 'cluster file: network.kubeProxy: WinDSR feature gate not enabled');
  refused('{ kubeProxy: { featureGates: { WinOverlay: false } } }', 'cluster file: network.kubeProxy: WinOverlay feature gate not enabled');
  assert.equal(parseClusterFile(`${head}network: { mode: l2bridge, kubeProxy: { featureGates: { WinOverlay: false } } }\n`)[0]!.network?.mode, 'l2bridge');
  refused('{ kubeProxy: { mode: userspace } }', 'cluster file: network.kubeProxy.mode must be iptables or ipvs, not "userspace"');
  refused('{ kubeProxy: { enableDSR: "yes" } }', 'cluster file: network.kubeProxy.enableDSR must be true or false, not "yes"');
  refused('{ kubeProxy: { featureGates: { WinDSR: 1 } } }', 'cluster file: network.kubeProxy.featureGates.WinDSR must be true or false, not 1');
  refused('{ kubeProxy: { proxyMode: ipvs } }', 'cluster file: network.kubeProxy: unknown field "proxyMode"');
});

test('a client reads the cluster network back from what kube-system holds', () => {
  const objs = (network: Parameters<typeof systemWorkloads>[0]['network']) => {
    const all = systemWorkloads({ network, controlPlaneEndpoint: 'https://127.0.0.1:6443' });
    const find = (kind: string, name: string) => all.find((o) => o.kind === kind && o.metadata.name === name);
    return {
      kubeadmConfig: find('ConfigMap', 'kubeadm-config') as ConfigMap, flannelConfig: find('ConfigMap', 'kube-flannel-cfg') as ConfigMap | undefined,
      kubeProxyConfig: find('ConfigMap', 'kube-proxy') as ConfigMap, calicoNode: find('DaemonSet', 'calico-node') as DaemonSet | undefined,
    };
  };
  assert.deepEqual(clusterNetworkFromKubeSystem(objs({ plugin: 'flannel', mode: 'l2bridge', podSubnet: '10.128.0.0/9', kubeProxy: { mode: 'ipvs' } })), {
    network: { plugin: 'flannel', mode: 'l2bridge', podSubnet: '10.128.0.0/9', kubeProxy: { mode: 'ipvs', enableDSR: false } }, serviceSubnet: '10.96.0.0/12',
  });
  assert.deepEqual(clusterNetworkFromKubeSystem(objs({ plugin: 'calico', mode: 'overlay' })), {
    network: { plugin: 'calico', mode: 'overlay', podSubnet: '10.244.0.0/16', kubeProxy: { enableDSR: true } }, serviceSubnet: '10.96.0.0/12',
  });
});

test('a node directory mounted for the first time holds the node files below it', () => {
  const dirs = new HostDirs('windows', () => nodeNetworkFiles({ node: win, network: { plugin: 'flannel', mode: 'overlay' } }));
  const cni = dirs.get('c:/etc/cni');
  assert.deepEqual([...cni.names.values()], ['\\net.d', '\\net.d\\10-flannel.conf']);
  assert.equal(cni.entries.get('\\net.d\\10-flannel.conf')?.type, 'file');
  assert.equal(dirs.get('C:\\etc\\kube-proxy').entries.size, 1);
});
