/**
 * The client configuration of admission and conversion webhooks, checked by one module
 * (apiserver pkg/util/webhook/validation.go ValidateWebhookURL, ValidateWebhookService).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { webhookConfigurationValidation } from '../../src/validation/webhook-configuration.js';
import { validateConversion } from '../../src/registry/apiextensions/crd-conversion-validation.js';

const texts = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);
const hookWith = (clientConfig: unknown) => webhookConfigurationValidation('validating').validate({
  metadata: { name: 'c' },
  webhooks: [{ name: 'a.example.com', clientConfig, sideEffects: 'None', admissionReviewVersions: ['v1'] }],
});
const conversionWith = (clientConfig: Record<string, unknown>) => validateConversion(
  { strategy: 'Webhook', webhook: { clientConfig, conversionReviewVersions: ['v1'] } }, { requireRecognizedVersion: true, allowInvalidCABundle: true });

test("a URL Go's url.Parse refuses is the same Required error for an admission webhook as for a conversion webhook", () => {
  const detail = 'Required value: url must be a valid URL: parse "https://h/\\x01": net/url: invalid control character in URL; desired format: https://host[/path]';
  assert.deepEqual(texts(hookWith({ url: 'https://h/\x01' })), [`webhooks[0].clientConfig.url: ${detail}`]);
  assert.deepEqual(texts(conversionWith({ url: 'https://h/\x01' })), [`spec.conversion.webhookClientConfig.url: ${detail}`]);
});

test('service references are checked alike, each with the port its defaulting leaves', () => {
  assert.deepEqual(texts(hookWith({ service: { namespace: 'ns', name: 's', path: '/a//b' } })), [
    'webhooks[0].clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty',
  ]);
  assert.deepEqual(texts(conversionWith({ service: { namespace: 'ns', name: 's', path: '/a//b', port: 443 } })), [
    'spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty',
  ]);
});
