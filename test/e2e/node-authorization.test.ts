/**
 * `--authorization-mode Node,RBAC`, as kubeadm runs kube-apiserver: the
 * emulated kubelets register, heartbeat and run pods as system:node:<name>
 * through the Node authorizer and NodeRestriction, and a kubelet's identity
 * reaches only its own Node, Lease, pods and what those pods name.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--authorization-mode', 'Node,RBAC']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const asNode = (node: string) => ['--as', `system:node:${node}`, '--as-group', 'system:nodes'];
const nodeHeaders = (node: string) => ({ 'Impersonate-User': `system:node:${node}`, 'Impersonate-Group': 'system:nodes' });

/** A request as the kubelet of `node`; the body's Status message when refused. */
async function asKubelet(node: string, method: string, path: string, body?: unknown, contentType = 'application/merge-patch+json') {
  const r = await raw(cluster, method, path, {
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { ...nodeHeaders(node), ...(body === undefined ? {} : { 'Content-Type': contentType }) },
  });
  let parsed: any = r.body;
  try { parsed = JSON.parse(r.body); } catch { /* not JSON */ }
  return { status: r.status, body: parsed };
}

test('the kubelets register and run pods as themselves; kubeadm labels the control plane', async () => {
  const nodes = await eventually('six Ready nodes', async () => {
    const out = await kubectl(cluster, ['get', 'nodes', '--no-headers']);
    const lines = out.stdout.trim().split('\n').filter((l) => /\sReady\s/.test(l));
    return lines.length === 6 ? out.stdout : undefined;
  });
  assert.match(nodes, /^winkube-control-plane\s+Ready\s+control-plane\s/m);
  const cp = (await rawJSON(cluster, 'GET', '/api/v1/nodes/winkube-control-plane')).body;
  const managers = cp.metadata.managedFields.map((f: any) => `${f.manager}/${f.operation}${f.subresource ? `/${f.subresource}` : ''}`);
  assert.ok(managers.includes('kubeadm/Update'), managers.join(' '));
  await eventually('CoreDNS running', async () => {
    const out = await kubectl(cluster, ['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '--no-headers']);
    return /Running/.test(out.stdout) ? true : undefined;
  }, 30_000);
});

test("win2019-1's kubelet cannot change win2019-2's Node, nor its own taints or restricted labels", async () => {
  const other = await asKubelet('win2019-1', 'PATCH', '/api/v1/nodes/win2019-2', { metadata: { labels: { a: 'b' } } });
  assert.equal(other.status, 403);
  assert.equal(other.body.reason, 'Forbidden');
  assert.equal(other.body.message, 'nodes "win2019-2" is forbidden: node "win2019-1" is not allowed to modify node "win2019-2"');
  const status = await asKubelet('win2019-1', 'PATCH', '/api/v1/nodes/win2019-2/status', { status: { phase: 'x' } });
  assert.equal(status.body.message, 'nodes "win2019-2" is forbidden: node "win2019-1" is not allowed to modify node "win2019-2"');

  const taints = await asKubelet('win2019-1', 'PATCH', '/api/v1/nodes/win2019-1', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } });
  assert.equal(taints.body.message, 'nodes "win2019-1" is forbidden: node "win2019-1" is not allowed to modify taints');
  const labels = await asKubelet('win2019-1', 'PATCH', '/api/v1/nodes/win2019-1',
    { metadata: { labels: { 'node-role.kubernetes.io/worker': '', 'node-restriction.kubernetes.io/pool': 'a', 'kubernetes.io/os': 'windows' } } });
  assert.equal(labels.body.message, 'nodes "win2019-1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/pool, node-role.kubernetes.io/worker');
  // Its own labels in the kubelet's namespaces are its to set.
  const own = await asKubelet('win2019-1', 'PATCH', '/api/v1/nodes/win2019-1', { metadata: { labels: { 'node.kubernetes.io/pool': 'a', team: 'x' } } });
  assert.equal(own.status, 200);

  // kubectl reads the Node first: the Node authorizer refuses the other node's.
  const label = await kubectl(cluster, [...asNode('win2019-1'), 'label', 'node', 'win2019-2', 'a=b']);
  assert.equal(label.code, 1);
  assert.equal(label.stderr.trim(),
    'Error from server (Forbidden): nodes "win2019-2" is forbidden: User "system:node:win2019-1" cannot get resource "nodes" in API group "" at the cluster scope: node \'win2019-1\' cannot read \'win2019-2\', only its own Node object');
  const list = await kubectl(cluster, [...asNode('win2019-1'), 'get', 'nodes']);
  assert.equal(list.stderr.trim(),
    'Error from server (Forbidden): nodes is forbidden: User "system:node:win2019-1" cannot list resource "nodes" in API group "" at the cluster scope: node \'win2019-1\' cannot read all nodes, only its own Node object');
  assert.equal((await kubectl(cluster, [...asNode('win2019-1'), 'get', 'node', 'win2019-1', '-o', 'name'])).stdout.trim(), 'node/win2019-1');
});

