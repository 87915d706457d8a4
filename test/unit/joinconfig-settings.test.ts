/**
 * join-config's reading of a cluster and its checks: where each value is
 * read, the contradictions between flags and the cluster (errors naming
 * both values), and what a missing value becomes (warnings naming the flag).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { clusterFacts, type ClusterObjects } from '../../src/joinconfig/cluster-facts.js';
import { joinSettings, tenthAddress } from '../../src/joinconfig/join-settings.js';

const cm = (namespace: string, name: string, data: Record<string, string>): ConfigMap => ({ metadata: { namespace, name }, data });
const svc = (clusterIP: string): Service => ({ spec: { clusterIP } });

const kubeadmConfig = cm('kube-system', 'kubeadm-config', {
  ClusterConfiguration: 'kind: ClusterConfiguration\nnetworking:\n  dnsDomain: corp.local\n  podSubnet: 10.200.0.0/16\n  serviceSubnet: 10.96.0.0/12\n',
});
const flannel = (backend: string, network = '10.244.0.0/16') =>
  cm('kube-flannel', 'kube-flannel-cfg', { 'net-conf.json': JSON.stringify({ Network: network, Backend: { Type: backend } }) });

/** A kubeadm cluster with flannel vxlan in the kube-flannel namespace. */
const CLUSTER: ClusterObjects = {
  version: 'v1.32.3',
  kubernetesService: svc('10.96.0.1'),
  kubeDnsService: svc('10.96.0.10'),
  kubeadmConfig,
  flannelConfig: flannel('vxlan'),
  nodes: [{ metadata: { name: 'cp' }, spec: { podCIDR: '10.244.0.0/24' } }],
};

test('facts: each value with where it was read; flannel\'s net-conf.json wins over kubeadm-config for the pod CIDR', () => {
  const f = clusterFacts(CLUSTER);
  assert.deepEqual(f.serviceCIDR, { value: '10.96.0.0/12', source: 'kube-system/kubeadm-config ClusterConfiguration networking.serviceSubnet' });
  assert.deepEqual(f.apiServiceIP, { value: '10.96.0.1', source: 'default/kubernetes Service' });
  assert.deepEqual(f.dnsIP, { value: '10.96.0.10', source: 'kube-system/kube-dns Service' });
  assert.deepEqual(f.clusterDomain, { value: 'corp.local', source: 'kube-system/kubeadm-config ClusterConfiguration networking.dnsDomain' });
  assert.deepEqual(f.podCIDR, { value: '10.244.0.0/16', source: 'kube-flannel/kube-flannel-cfg net-conf.json Network' });
  assert.deepEqual(f.plugin, { value: 'flannel', source: 'kube-flannel/kube-flannel-cfg net-conf.json' });
  assert.deepEqual(f.mode, { value: 'overlay', source: 'kube-flannel/kube-flannel-cfg net-conf.json Backend.Type vxlan' });
  assert.deepEqual(f.nodePodCIDRs, [{ node: 'cp', cidr: '10.244.0.0/24' }]);
});

test('facts: kube-apiserver\'s --service-cluster-ip-range wins over kubeadm-config; the kubelet-config ConfigMap gives the domain', () => {
  const apiserver: Pod = {
    metadata: { name: 'kube-apiserver-cp', namespace: 'kube-system' },
    spec: { containers: [{ name: 'kube-apiserver', command: ['kube-apiserver', '--service-cluster-ip-range=10.100.0.0/16,fd00::/108'] }] },
  };
  const f = clusterFacts({ ...CLUSTER, apiServerPods: [apiserver], kubeletConfig: cm('kube-system', 'kubelet-config', { kubelet: 'clusterDomain: k8s.example\n' }) });
  assert.deepEqual(f.serviceCIDR, { value: '10.100.0.0/16', source: 'kube-system/kube-apiserver-cp --service-cluster-ip-range' });
  assert.deepEqual(f.clusterDomain, { value: 'k8s.example', source: 'kube-system/kubelet-config clusterDomain' });
});

test('facts: host-gw is l2bridge; Calico\'s backend; kube-proxy\'s clusterCIDR without flannel; backends Windows has no network for', () => {
  assert.deepEqual(clusterFacts({ flannelConfig: flannel('host-gw') }).mode,
    { value: 'l2bridge', source: 'kube-flannel/kube-flannel-cfg net-conf.json Backend.Type host-gw' });
  const calico: DaemonSet = { spec: { selector: {}, template: { spec: { containers: [{ name: 'calico-node', env: [{ name: 'CALICO_NETWORKING_BACKEND', value: 'vxlan' }] }] } } } };
  const f = clusterFacts({ calicoNode: calico, kubeProxyConfig: cm('kube-system', 'kube-proxy', { 'config.conf': 'clusterCIDR: 192.168.0.0/16\n' }) });
  assert.deepEqual([f.plugin?.value, f.mode, f.podCIDR], ['calico',
    { value: 'overlay', source: 'kube-system/calico-node CALICO_NETWORKING_BACKEND vxlan' },
    { value: '192.168.0.0/16', source: 'kube-system/kube-proxy config.conf clusterCIDR' }]);
  assert.deepEqual(clusterFacts({ flannelConfig: flannel('wireguard') }).unsupportedBackend,
    { value: 'wireguard', source: 'kube-flannel/kube-flannel-cfg net-conf.json Backend.Type' });
});

