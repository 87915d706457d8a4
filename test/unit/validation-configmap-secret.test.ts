/** ConfigMap and Secret validation (ValidateConfigMap(Update), ValidateSecret(Update), v1.32). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { configmaps } from '../../src/registry/core/configmaps.js';
import { secrets } from '../../src/registry/core/secrets.js';

const msgs = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);
const cm = (o: Record<string, unknown>): any => ({ metadata: { name: 'c', namespace: 'ns' }, ...o });
const b64 = (s: string) => Buffer.from(s).toString('base64');

test('configmap keys: config-key format, no dot names, no key in both data and binaryData', () => {
  assert.deepEqual(msgs(configmaps.validate!(cm({ data: { 'a b': 'x', '..x': 'y', k: 'v' }, binaryData: { k: b64('z') } }))), [
    "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    "data[..x]: Invalid value: \"..x\": must not start with '..'",
    'data[k]: Invalid value: "k": duplicate of key present in binaryData',
  ]);
});

test('configmap size over 1 MiB is Too long on the whole object', () => {
  assert.deepEqual(msgs(configmaps.validate!(cm({ data: { big: 'x'.repeat(1024 * 1024 + 1) } }))),
    [': Too long: may not be more than 1048576 bytes']);
});

test('an immutable configmap keeps its data and immutability', () => {
  const old = cm({ immutable: true, data: { a: '1' } });
  assert.deepEqual(msgs(configmaps.validateUpdate!(cm({ data: { a: '2' } }), old)), [
    'immutable: Forbidden: field is immutable when `immutable` is set',
    'data: Forbidden: field is immutable when `immutable` is set',
  ]);
  assert.deepEqual(msgs(configmaps.validateUpdate!(cm({ immutable: true, data: { a: '1' } }), old)), []);
});

test('secret types require their keys', () => {
  const s = (type: string, data: Record<string, string> = {}, annotations?: Record<string, string>): any =>
    ({ metadata: { name: 's', namespace: 'ns', annotations }, type, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) });
  assert.deepEqual(msgs(secrets.validate!(s('kubernetes.io/tls', { 'tls.key': 'k' }))), ['data[tls.crt]: Required value']);
  assert.deepEqual(msgs(secrets.validate!(s('kubernetes.io/basic-auth'))), ['data[username]: Required value', 'data[password]: Required value']);
  assert.deepEqual(msgs(secrets.validate!(s('kubernetes.io/basic-auth', { password: '' }))), []);
  assert.deepEqual(msgs(secrets.validate!(s('kubernetes.io/ssh-auth'))), ['data[ssh-privatekey]: Required value']);
  assert.deepEqual(msgs(secrets.validate!(s('kubernetes.io/service-account-token'))),
    ['metadata.annotations[kubernetes.io/service-account.name]: Required value']);
  assert.deepEqual(msgs(secrets.validate!(s('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': '{"auths":' }))),
    ['data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input']);
  assert.deepEqual(msgs(secrets.validate!(s('kubernetes.io/dockercfg', { '.dockercfg': '[]' }))),
    ['data[.dockercfg]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}']);
  assert.deepEqual(msgs(secrets.validate!(s('example.com/custom'))), []);
});

test('secret size counts decoded bytes', () => {
  const big: any = { metadata: { name: 's', namespace: 'ns' }, type: 'Opaque', data: { a: Buffer.alloc(1024 * 1024 + 1).toString('base64') } };
  assert.deepEqual(msgs(secrets.validate!(big)), ['data: Too long: may not be more than 1048576 bytes']);
});

test('secret type is immutable; immutable secrets keep their data', () => {
  const old: any = { metadata: { name: 's', namespace: 'ns' }, type: 'Opaque', immutable: true, data: { a: b64('1') } };
  const next: any = { metadata: { name: 's', namespace: 'ns' }, type: 'kubernetes.io/basic-auth', immutable: true, data: { a: b64('2') } };
  assert.deepEqual(msgs(secrets.validateUpdate!(next, old)), [
    'type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
    'data: Forbidden: field is immutable when `immutable` is set',
    'data[username]: Required value',
    'data[password]: Required value',
  ]);
});
