/** core/v1 configmaps. */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { goBase64Decode } from '../../openapi/go-base64.js';
import { decoding, isObject, normalizeMeta, pruneEmpty } from './decode.js';
import { metaValidators, nameIsDNSSubdomain } from '../../validation/object-meta.js';
import { validateConfigMapData, validateConfigMapImmutable } from '../../validation/configmap.js';
import { DecodeError } from '../../apimachinery/quantity.js';

/**
 * Decoding a v1 ConfigMap: binaryData values are base64 (re-encoded
 * canonically; a bad one is a 400). SetDefaults_ConfigMap's empty data map
 * is invisible on the wire, as are empty maps in general.
 */
export function defaultConfigMap(cm: Record<string, any>): void {
  normalizeMeta(cm);
  if (isObject(cm.binaryData)) {
    for (const [k, v] of Object.entries(cm.binaryData)) {
      if (v === null) { cm.binaryData[k] = ''; continue; }
      if (typeof v !== 'string') throw new DecodeError('illegal base64 data at input byte 0');
      cm.binaryData[k] = goBase64Decode(v).toString('base64');
    }
  }
  pruneEmpty(cm, 'data', 'binaryData');
}

const meta = metaValidators({ namespaced: true, nameFn: nameIsDNSSubdomain });

export const configmaps: ResourceDef<ConfigMap> = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  singular: 'configmap',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  verbs: ALL_VERBS,
  storageVersionHash: 'qFsyl6wFWjQ=',
  storagePrefix: '/core/configmaps',
  defaults: (obj: KObject) => decoding('ConfigMap', () => defaultConfigMap(obj)),
  validate: (obj) => [...meta.validate(obj), ...validateConfigMapData(obj)],
  // ValidateObjectMetaUpdate, the immutability checks, then the whole create validation again.
  validateUpdate: (obj, old) => [...meta.validateUpdate(obj, old), ...validateConfigMapImmutable(obj, old), ...meta.validate(obj), ...validateConfigMapData(obj)],
};
