/**
 * kube-system as a kubeadm cluster with Windows nodes has it, created once
 * at bootstrap (an object that exists is left alone, so a user's edits
 * survive restarts):
 * - kubeadm's CoreDNS addon (cmd/kubeadm/app/phases/addons/dns/manifests.go):
 *   ServiceAccount, Corefile ConfigMap, Deployment (2 replicas, Linux) and the
 *   kube-dns Service at the tenth address of the service CIDR;
 * - kubeadm's kube-proxy addon (phases/addons/proxy/manifests.go):
 *   ServiceAccount, ConfigMap, Linux DaemonSet; the kubeadm-config ConfigMap;
 * - the Windows side as sig-windows-tools ships it (hostprocess/): the
 *   kube-proxy-windows HostProcess DaemonSet selecting the CNI's HNS network
 *   through KUBE_NETWORK, and the CNI DaemonSets for the cluster's network:
 *   flannel (Linux kube-flannel-ds and Windows kube-flannel-ds-windows-amd64,
 *   vxlan with VNI 4096 / port 4789 for overlay, host-gw for l2bridge) or
 *   Calico (calico-node, calico-kube-controllers, calico-node-windows).
 * - the default StorageClass `standard` (kind ships one for its local-path
 *   provisioner; ours names winkube's node-local provisioner).
 * - the RBAC objects of those manifests and of kubeadm's init phases
 *   (kubeadm-rbac.ts).
 * The workload and DaemonSet controllers turn these into pods on the nodes.
 */
import { stringify as toYaml } from 'yaml';
import { isAlreadyExists } from '../apimachinery/errors.js';
import { EMULATED_VERSION } from '../apimachinery/version.js';
import { inProcessWriteContext } from '../apimachinery/write-context.js';
import type { Store } from '../registry/store.js';
import type { ResourceDef } from '../registry/types.js';
import { configmaps } from '../registry/core/configmaps.js';
import { serviceaccounts } from '../registry/core/serviceaccounts.js';
import { services } from '../registry/core/services.js';
import { daemonsets } from '../registry/groups/apps/daemonsets.js';
import { deployments } from '../registry/groups/apps/deployments.js';
import { storageclasses } from '../registry/groups/storage/storageclasses.js';
import { clusterrolebindings, clusterroles, rolebindings, roles } from '../registry/rbac/index.js';
import { calicoRBAC, coreDNSRBAC, flannelRBAC, kubeadmBootstrapRBAC, kubeProxyRBAC, winkubeControllersRBAC } from './kubeadm-rbac.js';
import type { KObject } from '../apimachinery/object.js';
import { CLUSTER_DNS_IP, DEFAULT_POD_SUBNET, SERVICE_SUBNET, DNS_DOMAIN, FLANNEL_WINDOWS_VNI, nodeNetwork, type ClusterNetwork } from '../node/network.js';
import { flannelCNIConf, flannelNetConf, flannelWindowsCNITemplate } from '../node/net/flannel-files.js';
import { windowsDSR } from '../node/net/kube-proxy-command.js';
import { defaultStorageClass } from '../controllers/persistentvolume/provisioner.js';

export { SERVICE_SUBNET };
export const COREDNS_IMAGE = 'registry.k8s.io/coredns/coredns:v1.11.3';
export const KUBE_PROXY_IMAGE = `registry.k8s.io/kube-proxy:${EMULATED_VERSION.gitVersion}`;
export const FLANNEL_VERSION = 'v0.26.1';
export const FLANNEL_CNI_PLUGIN_IMAGE = 'docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2';
export const CALICO_VERSION = 'v3.29.1';

const NS = 'kube-system';
const CONTROL_PLANE_TAINT_KEY = 'node-role.kubernetes.io/control-plane';

export interface SystemWorkloadOptions {
  network: ClusterNetwork;
  /** https://host:port of the API server, for kube-proxy's kubeconfig. */
  controlPlaneEndpoint: string;
}

type Obj = Record<string, any>;

const fieldEnv = (name: string, fieldPath: string, apiVersion = false) =>
  ({ name, valueFrom: { fieldRef: { ...(apiVersion ? { apiVersion: 'v1' } : {}), fieldPath } } });

