/**
 * The rules webhook configurations and admission policies share (validation.go's
 * validateRuleWithOperations and validateMatchConditions), worded alike for both kinds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { validateMatchConditions, validateRuleWithOperations } from '../../src/validation/admission-rules.js';
import { webhookConfigurationValidation } from '../../src/validation/webhook-configuration.js';

const texts = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);

test('a webhook rule reports its operations as the OperationType slice validation.go prints', () => {
  const v = webhookConfigurationValidation('validating');
  const errs = v.validate({
    metadata: { name: 'c' },
    webhooks: [{
      name: 'a.example.com', clientConfig: { url: 'https://h/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE', '*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    }],
  });
  assert.deepEqual(texts(errs), [
    'webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if \'*\' is present, must not specify other operations',
  ]);
  assert.deepEqual(texts(validateRuleWithOperations({ operations: ['CREATE', '*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }, 'r')), [
    'r.operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if \'*\' is present, must not specify other operations',
  ]);
});

test('match conditions: too many shows the count, a literal of another type is not bool, params only where allowed', () => {
  const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
  assert.deepEqual(texts(validateMatchConditions(many, false, 'm')), ['m: Too many: 65: must have at most 64 items']);
  assert.deepEqual(texts(validateMatchConditions([{ name: 'a', expression: '1' }], false, 'm')), ['m[0].expression: Invalid value: "1": must evaluate to bool but got int']);
  assert.deepEqual(texts(validateMatchConditions([{ name: 'a', expression: 'params.x' }], true, 'm')), []);
  assert.match(texts(validateMatchConditions([{ name: 'a', expression: 'params.x' }], false, 'm'))[0]!, /undeclared reference to 'params'/);
});
