import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStorage } from '../../src/storage/sqlite.js';
import { Store } from '../../src/registry/store.js';
import { allResources } from '../../src/registry/resources.js';
import { bootstrapCluster } from '../../src/cluster/bootstrap.js';
import { inProcessWriteContext } from '../../src/apimachinery/write-context.js';
import { corefile, systemWorkloads } from '../../src/cluster/system-workloads.js';

/** The roles of winkube's provisioner and load balancer controller, after the StorageClass. */
const WINKUBE_RBAC = ['ClusterRole/winkube:local-provisioner', 'ClusterRoleBinding/winkube:local-provisioner',
  'ClusterRole/winkube:load-balancer', 'ClusterRoleBinding/winkube:load-balancer'];

const names = (objs: any[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`);

test('kube-system add-ons per network: flannel overlay by default, Calico BGP for l2bridge', () => {
  const flannel = systemWorkloads({ network: { plugin: 'flannel', mode: 'overlay' }, controlPlaneEndpoint: 'https://127.0.0.1:6443' });
  assert.deepEqual(names(flannel), [
    'ConfigMap/kubeadm-config',
    'ClusterRoleBinding/kubeadm:cluster-admins', 'ClusterRole/kubeadm:get-nodes', 'ClusterRoleBinding/kubeadm:get-nodes',
    'ClusterRoleBinding/kubeadm:kubelet-bootstrap', 'ClusterRoleBinding/kubeadm:node-autoapprove-bootstrap',
    'ClusterRoleBinding/kubeadm:node-autoapprove-certificate-rotation',
    'ClusterRole/system:coredns', 'ClusterRoleBinding/system:coredns',
    'ServiceAccount/coredns', 'ConfigMap/coredns', 'Deployment/coredns', 'Service/kube-dns',
    'ClusterRoleBinding/kubeadm:node-proxier', 'Role/kube-proxy', 'RoleBinding/kube-proxy',
    'ServiceAccount/kube-proxy', 'ConfigMap/kube-proxy', 'DaemonSet/kube-proxy', 'DaemonSet/kube-proxy-windows',
    'ClusterRole/flannel', 'ClusterRoleBinding/flannel', 'ServiceAccount/flannel', 'ConfigMap/kube-flannel-cfg', 'DaemonSet/kube-flannel-ds', 'ConfigMap/kube-flannel-windows-cfg',
    'DaemonSet/kube-flannel-ds-windows-amd64', 'StorageClass/standard', ...WINKUBE_RBAC,
  ]);
  const by = (objs: any[], n: string) => objs.find((o) => `${o.kind}/${o.metadata.name}` === n);
  assert.deepEqual(JSON.parse(by(flannel, 'ConfigMap/kube-flannel-cfg').data['net-conf.json']).Backend, { Type: 'vxlan', VNI: 4096, Port: 4789 });
  assert.equal(JSON.parse(by(flannel, 'ConfigMap/kube-flannel-windows-cfg').data['cni-conf-containerd.json']).delegate.type, 'sdnoverlay');
  const winProxy = by(flannel, 'DaemonSet/kube-proxy-windows').spec.template.spec;
  assert.deepEqual(winProxy.securityContext, { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\system' } });
  assert.equal(winProxy.hostNetwork, true);
  assert.equal(winProxy.containers[0].image, 'sigwindowstools/kube-proxy:v1.32.0-flannel-hostprocess');
  assert.deepEqual(winProxy.containers[0].env[0], { name: 'KUBE_NETWORK', value: 'flannel.4096' });
  const dns = by(flannel, 'Deployment/coredns').spec;
  assert.equal(dns.replicas, 2);
  assert.deepEqual(dns.template.spec.nodeSelector, { 'kubernetes.io/os': 'linux' });
  assert.equal(dns.template.spec.containers[0].image, 'registry.k8s.io/coredns/coredns:v1.11.3');
  assert.equal(by(flannel, 'DaemonSet/kube-proxy').spec.template.spec.containers[0].image, 'registry.k8s.io/kube-proxy:v1.32.0');
  assert.match(corefile(), /kubernetes cluster\.local in-addr\.arpa ip6\.arpa \{\n {7}pods insecure/);

  const calico = systemWorkloads({ network: { plugin: 'calico', mode: 'l2bridge', podSubnet: '10.128.0.0/9' }, controlPlaneEndpoint: 'https://127.0.0.1:6443' });
  assert.deepEqual(names(calico).slice(20), ['ClusterRole/calico-kube-controllers', 'ClusterRole/calico-node', 'ClusterRole/calico-cni-plugin',
    'ClusterRoleBinding/calico-kube-controllers', 'ClusterRoleBinding/calico-node', 'ClusterRoleBinding/calico-cni-plugin',
    'ServiceAccount/calico-node', 'ServiceAccount/calico-kube-controllers', 'ServiceAccount/calico-cni-plugin', 'DaemonSet/calico-node',
    'Deployment/calico-kube-controllers', 'DaemonSet/calico-node-windows', 'StorageClass/standard', ...WINKUBE_RBAC]);
  const env = Object.fromEntries(by(calico, 'DaemonSet/calico-node').spec.template.spec.containers[0].env.filter((e: any) => e.value).map((e: any) => [e.name, e.value]));
  assert.equal(env.CALICO_IPV4POOL_CIDR, '10.128.0.0/9');
  assert.equal(env.CALICO_NETWORKING_BACKEND, 'bird');
  assert.deepEqual(by(calico, 'DaemonSet/kube-proxy-windows').spec.template.spec.containers[0].env[0], { name: 'KUBE_NETWORK', value: 'Calico' });
});

test('bootstrap creates the add-ons through validation once, and leaves edited ones alone', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  const opts = { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1', network: { plugin: 'flannel' as const, mode: 'l2bridge' as const } };
  await bootstrapCluster(store, opts);
  const svc = (await store.get('', 'services', 'kube-system', 'kube-dns'))!;
  assert.equal((svc.spec as any).clusterIP, '10.96.0.10');
  assert.deepEqual((svc.spec as any).ports.map((p: any) => p.name), ['dns', 'dns-tcp', 'metrics']);
  assert.equal((await store.listAll('apps', 'daemonsets', 'kube-system')).length, 4);
  const cm = store.find('', 'v1', 'configmaps')!;
  await store.update(cm, 'kube-system', 'coredns', (c) => { (c as any).data.Corefile = 'edited'; return c; }, { ...inProcessWriteContext('kubectl-edit'), namespace: 'kube-system' });
  await bootstrapCluster(store, opts);
  assert.equal(((await store.get('', 'configmaps', 'kube-system', 'coredns')) as any).data.Corefile, 'edited');
  const ds = (await store.get('apps', 'daemonsets', 'kube-system', 'kube-flannel-ds-windows-amd64')) as any;
  assert.equal(JSON.parse(((await store.get('', 'configmaps', 'kube-system', 'kube-flannel-windows-cfg')) as any).data['cni-conf-containerd.json']).name, 'cbr0');
  assert.equal(ds.metadata.managedFields[0].manager, 'kubeadm');
  const proxier = (await store.get('rbac.authorization.k8s.io', 'clusterrolebindings', '', 'kubeadm:node-proxier')) as any;
  assert.deepEqual(proxier.subjects, [{ kind: 'ServiceAccount', name: 'kube-proxy', namespace: 'kube-system' }]);
  await storage.close();
});

test('with Calico, its ClusterRoles and bindings pass validation and are stored with the add-ons', async () => {
  const storage = new SqliteStorage(':memory:');
  const store = new Store(storage, allResources());
  await bootstrapCluster(store, { serviceIP: '10.96.0.1', port: 6443, hostIP: '127.0.0.1', network: { plugin: 'calico' as const, mode: 'overlay' as const } });
  const roles = (await store.listAll('rbac.authorization.k8s.io', 'clusterroles', '')).map((r) => r.metadata.name);
  for (const n of ['calico-node', 'calico-kube-controllers', 'calico-cni-plugin']) assert.ok(roles.includes(n), n);
  const cni = (await store.get('rbac.authorization.k8s.io', 'clusterrolebindings', '', 'calico-cni-plugin')) as any;
  assert.deepEqual(cni.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'calico-cni-plugin' });
  assert.ok(await store.get('', 'serviceaccounts', 'kube-system', 'calico-cni-plugin'));
  assert.equal(await store.get('rbac.authorization.k8s.io', 'clusterroles', '', 'flannel'), undefined);
  await storage.close();
});
