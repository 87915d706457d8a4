/**
 * The node's KubeletConfiguration (kubelet.config.k8s.io/v1beta1) as the
 * kubelet's `/configz` shows it: `{"kubeletconfig": ...}` with the v1.32
 * defaults (pkg/kubelet/apis/config/v1beta1/defaults.go), what kubeadm's
 * cluster-wide kubelet config sets (systemd cgroups, webhook auth, cluster
 * DNS) and what the node's pool defines (maxPods, reservations, eviction
 * thresholds, lease duration, runtime endpoint). A Windows kubelet runs
 * without QoS cgroups and node-allocatable enforcement, with Windows paths
 * and no resolv.conf, as sig-windows-tools starts it.
 */
import type { NodeConfig } from '../pool.js';
import { podCIDR } from '../node-object.js';

/** The cluster's DNS Service and domain (kubeadm's clusterDNS / clusterDomain). */
export interface ClusterDNS { ip: string; domain: string }

export function kubeletConfiguration(cfg: NodeConfig, index: number, dns: ClusterDNS): Record<string, unknown> {
  const windows = cfg.os === 'windows';
  const path = (p: string) => (windows ? `C:${p.replace(/\//g, '\\')}` : p);
  const nonEmpty = (m: Record<string, string>) => (Object.keys(m).length ? m : undefined);
  const conf: Record<string, unknown> = {
    enableServer: true,
    staticPodPath: path('/etc/kubernetes/manifests'),
    podLogsDir: path('/var/log/pods'),
    syncFrequency: '1m0s',
    fileCheckFrequency: '20s',
    httpCheckFrequency: '20s',
    address: '0.0.0.0',
    port: 10250,
    tlsCertFile: path('/var/lib/kubelet/pki/kubelet.crt'),
    tlsPrivateKeyFile: path('/var/lib/kubelet/pki/kubelet.key'),
    rotateCertificates: true,
    authentication: {
      x509: { clientCAFile: path('/etc/kubernetes/pki/ca.crt') },
      webhook: { enabled: true, cacheTTL: '2m0s' },
      anonymous: { enabled: false },
    },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
    registryPullQPS: 5,
    registryBurst: 10,
    eventRecordQPS: 50,
    eventBurst: 100,
    enableDebuggingHandlers: true,
    healthzPort: 10248,
    healthzBindAddress: '127.0.0.1',
    oomScoreAdj: -999,
    clusterDomain: dns.domain,
    clusterDNS: [dns.ip],
    streamingConnectionIdleTimeout: '4h0m0s',
    nodeStatusUpdateFrequency: '10s',
    nodeStatusReportFrequency: '5m0s',
    nodeLeaseDurationSeconds: cfg.nodeLeaseDurationSeconds,
    imageMinimumGCAge: '2m0s',
    imageMaximumGCAge: '0s',
    imageGCHighThresholdPercent: 85,
    imageGCLowThresholdPercent: 80,
    volumeStatsAggPeriod: '1m0s',
    cgroupsPerQOS: !windows,
    cgroupDriver: 'systemd',
    cpuManagerPolicy: 'none',
    cpuManagerReconcilePeriod: '10s',
    memoryManagerPolicy: 'None',
    topologyManagerPolicy: 'none',
    topologyManagerScope: 'container',
    runtimeRequestTimeout: '2m0s',
    hairpinMode: 'promiscuous-bridge',
    maxPods: cfg.maxPods,
    podCIDR: podCIDR(index, cfg.network.podSubnet),
    podPidsLimit: -1,
    resolvConf: windows ? '' : '/run/systemd/resolve/resolv.conf',
    cpuCFSQuota: true,
    cpuCFSQuotaPeriod: '100ms',
    nodeStatusMaxImages: 50,
    maxOpenFiles: 1000000,
    contentType: 'application/vnd.kubernetes.protobuf',
    kubeAPIQPS: 50,
    kubeAPIBurst: 100,
    serializeImagePulls: true,
    evictionHard: { ...cfg.evictionHard },
    evictionPressureTransitionPeriod: '5m0s',
    enableControllerAttachDetach: true,
    makeIPTablesUtilChains: true,
    iptablesMasqueradeBit: 14,
    iptablesDropBit: 15,
    failSwapOn: true,
    memorySwap: {},
    containerLogMaxSize: '10Mi',
    containerLogMaxFiles: 5,
    containerLogMaxWorkers: 1,
    containerLogMonitorInterval: '10s',
    configMapAndSecretChangeDetectionStrategy: 'Watch',
    systemReserved: nonEmpty(cfg.systemReserved),
    kubeReserved: nonEmpty(cfg.kubeReserved),
    enforceNodeAllocatable: windows ? undefined : ['pods'],
    volumePluginDir: path('/usr/libexec/kubernetes/kubelet-plugins/volume/exec/'),
    logging: {
      format: 'text', flushFrequency: '5s', verbosity: 0,
      options: { text: { infoBufferSize: '0' }, json: { infoBufferSize: '0' } },
    },
    enableSystemLogHandler: true,
    enableSystemLogQuery: false,
    shutdownGracePeriod: '0s',
    shutdownGracePeriodCriticalPods: '0s',
    enableProfilingHandler: true,
    enableDebugFlagsHandler: true,
    seccompDefault: false,
    memoryThrottlingFactor: 0.9,
    registerNode: true,
    localStorageCapacityIsolation: true,
    containerRuntimeEndpoint: cfg.runtime.endpoint,
    failCgroupV1: false,
  };
  for (const k of Object.keys(conf)) if (conf[k] === undefined) delete conf[k];
  return conf;
}
