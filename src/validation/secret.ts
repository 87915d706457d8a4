/**
 * Secret validation as v1.32's pkg/apis/core/validation ValidateSecret and
 * ValidateSecretUpdate: key names, the 1 MiB limit, the keys each type
 * requires, and type/immutable rules on update. Data values are base64 in
 * the v1 object; sizes and JSON checks look at the decoded bytes as Go does.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { goSyntaxError, goTypeMismatch } from '../patch/go-json.js';
import { deepEqual, immutableScalar, isObj, str, type Obj } from './common.js';
import { isConfigMapKey, MAX_SECRET_SIZE } from './configmap.js';

const REDACTED = '<secret contents redacted>';

const bytesOf = (v: unknown): Buffer => Buffer.from(str(v), 'base64');

/** json.Unmarshal(bytes, &map[string]interface{}{}): Go's error text, or undefined. */
function jsonObjectError(bytes: Buffer): string | undefined {
  const syntax = goSyntaxError(bytes);
  if (syntax) return syntax;
  const v = JSON.parse(bytes.toString('utf8'));
  if (v === null || (typeof v === 'object' && !Array.isArray(v))) return undefined;
  return goTypeMismatch(v, 'map[string]interface {}');
}

/** ValidateSecret without its ValidateObjectMeta. */
export function validateSecretData(secret: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const data: Obj = isObj(secret.data) ? secret.data : {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const m of isConfigMapKey(key)) errs.push(field.invalid(`data[${key}]`, key, m));
    total += bytesOf(value).length;
  }
  if (total > MAX_SECRET_SIZE) errs.push(field.tooLong('data', MAX_SECRET_SIZE));
  const has = (k: string) => Object.prototype.hasOwnProperty.call(data, k);
  switch (str(secret.type)) {
    case 'kubernetes.io/service-account-token': {
      const key = 'kubernetes.io/service-account.name';
      if (!str(secret.metadata?.annotations?.[key])) errs.push(field.required(`metadata.annotations[${key}]`));
      break;
    }
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = secret.type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!has(key)) { errs.push(field.required(`data[${key}]`)); break; }
      const e = jsonObjectError(bytesOf(data[key]));
      if (e) errs.push(field.invalid(`data[${key}]`, REDACTED, e));
      break;
    }
    case 'kubernetes.io/basic-auth':
      // Either may be empty, but one must be present.
      if (!has('username') && !has('password')) {
        errs.push(field.required('data[username]'), field.required('data[password]'));
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if (bytesOf(data['ssh-privatekey']).length === 0) errs.push(field.required('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(field.required('data[tls.crt]'));
      if (!has('tls.key')) errs.push(field.required('data[tls.key]'));
      break;
  }
  return errs;
}

/** ValidateSecretUpdate's own checks (between ValidateObjectMetaUpdate and ValidateSecret). */
export function validateSecretImmutable(secret: Obj, old: Obj): FieldError[] {
  const errs = immutableScalar(str(secret.type), str(old.type), 'type');
  if (old.immutable === true) {
    const msg = 'field is immutable when `immutable` is set';
    if (secret.immutable !== true) errs.push(field.forbidden('immutable', msg));
    // stringData was already merged into data.
    if (!deepEqual(secret.data, old.data)) errs.push(field.forbidden('data', msg));
  }
  return errs;
}
