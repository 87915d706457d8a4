/**
 * The bootstrap RBAC policy a v1.32 kubeadm cluster has: the API server's
 * roles and bindings (created, and reconciled at each start), the
 * aggregated admin/edit/view roles, kubeadm's bindings and the add-ons'
 * RBAC objects.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const READ = ['get', 'list', 'watch'];

/** system:aggregate-to-view's rules in upstream's testdata/cluster-roles.yaml: what view aggregates. */
const VIEW_RULES = [
  { apiGroups: [''], resources: ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods',
    'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status'], verbs: READ },
  { apiGroups: [''], resources: ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status',
    'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status'], verbs: READ },
  { apiGroups: [''], resources: ['namespaces'], verbs: READ },
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: READ },
  { apiGroups: ['apps'], resources: ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale',
    'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale',
    'statefulsets/status'], verbs: READ },
  { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], verbs: READ },
  { apiGroups: ['batch'], resources: ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], verbs: READ },
  { apiGroups: ['extensions'], resources: ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status',
    'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status',
    'replicationcontrollers/scale'], verbs: READ },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets', 'poddisruptionbudgets/status'], verbs: READ },
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingresses/status', 'networkpolicies'], verbs: READ },
];

async function eventually<T>(what: string, read: () => Promise<T>, want: T): Promise<void> {
  let got = await read();
  for (let i = 0; i < 100 && JSON.stringify(got) !== JSON.stringify(want); i++) {
    await new Promise((r) => setTimeout(r, 100));
    got = await read();
  }
  assert.deepEqual(got, want, what);
}

test('kubectl get clusterrole view -o yaml: the aggregated rules of upstream\'s view role, its labels and annotations', async () => {
  const view = async () => JSON.parse(await ok(['get', 'clusterrole', 'view', '-o', 'json']));
  await eventually('view rules', async () => (await view()).rules, VIEW_RULES);
  const v = await view();
  assert.deepEqual(v.metadata.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' });
  assert.deepEqual(v.metadata.annotations, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
  assert.deepEqual(v.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
  const yaml = await ok(['get', 'clusterrole', 'view', '-o', 'yaml']);
  assert.ok(yaml.endsWith('- apiGroups:\n  - networking.k8s.io\n  resources:\n  - ingresses\n  - ingresses/status\n  - networkpolicies\n' +
    '  verbs:\n  - get\n  - list\n  - watch\n'), yaml);
  // edit gathers view's rules too (view carries aggregate-to-edit), and admin edit's.
  const edit = async () => JSON.parse(await ok(['get', 'clusterrole', 'edit', '-o', 'json'])).rules as unknown[];
  await eventually('edit includes view', async () => JSON.stringify(await edit()).includes(JSON.stringify(VIEW_RULES[9])), true);
});

test('the API server\'s, the controllers\' and kubeadm\'s roles and bindings exist', async () => {
  const roles = (await ok(['get', 'clusterroles', '-o', 'name'])).trim().split('\n');
  for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:node',
    'system:kube-scheduler', 'system:kube-controller-manager', 'system:controller:deployment-controller',
    'system:controller:clusterrole-aggregation-controller', 'system:coredns', 'kubeadm:get-nodes', 'flannel']) {
    assert.ok(roles.includes(`clusterrole.rbac.authorization.k8s.io/${n}`), `no ClusterRole ${n}`);
  }
  const bindings = (await ok(['get', 'clusterrolebindings', '-o', 'name'])).trim().split('\n');
  for (const n of ['cluster-admin', 'system:basic-user', 'system:controller:job-controller', 'kubeadm:cluster-admins',
    'kubeadm:kubelet-bootstrap', 'kubeadm:node-autoapprove-bootstrap', 'kubeadm:node-autoapprove-certificate-rotation',
    'kubeadm:get-nodes', 'kubeadm:node-proxier', 'system:coredns', 'flannel']) {
    assert.ok(bindings.includes(`clusterrolebinding.rbac.authorization.k8s.io/${n}`), `no ClusterRoleBinding ${n}`);
  }
  const wide = await ok(['get', 'clusterrolebinding', 'cluster-admin', 'kubeadm:node-proxier', 'system:controller:job-controller', '-o', 'wide']);
  assert.match(wide, /^cluster-admin\s+ClusterRole\/cluster-admin\s+\S+\s+system:masters\s*$/m);
  assert.match(wide, /^kubeadm:node-proxier\s+ClusterRole\/system:node-proxier\s+\S+\s+kube-system\/kube-proxy$/m);
  assert.match(wide, /^system:controller:job-controller\s+ClusterRole\/system:controller:job-controller\s+\S+\s+kube-system\/job-controller$/m);
  const proxy = await rawJSON(cluster, 'GET', `${RBAC}/namespaces/kube-system/rolebindings/kube-proxy`);
  assert.deepEqual(proxy.body.subjects, [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:bootstrappers:kubeadm:default-node-token' }]);
  const reader = await rawJSON(cluster, 'GET', `${RBAC}/namespaces/kube-system/rolebindings/system::extension-apiserver-authentication-reader`);
  assert.deepEqual(reader.body.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' });
});

test('at the next start, missing bootstrap objects and rules come back; autoupdate "false" objects are left alone', async () => {
  await ok(['delete', 'clusterrole', 'system:heapster']);
  await ok(['patch', 'clusterrole', 'system:basic-user', '--type=json', '-p', '[{"op":"remove","path":"/rules/1"}]']);
  await ok(['patch', 'clusterrole', 'system:kube-dns', '--type=merge', '-p',
    '{"metadata":{"annotations":{"rbac.authorization.kubernetes.io/autoupdate":"false"}},"rules":[{"apiGroups":[""],"resources":["services"],"verbs":["get"]}]}']);
  await ok(['patch', 'clusterrolebinding', 'system:discovery', '--type=merge', '-p', '{"subjects":[{"kind":"User","name":"jane"}]}']);
  await cluster.stop();
  cluster = await startCluster(cluster.dataDir, ['--api-only']);
  await ok(['get', 'clusterrole', 'system:heapster']);
  const basic = JSON.parse(await ok(['get', 'clusterrole', 'system:basic-user', '-o', 'json']));
  assert.deepEqual(basic.rules, [
    { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
    { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
  ]);
  const dns = JSON.parse(await ok(['get', 'clusterrole', 'system:kube-dns', '-o', 'json']));
  assert.deepEqual(dns.rules, [{ apiGroups: [''], resources: ['services'], verbs: ['get'] }]);
  const discovery = JSON.parse(await ok(['get', 'clusterrolebinding', 'system:discovery', '-o', 'json']));
  assert.deepEqual(discovery.subjects, [
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' },
    { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' },
  ]);
});
