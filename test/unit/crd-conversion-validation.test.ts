/**
 * The caBundle check of a CRD's conversion webhook (apiserver webhook.ValidateCABundle through
 * client-go's transport.TLSConfigFor) and when an update applies it (allowInvalidCABundle): only
 * once the CRD is Established and its old caBundle was valid.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { createCA } from '../../src/pki/issue.js';
import { conversionOptionsForUpdate, validateConversion } from '../../src/registry/apiextensions/crd-conversion-validation.js';
import { formatFieldErrors } from '../../src/apimachinery/field-errors.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const conversion = (caBundle: string) => ({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://h/convert', caBundle } } });
const check = (caBundle: string) => formatFieldErrors(validateConversion(conversion(caBundle), { requireRecognizedVersion: true, allowInvalidCABundle: false }));
const PATH = 'spec.conversion.webhookClientConfig.caBundle';

function crd(caBundle: string | undefined, established: boolean): CustomResourceDefinition {
  return {
    metadata: { name: 'gadgets.conv.example.com' },
    spec: { group: 'conv.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [],
      conversion: caBundle === undefined ? { strategy: 'None' } : conversion(caBundle) },
    status: { conditions: established ? [{ type: 'Established', status: 'True' }] : [] } as CustomResourceDefinition['status'],
  } as CustomResourceDefinition;
}

test('a caBundle is refused with client-go words and Go\'s %#v of its bytes', async () => {
  const ca = (await createCA()).cert;
  assert.equal(check(b64(ca)), '[]');
  assert.equal(check(b64('no')), `${PATH}: Invalid value: []byte{0x6e, 0x6f}: unable to load root certificates: unable to parse bytes as PEM block`);
  const key = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
  assert.match(check(b64(key)), /: unable to load root certificates: no valid certificate authority data seen$/);
  assert.match(check(b64(`${key}x`)), /: unable to load root certificates: unable to parse bytes as PEM block$/);
  assert.match(check(b64('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')),
    /: unable to load root certificates: failed to parse certificate: x509: malformed certificate$/);
  // A valid certificate anywhere is enough (AppendCertsFromPEM succeeds).
  assert.equal(check(b64(`${key}${ca}`)), '[]');
});

test('an update checks the caBundle only of an established CRD whose old caBundle was valid', async () => {
  const ca = b64((await createCA()).cert);
  assert.equal(conversionOptionsForUpdate(crd(ca, false)).allowInvalidCABundle, true);
  assert.equal(conversionOptionsForUpdate(crd(ca, true)).allowInvalidCABundle, false);
  assert.equal(conversionOptionsForUpdate(crd(undefined, true)).allowInvalidCABundle, false);
  assert.equal(conversionOptionsForUpdate(crd(b64('no'), true)).allowInvalidCABundle, true);
});

test('an update keeps allowing review versions the old CRD already had', () => {
  const old = crd(undefined, true);
  assert.equal(conversionOptionsForUpdate(old).requireRecognizedVersion, true);
  old.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v9'], clientConfig: { url: 'https://h' } } };
  assert.equal(conversionOptionsForUpdate(old).requireRecognizedVersion, false);
});
