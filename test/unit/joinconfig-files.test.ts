/**
 * join-config's files, each against its whole expected text: the kubelet's
 * configuration and flags, kube-proxy's start script per CNI and mode,
 * flannel's net-conf.json and 10-flannel.conf with their ExceptionList,
 * containerd's config.toml, kube-proxy's kubeconfig and install.ps1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lookupWindowsVersion } from '../../src/os/windows-versions.js';
import { DEFAULT_KUBELET_OPTIONS, kubeletConfigYaml, parseReservation, startKubeletScript, windowsNodeConfig } from '../../src/joinconfig/kubelet-files.js';
import { startKubeProxyScript } from '../../src/joinconfig/kube-proxy-files.js';
import { flannelCNIConfJson, flannelNetConfJson } from '../../src/joinconfig/cni-files.js';
import { installScript, kubeProxyKubeconfig, startFlanneldScript } from '../../src/joinconfig/service-files.js';
import { containerdConfigToml } from '../../src/joinconfig/containerd-config.js';
import { joinConfig } from '../../src/joinconfig/join-config.js';
import type { JoinSettings } from '../../src/joinconfig/join-settings.js';

const flannel: JoinSettings = {
  windows: lookupWindowsVersion('ltsc2022')!, plugin: 'flannel', mode: 'overlay', runtime: 'containerd', kubernetesVersion: 'v1.32.3',
  serviceCIDR: '10.96.0.0/12', podCIDR: '10.244.0.0/16', dnsIP: '10.96.0.10', clusterDomain: 'cluster.local', kubeProxy: {},
  sandboxImage: 'registry.k8s.io/pause:3.10', nodeName: 'win-a',
};
const { nodeName: _unnamed, ...unnamed } = flannel;
const calico: JoinSettings = { ...unnamed, windows: lookupWindowsVersion('ltsc2019')!, plugin: 'calico' };

const KUBELET_CONFIG = [
  "apiVersion: kubelet.config.k8s.io/v1beta1",
  "kind: KubeletConfiguration",
  "enableServer: true",
  "staticPodPath: C:\\etc\\kubernetes\\manifests",
  "podLogsDir: C:\\var\\log\\pods",
  "syncFrequency: 1m0s",
  "fileCheckFrequency: 20s",
  "httpCheckFrequency: 20s",
  "address: 0.0.0.0",
  "port: 10250",
  "rotateCertificates: true",
  "authentication:",
  "  x509:",
  "    clientCAFile: C:\\etc\\kubernetes\\pki\\ca.crt",
  "  webhook:",
  "    enabled: true",
  "    cacheTTL: 2m0s",
  "  anonymous:",
  "    enabled: false",
  "authorization:",
  "  mode: Webhook",
  "  webhook:",
  "    cacheAuthorizedTTL: 5m0s",
  "    cacheUnauthorizedTTL: 30s",
  "registryPullQPS: 5",
  "registryBurst: 10",
  "eventRecordQPS: 50",
  "eventBurst: 100",
  "enableDebuggingHandlers: true",
  "healthzPort: 10248",
  "healthzBindAddress: 127.0.0.1",
  "oomScoreAdj: -999",
  "clusterDomain: cluster.local",
  "clusterDNS:",
  "  - 10.96.0.10",
  "streamingConnectionIdleTimeout: 4h0m0s",
  "nodeStatusUpdateFrequency: 10s",
  "nodeStatusReportFrequency: 5m0s",
  "nodeLeaseDurationSeconds: 40",
  "imageMinimumGCAge: 2m0s",
  "imageMaximumGCAge: 0s",
  "imageGCHighThresholdPercent: 85",
  "imageGCLowThresholdPercent: 80",
  "volumeStatsAggPeriod: 1m0s",
  "cgroupsPerQOS: false",
  "cgroupDriver: systemd",
  "cpuManagerPolicy: none",
  "cpuManagerReconcilePeriod: 10s",
  "memoryManagerPolicy: None",
  "topologyManagerPolicy: none",
  "topologyManagerScope: container",
  "runtimeRequestTimeout: 2m0s",
  "hairpinMode: promiscuous-bridge",
  "maxPods: 110",
  "podPidsLimit: -1",
  "resolvConf: \"\"",
  "cpuCFSQuota: true",
  "cpuCFSQuotaPeriod: 100ms",
  "nodeStatusMaxImages: 50",
  "maxOpenFiles: 1000000",
  "contentType: application/vnd.kubernetes.protobuf",
  "kubeAPIQPS: 50",
  "kubeAPIBurst: 100",
  "serializeImagePulls: true",
  "evictionHard:",
  "  memory.available: 500Mi",
  "  nodefs.available: 10%",
  "evictionPressureTransitionPeriod: 5m0s",
  "enableControllerAttachDetach: true",
  "makeIPTablesUtilChains: true",
  "iptablesMasqueradeBit: 14",
  "iptablesDropBit: 15",
  "failSwapOn: true",
  "memorySwap: {}",
  "containerLogMaxSize: 10Mi",
  "containerLogMaxFiles: 5",
  "containerLogMaxWorkers: 1",
  "containerLogMonitorInterval: 10s",
  "configMapAndSecretChangeDetectionStrategy: Watch",
  "systemReserved:",
  "  memory: 2Gi",
  "volumePluginDir: C:\\usr\\libexec\\kubernetes\\kubelet-plugins\\volume\\exec\\",
  "logging:",
  "  format: text",
  "  flushFrequency: 5s",
  "  verbosity: 0",
  "  options:",
  "    text:",
  "      infoBufferSize: \"0\"",
  "    json:",
  "      infoBufferSize: \"0\"",
  "enableSystemLogHandler: true",
  "enableSystemLogQuery: false",
  "shutdownGracePeriod: 0s",
  "shutdownGracePeriodCriticalPods: 0s",
  "enableProfilingHandler: true",
  "enableDebugFlagsHandler: true",
  "seccompDefault: false",
  "memoryThrottlingFactor: 0.9",
  "registerNode: true",
  "localStorageCapacityIsolation: true",
  "containerRuntimeEndpoint: npipe:////./pipe/containerd-containerd",
  "failCgroupV1: false",
  "enforceNodeAllocatable: []",
  "",
].join("\n");
const START_KUBELET = [
  "# kubelet v1.32.3 for Windows Server 2019: run by the kubelet service (install.ps1).",
  "$ErrorActionPreference = 'Stop'",
  "$kubeletArgs = @(",
  "    '--config=C:\\k\\kubelet-config.yaml',",
  "    '--bootstrap-kubeconfig=C:\\etc\\kubernetes\\bootstrap-kubelet.conf',",
  "    '--kubeconfig=C:\\etc\\kubernetes\\kubelet.conf',",
  "    '--cert-dir=C:\\var\\lib\\kubelet\\pki',",
  "    \"--hostname-override=$((hostname).ToLower())\",",
  "    '--container-runtime-endpoint=npipe:////./pipe/containerd-containerd',",
  "    '--pod-infra-container-image=registry.k8s.io/pause:3.10',",
  "    '--windows-priorityclass=HIGH_PRIORITY_CLASS',",
  "    '--cgroups-per-qos=false',",
  "    '--enforce-node-allocatable=\"\"',",
  "    '--resolv-conf=\"\"',",
  "    '--cluster-dns=10.96.0.10',",
  "    '--cluster-domain=cluster.local',",
  "    '--system-reserved=cpu=500m,memory=2Gi',",
  "    '--kube-reserved=memory=500Mi'",
  ")",
  "& 'C:\\k\\kubelet.exe' @kubeletArgs",
  "",
].join("\r\n");
const PROXY_FLANNEL_OVERLAY = [
  "# kube-proxy v1.32.3 (kernelspace) on the flannel.4096 HNS network: run by the kube-proxy service (install.ps1).",
  "$ErrorActionPreference = 'Stop'",
  "while (-not (Get-HnsNetwork | ? Name -EQ 'flannel.4096')) { Start-Sleep 1 }",
  "# host-local reserves the source VIP from the node's subnet once, and finds it again on restarts.",
  "mkdir -Force C:\\sourcevip | Out-Null",
  "if (-not (Test-Path C:\\sourcevip\\sourceVip.json)) {",
  "    $subnet = (Get-HnsNetwork | ? Name -EQ 'flannel.4096').Subnets[0].AddressPrefix",
  "    $request = '{\"cniVersion\": \"0.3.0\", \"name\": \"flannel.4096\", \"ipam\": {\"type\": \"host-local\", \"ranges\": [[{\"subnet\": \"' + $subnet + '\"}]], \"dataDir\": \"/var/lib/cni/networks\"}}'",
  "    $env:CNI_COMMAND = 'ADD'; $env:CNI_CONTAINERID = 'dummy'; $env:CNI_NETNS = 'dummy'; $env:CNI_IFNAME = 'dummy'",
  "    $env:CNI_PATH = 'c:/opt/cni/bin'",
  "    $request | & 'c:/opt/cni/bin/host-local.exe' | Out-File C:\\sourcevip\\sourceVip.json",
  "    Remove-Item env:CNI_COMMAND, env:CNI_CONTAINERID, env:CNI_NETNS, env:CNI_IFNAME, env:CNI_PATH",
  "}",
  "$sourceVip = (Get-Content C:\\sourcevip\\sourceVip.json | ConvertFrom-Json).ips[0].address.Split('/')[0]",
  "$policyLists = Get-HnsPolicyList",
  "if ($policyLists) { $policyLists | Remove-HnsPolicyList }",
  "$proxyArgs = @(",
  "    '--hostname-override=win-a',",
  "    '--v=4',",
  "    '--proxy-mode=kernelspace',",
  "    '--kubeconfig=C:\\k\\kube-proxy.conf',",
  "    '--network-name=flannel.4096',",
  "    '--cluster-cidr=10.244.0.0/16',",
  "    '--feature-gates=WinOverlay=true',",
  "    \"--source-vip=$sourceVip\"",
  ")",
  "& 'C:\\k\\kube-proxy.exe' @proxyArgs",
  "",
].join("\r\n");
const PROXY_CALICO_OVERLAY = [
  "# kube-proxy v1.32.3 (kernelspace) on the Calico HNS network: run by the kube-proxy service (install.ps1).",
  "$ErrorActionPreference = 'Stop'",
  "while (-not (Get-HnsNetwork | ? Name -EQ 'Calico')) { Start-Sleep 1 }",
  "while (-not (Get-HnsEndpoint | ? Name -EQ 'Calico_ep')) { Start-Sleep 1 }",
  "$sourceVip = (Get-HnsEndpoint | ? Name -EQ 'Calico_ep').IpAddress",
  "$policyLists = Get-HnsPolicyList",
  "if ($policyLists) { $policyLists | Remove-HnsPolicyList }",
  "$proxyArgs = @(",
  "    \"--hostname-override=$((hostname).ToLower())\",",
  "    '--v=4',",
  "    '--proxy-mode=kernelspace',",
  "    '--kubeconfig=C:\\k\\kube-proxy.conf',",
  "    '--network-name=Calico',",
  "    '--cluster-cidr=10.244.0.0/16',",
  "    '--feature-gates=WinDSR=true,WinOverlay=true',",
  "    '--enable-dsr=true',",
  "    \"--source-vip=$sourceVip\"",
  ")",
  "& 'C:\\k\\kube-proxy.exe' @proxyArgs",
  "",
].join("\r\n");
const PROXY_FLANNEL_L2BRIDGE_DSR = [
  "# kube-proxy v1.32.3 (kernelspace) on the cbr0 HNS network: run by the kube-proxy service (install.ps1).",
  "$ErrorActionPreference = 'Stop'",
  "while (-not (Get-HnsNetwork | ? Name -EQ 'cbr0')) { Start-Sleep 1 }",
  "$policyLists = Get-HnsPolicyList",
  "if ($policyLists) { $policyLists | Remove-HnsPolicyList }",
  "$proxyArgs = @(",
  "    '--hostname-override=win-a',",
  "    '--v=4',",
  "    '--proxy-mode=kernelspace',",
  "    '--kubeconfig=C:\\k\\kube-proxy.conf',",
  "    '--network-name=cbr0',",
  "    '--cluster-cidr=10.244.0.0/16',",
  "    '--feature-gates=WinDSR=true',",
  "    '--enable-dsr=true'",
  ")",
  "& 'C:\\k\\kube-proxy.exe' @proxyArgs",
  "",
].join("\r\n");
const CNI_OVERLAY = [
  "{",
  "    \"name\":  \"flannel.4096\",",
  "    \"cniVersion\":  \"0.3.0\",",
  "    \"type\":  \"flannel\",",
  "    \"capabilities\":  {",
  "                         \"portMappings\":  true,",
  "                         \"dns\":  true",
  "                     },",
  "    \"delegate\":  {",
  "                     \"type\":  \"sdnoverlay\",",
  "                     \"AdditionalArgs\":  [",
  "                                            {",
  "                                                \"Name\":  \"EndpointPolicy\",",
  "                                                \"Value\":  {",
  "                                                              \"Type\":  \"OutBoundNAT\",",
  "                                                              \"Settings\":  {",
  "                                                                               \"Exceptions\":  [",
  "                                                                                                  \"10.96.0.0/12\",",
  "                                                                                                  \"10.244.0.0/16\"",
  "                                                                                              ]",
  "                                                                           }",
  "                                                          }",
  "                                            },",
  "                                            {",
  "                                                \"Name\":  \"EndpointPolicy\",",
  "                                                \"Value\":  {",
  "                                                              \"Type\":  \"SDNROUTE\",",
  "                                                              \"Settings\":  {",
  "                                                                               \"DestinationPrefix\":  \"10.96.0.0/12\",",
  "                                                                               \"NeedEncap\":  true",
  "                                                                           }",
  "                                                          }",
  "                                            },",
  "                                            {",
  "                                                \"Name\":  \"EndpointPolicy\",",
  "                                                \"Value\":  {",
  "                                                              \"Type\":  \"ProviderAddress\",",
  "                                                              \"Settings\":  {",
  "                                                                               \"ProviderAddress\":  \"__MANAGEMENT_IP__\"",
  "                                                                           }",
  "                                                          }",
  "                                            }",
  "                                        ]",
  "                 }",
  "}",
  "",
].join("\r\n");
const CNI_L2BRIDGE = [
  "{",
  "    \"name\":  \"cbr0\",",
  "    \"cniVersion\":  \"0.3.0\",",
  "    \"type\":  \"flannel\",",
  "    \"capabilities\":  {",
  "                         \"portMappings\":  true,",
  "                         \"dns\":  true",
  "                     },",
  "    \"delegate\":  {",
  "                     \"type\":  \"sdnbridge\",",
  "                     \"AdditionalArgs\":  [",
  "                                            {",
  "                                                \"Name\":  \"EndpointPolicy\",",
  "                                                \"Value\":  {",
  "                                                              \"Type\":  \"OutBoundNAT\",",
  "                                                              \"Settings\":  {",
  "                                                                               \"Exceptions\":  [",
  "                                                                                                  \"10.96.0.0/12\",",
  "                                                                                                  \"10.244.0.0/16\",",
  "                                                                                                  \"__MANAGEMENT_SUBNET__\"",
  "                                                                                              ]",
  "                                                                           }",
  "                                                          }",
  "                                            },",
  "                                            {",
  "                                                \"Name\":  \"EndpointPolicy\",",
  "                                                \"Value\":  {",
  "                                                              \"Type\":  \"SDNROUTE\",",
  "                                                              \"Settings\":  {",
  "                                                                               \"DestinationPrefix\":  \"10.96.0.0/12\",",
  "                                                                               \"NeedEncap\":  false",
  "                                                                           }",
  "                                                          }",
  "                                            }",
  "                                        ]",
  "                 }",
  "}",
  "",
].join("\r\n");
const NET_CONF_HOSTGW = [
  "{",
  "  \"Network\": \"10.100.0.0/16\",",
  "  \"EnableNFTables\": false,",
  "  \"Backend\": {",
  "    \"Type\": \"host-gw\"",
  "  }",
  "}",
  "",
].join("\n");
const CONTAINERD = [
  "version = 2",
  "root = \"C:\\\\ProgramData\\\\containerd\\\\root\"",
  "state = \"C:\\\\ProgramData\\\\containerd\\\\state\"",
  "",
  "[grpc]",
  "  address = \"\\\\\\\\.\\\\pipe\\\\containerd-containerd\"",
  "",
  "[plugins.\"io.containerd.grpc.v1.cri\"]",
  "  sandbox_image = \"mcr.microsoft.com/oss/kubernetes/pause:3.10\"",
  "",
  "[plugins.\"io.containerd.grpc.v1.cri\".cni]",
  "  bin_dir = \"c:/opt/cni/bin\"",
  "  conf_dir = \"c:/etc/cni/net.d\"",
  "",
  "[plugins.\"io.containerd.grpc.v1.cri\".containerd]",
  "  default_runtime_name = \"runhcs-wcow-process\"",
  "",
  "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runhcs-wcow-process]",
  "  runtime_type = \"io.containerd.runhcs.v1\"",
  "",
].join("\n");
const KUBE_PROXY_CONF = [
  "apiVersion: v1",
  "kind: Config",
  "clusters:",
  "- cluster:",
  "    certificate-authority: C:\\etc\\kubernetes\\pki\\ca.crt",
  "    server: https://10.0.0.5:6443",
  "  name: default",
  "contexts:",
  "- context:",
  "    cluster: default",
  "    namespace: kube-system",
  "    user: kube-proxy",
  "  name: default",
  "current-context: default",
  "users:",
  "- name: kube-proxy",
  "  user:",
  "    token: __KUBE_PROXY_TOKEN__",
  "",
].join("\n");
const START_FLANNELD = [
  "# flanneld (host-gw) on the management interface: run by the flanneld service (install.ps1).",
  "$ErrorActionPreference = 'Stop'",
  "$env:NODE_NAME = 'win-a'",
  "$route = Get-NetRoute -DestinationPrefix '0.0.0.0/0' | Select-Object -First 1",
  "$ipConf = Get-NetIPAddress -InterfaceIndex $route.ifIndex -AddressFamily IPv4 | Select-Object -First 1",
  "$managementIP = $ipConf.IPAddress",
  "& 'C:\\flannel\\flanneld.exe' --kube-subnet-mgr --kubeconfig-file=C:\\etc\\kubernetes\\kubelet.conf --iface=$managementIP --net-config-path=C:\\etc\\kube-flannel\\net-conf.json",
  "",
].join("\r\n");
const INSTALL_FLANNEL = [
  "# Installs this node's files and services for Windows Server 2022 and Kubernetes v1.32.3.",
  "# Run it elevated from this directory after Install-Containerd.ps1, with kubelet.exe, kubeadm.exe and",
  "# kube-proxy.exe in C:\\k, flanneld.exe in C:\\flannel and flannel's CNI plugins in c:/opt/cni/bin and nssm on the PATH,",
  "# then run the join command of `kubeadm token create --print-join-command`.",
  "Param(",
  "    [parameter(Mandatory = $true, HelpMessage = \"a token of kube-system/kube-proxy: kubectl -n kube-system create token kube-proxy --duration=8760h\")]",
  "    [string] $KubeProxyToken,",
  "    [switch] $SkipKubeProxy,",
  "    [switch] $SkipFlanneld",
  ")",
  "$ErrorActionPreference = 'Stop'",
  "$powershell = (Get-Command powershell).Source",
  "foreach ($dir in @('C:\\k', 'C:\\var\\log\\kubelet', 'C:\\var\\log\\kube-proxy', 'C:\\var\\log\\flanneld', 'C:\\etc\\kube-flannel', 'c:/etc/cni/net.d', 'C:\\etc\\kubernetes\\pki', 'C:\\etc\\kubernetes\\manifests', 'C:\\var\\lib\\kubelet\\pki')) { mkdir -Force $dir | Out-Null }",
  "Copy-Item -Force kubelet-config.yaml 'C:\\k\\kubelet-config.yaml'",
  "Copy-Item -Force StartKubelet.ps1, StartKubeProxy.ps1, StartFlanneld.ps1 'C:\\k'",
  "(Get-Content -Raw kube-proxy.conf).Replace('__KUBE_PROXY_TOKEN__', $KubeProxyToken) | Set-Content -NoNewline 'C:\\k\\kube-proxy.conf'",
  "Copy-Item -Force containerd-config.toml 'C:\\Program Files\\containerd\\config.toml'",
  "Restart-Service containerd",
  "$route = Get-NetRoute -DestinationPrefix '0.0.0.0/0' | Select-Object -First 1",
  "$ipConf = Get-NetIPAddress -InterfaceIndex $route.ifIndex -AddressFamily IPv4 | Select-Object -First 1",
  "$managementIP = $ipConf.IPAddress",
  "# The management subnet: the address masked by its prefix length.",
  "$bytes = [System.Net.IPAddress]::Parse($managementIP).GetAddressBytes(); [array]::Reverse($bytes)",
  "$mask = [uint32]([math]::Pow(2, 32) - [math]::Pow(2, 32 - $ipConf.PrefixLength))",
  "$net = [BitConverter]::GetBytes([uint32]([BitConverter]::ToUInt32($bytes, 0) -band $mask)); [array]::Reverse($net)",
  "$managementSubnet = \"$([System.Net.IPAddress]::new($net))/$($ipConf.PrefixLength)\"",
  "Copy-Item -Force net-conf.json 'C:\\etc\\kube-flannel\\net-conf.json'",
  "(Get-Content -Raw 10-flannel.conf).Replace('__MANAGEMENT_IP__', $managementIP).Replace('__MANAGEMENT_SUBNET__', $managementSubnet) | Set-Content -NoNewline 'c:/etc/cni/net.d/10-flannel.conf'",
  "route /p add 169.254.169.254 mask 255.255.255.255 0.0.0.0",
  "nssm install kubelet $powershell -ExecutionPolicy Bypass -NoProfile C:\\k\\StartKubelet.ps1",
  "nssm set kubelet AppStdout C:\\var\\log\\kubelet\\kubelet.out.log",
  "nssm set kubelet AppStderr C:\\var\\log\\kubelet\\kubelet.err.log",
  "nssm set kubelet AppRotateFiles 1",
  "nssm set kubelet AppRotateOnline 1",
  "nssm set kubelet AppRotateSeconds 86400",
  "nssm set kubelet AppRotateBytes 10485760",
  "nssm set kubelet DependOnService containerd",
  "if (-not $SkipFlanneld) {",
  "    nssm install flanneld $powershell -ExecutionPolicy Bypass -NoProfile C:\\k\\StartFlanneld.ps1",
  "    nssm set flanneld AppStdout C:\\var\\log\\flanneld\\flanneld.out.log",
  "    nssm set flanneld AppStderr C:\\var\\log\\flanneld\\flanneld.err.log",
  "    nssm set flanneld AppRotateFiles 1",
  "    nssm set flanneld AppRotateOnline 1",
  "    nssm set flanneld AppRotateSeconds 86400",
  "    nssm set flanneld AppRotateBytes 10485760",
  "    nssm set flanneld DependOnService kubelet",
  "}",
  "if (-not $SkipKubeProxy) {",
  "    nssm install kube-proxy $powershell -ExecutionPolicy Bypass -NoProfile C:\\k\\StartKubeProxy.ps1",
  "    nssm set kube-proxy AppStdout C:\\var\\log\\kube-proxy\\kube-proxy.out.log",
  "    nssm set kube-proxy AppStderr C:\\var\\log\\kube-proxy\\kube-proxy.err.log",
  "    nssm set kube-proxy AppRotateFiles 1",
  "    nssm set kube-proxy AppRotateOnline 1",
  "    nssm set kube-proxy AppRotateSeconds 86400",
  "    nssm set kube-proxy AppRotateBytes 10485760",
  "    nssm set kube-proxy DependOnService kubelet",
  "}",
  "New-NetFirewallRule -Name kubelet -DisplayName 'kubelet' -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort 10250",
  "",
].join("\r\n");
const INSTALL_CALICO = [
  "# Installs this node's files and services for Windows Server 2019 and Kubernetes v1.32.3.",
  "# Run it elevated from this directory after Install-Containerd.ps1, with kubelet.exe, kubeadm.exe and",
  "# kube-proxy.exe in C:\\k and nssm on the PATH,",
  "# then run the join command of `kubeadm token create --print-join-command`.",
  "Param(",
  "    [parameter(Mandatory = $true, HelpMessage = \"a token of kube-system/kube-proxy: kubectl -n kube-system create token kube-proxy --duration=8760h\")]",
  "    [string] $KubeProxyToken,",
  "    [switch] $SkipKubeProxy",
  ")",
  "$ErrorActionPreference = 'Stop'",
  "$powershell = (Get-Command powershell).Source",
  "foreach ($dir in @('C:\\k', 'C:\\var\\log\\kubelet', 'C:\\var\\log\\kube-proxy', 'C:\\etc\\kubernetes\\pki', 'C:\\etc\\kubernetes\\manifests', 'C:\\var\\lib\\kubelet\\pki')) { mkdir -Force $dir | Out-Null }",
  "Copy-Item -Force kubelet-config.yaml 'C:\\k\\kubelet-config.yaml'",
  "Copy-Item -Force StartKubelet.ps1, StartKubeProxy.ps1 'C:\\k'",
  "(Get-Content -Raw kube-proxy.conf).Replace('__KUBE_PROXY_TOKEN__', $KubeProxyToken) | Set-Content -NoNewline 'C:\\k\\kube-proxy.conf'",
  "Copy-Item -Force containerd-config.toml 'C:\\Program Files\\containerd\\config.toml'",
  "Restart-Service containerd",
  "nssm install kubelet $powershell -ExecutionPolicy Bypass -NoProfile C:\\k\\StartKubelet.ps1",
  "nssm set kubelet AppStdout C:\\var\\log\\kubelet\\kubelet.out.log",
  "nssm set kubelet AppStderr C:\\var\\log\\kubelet\\kubelet.err.log",
  "nssm set kubelet AppRotateFiles 1",
  "nssm set kubelet AppRotateOnline 1",
  "nssm set kubelet AppRotateSeconds 86400",
  "nssm set kubelet AppRotateBytes 10485760",
  "nssm set kubelet DependOnService containerd",
  "if (-not $SkipKubeProxy) {",
  "    nssm install kube-proxy $powershell -ExecutionPolicy Bypass -NoProfile C:\\k\\StartKubeProxy.ps1",
  "    nssm set kube-proxy AppStdout C:\\var\\log\\kube-proxy\\kube-proxy.out.log",
  "    nssm set kube-proxy AppStderr C:\\var\\log\\kube-proxy\\kube-proxy.err.log",
  "    nssm set kube-proxy AppRotateFiles 1",
  "    nssm set kube-proxy AppRotateOnline 1",
  "    nssm set kube-proxy AppRotateSeconds 86400",
  "    nssm set kube-proxy AppRotateBytes 10485760",
  "    nssm set kube-proxy DependOnService kubelet",
  "}",
  "New-NetFirewallRule -Name kubelet -DisplayName 'kubelet' -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort 10250",
  "",
].join("\r\n");

test('kubelet-config.yaml: the emulated Windows kubelet\'s configuration, without what only a running kubelet knows', () => {
  assert.equal(kubeletConfigYaml(flannel, DEFAULT_KUBELET_OPTIONS), KUBELET_CONFIG);
});

test('StartKubelet.ps1: the guides\' Windows flags, the host name at start when no node name is given, the reservations', () => {
  const options = { systemReserved: { cpu: '500m', memory: '2Gi' }, kubeReserved: { memory: '500Mi' }, windowsPriorityClass: 'HIGH_PRIORITY_CLASS' };
  assert.equal(startKubeletScript(calico, options), START_KUBELET);
});

test('reservations and priority classes are checked as the kubelet checks them, named by their flags', () => {
  assert.deepEqual(parseReservation('--system-reserved', 'cpu=500m,memory=2Gi'), { cpu: '500m', memory: '2Gi' });
  assert.throws(() => parseReservation('--kube-reserved', 'memory'), { message: '--kube-reserved memory: expected resource=quantity pairs such as cpu=500m,memory=2Gi' });
  assert.throws(() => windowsNodeConfig(flannel, { ...DEFAULT_KUBELET_OPTIONS, windowsPriorityClass: 'LOW' }),
    { message: '--windows-priorityclass: unknown priority class LOW, valid ones are available at https://docs.microsoft.com/en-us/windows/win32/procthread/scheduling-priorities' });
});

test('StartKubeProxy.ps1: flannel overlay reserves its source VIP through host-local, WinOverlay only', () => {
  assert.equal(startKubeProxyScript(flannel), PROXY_FLANNEL_OVERLAY);
});

test('StartKubeProxy.ps1: Calico overlay takes Calico_ep\'s address and turns DSR on, as Calico\'s start script does', () => {
  assert.equal(startKubeProxyScript(calico), PROXY_CALICO_OVERLAY);
});

test('StartKubeProxy.ps1: l2bridge has no source VIP; the cluster\'s kube-proxy ConfigMap turns DSR on for flannel', () => {
  assert.equal(startKubeProxyScript({ ...flannel, mode: 'l2bridge', kubeProxy: { enableDSR: true } }), PROXY_FLANNEL_L2BRIDGE_DSR);
});

test('10-flannel.conf: overlay excepts the service and cluster CIDRs; the provider address is filled at install', () => {
  assert.equal(flannelCNIConfJson(flannel), CNI_OVERLAY);
});

test('10-flannel.conf: l2bridge excepts the management subnet too', () => {
  assert.equal(flannelCNIConfJson({ ...flannel, mode: 'l2bridge' }), CNI_L2BRIDGE);
});

test('net-conf.json: host-gw for l2bridge, with the cluster\'s pod CIDR', () => {
  assert.equal(flannelNetConfJson({ ...flannel, mode: 'l2bridge', podCIDR: '10.100.0.0/16' }), NET_CONF_HOSTGW);
});

test('containerd-config.toml: the sandbox image, Windows CNI directories, process isolation', () => {
  assert.equal(containerdConfigToml({ ...flannel, sandboxImage: 'mcr.microsoft.com/oss/kubernetes/pause:3.10' }), CONTAINERD);
});

test('kube-proxy.conf and StartFlanneld.ps1', () => {
  assert.equal(kubeProxyKubeconfig('https://10.0.0.5:6443'), KUBE_PROXY_CONF);
  assert.equal(startFlanneldScript({ ...flannel, mode: 'l2bridge' }), START_FLANNELD);
});

test('install.ps1: flannel\'s files and service, the management IP and subnet filled in; Calico without them', () => {
  assert.equal(installScript(flannel), INSTALL_FLANNEL);
  assert.equal(installScript(calico), INSTALL_CALICO);
});

test('joinConfig: the files per CNI, and DaemonSets already running the node\'s services are warned about', () => {
  const objects = {
    version: 'v1.32.3', kubeadmConfig: { data: { ClusterConfiguration: 'networking:\n  serviceSubnet: 10.96.0.0/12\n  podSubnet: 10.244.0.0/16\n  dnsDomain: cluster.local\n' } },
    kubeDnsService: { spec: { clusterIP: '10.96.0.10' } },
    calicoNode: { spec: { selector: {}, template: { spec: { containers: [{ name: 'calico-node', env: [{ name: 'CALICO_NETWORKING_BACKEND', value: 'vxlan' }] }] } } } },
    daemonSets: [{ metadata: { namespace: 'kube-system', name: 'kube-proxy-windows' }, spec: { selector: {}, template: { spec: { nodeSelector: { 'kubernetes.io/os': 'windows' }, containers: [{ name: 'kube-proxy', image: 'sigwindowstools/kube-proxy:v1.32.3-calico-hostprocess' }] } } } }],
  };
  const r = joinConfig({}, DEFAULT_KUBELET_OPTIONS, objects, 'https://10.0.0.5:6443');
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.warnings, ['the cluster runs kube-proxy on Windows nodes as the DaemonSet kube-system/kube-proxy-windows: run install.ps1 with -SkipKubeProxy, or the node runs two']);
  assert.deepEqual(r.files.map((f) => f.name), ['kubelet-config.yaml', 'StartKubelet.ps1', 'StartKubeProxy.ps1', 'kube-proxy.conf', 'containerd-config.toml', 'install.ps1']);
  const bad = joinConfig({}, { ...DEFAULT_KUBELET_OPTIONS, systemReserved: { memory: 'lots' } }, objects, 'https://10.0.0.5:6443');
  assert.deepEqual([bad.files, bad.errors], [[], [
    '--system-reserved: failed to parse quantity "lots" for "memory" resource: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
  ]]);
});
