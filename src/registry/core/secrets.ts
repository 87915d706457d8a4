/** core/v1 secrets. */
import type { Secret } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { goBase64Decode } from '../../openapi/go-base64.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import { metaValidators, nameIsDNSSubdomain } from '../../validation/object-meta.js';
import { validateSecretData, validateSecretImmutable } from '../../validation/secret.js';
import { DecodeError } from '../../apimachinery/quantity.js';

/** Go writes map keys in sorted order. */
function sorted(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Decoding a v1 Secret: data values are base64 (a bad one is a 400),
 * stringData is merged over data (Convert_v1_Secret_To_core_Secret) and
 * never stored; type defaults to Opaque (SetDefaults_Secret).
 */
export function defaultSecret(secret: Record<string, any>): void {
  normalizeMeta(secret);
  const data: Record<string, string> = {};
  if (isObject(secret.data)) {
    for (const [k, v] of Object.entries(secret.data)) {
      if (v === null) { data[k] = ''; continue; }
      if (typeof v !== 'string') throw new DecodeError('illegal base64 data at input byte 0');
      data[k] = goBase64Decode(v).toString('base64');
    }
  }
  if (isObject(secret.stringData)) {
    for (const [k, v] of Object.entries(secret.stringData)) data[k] = Buffer.from(String(v ?? ''), 'utf8').toString('base64');
  }
  delete secret.stringData;
  if (Object.keys(data).length) secret.data = sorted(data); else delete secret.data;
  if (!secret.type) secret.type = 'Opaque';
}

const meta = metaValidators({ namespaced: true, nameFn: nameIsDNSSubdomain });

export const secrets: ResourceDef<Secret> = {
  group: '',
  version: 'v1',
  resource: 'secrets',
  singular: 'secret',
  kind: 'Secret',
  namespaced: true,
  verbs: ALL_VERBS,
  storageVersionHash: 'S6u1pOWzb84=',
  storagePrefix: '/core/secrets',
  defaults: (obj: KObject) => decoding('Secret', () => defaultSecret(obj)),
  validate: (obj) => [...meta.validate(obj), ...validateSecretData(obj)],
  // ValidateObjectMetaUpdate, the immutability checks, then the whole create validation again.
  validateUpdate: (obj, old) => [...meta.validateUpdate(obj, old), ...validateSecretImmutable(obj, old), ...meta.validate(obj), ...validateSecretData(obj)],
  fieldSelectors: {
    type: (s) => s.type ?? '',
  },
};
