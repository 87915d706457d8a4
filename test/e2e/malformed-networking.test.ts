/**
 * The malformed-input corpus of networking.k8s.io/v1: bodies that do not
 * decode into the Go types (k8s.io/api networking/v1, reported with their Go
 * type names), objects validation refuses (nothing stored), and the status
 * NetworkPolicy no longer has.
 */
import { after, before, test } from 'node:test';
import { rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

let cluster: TestCluster;
const NS = 'netmal';
before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const NP = `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`;
const ING = `/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`;
const IC = '/apis/networking.k8s.io/v1/ingressclasses';

const cannotHandle = (kind: string, err: string) => `${kind} in version "v1" cannot be handled as a ${kind}: ${err}`;
const goField = (struct: string, path: string, what: string, type: string) =>
  `json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${type}`;

const cases: MalformedCase[] = [
  {
    name: 'NetworkPolicy port protocol given a number', method: 'POST', path: NP,
    body: '{"metadata":{"name":"p1"},"spec":{"ingress":[{"ports":[{"protocol":6}]}]}}',
    status: 400, reason: 'BadRequest',
    message: cannotHandle('NetworkPolicy', goField('NetworkPolicyPort', 'spec.ingress.ports.protocol', 'number', 'v1.Protocol')),
    absent: `${NP}/p1`,
  },
  {
    name: 'NetworkPolicy policyTypes given a string', method: 'POST', path: NP,
    body: '{"metadata":{"name":"p2"},"spec":{"policyTypes":"Ingress"}}',
    status: 400, reason: 'BadRequest',
    message: cannotHandle('NetworkPolicy', goField('NetworkPolicySpec', 'spec.policyTypes', 'string', '[]v1.PolicyType')),
    absent: `${NP}/p2`,
  },
  {
    name: 'Ingress backend port number given a string', method: 'POST', path: ING,
    body: '{"metadata":{"name":"i1"},"spec":{"defaultBackend":{"service":{"name":"web","port":{"number":"80"}}}}}',
    status: 400, reason: 'BadRequest',
    message: cannotHandle('Ingress', goField('ServiceBackendPort', 'spec.defaultBackend.service.port.number', 'string', 'int32')),
    absent: `${ING}/i1`,
  },
  {
    name: 'Ingress with neither rules nor default backend', method: 'POST', path: ING,
    body: '{"metadata":{"name":"i2"},"spec":{"rules":[]}}',
    status: 422, reason: 'Invalid',
    message: 'Ingress.networking.k8s.io "i2" is invalid: spec: Invalid value: []networking.IngressRule{}: either `defaultBackend` or `rules` must be specified',
    absent: `${ING}/i2`,
  },
  {
    name: 'IngressClass without a controller', method: 'POST', path: IC,
    body: '{"metadata":{"name":"c1"},"spec":{}}',
    status: 422, reason: 'Invalid',
    message: 'IngressClass.networking.k8s.io "c1" is invalid: spec.controller: Required value',
    absent: `${IC}/c1`,
  },
  {
    name: 'NetworkPolicy in a namespace that does not exist', method: 'POST', path: '/apis/networking.k8s.io/v1/namespaces/nowhere/networkpolicies',
    body: '{"metadata":{"name":"p3"},"spec":{}}',
    status: 404, reason: 'NotFound', message: 'namespaces "nowhere" not found',
    absent: '/apis/networking.k8s.io/v1/namespaces/nowhere/networkpolicies/p3',
  },
];

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));