test('a kubelet lists only its pods, and reads the Secrets and ConfigMaps of those alone', async () => {
  const all = await kubectl(cluster, [...asNode('win2019-1'), 'get', 'pods', '-A']);
  assert.equal(all.stderr.trim(),
    'Error from server (Forbidden): pods is forbidden: User "system:node:win2019-1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector');
  const mine = await kubectl(cluster, [...asNode('win2019-1'), 'get', 'pods', '-A', '--field-selector', 'spec.nodeName=win2019-1', '-o', 'jsonpath={.items[*].spec.nodeName}']);
  assert.equal(mine.code, 0, mine.stderr);
  assert.deepEqual([...new Set(mine.stdout.split(' '))], ['win2019-1']);

  assert.equal((await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'app-secret' }, stringData: { k: 'v' } })).status, 201);
  assert.equal((await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'app-config' }, data: { k: 'v' } })).status, 201);
  const denied = "no relationship found between node 'win2019-1' and this object";
  const before = await kubectl(cluster, [...asNode('win2019-1'), 'get', 'secret', 'app-secret']);
  assert.equal(before.stderr.trim(),
    `Error from server (Forbidden): secrets "app-secret" is forbidden: User "system:node:win2019-1" cannot get resource "secrets" in API group "" in the namespace "default": ${denied}`);

  const pod = {
    metadata: { name: 'uses-secret' },
    spec: {
      nodeName: 'win2019-1',
      containers: [{ name: 'c', image: 'mcr.microsoft.com/windows/nanoserver:ltsc2019', envFrom: [{ configMapRef: { name: 'app-config' } }] }],
      volumes: [{ name: 's', secret: { secretName: 'app-secret' } }],
    },
  };
  assert.equal((await rawJSON(cluster, 'POST', '/api/v1/namespaces/default/pods', pod)).status, 201);
  for (const what of ['secret/app-secret', 'configmap/app-config', 'pod/uses-secret']) {
    const [resource, name] = what.split('/');
    const got = await kubectl(cluster, [...asNode('win2019-1'), 'get', resource!, name!, '-o', 'name']);
    assert.equal(got.code, 0, `${what}: ${got.stderr}`);
  }
  // Tokens for the pod's service account, bound to the pod by uid (NodeRestriction).
  const tokenFor = (node: string, spec: unknown) => asKubelet(node, 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec }, 'application/json');
  const unbound = await tokenFor('win2019-1', {});
  assert.equal(unbound.status, 403);
  assert.equal(unbound.body.message, 'serviceaccounts "default" is forbidden: node requested token not bound to a pod');
  const uid = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/default/pods/uses-secret')).body.metadata.uid;
  const boundRef = { apiVersion: 'v1', kind: 'Pod', name: 'uses-secret', uid };
  assert.equal((await tokenFor('win2019-1', { boundObjectRef: boundRef })).status, 201);
  const foreign = await tokenFor('win2019-2', { boundObjectRef: boundRef });
  assert.equal(foreign.body.message,
    'serviceaccounts "default" is forbidden: User "system:node:win2019-2" cannot create resource "serviceaccounts/token" in API group "" in the namespace "default": no relationship found between node \'win2019-2\' and this object');
  // Another node's kubelet may neither delete nor evict the pod.
  const del = await asKubelet('win2019-2', 'DELETE', '/api/v1/namespaces/default/pods/uses-secret');
  assert.equal(del.body.message, 'pods "uses-secret" is forbidden: node "win2019-2" can only delete pods with spec.nodeName set to itself');
  const evict = await asKubelet('win2019-2', 'POST', '/api/v1/namespaces/default/pods/uses-secret/eviction',
    { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'uses-secret' } }, 'application/json');
  assert.equal(evict.body.message, 'pods "uses-secret" is forbidden: node win2019-2 can only evict pods with spec.nodeName set to itself');
  const other = await kubectl(cluster, [...asNode('win2019-2'), 'get', 'secret', 'app-secret']);
  assert.match(other.stderr, /no relationship found between node 'win2019-2' and this object$/m);

  assert.equal((await rawJSON(cluster, 'DELETE', '/api/v1/namespaces/default/pods/uses-secret?gracePeriodSeconds=0')).status, 200);
  await eventually('the secret out of reach once the pod is gone', async () => {
    const r = await kubectl(cluster, [...asNode('win2019-1'), 'get', 'secret', 'app-secret']);
    return r.code === 1 && r.stderr.includes(denied) ? true : undefined;
  });
});