test('facts: DaemonSets that run kube-proxy or the CNI on Windows nodes', () => {
  const ds = (name: string, os: string, image: string): DaemonSet => ({
    metadata: { namespace: 'kube-system', name },
    spec: { selector: {}, template: { spec: { nodeSelector: { 'kubernetes.io/os': os }, containers: [{ name: 'c', image }] } } },
  });
  const f = clusterFacts({ daemonSets: [
    ds('kube-proxy', 'linux', 'registry.k8s.io/kube-proxy:v1.32.0'),
    ds('kube-proxy-windows', 'windows', 'sigwindowstools/kube-proxy:v1.32.0-flannel-hostprocess'),
    ds('kube-flannel-ds-windows-amd64', 'windows', 'sigwindowstools/flannel:v0.21.5-hostprocess'),
  ] });
  assert.deepEqual(f.windowsDaemonSets, { kubeProxy: ['kube-system/kube-proxy-windows'], cni: ['kube-system/kube-flannel-ds-windows-amd64'] });
});

test('settings: the cluster\'s values when no flag is given, with no warning', () => {
  const r = joinSettings({}, clusterFacts(CLUSTER));
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(r.settings && { ...r.settings, windows: r.settings.windows.tag }, {
    windows: 'ltsc2022', plugin: 'flannel', mode: 'overlay', runtime: 'containerd', kubernetesVersion: 'v1.32.3',
    serviceCIDR: '10.96.0.0/12', podCIDR: '10.244.0.0/16', dnsIP: '10.96.0.10', clusterDomain: 'corp.local', kubeProxy: {},
    sandboxImage: 'registry.k8s.io/pause:3.10',
  });
});

test('settings: flags that contradict the cluster are errors naming both values and the source', () => {
  const r = joinSettings({ mode: 'l2bridge', network: 'calico', serviceCIDR: '10.0.0.0/16', clusterDNS: '10.0.0.10', clusterDomain: 'cluster.local' }, clusterFacts(CLUSTER));
  assert.equal(r.settings, undefined);
  assert.deepEqual(r.errors, [
    '--service-cidr 10.0.0.0/16 contradicts the cluster\'s service CIDR 10.96.0.0/12 (kube-system/kubeadm-config ClusterConfiguration networking.serviceSubnet)',
    'the service CIDR 10.0.0.0/16 does not hold the kubernetes Service\'s ClusterIP 10.96.0.1 (default/kubernetes Service)',
    '--network calico contradicts the cluster\'s network flannel (kube-flannel/kube-flannel-cfg net-conf.json)',
    '--mode l2bridge contradicts the cluster\'s network mode overlay (kube-flannel/kube-flannel-cfg net-conf.json Backend.Type vxlan)',
    '--cluster-dns 10.0.0.10 contradicts the cluster\'s cluster DNS 10.96.0.10 (kube-system/kube-dns Service)',
    '--cluster-domain cluster.local contradicts the cluster\'s cluster domain corp.local (kube-system/kubeadm-config ClusterConfiguration networking.dnsDomain)',
  ]);
});

test('settings: a flag equal to the cluster\'s value is fine', () => {
  const r = joinSettings({ mode: 'overlay', serviceCIDR: '10.96.0.0/12', podCIDR: '10.244.0.0/16' }, clusterFacts(CLUSTER));
  assert.deepEqual([r.errors, r.settings?.mode], [[], 'overlay']);
});

