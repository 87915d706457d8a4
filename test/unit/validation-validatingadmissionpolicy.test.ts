/**
 * ValidatingAdmissionPolicy and binding validation (pkg/apis/admissionregistration/validation,
 * v1.32) and the compile errors of their CEL expressions (cel-go's Issues.String()).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import {
  validateValidatingAdmissionPolicyBindingSpec, validateValidatingAdmissionPolicySpec, validateValidatingAdmissionPolicySpecUpdate,
} from '../../src/validation/validatingadmissionpolicy.js';
import { displayError } from '../../src/cel/compile.js';

const texts = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);

const rules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: '*' }];
const constraints = { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: rules };
const policy = (spec: Record<string, unknown>, name = 'p') => ({
  metadata: { name }, spec: { failurePolicy: 'Fail', matchConstraints: constraints, validations: [{ expression: 'true' }], ...spec },
});

test('cel-go\'s display of an error: the line, and dots up to the column', () => {
  assert.equal(displayError('a +\n  b.c(x)', 6, "undeclared reference to 'b' (in container '')"),
    "ERROR: <input>:2:3: undeclared reference to 'b' (in container '')\n |   b.c(x)\n | ..^");
});

test('expressions: undeclared references per expression kind, variables, literals of the wrong type', () => {
  assert.deepEqual(texts(validateValidatingAdmissionPolicySpec(policy({
    variables: [{ name: 'in', expression: 'object.x' }, { name: 'ok', expression: 'params.x' }],
    validations: [{ expression: 'variables.ok && x.all(y, y > 0)', messageExpression: '42' }],
    matchConditions: [{ name: 'Bad Name', expression: 'variables.ok' }],
  }))), [
    'spec.matchConditions[0].expression: Invalid value: "variables.ok": compilation failed: ERROR: <input>:1:1: undeclared reference to \'variables\' (in container \'\')\n | variables.ok\n | ^',
    'spec.matchConditions[0].name: Invalid value: "Bad Name": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
    'spec.variables[1].expression: Invalid value: "params.x": compilation failed: ERROR: <input>:1:1: undeclared reference to \'params\' (in container \'\')\n | params.x\n | ^',
    'spec.validations[0].expression: Invalid value: "variables.ok && x.all(y, y > 0)": compilation failed: ERROR: <input>:1:17: undeclared reference to \'x\' (in container \'\')\n | variables.ok && x.all(y, y > 0)\n | ................^',
    'spec.validations[0].messageExpression: Invalid value: "42": must evaluate to string but got int',
  ]);
});

test('match constraints, paramKind and audit annotations', () => {
  assert.deepEqual(texts(validateValidatingAdmissionPolicySpec(policy({
    failurePolicy: undefined,
    paramKind: { apiVersion: 'a/b/c', kind: 'Config_Map' },
    matchConstraints: {
      matchPolicy: 'Sometimes', namespaceSelector: {},
      resourceRules: [{ apiGroups: ['', '*'], apiVersions: [], operations: ['CREATE', '*'], resources: ['pods/*', 'pods/log'], resourceNames: ['a', 'a'] }],
    },
    validations: [],
    auditAnnotations: [{ key: 'k', valueExpression: '1' }, { key: 'k', valueExpression: 'object.metadata.name' }],
  }, 'pol'))), [
    'spec.failurePolicy: Required value',
    'spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
    'spec.paramKind.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    'spec.matchConstraints.matchPolicy: Unsupported value: "Sometimes": supported values: "Equivalent", "Exact"',
    'spec.matchConstraints.objectSelector: Required value',
    'spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "a"',
    'spec.matchConstraints.resourceRules[0].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if \'*\' is present, must not specify other operations',
    'spec.matchConstraints.resourceRules[0].apiGroups: Invalid value: []string{"", "*"}: if \'*\' is present, must not specify other API groups',
    'spec.matchConstraints.resourceRules[0].apiVersions: Required value',
    'spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: "pods/log": if \'pods/*\' is present, must not specify pods/log',
    'spec.auditAnnotations[0].valueExpression: Invalid value: "1": must evaluate to one of [string null_type] but got int',
    'spec.auditAnnotations[1].key: Duplicate value: "k"',
  ]);
});

test('an update checks match conditions again only when they or paramKind change', () => {
  const old = policy({ matchConditions: [{ name: 'm', expression: 'params.x' }] });
  assert.deepEqual(validateValidatingAdmissionPolicySpecUpdate(policy({ matchConditions: [{ name: 'm', expression: 'params.x' }], validations: [{ expression: 'false' }] }), old), []);
  assert.equal(validateValidatingAdmissionPolicySpecUpdate(policy({ matchConditions: [{ name: 'n', expression: 'params.x' }] }), old).length, 1);
});

test('bindings: policyName, paramRef and validationActions', () => {
  assert.deepEqual(texts(validateValidatingAdmissionPolicyBindingSpec({ spec: {
    policyName: 'Bad_Name', paramRef: { parameterNotFoundAction: 'Maybe' }, validationActions: ['Deny', 'Block'],
    matchResources: { matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: { matchLabels: { 'a b': 'c' } } },
  } })), [
    'spec.policyName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    'spec.paramRef: Required value: one of name or selector must be specified',
    'spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"',
    'spec.matchResouces.objectSelector.matchLabels: Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    'spec.validationActions[1]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"',
  ]);
});