const windowsAffinity = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [
        { key: 'kubernetes.io/os', operator: 'In', values: ['windows'] },
        { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
      ] }],
    },
  },
};
const hostProcess = { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\system' } };

function serviceAccount(name: string): Obj {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: NS } };
}

export function corefile(domain = DNS_DOMAIN): string {
  return `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes ${domain} in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success ${domain}
       disable denial ${domain}
    }
    loop
    reload
    loadbalance
}
`;
}

function coreDNS(): Obj[] {
  return [
    serviceAccount('coredns'),
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace: NS }, data: { Corefile: corefile() } },
    {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'coredns', namespace: NS, labels: { 'k8s-app': 'kube-dns' } },
      spec: {
        replicas: 2,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
        selector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        template: {
          metadata: { labels: { 'k8s-app': 'kube-dns' } },
          spec: {
            priorityClassName: 'system-cluster-critical',
            serviceAccountName: 'coredns',
            affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{
              weight: 100,
              podAffinityTerm: {
                labelSelector: { matchExpressions: [{ key: 'k8s-app', operator: 'In', values: ['kube-dns'] }] },
                topologyKey: 'kubernetes.io/hostname',
              },
            }] } },
            tolerations: [
              { key: 'CriticalAddonsOnly', operator: 'Exists' },
              { key: CONTROL_PLANE_TAINT_KEY, effect: 'NoSchedule' },
            ],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            containers: [{
              name: 'coredns',
              image: COREDNS_IMAGE,
              imagePullPolicy: 'IfNotPresent',
              resources: { limits: { memory: '170Mi' }, requests: { cpu: '100m', memory: '70Mi' } },
              args: ['-conf', '/etc/coredns/Corefile'],
              volumeMounts: [{ name: 'config-volume', mountPath: '/etc/coredns', readOnly: true }],
              ports: [
                { containerPort: 53, name: 'dns', protocol: 'UDP' },
                { containerPort: 53, name: 'dns-tcp', protocol: 'TCP' },
                { containerPort: 9153, name: 'metrics', protocol: 'TCP' },
                { containerPort: 8080, name: 'liveness-probe', protocol: 'TCP' },
                { containerPort: 8181, name: 'readiness-probe', protocol: 'TCP' },
              ],
              livenessProbe: {
                httpGet: { path: '/health', port: 'liveness-probe', scheme: 'HTTP' },
                initialDelaySeconds: 60, timeoutSeconds: 5, successThreshold: 1, failureThreshold: 5,
              },
              readinessProbe: { httpGet: { path: '/ready', port: 'readiness-probe', scheme: 'HTTP' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
                readOnlyRootFilesystem: true,
              },
            }],
            dnsPolicy: 'Default',
            volumes: [{ name: 'config-volume', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }] } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1', kind: 'Service',
      metadata: {
        name: 'kube-dns', namespace: NS,
        labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
        annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
      },
      spec: {
        clusterIP: CLUSTER_DNS_IP,
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
          { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 },
        ],
        selector: { 'k8s-app': 'kube-dns' },
      },
    },
  ];
}

/** kubeadm's defaulted KubeProxyConfiguration, as `kubectl -n kube-system get cm kube-proxy` shows it. */
function kubeProxyConfig(podSubnet: string, windowsNetworkName: string, net: ClusterNetwork): string {
  const gates = net.kubeProxy?.featureGates;
  return toYaml({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    bindAddress: '0.0.0.0',
    bindAddressHardFail: false,
    clientConnection: { acceptContentTypes: '', burst: 0, contentType: '', kubeconfig: '/var/lib/kube-proxy/kubeconfig.conf', qps: 0 },
    clusterCIDR: podSubnet,
    configSyncPeriod: '0s',
    conntrack: { maxPerCore: null, min: null, tcpBeLiberal: false, tcpCloseWaitTimeout: null, tcpEstablishedTimeout: null, udpStreamTimeout: '0s', udpTimeout: '0s' },
    detectLocal: { bridgeInterface: '', interfaceNamePrefix: '' },
    detectLocalMode: '',
    enableProfiling: false,
    ...(gates && Object.keys(gates).length ? { featureGates: gates } : {}),
    healthzBindAddress: '',
    hostnameOverride: '',
    iptables: { localhostNodePorts: null, masqueradeAll: false, masqueradeBit: null, minSyncPeriod: '0s', syncPeriod: '0s' },
    ipvs: { excludeCIDRs: null, minSyncPeriod: '0s', scheduler: '', strictARP: false, syncPeriod: '0s', tcpFinTimeout: '0s', tcpTimeout: '0s', udpTimeout: '0s' },
    kind: 'KubeProxyConfiguration',
    logging: { flushFrequency: 0, options: { json: { infoBufferSize: '0' }, text: { infoBufferSize: '0' } }, verbosity: 0 },
    metricsBindAddress: '',
    mode: net.kubeProxy?.mode ?? '',
    nftables: { masqueradeAll: false, masqueradeBit: null, minSyncPeriod: '0s', syncPeriod: '0s' },
    nodePortAddresses: null,
    oomScoreAdj: null,
    portRange: '',
    showHiddenMetricsForVersion: '',
    winkernel: { enableDSR: windowsDSR(net.plugin, net.kubeProxy), forwardHealthCheckVip: false, networkName: windowsNetworkName, rootHnsEndpointName: '', sourceVip: '' },
  }).trimEnd();
}

