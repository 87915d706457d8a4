/**
 * The rest of what the node's services need: flanneld's start script (the
 * management interface found at start, as flannel's Windows start.ps1
 * finds it), kube-proxy's kubeconfig (a token of the kube-proxy
 * ServiceAccount, which kubeadm binds to system:node-proxier), and
 * install.ps1, which puts every file in place and registers the services
 * with nssm as PrepareNode.ps1 registers the kubelet (PowerShell running
 * the start script, logs rotated daily or at 10 MB).
 */
import type { JoinSettings } from './join-settings.js';
import { hostnameExpression, psString } from './kubelet-files.js';
import { MANAGEMENT_IP_PLACEHOLDER, MANAGEMENT_SUBNET_PLACEHOLDER } from './cni-files.js';
import {
  CNI_CONF_DIR, CONTAINERD_DIR, FLANNEL_CONF_DIR, FLANNELD_EXE, K_DIR, KUBE_PROXY_KUBECONFIG, KUBELET_CONFIG, LOG_DIR,
} from './windows-paths.js';

export const KUBE_PROXY_TOKEN_PLACEHOLDER = '__KUBE_PROXY_TOKEN__';

/** The interface of the default route: flannel's start.ps1 takes its address as the management IP. */
const MANAGEMENT_INTERFACE = [
  '$route = Get-NetRoute -DestinationPrefix \'0.0.0.0/0\' | Select-Object -First 1',
  '$ipConf = Get-NetIPAddress -InterfaceIndex $route.ifIndex -AddressFamily IPv4 | Select-Object -First 1',
  '$managementIP = $ipConf.IPAddress',
];

export function startFlanneldScript(s: JoinSettings): string {
  return [
    `# flanneld (${s.mode === 'overlay' ? 'vxlan' : 'host-gw'}) on the management interface: run by the flanneld service (install.ps1).`,
    '$ErrorActionPreference = \'Stop\'',
    `$env:NODE_NAME = ${hostnameExpression(s).includes('$(') ? `"${hostnameExpression(s)}"` : psString(hostnameExpression(s))}`,
    ...MANAGEMENT_INTERFACE,
    `& ${psString(FLANNELD_EXE)} --kube-subnet-mgr --kubeconfig-file=C:\\etc\\kubernetes\\kubelet.conf --iface=$managementIP --net-config-path=${FLANNEL_CONF_DIR}\\net-conf.json`,
    '',
  ].join('\r\n');
}

export function kubeProxyKubeconfig(server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    '    certificate-authority: C:\\etc\\kubernetes\\pki\\ca.crt',
    `    server: ${server}`,
    '  name: default',
    'contexts:',
    '- context:',
    '    cluster: default',
    '    namespace: kube-system',
    '    user: kube-proxy',
    '  name: default',
    'current-context: default',
    'users:',
    '- name: kube-proxy',
    '  user:',
    `    token: ${KUBE_PROXY_TOKEN_PLACEHOLDER}`,
    '',
  ].join('\n');
}

function service(name: string, script: string, dependsOn: string): string[] {
  return [
    `nssm install ${name} $powershell -ExecutionPolicy Bypass -NoProfile ${script}`,
    `nssm set ${name} AppStdout ${LOG_DIR}\\${name}\\${name}.out.log`,
    `nssm set ${name} AppStderr ${LOG_DIR}\\${name}\\${name}.err.log`,
    `nssm set ${name} AppRotateFiles 1`,
    `nssm set ${name} AppRotateOnline 1`,
    `nssm set ${name} AppRotateSeconds 86400`,
    `nssm set ${name} AppRotateBytes 10485760`,
    `nssm set ${name} DependOnService ${dependsOn}`,
  ];
}

