/**
 * The RBAC objects kubeadm's init phases and the CNI manifests create in a
 * v1.32 kubeadm cluster, besides the API server's bootstrap policy:
 * - bootstrap-token phase (cmd/kubeadm/app/phases/bootstraptoken/node/tlsbootstrap.go):
 *   kubeadm:kubelet-bootstrap, kubeadm:node-autoapprove-bootstrap,
 *   kubeadm:node-autoapprove-certificate-rotation and the kubeadm:get-nodes
 *   ClusterRole and binding (constants.GetNodesClusterRoleName);
 * - kubeconfig phase: kubeadm:cluster-admins, binding the group of kubeadm's
 *   admin.conf to cluster-admin;
 * - CoreDNS addon (phases/addons/dns/manifests.go): the system:coredns
 *   ClusterRole and ClusterRoleBinding;
 * - kube-proxy addon (phases/addons/proxy/proxy.go): kubeadm:node-proxier
 *   binding the kube-proxy ServiceAccount to system:node-proxier, and the
 *   kube-proxy Role and RoleBinding that let joining nodes read its ConfigMap;
 * - flannel's manifest (kube-flannel.yml): the flannel ClusterRole and its
 *   binding to the flannel ServiceAccount (here in kube-system, with the
 *   DaemonSets);
 * - Calico's manifest (calico.yaml): its three ClusterRoles and bindings.
 * Subjects are written as kubeadm's Go code writes them (no apiGroup: the
 * API server's defaulting fills it in for User and Group).
 */
type Obj = Record<string, any>;

const API_VERSION = 'rbac.authorization.k8s.io/v1';
const GROUP = 'rbac.authorization.k8s.io';
const NS = 'kube-system';
/** constants.NodeBootstrapTokenAuthGroup */
const BOOTSTRAP_TOKENS = 'system:bootstrappers:kubeadm:default-node-token';
/** constants.NodesGroup */
const NODES = 'system:nodes';

const group = (name: string): Obj => ({ kind: 'Group', name });
const serviceAccount = (name: string): Obj => ({ kind: 'ServiceAccount', name, namespace: NS });

function clusterRoleBinding(name: string, role: string, subjects: Obj[], labels?: Record<string, string>): Obj {
  return {
    apiVersion: API_VERSION, kind: 'ClusterRoleBinding', metadata: { name, ...(labels ? { labels } : {}) },
    subjects, roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: role },
  };
}

export function kubeadmBootstrapRBAC(): Obj[] {
  return [
    clusterRoleBinding('kubeadm:cluster-admins', 'cluster-admin', [group('kubeadm:cluster-admins')]),
    {
      apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name: 'kubeadm:get-nodes' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }],
    },
    clusterRoleBinding('kubeadm:get-nodes', 'kubeadm:get-nodes', [group(BOOTSTRAP_TOKENS)]),
    clusterRoleBinding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', [group(BOOTSTRAP_TOKENS)]),
    clusterRoleBinding('kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
      [group(BOOTSTRAP_TOKENS)]),
    clusterRoleBinding('kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
      [group(NODES)]),
  ];
}

export function coreDNSRBAC(): Obj[] {
  return [
    {
      apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name: 'system:coredns' },
      rules: [
        { verbs: ['list', 'watch'], apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'] },
        { verbs: ['list', 'watch'], apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'] },
      ],
    },
    clusterRoleBinding('system:coredns', 'system:coredns', [serviceAccount('coredns')]),
  ];
}

export function kubeProxyRBAC(): Obj[] {
  return [
    clusterRoleBinding('kubeadm:node-proxier', 'system:node-proxier', [serviceAccount('kube-proxy')]),
    {
      apiVersion: API_VERSION, kind: 'Role', metadata: { name: 'kube-proxy', namespace: NS },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['kube-proxy'] }],
    },
    {
      apiVersion: API_VERSION, kind: 'RoleBinding', metadata: { name: 'kube-proxy', namespace: NS },
      subjects: [group(BOOTSTRAP_TOKENS)], roleRef: { apiGroup: GROUP, kind: 'Role', name: 'kube-proxy' },
    },
  ];
}

export function flannelRBAC(): Obj[] {
  const labels = { 'k8s-app': 'flannel' };
  return [
    {
      apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name: 'flannel', labels },
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['nodes'] },
        { verbs: ['patch'], apiGroups: [''], resources: ['nodes/status'] },
      ],
    },
    clusterRoleBinding('flannel', 'flannel', [serviceAccount('flannel')], labels),
  ];
}

/**
 * Calico v3.29.1's manifests/calico.yaml (Kubernetes datastore, Calico
 * networking): the calico-kube-controllers, calico-node and
 * calico-cni-plugin ClusterRoles, each bound to its ServiceAccount.
 * Rendered from that manifest with its rules in its order.
 */