function kubeProxy(opts: SystemWorkloadOptions, podSubnet: string, hnsNetworkName: string): Obj[] {
  const kubeconfig = [
    'apiVersion: v1', 'kind: Config', 'clusters:', '- cluster:',
    '    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
    `    server: ${opts.controlPlaneEndpoint}`, '  name: default', 'contexts:', '- context:', '    cluster: default',
    '    namespace: default', '    user: default', '  name: default', 'current-context: default', 'users:', '- name: default',
    '  user:', '    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token',
  ].join('\n');
  const windowsImage = `sigwindowstools/kube-proxy:${EMULATED_VERSION.gitVersion}-${opts.network.plugin}-hostprocess`;
  return [
    serviceAccount('kube-proxy'),
    {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: 'kube-proxy', namespace: NS, labels: { app: 'kube-proxy' } },
      data: { 'kubeconfig.conf': kubeconfig, 'config.conf': kubeProxyConfig(podSubnet, '', opts.network) },
    },
    {
      apiVersion: 'apps/v1', kind: 'DaemonSet',
      metadata: { name: 'kube-proxy', namespace: NS, labels: { 'k8s-app': 'kube-proxy' } },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'kube-proxy' } },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels: { 'k8s-app': 'kube-proxy' } },
          spec: {
            priorityClassName: 'system-node-critical',
            containers: [{
              name: 'kube-proxy',
              image: KUBE_PROXY_IMAGE,
              imagePullPolicy: 'IfNotPresent',
              command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)'],
              securityContext: { privileged: true },
              volumeMounts: [
                { mountPath: '/var/lib/kube-proxy', name: 'kube-proxy' },
                { mountPath: '/run/xtables.lock', name: 'xtables-lock', readOnly: false },
                { mountPath: '/lib/modules', name: 'lib-modules', readOnly: true },
              ],
              env: [fieldEnv('NODE_NAME', 'spec.nodeName')],
            }],
            hostNetwork: true,
            serviceAccountName: 'kube-proxy',
            volumes: [
              { name: 'kube-proxy', configMap: { name: 'kube-proxy' } },
              { name: 'xtables-lock', hostPath: { path: '/run/xtables.lock', type: 'FileOrCreate' } },
              { name: 'lib-modules', hostPath: { path: '/lib/modules' } },
            ],
            tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { operator: 'Exists' }],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
          },
        },
      },
    },
    {
      // sig-windows-tools hostprocess/<cni>/kube-proxy/kube-proxy.yml
      apiVersion: 'apps/v1', kind: 'DaemonSet',
      metadata: { name: 'kube-proxy-windows', namespace: NS, labels: { 'k8s-app': 'kube-proxy' } },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'kube-proxy-windows' } },
        template: {
          metadata: { labels: { 'k8s-app': 'kube-proxy-windows' } },
          spec: {
            serviceAccountName: 'kube-proxy',
            securityContext: hostProcess,
            hostNetwork: true,
            containers: [{
              image: windowsImage,
              name: 'kube-proxy',
              imagePullPolicy: 'Always',
              env: [
                // kube-proxy selects the HNS network the CNI created by this name (pkg/proxy/winkernel).
                { name: 'KUBE_NETWORK', value: hnsNetworkName },
                { name: 'CNI_BIN_PATH', value: 'C:\\\\Program Files\\\\containerd\\cni\\bin' },
                fieldEnv('NODE_NAME', 'spec.nodeName', true),
                fieldEnv('POD_IP', 'status.podIP'),
              ],
              volumeMounts: [{ mountPath: '/var/lib/kube-proxy', name: 'kube-proxy' }],
            }],
            nodeSelector: { 'kubernetes.io/os': 'windows' },
            tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { operator: 'Exists' }],
            volumes: [{ configMap: { name: 'kube-proxy' }, name: 'kube-proxy' }],
          },
        },
        updateStrategy: { type: 'RollingUpdate' },
      },
    },
  ];
}

