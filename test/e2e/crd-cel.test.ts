/**
 * x-kubernetes-validations on custom resources through the API with real kubectl: Gateway API's own
 * rules, and a small CRD with message, messageExpression, fieldPath, reason and an immutable field.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { eventually, kubectl, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { CORPUS_DIR } from '../helpers/golden.js';

const CORPUS = join(CORPUS_DIR, 'crds');

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

async function established(name: string): Promise<void> {
  await eventually(`${name} Established`, async () => {
    const r = await rawJSON(cluster, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    return r.body?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
}

const gateway = (name: string, listener: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: ${name}
  namespace: default
spec:
  gatewayClassName: example
  listeners:
${listener}`;

test('Gateway API: a Gateway breaking a listener rule is refused with the rule\'s message, a valid one is accepted', async () => {
  await kubectlOk(cluster, ['apply', '--server-side', '-f', join(CORPUS, 'gwapi__gateway.networking.k8s.io_gateways.yaml')]);
  await established('gateways.gateway.networking.k8s.io');
  const bad = await kubectl(cluster, ['create', '-f', '-'], { input: gateway('bad', '  - name: tls\n    port: 443\n    protocol: TLS\n') });
  assert.notEqual(bad.code, 0);
  assert.equal(bad.stderr.trim(), 'The Gateway "bad" is invalid: spec.listeners: Invalid value: "array": tls mode must be set for protocol TLS');
  await kubectlOk(cluster, ['create', '-f', '-'], gateway('good', '  - name: http\n    port: 80\n    protocol: HTTP\n'));
});

const THINGS = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'things.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced',
    names: { plural: 'things', singular: 'thing', kind: 'Thing' },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                id: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] },
                min: { type: 'integer' },
                max: { type: 'integer' },
                mode: { type: 'string' },
              },
              'x-kubernetes-validations': [
                { rule: '!has(self.min) || !has(self.max) || self.min <= self.max', messageExpression: "'min ' + string(self.min) + ' is above max ' + string(self.max)", fieldPath: '.min' },
                { rule: "!has(self.mode) || self.mode != 'legacy'", message: 'legacy mode is not allowed', reason: 'FieldValueForbidden', fieldPath: '.mode' },
                { rule: 'has(self.id)' },
              ],
            },
          },
        },
      },
    }],
  },
};

test('a CRD\'s rules: messageExpression with fieldPath, reason, the default message, and an immutable field', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(THINGS));
  await established('things.example.com');
  const thing = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec });
  const r = await rawJSON(cluster, 'POST', '/apis/example.com/v1/namespaces/default/things', JSON.parse(thing({ min: 5, max: 2, mode: 'legacy' })));
  assert.equal(r.status, 422);
  assert.equal(r.body.message, 'Thing.example.com "t" is invalid: [spec.min: Invalid value: "object": min 5 is above max 2, spec.mode: Forbidden: legacy mode is not allowed, spec: Invalid value: "object": failed rule: has(self.id)]');
  assert.deepEqual(r.body.details.causes, [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "object": min 5 is above max 2', field: 'spec.min' },
    { reason: 'FieldValueForbidden', message: 'Forbidden: legacy mode is not allowed', field: 'spec.mode' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: "object": failed rule: has(self.id)', field: 'spec' },
  ]);
  await kubectlOk(cluster, ['create', '--save-config', '-f', '-'], thing({ id: 'a', min: 1, max: 2 }));
  const changed = await kubectl(cluster, ['apply', '-f', '-'], { input: thing({ id: 'b', min: 1, max: 2 }) });
  assert.notEqual(changed.code, 0);
  assert.equal(changed.stderr.trim(), 'The Thing "t" is invalid: spec.id: Invalid value: "string": Value is immutable');
  await kubectlOk(cluster, ['apply', '-f', '-'], thing({ id: 'a', min: 1, max: 3 }));
});

test("Calico: an IPPool's cidr rules (the CIDR library) refuse a link-local pool and accept a masked one", async () => {
  await kubectlOk(cluster, ['apply', '--server-side', '-f', join(CORPUS, 'calico__crd.projectcalico.org_ippools.yaml')]);
  await established('ippools.crd.projectcalico.org');
  const pool = (name: string, cidr: string) => `apiVersion: crd.projectcalico.org/v1
kind: IPPool
metadata:
  name: ${name}
spec:
  cidr: ${cidr}
`;
  const bad = await kubectl(cluster, ['create', '-f', '-'], { input: pool('link-local', '169.254.0.0/16') });
  assert.notEqual(bad.code, 0);
  assert.equal(bad.stderr.trim(), 'The IPPool "link-local" is invalid: spec: Invalid value: "object": IPPool CIDR overlaps with IPv4 link local range 169.254.0.0/16');
  const unmasked = await kubectl(cluster, ['create', '-f', '-'], { input: pool('unmasked', '10.244.0.1/16') });
  assert.equal(unmasked.stderr.trim(), 'The IPPool "unmasked" is invalid: spec: Invalid value: "object": IPPool CIDR must be strictly masked');
  await kubectlOk(cluster, ['create', '-f', '-'], pool('default', '10.244.0.0/16'));
});

test('a schema error that makes the rules unreliable (a required field missing) stops them: upstream\'s note instead', async () => {
  const r = await rawJSON(cluster, 'POST', '/apis/example.com/v1/namespaces/default/things', {
    apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'typed', namespace: 'default' }, spec: { min: 'one', max: 2 },
  });
  assert.equal(r.status, 422);
  assert.equal(r.body.message, 'Thing.example.com "typed" is invalid: [spec.min: Invalid value: "string": spec.min in body must be of type integer: "string", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]');
});

test('a CRD is refused when a rule uses oldSelf under a list that is not a map list, or does not parse', async () => {
  const crd = (rules: unknown[]) => ({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'lists.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'lists', singular: 'list', kind: 'List2' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: {
        spec: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': rules } } } },
      } } } }],
    },
  });
  const p = 'spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-validations[0]';
  const oldSelf = await rawJSON(cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd([{ rule: 'self == oldSelf' }]));
  assert.equal(oldSelf.status, 422);
  assert.deepEqual(oldSelf.body.details.causes, [{
    reason: 'FieldValueInvalid', field: `${p}.rule`,
    message: 'Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[tags]',
  }]);
  const unparsed = await rawJSON(cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd([{ rule: 'self.(' }]));
  assert.equal(unparsed.status, 422);
  assert.equal(unparsed.body.details.causes[0].field, `${p}.rule`);
  assert.match(unparsed.body.details.causes[0].message, /^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.\(", .*\}: compilation failed: ERROR: <input>:1:/);
});
