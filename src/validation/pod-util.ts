/**
 * Helpers of pod validation: upstream's small validators
 * (k8s.io/apimachinery/pkg/util/validation and pkg/apis/core/validation)
 * and the resource-name predicates of pkg/apis/core/helper, with upstream's
 * messages.
 */
import { field, type BadValue, type FieldError } from '../apimachinery/field-errors.js';
import {
  arr, dns1123Label, dns1123Subdomain, inclusiveRange, isObj, isValidPortName, isValidPortNum, IS_NEGATIVE, nonNegative, num,
  qualifiedName, str, validatePortNumOrName, type Obj,
} from './common.js';

// The basic validators are common to every kind's validation; pod validation imports them from here too.
export {
  arr, dns1123Label, dns1123Subdomain, inclusiveRange, isObj, isValidPortName, isValidPortNum, IS_NEGATIVE, nonNegative, num,
  qualifiedName, str, validatePortNumOrName, type Obj,
};
import { isQualifiedName, regexError } from '../meta/names.js';
import { DecodeError, parseQuantity, type Quantity } from '../apimachinery/quantity.js';
import { quantityGoSyntax } from './go-types.js';

/** A Go pointer/slice/map decoded from JSON is nil when absent or null. */
export const isSet = (v: unknown): boolean => v !== undefined && v !== null;
export const obj = (v: unknown): Obj => (isObj(v) ? v : {});
/** Go's len() of a string: UTF-8 bytes. */
export const byteLen = (s: string) => Buffer.byteLength(s, 'utf8');

// Field paths as field.Path prints them.
export const child = (p: string, name: string) => (p ? `${p}.${name}` : name);
export const index = (p: string, i: number) => `${p}[${i}]`;
export const key = (p: string, k: string) => `${p}[${k}]`;

export const notFound = (f: string, value: BadValue): FieldError => ({ type: 'FieldValueNotFound', field: f, value });
export const internalError = (f: string, detail: string): FieldError => ({ type: 'InternalError', field: f, detail });
export const tooLong = (f: string, max: number): FieldError =>
  ({ type: 'FieldValueTooLong', field: f, detail: `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` });

export const IS_NOT_POSITIVE = 'must be greater than zero';
export const IS_NOT_INTEGER = 'must be an integer';

const MAX_ID = 2147483647;
/** validation.IsValidUserID / IsValidGroupID */
export const isValidID = (id: number): string[] => (id >= 0 && id <= MAX_ID ? [] : [inclusiveRange(0, MAX_ID)]);

/** validation.IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation is beta, on, in v1.32). */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push('environment variable name must be non-empty');
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    if (c > 0x7f || c < 0x20 || c === 0x7f || ch === '=') {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

function hasChDirPrefix(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

/** validation.IsEnvVarName (the strict form, used when the relaxed gate is off). */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(value)) {
    errs.push(regexError("a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
      '[-._a-zA-Z][-._a-zA-Z0-9]*', 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1'));
  }
  return [...errs, ...hasChDirPrefix(value)];
}

/** validation.IsConfigMapKey */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", '[-._a-zA-Z0-9]+',
      'key.name', 'KEY_NAME', 'key-name'));
  }
  return [...errs, ...hasChDirPrefix(value)];
}

/** validation.IsHTTPHeaderName */
export function isHTTPHeaderName(value: string): string[] {
  return /^[-A-Za-z0-9]+$/.test(value) ? [] :
    [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", '[-A-Za-z0-9]+', 'X-Header-Name')];
}

// ---------------------------------------------------------------------------
// IP addresses (netutils.ParseIPSloppy: IPv4 may have leading zeros).

function parseIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^[0-9]{1,8}$/.test(p) && Number.parseInt(p, 10) <= 255);
}

function parseIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  let body = s;
  const last = s.lastIndexOf(':');
  let tail = 0;
  if (s.slice(last + 1).includes('.')) {
    if (!parseIPv4(s.slice(last + 1))) return false;
    body = s.slice(0, last + 1) + '0:0';
    tail = 0;
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const [before = '', after] = halves;
  const a = groups(before);
  const b = after !== undefined ? groups(after) : [];
  if (![...a, ...b].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? a.length + b.length + tail <= 7 : a.length === 8;
}

export const parsesAsIP = (s: string) => (/^[0-9.]+$/.test(s) ? parseIPv4(s) : parseIPv6(s));

/** validation.IsValidIP */
export function isValidIP(path: string, value: string): FieldError[] {
  return parsesAsIP(value) ? [] : [field.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

// ---------------------------------------------------------------------------
// Quantities and resource names (pkg/apis/core/helper).

/** Parses a quantity string already canonicalized by defaulting; undefined when it does not parse. */
export function quantityOf(v: unknown): Quantity | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  try { return parseQuantity(v); } catch (e) { if (e instanceof DecodeError) return undefined; throw e; }
}

/** Quantity.String() of a defaulted value (defaulting already wrote the canonical form). */
export const quantityString = (v: unknown): string => str(v);

const pow10 = (n: number) => 10n ** BigInt(n);

/** The signed value scaled to 10^scale, rounded up (Quantity.ScaledValue). */
export function scaledValue(q: Quantity, scale: number): bigint {
  const signed = (q.neg ? -1n : 1n) * q.unscaled;
  const d = q.scale - scale;
  if (d >= 0) return signed * pow10(d);
  const div = pow10(-d);
  const r = signed / div;
  return signed % div !== 0n && signed > 0n ? r + 1n : r;
}

export const isNegativeQuantity = (q: Quantity) => q.neg && q.unscaled !== 0n;

export function cmpQ(a: Quantity, b: Quantity): number {
  const s = Math.min(a.scale, b.scale);
  const av = scaledValue(a, s);
  const bv = scaledValue(b, s);
  return av < bv ? -1 : av > bv ? 1 : 0;
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory',
  'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'services',
  'replicationcontrollers', 'resourcequotas', 'secrets', 'persistentvolumeclaims', 'storage', 'requests.storage',
  'services.nodeports', 'services.loadbalancers']);
const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps',
  'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

export const isHugePageResourceName = (n: string) => n.startsWith('hugepages-');
export const isNativeResource = (n: string) => !n.includes('/') || n.includes('kubernetes.io/');

/** helper.IsExtendedResourceName */
export function isExtendedResourceName(n: string): boolean {
  if (isNativeResource(n) || n.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${n}`).length === 0;
}

export const isOvercommitAllowed = (n: string) => isNativeResource(n) && !isHugePageResourceName(n);
const isStandardResourceName = (n: string) => STANDARD_RESOURCES.has(n) || isHugePageResourceName(n) ||
  n.startsWith('requests.hugepages-') || n.startsWith('limits.hugepages-');
const isStandardContainerResourceName = (n: string) => STANDARD_CONTAINER_RESOURCES.has(n) || isHugePageResourceName(n);
export const isIntegerResourceName = (n: string) => INTEGER_RESOURCES.has(n) || isExtendedResourceName(n);

/** validateResourceName */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = qualifiedName(name, path);
  if (errs.length) return errs;
  if (name.split('/').length === 1 && !isStandardResourceName(name)) {
    return [field.invalid(path, name, 'must be a standard resource type or fully qualified')];
  }
  return errs;
}

/** validateContainerResourceName */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (name.split('/').length === 1) {
    if (!isStandardContainerResourceName(name)) return [...errs, field.invalid(path, name, 'must be a standard resource for containers')];
  } else if (!isNativeResource(name)) {
    if (!isExtendedResourceName(name)) return [...errs, field.invalid(path, name, "doesn't follow extended resource name standard")];
  }
  return errs;
}

/** ValidateResourceQuantityValue: non-negative, and whole for integer resources. */
export function validateResourceQuantityValue(name: string, raw: unknown, path: string): FieldError[] {
  const q = quantityOf(raw);
  if (!q) return [];
  const errs: FieldError[] = [];
  if (isNegativeQuantity(q)) errs.push(field.invalid(path, quantityString(raw), IS_NEGATIVE));
  if (isIntegerResourceName(name) && scaledValue(q, -3) % 1000n !== 0n) {
    // The bad value is the resource.Quantity itself: not a fmt.Stringer (String has a pointer receiver), so %#v.
    errs.push(field.invalid(path, { goSyntax: quantityGoSyntax(q) }, IS_NOT_INTEGER));
  }
  return errs;
}

/** helper.IsHugePageResourceValueDivisible */
export function isHugePageValueDivisible(name: string, raw: unknown): boolean {
  const size = quantityOf(name.slice('hugepages-'.length));
  const q = quantityOf(raw);
  if (!size || !q) return false;
  const s = scaledValue(size, 0);
  const v = scaledValue(q, 0);
  return s > 0n && v % s === 0n;
}