function kubeadmConfig(podSubnet: string): Obj {
  return {
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kubeadm-config', namespace: NS },
    data: {
      ClusterConfiguration: toYaml({
        apiServer: {},
        apiVersion: 'kubeadm.k8s.io/v1beta4',
        caCertificateValidityPeriod: '87600h0m0s',
        certificateValidityPeriod: '8760h0m0s',
        certificatesDir: '/etc/kubernetes/pki',
        clusterName: 'kubernetes',
        controllerManager: {},
        dns: {},
        encryptionAlgorithm: 'RSA-2048',
        etcd: { local: { dataDir: '/var/lib/etcd' } },
        imageRepository: 'registry.k8s.io',
        kind: 'ClusterConfiguration',
        kubernetesVersion: EMULATED_VERSION.gitVersion,
        networking: { dnsDomain: DNS_DOMAIN, podSubnet, serviceSubnet: SERVICE_SUBNET },
        proxy: {},
        scheduler: {},
      }),
    },
  };
}

function flannel(net: ClusterNetwork, podSubnet: string): Obj[] {
  const labels = { tier: 'node', app: 'flannel' };
  const windowsCNI = flannelWindowsCNITemplate(net.mode);
  return [
    serviceAccount('flannel'),
    {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-flannel-cfg', namespace: NS, labels: { ...labels, 'k8s-app': 'flannel' } },
      data: {
        'cni-conf.json': flannelCNIConf(),
        'net-conf.json': flannelNetConf(podSubnet, net.mode),
      },
    },
    {
      apiVersion: 'apps/v1', kind: 'DaemonSet',
      metadata: { name: 'kube-flannel-ds', namespace: NS, labels: { ...labels, 'k8s-app': 'flannel' } },
      spec: {
        selector: { matchLabels: { app: 'flannel', 'k8s-app': 'flannel' } },
        template: {
          metadata: { labels: { ...labels, 'k8s-app': 'flannel' } },
          spec: {
            affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] },
            ] } } },
            hostNetwork: true,
            priorityClassName: 'system-node-critical',
            tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }],
            serviceAccountName: 'flannel',
            initContainers: [
              {
                name: 'install-cni-plugin', image: FLANNEL_CNI_PLUGIN_IMAGE, command: ['cp'], args: ['-f', '/flannel', '/opt/cni/bin/flannel'],
                volumeMounts: [{ name: 'cni-plugin', mountPath: '/opt/cni/bin' }],
              },
              {
                name: 'install-cni', image: `docker.io/flannel/flannel:${FLANNEL_VERSION}`, command: ['cp'],
                args: ['-f', '/etc/kube-flannel/cni-conf.json', '/etc/cni/net.d/10-flannel.conflist'],
                volumeMounts: [{ name: 'cni', mountPath: '/etc/cni/net.d' }, { name: 'flannel-cfg', mountPath: '/etc/kube-flannel/' }],
              },
            ],
            containers: [{
              name: 'kube-flannel', image: `docker.io/flannel/flannel:${FLANNEL_VERSION}`,
              command: ['/opt/bin/flanneld'], args: ['--ip-masq', '--kube-subnet-mgr'],
              resources: { requests: { cpu: '100m', memory: '50Mi' } },
              securityContext: { privileged: false, capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } },
              env: [fieldEnv('POD_NAME', 'metadata.name'), fieldEnv('POD_NAMESPACE', 'metadata.namespace'), { name: 'EVENT_QUEUE_DEPTH', value: '5000' }],
              volumeMounts: [
                { name: 'run', mountPath: '/run/flannel' },
                { name: 'flannel-cfg', mountPath: '/etc/kube-flannel/' },
                { name: 'xtables-lock', mountPath: '/run/xtables.lock' },
              ],
            }],
            volumes: [
              { name: 'run', hostPath: { path: '/run/flannel' } },
              { name: 'cni-plugin', hostPath: { path: '/opt/cni/bin' } },
              { name: 'cni', hostPath: { path: '/etc/cni/net.d' } },
              { name: 'flannel-cfg', configMap: { name: 'kube-flannel-cfg' } },
              { name: 'xtables-lock', hostPath: { path: '/run/xtables.lock', type: 'FileOrCreate' } },
            ],
          },
        },
      },
    },
    // sig-windows-tools hostprocess/flannel/flanneld/flannel-overlay.yml (flannel-host-gw.yml for l2bridge)
    {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-flannel-windows-cfg', namespace: NS, labels },
      data: { 'cni-conf-containerd.json': JSON.stringify(windowsCNI, null, 2) + '\n' },
    },
    {
      apiVersion: 'apps/v1', kind: 'DaemonSet',
      metadata: { name: 'kube-flannel-ds-windows-amd64', namespace: NS, labels },
      spec: {
        selector: { matchLabels: { app: 'flannel' } },
        template: {
          metadata: { labels },
          spec: {
            affinity: windowsAffinity,
            securityContext: hostProcess,
            hostNetwork: true,
            serviceAccountName: 'flannel',
            tolerations: [
              { operator: 'Exists', effect: 'NoSchedule' },
              { key: 'CriticalAddonsOnly', operator: 'Exists' },
              { effect: 'NoExecute', operator: 'Exists' },
            ],
            containers: [{
              name: 'kube-flannel', image: `sigwindowstools/flannel:${FLANNEL_VERSION}-hostprocess`, imagePullPolicy: 'Always',
              volumeMounts: [
                { name: 'flannel-cfg', mountPath: '/etc/kube-flannel/' },
                { name: 'flannel-windows-cfg', mountPath: '/etc/kube-flannel-windows/' },
                { name: 'kubeadm-config', mountPath: '/etc/kubeadm-config/' },
                { name: 'kube-proxy', mountPath: '/flannel-config-file' },
              ],
              env: [fieldEnv('POD_NAME', 'metadata.name', true), fieldEnv('POD_NAMESPACE', 'metadata.namespace', true)],
            }],
            volumes: [
              { name: 'kube-proxy', configMap: { name: 'kube-proxy' } },
              { name: 'flannel-cfg', configMap: { name: 'kube-flannel-cfg' } },
              { name: 'flannel-windows-cfg', configMap: { name: 'kube-flannel-windows-cfg' } },
              { name: 'kubeadm-config', configMap: { name: 'kubeadm-config' } },
            ],
          },
        },
      },
    },
  ];
}