export function calicoRBAC(): Obj[] {
  return [
    {
      apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name: 'calico-kube-controllers' },
      rules: [
        { verbs: ['watch', 'list', 'get'], apiGroups: [''], resources: ['nodes'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['list'], apiGroups: ['crd.projectcalico.org'], resources: ['ipreservations'] },
        { verbs: ['get', 'list', 'create', 'update', 'delete', 'watch'], apiGroups: ['crd.projectcalico.org'], resources: ['blockaffinities', 'ipamblocks', 'ipamhandles', 'tiers'] },
        { verbs: ['list', 'watch'], apiGroups: ['crd.projectcalico.org'], resources: ['ippools'] },
        { verbs: ['get', 'list', 'create', 'update', 'delete'], apiGroups: ['crd.projectcalico.org'], resources: ['hostendpoints'] },
        { verbs: ['get', 'list', 'create', 'update', 'watch'], apiGroups: ['crd.projectcalico.org'], resources: ['clusterinformations'] },
        { verbs: ['get', 'create', 'update', 'watch'], apiGroups: ['crd.projectcalico.org'], resources: ['kubecontrollersconfigurations'] },
      ],
    },
    {
      apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name: 'calico-node' },
      rules: [
        { verbs: ['create'], apiGroups: [''], resourceNames: ['calico-cni-plugin'], resources: ['serviceaccounts/token'] },
        { verbs: ['get'], apiGroups: [''], resources: ['pods', 'nodes', 'namespaces'] },
        { verbs: ['watch', 'list'], apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'] },
        { verbs: ['watch', 'list', 'get'], apiGroups: [''], resources: ['endpoints', 'services'] },
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
        { verbs: ['patch', 'update'], apiGroups: [''], resources: ['nodes/status'] },
        { verbs: ['watch', 'list'], apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'] },
        { verbs: ['watch', 'list'], apiGroups: ['policy.networking.k8s.io'], resources: ['adminnetworkpolicies'] },
        { verbs: ['list', 'watch'], apiGroups: [''], resources: ['pods', 'namespaces', 'serviceaccounts'] },
        { verbs: ['patch'], apiGroups: [''], resources: ['pods/status'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: ['crd.projectcalico.org'], resources: [
            'globalfelixconfigs', 'felixconfigurations', 'bgppeers', 'bgpfilters', 'globalbgpconfigs', 'bgpconfigurations',
            'ippools', 'ipreservations', 'ipamblocks', 'globalnetworkpolicies', 'globalnetworksets', 'networkpolicies',
            'networksets', 'clusterinformations', 'hostendpoints', 'blockaffinities', 'caliconodestatuses', 'tiers'
          ] },
        { verbs: ['create'], apiGroups: ['crd.projectcalico.org'], resources: ['tiers'] },
        { verbs: ['create', 'update'], apiGroups: ['crd.projectcalico.org'], resources: ['ippools', 'felixconfigurations', 'clusterinformations'] },
        { verbs: ['update'], apiGroups: ['crd.projectcalico.org'], resources: ['caliconodestatuses'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['nodes'] },
        { verbs: ['create', 'update'], apiGroups: ['crd.projectcalico.org'], resources: ['bgpconfigurations', 'bgppeers'] },
        { verbs: ['get', 'list', 'create', 'update', 'delete'], apiGroups: ['crd.projectcalico.org'], resources: ['blockaffinities', 'ipamblocks', 'ipamhandles'] },
        { verbs: ['get', 'create'], apiGroups: ['crd.projectcalico.org'], resources: ['ipamconfigs'] },
        { verbs: ['watch'], apiGroups: ['crd.projectcalico.org'], resources: ['blockaffinities'] },
        { verbs: ['get'], apiGroups: ['apps'], resources: ['daemonsets'] },
      ],
    },
    {
      apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name: 'calico-cni-plugin' },
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['pods', 'nodes', 'namespaces'] },
        { verbs: ['patch'], apiGroups: [''], resources: ['pods/status'] },
        { verbs: ['get', 'list', 'create', 'update', 'delete'], apiGroups: ['crd.projectcalico.org'], resources: [
            'blockaffinities', 'ipamblocks', 'ipamhandles', 'clusterinformations', 'ippools', 'ipreservations', 'ipamconfigs'
          ] },
      ],
    },
    clusterRoleBinding('calico-kube-controllers', 'calico-kube-controllers', [serviceAccount('calico-kube-controllers')]),
    clusterRoleBinding('calico-node', 'calico-node', [serviceAccount('calico-node')]),
    clusterRoleBinding('calico-cni-plugin', 'calico-cni-plugin', [serviceAccount('calico-cni-plugin')]),
  ];
}

/**
 * The roles of winkube's stand-ins for what a real cluster gets from its
 * installer or cloud, bound to the service accounts they run as: the local
 * volume provisioner (kind's local-path-provisioner-role, for winkube's
 * provisioner of the `standard` class) and the load balancer controller,
 * which adds and removes its cleanup finalizer by patching Services as a
 * cloud-controller-manager's role lets it.
 */
export function winkubeControllersRBAC(): Obj[] {
  const events = { verbs: ['create', 'patch', 'update'], apiGroups: ['', 'events.k8s.io'], resources: ['events'] };
  return [
    {
      apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name: 'winkube:local-provisioner' },
      rules: [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['nodes'] },
        { verbs: ['get', 'list', 'watch', 'update'], apiGroups: [''], resources: ['persistentvolumeclaims'] },
        { verbs: ['get', 'list', 'watch', 'create', 'delete'], apiGroups: [''], resources: ['persistentvolumes'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: ['storage.k8s.io'], resources: ['storageclasses'] },
        events,
      ],
    },
    clusterRoleBinding('winkube:local-provisioner', 'winkube:local-provisioner', [serviceAccount('winkube-local-provisioner')]),
    {
      apiVersion: API_VERSION, kind: 'ClusterRole', metadata: { name: 'winkube:load-balancer' },
      rules: [{ verbs: ['patch'], apiGroups: [''], resources: ['services'] }],
    },
    clusterRoleBinding('winkube:load-balancer', 'winkube:load-balancer', [serviceAccount('service-controller')]),
  ];
}
