/**
 * The add-on manifests users re-apply to a kubeadm cluster (kubeadm's own
 * CoreDNS and kube-proxy templates, flannel's kube-flannel.yml) apply with
 * their RBAC objects, and the add-ons' service accounts may then do what the
 * add-ons do.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
const fixture = (name: string) => readFileSync(new URL(`../../../test/e2e/fixtures/addons/${name}`, import.meta.url), 'utf8');

/** Fills kubeadm's Go template placeholders, as kubeadm does from its ClusterConfiguration. */
function render(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{ ?\.(\w+) ?\}\}/g, (whole, key: string) => {
    const value = values[key];
    assert.ok(value !== undefined, `no value for ${whole}`);
    return value;
  });
}

/** `kubectl apply`'s lines, without the warnings it prints for objects created by kubeadm (not by apply). */
const applied = (out: string) => out.split('\n').filter((l) => l && !l.startsWith('Warning: '));

const LAST_APPLIED_WARNING = (resource: string) => `Warning: resource ${resource} is missing the ` +
  'kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply. kubectl apply should only be ' +
  'used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be ' +
  'patched automatically.';

/** `kubectl auth can-i`'s answer (it exits 1 when the answer is no). */
const canI = async (args: string[]) => (await kubectl(cluster, ['auth', 'can-i', ...args])).stdout.trim();
const saCan = (verb: string, resource: string, sa: string) => canI([verb, resource, '--as', `system:serviceaccount:kube-system:${sa}`]);

test("kubeadm's CoreDNS manifests re-applied: every object configured in place, the Service's resourceVersion \"0\" an unconditional update", async () => {
  const dnsIP = (await ok(['get', 'service', 'kube-dns', '-n', 'kube-system', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  const image = (await ok(['get', 'deployment', 'coredns', '-n', 'kube-system', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).trim();
  const manifest = render(fixture('kubeadm-coredns.yaml'), {
    DNSIP: dnsIP, DeploymentName: 'coredns', Replicas: '2', ControlPlaneTaintKey: 'node-role.kubernetes.io/control-plane',
    Image: image, DNSDomain: 'cluster.local',
  });
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: manifest });
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout;
  assert.deepEqual(applied(out), [
    'service/kube-dns configured',
    'deployment.apps/coredns configured',
    'configmap/coredns configured',
    'clusterrole.rbac.authorization.k8s.io/system:coredns configured',
    'clusterrolebinding.rbac.authorization.k8s.io/system:coredns configured',
    'serviceaccount/coredns configured',
  ], out);
  assert.ok(r.stderr.split('\n').includes(LAST_APPLIED_WARNING('services/kube-dns')), r.stderr);
  // Applied a second time, only the Service's patch is not empty: it sets resourceVersion "0" again, which the live object never has.
  assert.deepEqual(applied(await ok(['apply', '-f', '-'], manifest)), [
    'service/kube-dns configured',
    'deployment.apps/coredns unchanged',
    'configmap/coredns unchanged',
    'clusterrole.rbac.authorization.k8s.io/system:coredns unchanged',
    'clusterrolebinding.rbac.authorization.k8s.io/system:coredns unchanged',
    'serviceaccount/coredns unchanged',
  ]);
  assert.equal(await saCan('list', 'endpointslices.discovery.k8s.io', 'coredns'), 'yes');
  assert.equal(await saCan('watch', 'namespaces', 'coredns'), 'yes');
  assert.equal(await saCan('get', 'services', 'coredns'), 'no');
  await ok(['rollout', 'status', 'deployment/coredns', '-n', 'kube-system', '--timeout=60s']);
});

test("kubeadm's kube-proxy manifests re-applied, with the RBAC proxy.go creates", async () => {
  const config = JSON.parse(await ok(['get', 'configmap', 'kube-proxy', '-n', 'kube-system', '-o', 'json'])).data as
    { 'kubeconfig.conf': string; 'config.conf': string };
  const server = /server: (\S+)/.exec(config['kubeconfig.conf'])?.[1];
  assert.ok(server, config['kubeconfig.conf']);
  const image = (await ok(['get', 'daemonset', 'kube-proxy', '-n', 'kube-system', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).trim();
  const manifest = render(fixture('kubeadm-kube-proxy.yaml'), {
    ProxyConfigMap: 'kube-proxy', ProxyConfigMapKey: 'config.conf', ControlPlaneEndpoint: server, Image: image,
    // kubeadm indents the marshalled KubeProxyConfiguration under the block scalar.
    ProxyConfig: config['config.conf'].split('\n').map((l) => `    ${l}`).join('\n'),
  });
  const out = await ok(['apply', '-f', '-'], manifest);
  assert.deepEqual(applied(out), [
    'serviceaccount/kube-proxy configured',
    'clusterrolebinding.rbac.authorization.k8s.io/kubeadm:node-proxier configured',
    'role.rbac.authorization.k8s.io/kube-proxy configured',
    'rolebinding.rbac.authorization.k8s.io/kube-proxy configured',
    'configmap/kube-proxy configured',
    'daemonset.apps/kube-proxy configured',
  ], out);
  assert.equal(await saCan('list', 'endpointslices.discovery.k8s.io', 'kube-proxy'), 'yes');
  assert.equal(await saCan('watch', 'nodes', 'kube-proxy'), 'yes');
  assert.equal(await saCan('update', 'nodes', 'kube-proxy'), 'no');
  assert.equal(await canI(['get', 'configmap/kube-proxy', '-n', 'kube-system',
    '--as', 'system:bootstrap:abcdef', '--as-group', 'system:bootstrappers:kubeadm:default-node-token']), 'yes');
  await ok(['rollout', 'status', 'daemonset/kube-proxy', '-n', 'kube-system', '--timeout=60s']);
});

// The cluster's flannel runs in kube-system; upstream's manifest puts its own in kube-flannel, under the same
// ClusterRole and ClusterRoleBinding names, which it takes over (as on a kubeadm cluster with flannel installed before).
test("flannel's kube-flannel.yml applies with its ClusterRole and binding, and its DaemonSet runs on the Linux nodes", async () => {
  const out = await ok(['apply', '-f', '-'], fixture('kube-flannel.yml'));
  assert.deepEqual(applied(out), [
    'namespace/kube-flannel created',
    'clusterrole.rbac.authorization.k8s.io/flannel configured',
    'clusterrolebinding.rbac.authorization.k8s.io/flannel configured',
    'serviceaccount/flannel created',
    'configmap/kube-flannel-cfg created',
    'daemonset.apps/kube-flannel-ds created',
  ], out);
  const sa = ['--as', 'system:serviceaccount:kube-flannel:flannel'];
  assert.equal(await canI(['patch', 'nodes', '--subresource', 'status', ...sa]), 'yes');
  assert.equal(await canI(['delete', 'nodes', ...sa]), 'no');
  await ok(['rollout', 'status', 'daemonset/kube-flannel-ds', '-n', 'kube-flannel', '--timeout=60s']);
  const linuxNodes = (await ok(['get', 'nodes', '-l', 'kubernetes.io/os=linux', '-o', 'name'])).trim().split('\n').length;
  assert.equal((await ok(['get', 'daemonset', 'kube-flannel-ds', '-n', 'kube-flannel', '-o', 'jsonpath={.status.numberReady}'])).trim(),
    String(linuxNodes));
});
