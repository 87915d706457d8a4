import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { loadEncryptionConfig, validateEncryptionConfiguration, type EncryptionConfigurationDoc } from '../../src/storage/transformers/encryption-config.js';
import { formatFieldErrors } from '../../src/apimachinery/field-errors.js';

const k32 = () => randomBytes(32).toString('base64');
const AD = Buffer.from('/registry/secrets/default/s');

function withFile<T>(text: string, f: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'enc-'));
  try {
    const file = join(dir, 'c.yaml');
    writeFileSync(file, text);
    return f(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function doc(resources: EncryptionConfigurationDoc['resources']): string {
  return JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources });
}

test('validation messages are upstream\'s', () => {
  const errs = validateEncryptionConfiguration({
    resources: [
      { resources: ['secrets', '*.'], providers: [{ aescbc: { keys: [{ name: 'k', secret: Buffer.alloc(8).toString('base64') }] } }] },
      { resources: ['Secrets', 'deployments.*', 'events.events.k8s.io'], providers: [{}] },
      { resources: ['configmaps'], providers: [{ secretbox: { keys: [{ name: '', secret: 'not base64!' }] } }] },
    ],
  });
  assert.equal(formatFieldErrors(errs), '[' + [
    'resources[0].resources: Invalid value: []string{"secrets", "*."}: using overlapping resources such as \'secrets\' and \'*.\' in the same resource list is not allowed as they will be masked',
    'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]',
    'resources[1].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters',
    'resources[1].resources[1]: Invalid value: "deployments.*": encrypting the same resource across groups is not supported',
    'resources[1].resources[2]: Invalid value: "events.events.k8s.io": \'*.events.k8s.io\' objects are stored using the \'events\' API group in etcd. Use \'events\' instead in the config file',
    'resources[1].providers[0]: Invalid value: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity',
    'resources[2].providers[0].secretbox.keys[0].name: Required value: name is a mandatory field for a key',
    'resources[2].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded',
  ].join(', ') + ']');
  assert.equal(formatFieldErrors(validateEncryptionConfiguration({ resources: [] })), 'resources: Required value: at least one resources is required');
});

test('a resource masked by an earlier wildcard rule is refused when building transformers', () => {
  const text = doc([
    { resources: ['*.'], providers: [{ identity: {} }] },
    { resources: ['secrets'], providers: [{ aescbc: { keys: [{ name: 'k', secret: k32() }] } }] },
  ]);
  assert.throws(() => withFile(text, loadEncryptionConfig), { message: 'error while building transformers: resource "secrets" is masked by earlier rule "*."' });
  assert.throws(() => withFile('', loadEncryptionConfig), /^Error: error while parsing file: error while loading file: encryption provider configuration file ".*c\.yaml" is empty$/);
});

test('aescbc, aesgcm and secretbox write upstream\'s prefix and layout; the first provider writes and every one reads', () => {
  const cbcKey = randomBytes(32);
  const gcmKey = randomBytes(16);
  const boxKey = randomBytes(32);
  const plain = Buffer.from('{"kind":"Secret","data":{"a":"Yg=="}}');
  const config = (first: 'aescbc' | 'aesgcm' | 'secretbox') => {
    const all = {
      aescbc: { aescbc: { keys: [{ name: 'cbc1', secret: cbcKey.toString('base64') }] } },
      aesgcm: { aesgcm: { keys: [{ name: 'gcm1', secret: gcmKey.toString('base64') }] } },
      secretbox: { secretbox: { keys: [{ name: 'box1', secret: boxKey.toString('base64') }] } },
    };
    return withFile(doc([{ resources: ['secrets'], providers: [all[first], ...Object.entries(all).filter(([k]) => k !== first).map(([, v]) => v)] }]),
      loadEncryptionConfig).transformerFor({ group: '', resource: 'secrets' })!;
  };
  const cbc = config('aescbc').toStorage(plain, AD);
  assert.equal(cbc.subarray(0, 23).toString(), 'k8s:enc:aescbc:v1:cbc1:');
  assert.equal((cbc.length - 23 - 16) % 16, 0);
  const gcm = config('aesgcm').toStorage(plain, AD);
  assert.equal(gcm.subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:gcm1:');
  assert.equal(gcm.length, 23 + 12 + plain.length + 16);
  const box = config('secretbox').toStorage(plain, AD);
  assert.equal(box.subarray(0, 26).toString(), 'k8s:enc:secretbox:v1:box1:');
  // The layout is NaCl's: the nonce, then secretbox's sealed text, which nacl itself opens.
  const sealed = box.subarray(26);
  assert.deepEqual(Buffer.from(nacl.secretbox.open(sealed.subarray(24), sealed.subarray(0, 24), boxKey)!), plain);
  // GCM's layout: the nonce, the text, the tag, with the key as additional data (a value moved to another key does not open).
  const reader = config('aescbc');
  assert.deepEqual(reader.fromStorage(cbc, AD), { value: plain, stale: false });
  assert.deepEqual(reader.fromStorage(gcm, AD), { value: plain, stale: true });
  assert.deepEqual(reader.fromStorage(box, AD), { value: plain, stale: true });
  assert.throws(() => reader.fromStorage(gcm, Buffer.from('/registry/secrets/default/other')), { message: 'cipher: message authentication failed' });
  // A value kube-apiserver wrote with aescbc (IV, then PKCS#7-padded CBC) reads here.
  const iv = randomBytes(16);
  const c = createCipheriv('aes-256-cbc', cbcKey, iv);
  const upstream = Buffer.concat([Buffer.from('k8s:enc:aescbc:v1:cbc1:'), iv, c.update(plain), c.final()]);
  assert.deepEqual(reader.fromStorage(upstream, AD).value, plain);
  // Without identity among the providers, a plain value (written before encryption) is not read.
  assert.throws(() => reader.fromStorage(plain, AD), { message: 'no matching prefix found' });
});

test('identity first: values are written as they are, encrypted ones still read; no matching key is upstream\'s error', () => {
  const key = randomBytes(32);
  const t = withFile(doc([{ resources: ['*.*'], providers: [{ identity: {} }, { aescbc: { keys: [{ name: 'old', secret: key.toString('base64') }] } }] }]),
    loadEncryptionConfig).transformerFor({ group: 'apps', resource: 'deployments' })!;
  const plain = Buffer.from('{}');
  assert.deepEqual(t.toStorage(plain, AD), plain);
  assert.deepEqual(t.fromStorage(plain, AD), { value: plain, stale: false });
  // A value still under the old key reads, and is stale: an update decrypts it for good.
  const old = withFile(doc([{ resources: ['*.*'], providers: [{ aescbc: { keys: [{ name: 'old', secret: key.toString('base64') }] } }] }]),
    loadEncryptionConfig).transformerFor({ group: 'apps', resource: 'deployments' })!.toStorage(plain, AD);
  assert.deepEqual(t.fromStorage(old, AD), { value: plain, stale: true });
  const other = withFile(doc([{ resources: ['secrets'], providers: [{ aescbc: { keys: [{ name: 'new', secret: k32() }] } }] }]), loadEncryptionConfig)
    .transformerFor({ group: '', resource: 'secrets' })!;
  assert.throws(() => other.fromStorage(Buffer.from('k8s:enc:aescbc:v1:old:0123456789abcdef0123456789abcdef'), AD),
    { message: 'no matching key was found for the provided AES transformer' });
  assert.throws(() => other.fromStorage(Buffer.from('k8s:enc:aesgcm:v1:x:abc'), AD), { message: 'no matching prefix found' });
});