test("a kubelet creates only mirror pods bound to itself, and renews only its own Lease", async () => {
  const plain = await asKubelet('win2019-1', 'POST', '/api/v1/namespaces/default/pods',
    { metadata: { name: 'sneaky' }, spec: { nodeName: 'win2019-1', containers: [{ name: 'c', image: 'busybox' }] } }, 'application/json');
  assert.equal(plain.status, 403);
  assert.equal(plain.body.message, 'pods "sneaky" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "win2019-1" can only create mirror pods');
  const elsewhere = await asKubelet('win2019-1', 'POST', '/api/v1/namespaces/default/pods', {
    metadata: { name: 'static', annotations: { 'kubernetes.io/config.mirror': 'x' } },
    spec: { nodeName: 'win2019-2', containers: [{ name: 'c', image: 'busybox' }] },
  }, 'application/json');
  assert.equal(elsewhere.body.message, 'pods "static" is forbidden: node "win2019-1" can only create pods with spec.nodeName set to itself');

  const lease = await asKubelet('win2019-1', 'PATCH', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/win2019-2', { spec: { holderIdentity: 'x' } });
  assert.equal(lease.body.message,
    'leases.coordination.k8s.io "win2019-2" is forbidden: User "system:node:win2019-1" cannot patch resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease": can only access node lease with the same name as the requesting node');
  const created = await asKubelet('win2019-1', 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
    { metadata: { name: 'win2019-2' }, spec: {} }, 'application/json');
  assert.equal(created.body.message, 'leases.coordination.k8s.io "win2019-2" is forbidden: can only access node lease with the same name as the requesting node');
});

test('kubectl auth can-i --list as a node warns that the list is incomplete', async () => {
  const r = await kubectl(cluster, [...asNode('win2019-1'), 'auth', 'can-i', '--list']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^Warning: the list may be incomplete: node authorizer does not support user rule resolution$/m);
});

test('kubectl auth can-i --list for the default service account: what a v1.32 kubeadm cluster prints', async () => {
  // The bootstrap policy's system:basic-user, system:discovery, system:public-info-viewer and
  // system:service-account-issuer-discovery roles (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go).
  const r = await kubectl(cluster, ['auth', 'can-i', '--list', '--as', 'system:serviceaccount:default:default']);
  assert.equal(r.code, 0, r.stderr);
  const urls = ['/.well-known/openid-configuration/', '/.well-known/openid-configuration', '/api/*', '/api', '/apis/*', '/apis',
    '/healthz', '/healthz', '/livez', '/livez', '/openapi/*', '/openapi', '/openid/v1/jwks/', '/openid/v1/jwks',
    '/readyz', '/readyz', '/version/', '/version/', '/version', '/version'];
  const row = (resource: string, url: string, verb: string) =>
    `${resource.padEnd(48)}${(url ? `[${url}]` : '[]').padEnd(39)}[]               [${verb}]`;
  assert.equal(r.stdout, [
    `${'Resources'.padEnd(48)}${'Non-Resource URLs'.padEnd(39)}Resource Names   Verbs`,
    row('selfsubjectreviews.authentication.k8s.io', '', 'create'),
    row('selfsubjectaccessreviews.authorization.k8s.io', '', 'create'),
    row('selfsubjectrulesreviews.authorization.k8s.io', '', 'create'),
    ...urls.map((u) => row('', u, 'get')),
  ].join('\n') + '\n');
});

test("a SubjectAccessReview's field selector reaches the Node authorizer (AuthorizeWithSelectors, on in v1.32)", async () => {
  const review = async (fieldSelector?: unknown) => (await rawJSON(cluster, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
    spec: { user: 'system:node:win2019-1', groups: ['system:nodes'], resourceAttributes: { verb: 'list', resource: 'pods', ...(fieldSelector ? { fieldSelector } : {}) } },
  })).body;
  assert.equal((await review()).status.allowed, false);
  assert.deepEqual((await review({ rawSelector: 'spec.nodeName=win2019-1' })).status, { allowed: true });
  assert.deepEqual((await review({ requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['win2019-1'] }] })).status, { allowed: true });
  assert.equal((await review({ rawSelector: 'spec.nodeName=win2019-2' })).status.allowed, false);
  // Requirements the authorizers cannot use (Exists) are left out, as a selector that does not parse.
  assert.equal((await review({ requirements: [{ key: 'spec.nodeName', operator: 'Exists' }] })).status.allowed, false);
  const invalid = await review({ rawSelector: 'spec.nodeName=win2019-1', requirements: [{ operator: 'In' }] });
  assert.equal(invalid.message, '.authorization.k8s.io "" is invalid: [spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "spec.nodeName=win2019-1": '
    + 'may not specified at the same time as requirements, spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified, '
    + "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn']");
  const empty = await review({});
  assert.equal(empty.message, '.authorization.k8s.io "" is invalid: spec.resourceAttributes.fieldSelector.requirements: Required value: '
    + 'when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required');
});

