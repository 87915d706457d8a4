/** networking.k8s.io/v1: NetworkPolicy, Ingress and IngressClass as a v1.32 kube-apiserver serves them. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kubectl, kubectlFails, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const CORPUS = '../shared/corpus/upstream-examples';
const NP = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';
const ING = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
const IC = '/apis/networking.k8s.io/v1/ingressclasses';

const header = (out: string) => out.split('\n')[0]!.split(/ {2,}/);
const row = (out: string) => out.trimEnd().split('\n')[1]!.split(/ {2,}/);

test('the corpus NetworkPolicy applies and prints its pod selector', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], readFileSync(`${CORPUS}/k8sweb__networkpolicy.yaml`, 'utf8'));
  const out = await kubectlOk(cluster, ['get', 'netpol', 'test-network-policy']);
  assert.deepEqual(header(out), ['NAME', 'POD-SELECTOR', 'AGE']);
  assert.deepEqual(row(out).slice(0, 2), ['test-network-policy', 'role=db']);
  const np = (await rawJSON(cluster, 'GET', `${NP}/test-network-policy`)).body;
  assert.equal(np.metadata.generation, 1);
  assert.equal(np.status, undefined);
});

test('NetworkPolicy defaults: policyTypes from the rules given, port protocol TCP, empty podSelector written', async () => {
  const r = await rawJSON(cluster, 'POST', NP, {
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'defaults' },
    spec: { egress: [{ ports: [{ port: 53 }] }] },
  });
  assert.equal(r.status, 201);
  assert.deepEqual(r.body.spec, { podSelector: {}, egress: [{ ports: [{ protocol: 'TCP', port: 53 }] }], policyTypes: ['Ingress', 'Egress'] });
  const out = await kubectlOk(cluster, ['get', 'networkpolicy', 'defaults', '--no-headers']);
  assert.equal(out.split(/ {2,}/)[1], '<none>');
});

test('NetworkPolicy validation answers with upstream\'s texts', async () => {
  const r = await rawJSON(cluster, 'POST', NP, {
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'bad' },
    spec: {
      podSelector: {},
      ingress: [{ from: [{}, { ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] }, podSelector: {} }], ports: [{ protocol: 'ICMP', port: 'http', endPort: 90 }] }],
      policyTypes: ['Ingress', 'Other'],
    },
  });
  assert.equal(r.status, 422);
  assert.equal(r.body.message, 'NetworkPolicy.networking.k8s.io "bad" is invalid: [' +
    'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP", ' +
    'spec.ingress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` is non-numeric, ' +
    'spec.ingress[0].from[0]: Required value: must specify a peer, ' +
    'spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`, ' +
    'spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer, ' +
    'spec.policyTypes[1]: Unsupported value: "Other": supported values: "Ingress", "Egress"]');
  const bad = await rawJSON(cluster, 'POST', NP, {
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'bad' },
    spec: { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0' } }] }] },
  });
  assert.equal(bad.body.message, 'NetworkPolicy.networking.k8s.io "bad" is invalid: spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)');
});

test('a spec change bumps a NetworkPolicy\'s generation', async () => {
  const patched = await rawJSON(cluster, 'PATCH', `${NP}/defaults`, { spec: { podSelector: { matchLabels: { app: 'x' } } } },
    { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(patched.status, 200);
  assert.equal(patched.body.metadata.generation, 2);
});

test('networkpolicies have no status subresource in v1.32', async () => {
  const r = await rawJSON(cluster, 'GET', `${NP}/defaults/status`);
  assert.equal(r.status, 404);
});

test('the corpus Ingress applies; kubectl get ing prints class, hosts, address and ports', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], readFileSync(`${CORPUS}/k8sweb__example-ingress.yaml`, 'utf8'));
  const out = await kubectlOk(cluster, ['get', 'ing', 'example-ingress']);
  assert.deepEqual(header(out), ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
  assert.deepEqual(row(out).slice(0, 4), ['example-ingress', 'nginx', 'hello-world.example', '80']);
  const ing = (await rawJSON(cluster, 'GET', `${ING}/example-ingress`)).body;
  assert.deepEqual(ing.status, { loadBalancer: {} });
  assert.equal(ing.metadata.generation, 1);
});

test('ingress status is written through the status subresource only', async () => {
  const ing = (await rawJSON(cluster, 'GET', `${ING}/example-ingress`)).body;
  ing.status = { loadBalancer: { ingress: [{ ip: '203.0.113.7' }, { hostname: 'lb.example.com' }] } };
  const put = await rawJSON(cluster, 'PUT', `${ING}/example-ingress/status`, ing);
  assert.equal(put.status, 200);
  assert.deepEqual(put.body.status.loadBalancer.ingress, [{ ip: '203.0.113.7' }, { hostname: 'lb.example.com' }]);
  assert.equal(put.body.metadata.generation, 1);
  const out = await kubectlOk(cluster, ['get', 'ing', 'example-ingress', '--no-headers']);
  // ADDRESS is the sorted set, unclipped: the server prints tables wide.
  assert.equal(out.split(/ {2,}/)[3], '203.0.113.7,lb.example.com');
  // The main resource keeps the status.
  const spec = await rawJSON(cluster, 'PATCH', `${ING}/example-ingress`, { status: null, spec: { rules: [{ host: 'a.example', http: ing.spec.rules[0].http }] } },
    { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(spec.body.status.loadBalancer.ingress.length, 2);
  assert.equal(spec.body.metadata.generation, 2);
  const badStatus = await rawJSON(cluster, 'PATCH', `${ING}/example-ingress/status`, { status: { loadBalancer: { ingress: [{ ip: 'x', hostname: '1.2.3.4' }] } } },
    { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(badStatus.status, 422);
  assert.equal(badStatus.body.message, 'Ingress.networking.k8s.io "example-ingress" is invalid: [' +
    'status.loadBalancer.ingress[0].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), ' +
    'status.loadBalancer.ingress[0].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address]');
});

test('Ingress validation answers with upstream\'s texts', async () => {
  const empty = await rawJSON(cluster, 'POST', ING, { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'bad' }, spec: {} });
  assert.equal(empty.status, 422);
  assert.equal(empty.body.message, 'Ingress.networking.k8s.io "bad" is invalid: spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified');
  const r = await rawJSON(cluster, 'POST', ING, {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
    metadata: { name: 'bad', annotations: { 'kubernetes.io/ingress.class': 'other' } },
    spec: {
      ingressClassName: 'nginx',
      rules: [{
        host: '10.0.0.1',
        http: { paths: [
          { path: '/a//b', pathType: 'Prefix', backend: { service: { name: 'Web', port: { number: 80, name: 'http' } } } },
          { path: 'rel', backend: { service: { name: 'web', port: { number: 80 } } } },
          { path: '/', pathType: 'Regex', backend: {} },
        ] },
      }],
    },
  });
  assert.equal(r.status, 422);
  assert.equal(r.body.message, 'Ingress.networking.k8s.io "bad" is invalid: [' +
    'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address, ' +
    'spec.rules[0].http.paths[0].path: Invalid value: "/a//b": must not contain \'//\', ' +
    'spec.rules[0].http.paths[0].backend.service.name: Invalid value: "Web": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\'), ' +
    'spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number, ' +
    'spec.rules[0].http.paths[1].pathType: Required value: pathType must be specified, ' +
    'spec.rules[0].http.paths[2].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix", ' +
    'spec.rules[0].http.paths[2].backend: Invalid value: "": resource or service backend is required, ' +
    'annotations.kubernetes.io/ingress.class: Invalid value: "other": must match `ingressClassName` when both are specified]');
});

test('an Ingress classed by the deprecated annotation alone is created with v1.32\'s warning', async () => {
  const r = await kubectl(cluster, ['create', '-f', '-'], { input: `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: annotated, annotations: { kubernetes.io/ingress.class: nginx } }
spec: { defaultBackend: { service: { name: web, port: { number: 80 } } } }
` });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, 'Warning: annotation "kubernetes.io/ingress.class" is deprecated, please use \'spec.ingressClassName\' instead\n');
  // Both set and equal: valid, and no warning.
  const both = await kubectl(cluster, ['create', '-f', '-'], { input: `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: both, annotations: { kubernetes.io/ingress.class: nginx } }
spec: { ingressClassName: nginx, defaultBackend: { service: { name: web, port: { number: 80 } } } }
` });
  assert.deepEqual([both.code, both.stderr], [0, '']);
});

test('IngressClass: defaults, printer and validation', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: { name: nginx }
spec:
  controller: k8s.io/ingress-nginx
  parameters: { apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb }
`);
  const ic = (await rawJSON(cluster, 'GET', `${IC}/nginx`)).body;
  assert.equal(ic.spec.parameters.scope, 'Cluster');
  const out = await kubectlOk(cluster, ['get', 'ingressclass', 'nginx']);
  assert.deepEqual(header(out), ['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE']);
  assert.deepEqual(row(out).slice(0, 3), ['nginx', 'k8s.io/ingress-nginx', 'IngressParameters.k8s.example.com/external-lb']);
  const changed = await rawJSON(cluster, 'PATCH', `${IC}/nginx`, { spec: { controller: 'example.com/other' } }, { 'Content-Type': 'application/merge-patch+json' });
  assert.equal(changed.status, 422);
  assert.equal(changed.body.message, 'IngressClass.networking.k8s.io "nginx" is invalid: spec.controller: Invalid value: "example.com/other": field is immutable');
  const err = await kubectlFails(cluster, ['create', '-f', '-'], `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: { name: bad }
spec:
  controller: nginx
  parameters: { kind: P, name: p, scope: Namespace }
`);
  assert.equal(err.trim(), 'The IngressClass "bad" is invalid: \n' +
    '* spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")\n' +
    '* spec.parameters.namespace: Required value: `parameters.scope` is set to \'Namespace\'');
});

test('server-side apply of a NetworkPolicy manages only what was sent (no status in v1.32)', async () => {
  await kubectlOk(cluster, ['apply', '--server-side', '-f', '-'], `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: applied, namespace: default }
spec: { podSelector: { matchLabels: { app: a } }, ingress: [ { ports: [ { port: 80 } ] } ] }
`);
  const np = (await rawJSON(cluster, 'GET', `${NP}/applied`)).body;
  assert.equal(np.status, undefined);
  assert.deepEqual(np.managedFields ?? np.metadata.managedFields.map((m: { manager: string; operation: string; fieldsV1: unknown }) => [m.manager, m.operation, m.fieldsV1]), [
    ['kubectl', 'Apply', { 'f:spec': { 'f:ingress': {}, 'f:podSelector': {} } }],
  ]);
});

test('kubectl explain and describe work for the networking kinds', async () => {
  const explain = await kubectlOk(cluster, ['explain', 'networkpolicy.spec.ingress']);
  assert.match(explain, /^GROUP: +networking\.k8s\.io\nKIND: +NetworkPolicy\nVERSION: +v1\n/);
  assert.match(explain, /FIELD: ingress <\[\]NetworkPolicyIngressRule>/);
  const describe = await kubectlOk(cluster, ['describe', 'netpol', 'test-network-policy']);
  assert.match(describe, /^Name: +test-network-policy\n/);
  assert.match(describe, /PodSelector: +role=db/);
  const ing = await kubectlOk(cluster, ['describe', 'ing', 'example-ingress']);
  assert.match(ing, /Ingress Class: +nginx/);
});
