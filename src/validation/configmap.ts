/**
 * ConfigMap validation as v1.32's pkg/apis/core/validation ValidateConfigMap
 * and ValidateConfigMapUpdate (the configmap strategy runs exactly these).
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { deepEqual, isObj, str, type Obj } from './common.js';

/** core.MaxSecretSize: ConfigMaps share the Secret limit. */
export const MAX_SECRET_SIZE = 1024 * 1024;

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const reConfigMapKey = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/** validation.IsConfigMapKey (also used for Secret keys). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!reConfigMapKey.test(value)) {
    errs.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' " +
      `(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '${CONFIG_MAP_KEY_FMT}')`);
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** ValidateConfigMap without its ValidateObjectMeta. */
export function validateConfigMapData(cm: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const data: Obj = isObj(cm.data) ? cm.data : {};
  const binary: Obj = isObj(cm.binaryData) ? cm.binaryData : {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const m of isConfigMapKey(key)) errs.push(field.invalid(`data[${key}]`, key, m));
    if (key in binary) errs.push(field.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    total += Buffer.byteLength(str(value));
  }
  for (const [key, value] of Object.entries(binary)) {
    for (const m of isConfigMapKey(key)) errs.push(field.invalid(`binaryData[${key}]`, key, m));
    total += Buffer.from(str(value), 'base64').length;
  }
  // The empty path stands for the whole object.
  if (total > MAX_SECRET_SIZE) errs.push(field.tooLong('', MAX_SECRET_SIZE));
  return errs;
}

/** ValidateConfigMapUpdate's immutability checks (between ValidateObjectMetaUpdate and ValidateConfigMap). */
export function validateConfigMapImmutable(cm: Obj, old: Obj): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  const msg = 'field is immutable when `immutable` is set';
  if (cm.immutable !== true) errs.push(field.forbidden('immutable', msg));
  if (!deepEqual(cm.data, old.data)) errs.push(field.forbidden('data', msg));
  if (!deepEqual(cm.binaryData, old.binaryData)) errs.push(field.forbidden('binaryData', msg));
  return errs;
}