function calico(net: ClusterNetwork, podSubnet: string): Obj[] {
  const vxlan = net.mode === 'overlay';
  const image = (c: string) => `docker.io/calico/${c}:${CALICO_VERSION}`;
  return [
    serviceAccount('calico-node'),
    serviceAccount('calico-kube-controllers'),
    serviceAccount('calico-cni-plugin'),
    {
      apiVersion: 'apps/v1', kind: 'DaemonSet',
      metadata: { name: 'calico-node', namespace: NS, labels: { 'k8s-app': 'calico-node' } },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'calico-node' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
        template: {
          metadata: { labels: { 'k8s-app': 'calico-node' } },
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            hostNetwork: true,
            tolerations: [{ effect: 'NoSchedule', operator: 'Exists' }, { key: 'CriticalAddonsOnly', operator: 'Exists' }, { effect: 'NoExecute', operator: 'Exists' }],
            serviceAccountName: 'calico-node',
            terminationGracePeriodSeconds: 0,
            priorityClassName: 'system-node-critical',
            initContainers: [{
              name: 'install-cni', image: image('cni'), command: ['/opt/cni/bin/install'],
              securityContext: { privileged: true },
              volumeMounts: [{ mountPath: '/host/opt/cni/bin', name: 'cni-bin-dir' }, { mountPath: '/host/etc/cni/net.d', name: 'cni-net-dir' }],
            }],
            containers: [{
              name: 'calico-node', image: image('node'),
              env: [
                { name: 'DATASTORE_TYPE', value: 'kubernetes' },
                fieldEnv('NODENAME', 'spec.nodeName'),
                { name: 'CLUSTER_TYPE', value: 'k8s,bgp' },
                { name: 'IP', value: 'autodetect' },
                { name: 'CALICO_IPV4POOL_CIDR', value: podSubnet },
                { name: 'CALICO_IPV4POOL_IPIP', value: 'Never' },
                { name: 'CALICO_IPV4POOL_VXLAN', value: vxlan ? 'Always' : 'Never' },
                { name: 'CALICO_NETWORKING_BACKEND', value: vxlan ? 'vxlan' : 'bird' },
                { name: 'FELIX_DEFAULTENDPOINTTOHOSTACTION', value: 'ACCEPT' },
                { name: 'FELIX_HEALTHENABLED', value: 'true' },
              ],
              securityContext: { privileged: true },
              resources: { requests: { cpu: '250m' } },
              livenessProbe: { exec: { command: ['/bin/calico-node', '-felix-live', ...(vxlan ? [] : ['-bird-live'])] }, periodSeconds: 10, initialDelaySeconds: 10, failureThreshold: 6, timeoutSeconds: 10 },
              readinessProbe: { exec: { command: ['/bin/calico-node', '-felix-ready', ...(vxlan ? [] : ['-bird-ready'])] }, periodSeconds: 10, timeoutSeconds: 10 },
              volumeMounts: [
                { mountPath: '/lib/modules', name: 'lib-modules', readOnly: true },
                { mountPath: '/run/xtables.lock', name: 'xtables-lock', readOnly: false },
                { mountPath: '/var/run/calico', name: 'var-run-calico', readOnly: false },
                { mountPath: '/var/lib/calico', name: 'var-lib-calico', readOnly: false },
              ],
            }],
            volumes: [
              { name: 'lib-modules', hostPath: { path: '/lib/modules' } },
              { name: 'var-run-calico', hostPath: { path: '/var/run/calico', type: 'DirectoryOrCreate' } },
              { name: 'var-lib-calico', hostPath: { path: '/var/lib/calico', type: 'DirectoryOrCreate' } },
              { name: 'xtables-lock', hostPath: { path: '/run/xtables.lock', type: 'FileOrCreate' } },
              { name: 'cni-bin-dir', hostPath: { path: '/opt/cni/bin', type: 'DirectoryOrCreate' } },
              { name: 'cni-net-dir', hostPath: { path: '/etc/cni/net.d' } },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'calico-kube-controllers', namespace: NS, labels: { 'k8s-app': 'calico-kube-controllers' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'k8s-app': 'calico-kube-controllers' } },
        strategy: { type: 'Recreate' },
        template: {
          metadata: { name: 'calico-kube-controllers', namespace: NS, labels: { 'k8s-app': 'calico-kube-controllers' } },
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { key: CONTROL_PLANE_TAINT_KEY, effect: 'NoSchedule' }],
            serviceAccountName: 'calico-kube-controllers',
            priorityClassName: 'system-cluster-critical',
            containers: [{
              name: 'calico-kube-controllers', image: image('kube-controllers'),
              env: [{ name: 'ENABLED_CONTROLLERS', value: 'node,loadbalancer' }, { name: 'DATASTORE_TYPE', value: 'kubernetes' }],
              livenessProbe: { exec: { command: ['/usr/bin/check-status', '-l'] }, periodSeconds: 10, initialDelaySeconds: 10, failureThreshold: 6, timeoutSeconds: 10 },
              readinessProbe: { exec: { command: ['/usr/bin/check-status', '-r'] }, periodSeconds: 10 },
            }],
          },
        },
      },
    },
    // sig-windows-tools hostprocess/calico/calico.yml
    {
      apiVersion: 'apps/v1', kind: 'DaemonSet',
      metadata: { name: 'calico-node-windows', namespace: NS, labels: { tier: 'node', app: 'calico' } },
      spec: {
        selector: { matchLabels: { app: 'calico' } },
        template: {
          metadata: { labels: { tier: 'node', app: 'calico' } },
          spec: {
            affinity: windowsAffinity,
            securityContext: hostProcess,
            hostNetwork: true,
            serviceAccountName: 'calico-node',
            tolerations: [
              { operator: 'Exists', effect: 'NoSchedule' },
              { key: 'CriticalAddonsOnly', operator: 'Exists' },
              { effect: 'NoExecute', operator: 'Exists' },
            ],
            containers: ['calico-node-startup', 'calico-node-felix'].map((name) => ({
              name, image: `sigwindowstools/calico-node:${CALICO_VERSION}-hostprocess`, imagePullPolicy: 'Always',
              args: [`$env:CONTAINER_SANDBOX_MOUNT_POINT/calico/${name === 'calico-node-startup' ? 'node' : 'felix'}-service.ps1`],
              workingDir: '$env:CONTAINER_SANDBOX_MOUNT_POINT/calico/',
              env: [
                fieldEnv('POD_NAME', 'metadata.name', true), fieldEnv('POD_NAMESPACE', 'metadata.namespace', true),
                ...(name === 'calico-node-startup' ? [
                  { name: 'CNI_IPAM_TYPE', value: 'calico-ipam' },
                  { name: 'CALICO_NETWORKING_BACKEND', value: vxlan ? 'vxlan' : 'windows-bgp' },
                ] : []),
                { name: 'KUBECONFIG', value: 'C:/etc/cni/net.d/calico-kubeconfig' },
                ...(vxlan ? [{ name: 'VXLAN_VNI', value: String(FLANNEL_WINDOWS_VNI) }] : []),
              ],
            })),
            volumes: [
              { name: 'cni-bin-dir', hostPath: { path: '/opt/cni/bin' } },
              { name: 'cni-net-dir', hostPath: { path: '/etc/cni/net.d' } },
              { name: 'kubeadm-config', configMap: { name: 'kubeadm-config' } },
            ],
          },
        },
      },
    },
  ];
}

