/** Malformed ValidatingAdmissionPolicies and bindings: upstream's validation answers, and nothing stored. */
import { after, before, test } from 'node:test';
import { removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const pods = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] };

function policy(name: string, spec: Record<string, unknown>, message: string): MalformedCase {
  return {
    name: `ValidatingAdmissionPolicy ${name}: ${message}`, method: 'POST', path: VAP, status: 422, reason: 'Invalid',
    body: JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec }),
    message: `ValidatingAdmissionPolicy.admissionregistration.k8s.io "${name}" is invalid: ${message}`, absent: `${VAP}/${name}`,
  };
}

function binding(name: string, spec: Record<string, unknown>, message: string): MalformedCase {
  return {
    name: `ValidatingAdmissionPolicyBinding ${name}: ${message}`, method: 'POST', path: VAPB, status: 422, reason: 'Invalid',
    body: JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec }),
    message: `ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "${name}" is invalid: ${message}`, absent: `${VAPB}/${name}`,
  };
}

const cases: MalformedCase[] = [
  policy('no-constraints', { validations: [{ expression: 'true' }] }, 'spec.matchConstraints: Required value'),
  policy('no-rules', { matchConstraints: {}, validations: [{ expression: 'true' }] }, 'spec.matchConstraints.resourceRules: Required value'),
  policy('blank-expression', { matchConstraints: pods, validations: [{ expression: ' ' }] },
    'spec.validations[0].expression: Required value: expression is not specified'),
  policy('multi-line-message', { matchConstraints: pods, validations: [{ expression: 'true', message: 'a\nb' }] },
    'spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks'),
  policy('undeclared', { matchConstraints: pods, validations: [{ expression: 'objct.spec == null' }] },
    'spec.validations[0].expression: Invalid value: "objct.spec == null": compilation failed: ERROR: <input>:1:1: undeclared reference to \'objct\' (in container \'\')\n | objct.spec == null\n | ^'),
  policy('bad-scope', { matchConstraints: { resourceRules: [{ ...pods.resourceRules[0], scope: 'Galaxy' }] }, validations: [{ expression: 'true' }] },
    'spec.matchConstraints.resourceRules[0].scope: Unsupported value: "Galaxy": supported values: "*", "Cluster", "Namespaced"'),
  policy('no-param-kind', { paramKind: {}, matchConstraints: pods, validations: [{ expression: 'true' }] },
    '[spec.paramKind.apiVersion: Required value, spec.paramKind.kind: Required value]'),
  policy('bad-variable', { matchConstraints: pods, variables: [{ name: 'x', expression: '' }], validations: [{ expression: 'true' }] },
    'spec.variables[0].expression: Required value: expression is not specified'),
  binding('no-policy', { validationActions: ['Deny'] }, 'spec.policyName: Required value'),
  binding('no-actions', { policyName: 'p' }, 'spec.validationActions: Required value: at least one validation action is required'),
  binding('deny-and-warn', { policyName: 'p', validationActions: ['Deny', 'Warn'] },
    'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'),
  binding('param-both', { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Allow' } },
    '[spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: name and selector are mutually exclusive]'),
  {
    name: 'ValidatingAdmissionPolicy validations of the wrong JSON type: the typed decoder\'s 400', method: 'POST', path: VAP, status: 400, reason: 'BadRequest',
    body: JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'typed' }, spec: { validations: 'x' } }),
    message: 'ValidatingAdmissionPolicy in version "v1" cannot be handled as a ValidatingAdmissionPolicy: json: cannot unmarshal string into Go struct field '
      + 'ValidatingAdmissionPolicySpec.spec.validations of type []v1.Validation',
    absent: `${VAP}/typed`,
  },
];

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));