test("a pod's service account token reaches the API server through the kubernetes Service: view in its namespace, upstream's 403 elsewhere", async () => {
  const ok = (args: string[]) => kubectlOk(cluster, args);
  await ok(['create', 'namespace', 'team']);
  await ok(['create', 'serviceaccount', 'robot', '-n', 'team']);
  await ok(['create', 'rolebinding', 'robot-view', '--clusterrole=view', '--serviceaccount=team:robot', '-n', 'team']);
  await ok(['run', 'c', '-n', 'team', '--image=curlimages/curl', '--overrides={"spec":{"serviceAccountName":"robot","nodeSelector":{"kubernetes.io/os":"linux"}}}', '--command', '--', 'sleep', '3600']);
  await ok(['wait', '-n', 'team', '--for=condition=Ready', 'pod/c', '--timeout=60s']);
  const inPod = (script: string) => kubectl(cluster, ['exec', '-n', 'team', 'c', '--', 'sh', '-c',
    `D=/var/run/secrets/kubernetes.io/serviceaccount; T=$(cat $D/token); ${script}`]);
  const api = 'https://kubernetes.default.svc/api/v1/namespaces';
  const list = await inPod(`curl -sS --cacert $D/ca.crt -H "Authorization: Bearer $T" ${api}/team/pods`);
  assert.equal(list.code, 0, list.stderr);
  assert.deepEqual(JSON.parse(list.stdout).items.map((p: { metadata: { name: string } }) => p.metadata.name), ['c']);
  const other = await inPod(`curl -sS --cacert $D/ca.crt -H "Authorization: Bearer $T" ${api}/default/pods`);
  assert.equal(JSON.parse(other.stdout).message, 'pods is forbidden: User "system:serviceaccount:team:robot" cannot list resource "pods" in API group "" in the namespace "default"');
  const write = await inPod(`curl -sS --cacert $D/ca.crt -H "Authorization: Bearer $T" -X DELETE ${api}/team/pods/c`);
  assert.equal(JSON.parse(write.stdout).message, 'pods "c" is forbidden: User "system:serviceaccount:team:robot" cannot delete resource "pods" in API group "" in the namespace "team"');
  // Without the cluster CA, curl does not trust the server's certificate; -k skips the check.
  const untrusted = await inPod('curl -sS https://kubernetes.default.svc/version');
  assert.deepEqual([untrusted.code, untrusted.stderr], [60, 'curl: (60) SSL certificate problem: unable to get local issuer certificate\n'
    + 'More details here: https://curl.se/docs/sslcerts.html\n\ncurl failed to verify the legitimacy of the server and therefore could not\n'
    + 'establish a secure connection to it. To learn more about this situation and\nhow to fix it, please visit the webpage mentioned above.\ncommand terminated with exit code 60\n']);
  // Without a token the request is anonymous, as kube-apiserver's anonymous auth takes it.
  const anonymous = await inPod('curl -sk https://kubernetes.default.svc/api/v1/namespaces/team/pods');
  assert.equal(JSON.parse(anonymous.stdout).message, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "team"');
});