const RESOURCE: Record<string, ResourceDef> = {
  ServiceAccount: serviceaccounts,
  ConfigMap: configmaps,
  Service: services,
  Deployment: deployments,
  DaemonSet: daemonsets,
  StorageClass: storageclasses,
  ClusterRole: clusterroles,
  ClusterRoleBinding: clusterrolebindings,
  Role: roles,
  RoleBinding: rolebindings,
};

/** Every kube-system object of the cluster's add-ons, in creation order. */
export function systemWorkloads(opts: SystemWorkloadOptions): Obj[] {
  const podSubnet = opts.network.podSubnet ?? DEFAULT_POD_SUBNET;
  const hnsNetworkName = nodeNetwork(opts.network, true).hnsNetworkName!;
  return [
    kubeadmConfig(podSubnet),
    ...kubeadmBootstrapRBAC(),
    ...coreDNSRBAC(),
    ...coreDNS(),
    ...kubeProxyRBAC(),
    ...kubeProxy(opts, podSubnet, hnsNetworkName),
    ...(opts.network.plugin === 'calico' ? [...calicoRBAC(), ...calico(opts.network, podSubnet)] : [...flannelRBAC(), ...flannel(opts.network, podSubnet)]),
    // The default StorageClass (kind installs `standard` with its local-path provisioner; ours is winkube.io/local).
    defaultStorageClass(),
    ...winkubeControllersRBAC(),
  ];
}

/** Creates what is missing (as kubeadm's addon phase and `kubectl apply` of the CNI manifests would); never overwrites. */
export async function ensureSystemWorkloads(store: Store, opts: SystemWorkloadOptions): Promise<void> {
  for (const obj of systemWorkloads(opts)) {
    const def = RESOURCE[obj.kind];
    if (!def) throw new Error(`system workload of unknown kind ${obj.kind}`);
    const ns = (obj.metadata.namespace ?? '') as string;
    if (await store.get(def.group, def.resource, ns, obj.metadata.name)) continue;
    try {
      await store.create(def, ns, obj as KObject, { ...inProcessWriteContext('kubeadm'), namespace: ns });
    } catch (e) {
      if (!(isAlreadyExists(e))) throw e;
    }
  }
}
