/**
 * CRD-time checks of x-kubernetes-validations (apiextensions validation.go
 * ValidateCustomResourceDefinitionOpenAPISchema, cel.ValidFieldPath, compilation.go compileRule).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { fieldPathValid, validationRuleErrors } from '../../src/registry/apiextensions/crd-validation-rules.js';
import type { Schema } from '../../src/openapi/crd-schema.js';

const messages = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);
const P = 'spec.versions[0].schema.openAPIV3Schema';

test("the rule's own fields: rule, message, reason, fieldPath", () => {
  const s: Schema = {
    type: 'object', properties: { a: { type: 'string' } },
    'x-kubernetes-validations': [
      { rule: ' ' },
      { rule: 'true', message: '  ' },
      { rule: 'true\n&& true' },
      { rule: 'true', reason: 'Other' },
      { rule: 'true', fieldPath: '.b' },
    ],
  };
  assert.deepEqual(messages(validationRuleErrors(s, P, false, undefined).schema), [
    `${P}.x-kubernetes-validations[0].rule: Required value: rule is not specified`,
    `${P}.x-kubernetes-validations[1].message: Invalid value: "  ": message must be non-empty if specified`,
    `${P}.x-kubernetes-validations[2].message: Required value: message must be specified if rule contains line breaks`,
    `${P}.x-kubernetes-validations[3].reason: Unsupported value: "Other": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    `${P}.x-kubernetes-validations[4].fieldPath: Invalid value: ".b": fieldPath must be a valid path`,
  ]);
});

test('fieldPath: properties and map keys', () => {
  const s: Schema = { type: 'object', properties: { a: { type: 'object', properties: { 'x.y': { type: 'string' } } }, m: { type: 'object', additionalProperties: { type: 'string' } } } };
  assert.equal(fieldPathValid(s, '.a'), true);
  assert.equal(fieldPathValid(s, ".a['x.y']"), true);
  assert.equal(fieldPathValid(s, ".m['any']"), true);
  assert.equal(fieldPathValid(s, '.a.z'), false);
  assert.equal(fieldPathValid(s, 'a'), false);
});

test('a rule that does not parse is refused as a compilation failure with the rule as the value', () => {
  const s: Schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a.(' }] };
  const [e] = validationRuleErrors(s, P, false, undefined).cel;
  assert.equal(e?.field, `${P}.x-kubernetes-validations[0].rule`);
  assert.match(errorBody(e!), /^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.a\.\(", Message:"", MessageExpression:"", Reason:\(\*apiextensions\.FieldValueErrorReason\)\(nil\), FieldPath:"", OptionalOldSelf:\(\*bool\)\(nil\)\}: compilation failed: ERROR: <input>:1:/);
  assert.deepEqual(validationRuleErrors(s, P, true, undefined).cel, [], 'not compiled when the schema has errors');
});

test('oldSelf where values cannot be correlated, optionalOldSelf without oldSelf', () => {
  const s: Schema = { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }, { rule: 'self != ""', optionalOldSelf: true }] };
  assert.deepEqual(messages(validationRuleErrors(s, `${P}.properties[l].items`, false, `${P}.properties[l]`).cel), [
    `${P}.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[l]`,
    `${P}.properties[l].items.x-kubernetes-validations[1].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
  ]);
});

test('fieldPath as upstream normalizes it: properties as children, map keys in brackets', async () => {
  const { normalizedFieldPath } = await import('../../src/registry/apiextensions/cel-validation.js');
  const s: Schema = { type: 'object', properties: { a: { type: 'object', properties: { 'x.y': { type: 'string' } } }, m: { type: 'object', additionalProperties: { type: 'string' } } } };
  assert.equal(normalizedFieldPath(s, ".a['x.y']"), 'a.x.y');
  assert.equal(normalizedFieldPath(s, '.m.k'), 'm[k]');
  assert.equal(normalizedFieldPath(s, ".m['k']"), 'm[k]');
});