test('settings: without the service CIDR the command stops; other missing values are warnings naming the flag', () => {
  const none = joinSettings({}, clusterFacts({}));
  assert.deepEqual(none.errors, [
    'the cluster\'s service CIDR is not visible (no kube-apiserver pod with --service-cluster-ip-range in kube-system, no kube-system/kubeadm-config): pass --service-cidr',
  ]);
  const r = joinSettings({ serviceCIDR: '10.100.0.0/16' }, clusterFacts({}));
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.warnings, [
    'the cluster\'s pod CIDR is not visible (no flannel net-conf.json, kube-proxy clusterCIDR or kubeadm-config podSubnet): using 10.244.0.0/16; pass --pod-cidr to set it',
    'the cluster domain is not visible (no kube-system/kubelet-config clusterDomain, no kubeadm-config dnsDomain): using cluster.local; pass --cluster-domain to set it',
    'the cluster\'s version is not known: using v1.32.0; pass --kubernetes-version to set it',
    'the kube-dns Service was not found in kube-system: using 10.100.0.10; pass --cluster-dns to set it',
    'no CNI was found in kube-system (kube-flannel-cfg ConfigMap, calico-node DaemonSet): using flannel; pass --network to set it',
    'the cluster\'s network mode is not visible: using overlay; pass --mode to set it',
  ]);
  assert.equal(r.settings?.dnsIP, '10.100.0.10');
});

test('settings: the version skew policy, a node subnet outside the pod CIDR, flannel backends Windows lacks', () => {
  assert.deepEqual(joinSettings({ kubernetesVersion: '1.33.0' }, clusterFacts(CLUSTER)).errors,
    ['--kubernetes-version v1.33.0 is newer than the cluster\'s v1.32.3: the kubelet must not be newer than kube-apiserver']);
  assert.deepEqual(joinSettings({ kubernetesVersion: 'v1.28.9' }, clusterFacts(CLUSTER)).errors,
    ['--kubernetes-version v1.28.9 is more than three minor versions older than the cluster\'s v1.32.3']);
  assert.equal(joinSettings({ kubernetesVersion: '1.29.1' }, clusterFacts(CLUSTER)).settings?.kubernetesVersion, 'v1.29.1');
  const elsewhere = { ...CLUSTER, nodes: [{ metadata: { name: 'w1' }, spec: { podCIDR: '10.245.3.0/24' } }] };
  assert.deepEqual(joinSettings({}, clusterFacts(elsewhere)).errors, ['the pod CIDR 10.244.0.0/16 does not hold node w1\'s podCIDR 10.245.3.0/24']);
  assert.deepEqual(joinSettings({}, clusterFacts({ ...CLUSTER, flannelConfig: flannel('udp') })).errors,
    ['flannel\'s backend "udp" (kube-flannel/kube-flannel-cfg net-conf.json Backend.Type) has no Windows network: Windows nodes need vxlan (overlay) or host-gw (l2bridge)']);
});

test('settings: flag values that do not parse', () => {
  assert.deepEqual(joinSettings({ serviceCIDR: '10.96.0.0', mode: 'bridge', network: 'cilium', runtime: 'docker', windowsVersion: '2016' }, clusterFacts(CLUSTER)).errors, [
    '--service-cidr 10.96.0.0 is not an IPv4 CIDR (such as 10.96.0.0/12)',
    '--network cilium: must be flannel or calico',
    '--mode bridge: must be overlay or l2bridge',
    '--runtime docker: must be containerd (the only runtime Windows nodes support since dockershim\'s removal in v1.24)',
    '--windows-version 2016: unknown Windows Server version (2019, 2022, 2025, ltsc2019, 1809, 20H2, ... or a build such as 10.0.20348)',
  ]);
  assert.equal(joinSettings({ windowsVersion: '2019' }, clusterFacts(CLUSTER)).settings?.windows.build, 17763);
  assert.equal(joinSettings({ windowsVersion: '10.0.20348' }, clusterFacts(CLUSTER)).settings?.windows.tag, 'ltsc2022');
});

test('settings: sandbox images without wincat, and pause tags without the node\'s build', () => {
  assert.deepEqual(joinSettings({ sandboxImage: 'myregistry.io/pause:1' }, clusterFacts(CLUSTER)).warnings, [
    '--sandbox-image myregistry.io/pause:1 is not a Kubernetes pause image, taken to lack wincat.exe: kubectl port-forward into the node\'s pods fails with "unable to do port forwarding: wincat not found"',
  ]);
  assert.deepEqual(joinSettings({ windowsVersion: '2025' }, clusterFacts(CLUSTER)).warnings, [
    'registry.k8s.io/pause:3.10 has no image for Windows Server 2025 (build 26100): pods on the node cannot start their sandbox; pass --sandbox-image',
  ]);
  assert.deepEqual(joinSettings({ sandboxImage: 'mcr.microsoft.com/oss/kubernetes/pause:3.10' }, clusterFacts(CLUSTER)).warnings, []);
});

test('tenthAddress: where kubeadm puts kube-dns', () => {
  assert.deepEqual([tenthAddress('10.96.0.0/12'), tenthAddress('172.20.0.0/16'), tenthAddress('10.0.0.128/25')], ['10.96.0.10', '172.20.0.10', '10.0.0.138']);
});
