/**
 * kube-proxy as a Windows service (the guides' flags: KubeClusterHelper.psm1
 * GetProxyArguments): the kernelspace proxier on the CNI's HNS network
 * (--network-name), the cluster CIDR, DSR when the CNI's start script would
 * turn it on or the cluster's kube-proxy ConfigMap does (WinDSR gate and
 * --enable-dsr), and on an overlay network the source VIP, which exists only
 * once the network does: flannel's is reserved through host-local from the
 * node's subnet (flannel's kube-proxy start.ps1 GetSourceVip), Calico's is
 * its Calico_ep host endpoint. The gates and DSR are the emulated nodes'
 * (kube-proxy-command.ts); the network name is the emulated HNS network's.
 */
import { hnsNetworkName } from '../node/net/hns-network.js';
import { windowsDSR, windowsKubeProxyGates } from '../node/net/kube-proxy-command.js';
import type { JoinSettings } from './join-settings.js';
import { hostnameExpression, psString } from './kubelet-files.js';
import { CNI_BIN_DIR, KUBE_PROXY_EXE, KUBE_PROXY_KUBECONFIG } from './windows-paths.js';

export function kubeProxyFlags(s: JoinSettings): string[] {
  const dsr = windowsDSR(s.plugin, s.kubeProxy);
  const gates = windowsKubeProxyGates(s.mode, dsr, s.kubeProxy);
  const gateList = Object.entries(gates).map(([k, v]) => `${k}=${v}`).join(',');
  return [
    `--hostname-override=${hostnameExpression(s)}`,
    '--v=4',
    '--proxy-mode=kernelspace',
    `--kubeconfig=${KUBE_PROXY_KUBECONFIG}`,
    `--network-name=${hnsNetworkName(s.plugin, s.mode)}`,
    `--cluster-cidr=${s.podCIDR}`,
    ...(gateList ? [`--feature-gates=${gateList}`] : []),
    ...(dsr ? ['--enable-dsr=true'] : []),
    ...(s.mode === 'overlay' ? ['--source-vip=$sourceVip'] : []),
  ];
}

/** The overlay source VIP lookup, as the CNI's own kube-proxy start script does it. */
function sourceVipLines(s: JoinSettings, network: string): string[] {
  if (s.mode !== 'overlay') return [];
  if (s.plugin === 'calico') {
    return [
      'while (-not (Get-HnsEndpoint | ? Name -EQ \'Calico_ep\')) { Start-Sleep 1 }',
      '$sourceVip = (Get-HnsEndpoint | ? Name -EQ \'Calico_ep\').IpAddress',
    ];
  }
  return [
    '# host-local reserves the source VIP from the node\'s subnet once, and finds it again on restarts.',
    'mkdir -Force C:\\sourcevip | Out-Null',
    'if (-not (Test-Path C:\\sourcevip\\sourceVip.json)) {',
    `    $subnet = (Get-HnsNetwork | ? Name -EQ ${psString(network)}).Subnets[0].AddressPrefix`,
    `    $request = '{"cniVersion": "0.3.0", "name": "${network}", "ipam": {"type": "host-local", "ranges": [[{"subnet": "' + $subnet + '"}]], "dataDir": "/var/lib/cni/networks"}}'`,
    '    $env:CNI_COMMAND = \'ADD\'; $env:CNI_CONTAINERID = \'dummy\'; $env:CNI_NETNS = \'dummy\'; $env:CNI_IFNAME = \'dummy\'',
    `    $env:CNI_PATH = ${psString(CNI_BIN_DIR)}`,
    `    $request | & ${psString(`${CNI_BIN_DIR}/host-local.exe`)} | Out-File C:\\sourcevip\\sourceVip.json`,
    '    Remove-Item env:CNI_COMMAND, env:CNI_CONTAINERID, env:CNI_NETNS, env:CNI_IFNAME, env:CNI_PATH',
    '}',
    '$sourceVip = (Get-Content C:\\sourcevip\\sourceVip.json | ConvertFrom-Json).ips[0].address.Split(\'/\')[0]',
  ];
}

export function startKubeProxyScript(s: JoinSettings): string {
  const network = hnsNetworkName(s.plugin, s.mode);
  const flags = kubeProxyFlags(s);
  return [
    `# kube-proxy ${s.kubernetesVersion} (kernelspace) on the ${network} HNS network: run by the kube-proxy service (install.ps1).`,
    '$ErrorActionPreference = \'Stop\'',
    `while (-not (Get-HnsNetwork | ? Name -EQ ${psString(network)})) { Start-Sleep 1 }`,
    ...sourceVipLines(s, network),
    // kube-proxy resyncs badly over policies a previous run left (Calico's start.ps1 clears them too).
    '$policyLists = Get-HnsPolicyList',
    'if ($policyLists) { $policyLists | Remove-HnsPolicyList }',
    '$proxyArgs = @(',
    ...flags.map((f, i) => `    ${f.includes('$') ? `"${f}"` : psString(f)}${i < flags.length - 1 ? ',' : ''}`),
    ')',
    `& ${psString(KUBE_PROXY_EXE)} @proxyArgs`,
    '',
  ].join('\r\n');
}