export function installScript(s: JoinSettings): string {
  const flannel = s.plugin === 'flannel';
  const lines = [
    `# Installs this node's files and services for ${s.windows.release} and Kubernetes ${s.kubernetesVersion}.`,
    '# Run it elevated from this directory after Install-Containerd.ps1, with kubelet.exe, kubeadm.exe and',
    `# kube-proxy.exe in ${K_DIR}${flannel ? `, flanneld.exe in ${FLANNELD_EXE.replace(/\\flanneld\.exe$/, '')} and flannel's CNI plugins in c:/opt/cni/bin` : ''} and nssm on the PATH,`,
    '# then run the join command of `kubeadm token create --print-join-command`.',
    'Param(',
    [
      '    [parameter(Mandatory = $true, HelpMessage = "a token of kube-system/kube-proxy: kubectl -n kube-system create token kube-proxy --duration=8760h")]\r\n    [string] $KubeProxyToken',
      '    [switch] $SkipKubeProxy',
      ...(flannel ? ['    [switch] $SkipFlanneld'] : []),
    ].join(',\r\n'),
    ')',
    '$ErrorActionPreference = \'Stop\'',
    '$powershell = (Get-Command powershell).Source',
    `foreach ($dir in @('${K_DIR}', '${LOG_DIR}\\kubelet', '${LOG_DIR}\\kube-proxy'${flannel ? `, '${LOG_DIR}\\flanneld', '${FLANNEL_CONF_DIR}', '${CNI_CONF_DIR}'` : ''}, 'C:\\etc\\kubernetes\\pki', 'C:\\etc\\kubernetes\\manifests', 'C:\\var\\lib\\kubelet\\pki')) { mkdir -Force $dir | Out-Null }`,
    `Copy-Item -Force kubelet-config.yaml ${psString(KUBELET_CONFIG)}`,
    `Copy-Item -Force StartKubelet.ps1, StartKubeProxy.ps1${flannel ? ', StartFlanneld.ps1' : ''} ${psString(K_DIR)}`,
    `(Get-Content -Raw kube-proxy.conf).Replace('${KUBE_PROXY_TOKEN_PLACEHOLDER}', $KubeProxyToken) | Set-Content -NoNewline ${psString(KUBE_PROXY_KUBECONFIG)}`,
    `Copy-Item -Force containerd-config.toml ${psString(`${CONTAINERD_DIR}\\config.toml`)}`,
    'Restart-Service containerd',
  ];
  if (flannel) {
    lines.push(
      ...MANAGEMENT_INTERFACE,
      '# The management subnet: the address masked by its prefix length.',
      '$bytes = [System.Net.IPAddress]::Parse($managementIP).GetAddressBytes(); [array]::Reverse($bytes)',
      '$mask = [uint32]([math]::Pow(2, 32) - [math]::Pow(2, 32 - $ipConf.PrefixLength))',
      '$net = [BitConverter]::GetBytes([uint32]([BitConverter]::ToUInt32($bytes, 0) -band $mask)); [array]::Reverse($net)',
      '$managementSubnet = "$([System.Net.IPAddress]::new($net))/$($ipConf.PrefixLength)"',
      `Copy-Item -Force net-conf.json ${psString(`${FLANNEL_CONF_DIR}\\net-conf.json`)}`,
      `(Get-Content -Raw 10-flannel.conf).Replace('${MANAGEMENT_IP_PLACEHOLDER}', $managementIP).Replace('${MANAGEMENT_SUBNET_PLACEHOLDER}', $managementSubnet) | Set-Content -NoNewline ${psString(`${CNI_CONF_DIR}/10-flannel.conf`)}`,
      // The metadata server of cloud VMs stays reachable from pods (sig-windows-tools issue 36, flannel's start.ps1).
      'route /p add 169.254.169.254 mask 255.255.255.255 0.0.0.0',
    );
  }
  lines.push(...service('kubelet', `${K_DIR}\\StartKubelet.ps1`, 'containerd'));
  if (flannel) lines.push('if (-not $SkipFlanneld) {', ...service('flanneld', `${K_DIR}\\StartFlanneld.ps1`, 'kubelet').map((l) => `    ${l}`), '}');
  lines.push('if (-not $SkipKubeProxy) {', ...service('kube-proxy', `${K_DIR}\\StartKubeProxy.ps1`, 'kubelet').map((l) => `    ${l}`), '}');
  lines.push(
    'New-NetFirewallRule -Name kubelet -DisplayName \'kubelet\' -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort 10250',
    '',
  );
  return lines.join('\r\n');
}
