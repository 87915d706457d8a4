/**
 * Small validation helpers several kinds share, each a port of the upstream
 * function named in its comment (k8s.io/apimachinery/pkg/util/validation,
 * pkg/apis/core/validation, apis/meta/v1/validation, pkg/apis/apps/validation).
 */
import { field, goQuote, OMIT, type BadValue, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateLabels } from '../meta/names.js';

export { validateLabels };

export type Obj = Record<string, any>;

import { isObject as isObj } from '../meta/json.js';

export { isObj };
export const arr = <T = any>(v: unknown): T[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));
export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** Go sorts a set's members (sets.List) before listing them. */
export const sortedKeys = (m: unknown): string[] => (isObj(m) ? Object.keys(m).sort() : []);

/** A value Go prints without quotes (a fmt.Stringer's String(), or %#v text). */
export const raw = (s: string): BadValue => ({ goSyntax: s });

export const IS_NEGATIVE = 'must be greater than or equal to 0';
export const FIELD_IMMUTABLE = 'field is immutable';

/** ValidateNonnegativeField */
export function nonNegative(value: number, path: string): FieldError[] {
  return value < 0 ? [field.invalid(path, value, IS_NEGATIVE)] : [];
}

/** validation.InclusiveRangeError */
export const inclusiveRange = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

/** validation.IsValidPortNum */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRange(1, 65535)];
}

/** validation.IsValidPortName */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** ValidatePortNumOrName: an IntOrString is an int or a port name. */
export function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => field.invalid(path, port, m));
  if (typeof port === 'string') return isValidPortName(port).map((m) => field.invalid(path, port, m));
  return isValidPortNum(0).map((m) => field.invalid(path, 0, m));
}

/** ValidateDNS1123Label */
export function dns1123Label(value: string, path: string): FieldError[] {
  return isDNS1123Label(value).map((m) => field.invalid(path, value, m));
}

/** ValidateDNS1123Subdomain */
export function dns1123Subdomain(value: string, path: string): FieldError[] {
  return isDNS1123Subdomain(value).map((m) => field.invalid(path, value, m));
}

/** ValidateQualifiedName / metav1 ValidateLabelName */
export function qualifiedName(value: string, path: string): FieldError[] {
  return isQualifiedName(value).map((m) => field.invalid(path, value, m));
}

/** validation.IsValidPercent */
export function isValidPercent(s: string): string[] {
  return /^[0-9]+%$/.test(s) ? [] :
    ["a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"];
}

// ---------------------------------------------------------------------------
// Go formatting of composite bad values (%#v, or a type's String()).

/** %#v of a []string. */
export function goStrings(list: unknown): BadValue {
  if (list == null) return raw('[]string(nil)');
  return raw(`[]string{${arr(list).map((s) => goQuote(str(s))).join(', ')}}`);
}

/** %#v of a map[string]string (fmt sorts map keys). */
export function goStringMap(m: unknown): BadValue {
  if (!isObj(m)) return raw('map[string]string(nil)');
  return raw(`map[string]string{${Object.keys(m).sort().map((k) => `${goQuote(k)}:${goQuote(str(m[k]))}`).join(', ')}}`);
}

/** %#v of a []int32. */
export function goInt32s(list: unknown): BadValue {
  if (list == null) return raw('[]int32(nil)');
  return raw(`[]int32{${arr(list).map((n) => String(n)).join(', ')}}`);
}

/**
 * An intstr.IntOrString as a bad value: *IntOrString is a fmt.Stringer, so
 * field.Error prints its String() (the number, or the string unquoted).
 */
export function intOrStringValue(v: unknown): BadValue {
  return raw(typeof v === 'number' ? String(v) : str(v));
}

/** The gogo-protobuf String() of a metav1.LabelSelector (what field errors print for *LabelSelector). */
export function labelSelectorString(sel: unknown): BadValue {
  if (sel == null) return raw('nil');
  const s = isObj(sel) ? sel : {};
  const ml = isObj(s.matchLabels) ? s.matchLabels : {};
  const labels = Object.keys(ml).sort().map((k) => `${k}: ${str(ml[k])},`).join('');
  const exprs = arr(s.matchExpressions).map((e: Obj) => {
    const vals = e?.values == null ? '[]' : `[${arr(e.values).map(str).join(' ')}]`;
    return `LabelSelectorRequirement{Key:${str(e?.key)},Operator:${str(e?.operator)},Values:${vals},},`;
  }).join('');
  return raw(`&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`);
}

// ---------------------------------------------------------------------------
// Label selectors (apis/meta/v1/validation and metav1.LabelSelectorAsSelector).

export interface LabelSelectorOptions { allowInvalidLabelValueInSelector?: boolean }

/** metav1validation.ValidateLabelSelector */
export function validateLabelSelector(sel: unknown, opts: LabelSelectorOptions, path: string): FieldError[] {
  if (sel == null || !isObj(sel)) return [];
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  arr(sel.matchExpressions).forEach((expr: Obj, i: number) => {
    const p = `${path}.matchExpressions[${i}]`;
    const op = str(expr?.operator);
    const values = arr<string>(expr?.values);
    switch (op) {
      case 'In': case 'NotIn':
        if (!values.length) errs.push(field.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists': case 'DoesNotExist':
        if (values.length) errs.push(field.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(field.invalid(`${p}.operator`, op, 'not a valid selector operator'));
    }
    errs.push(...qualifiedName(str(expr?.key), `${p}.key`));
    if (!opts.allowInvalidLabelValueInSelector) {
      values.forEach((v, j) => {
        for (const m of isValidLabelValue(str(v))) errs.push(field.invalid(`${p}.values[${j}]`, str(v), m));
      });
    }
  });
  return errs;
}

/** metav1validation.LabelSelectorHasInvalidLabelValue */
export function labelSelectorHasInvalidLabelValue(sel: unknown): boolean {
  if (!isObj(sel)) return false;
  return arr(sel.matchExpressions).some((e: Obj) => arr(e?.values).some((v) => isValidLabelValue(str(v)).length > 0));
}

/** A parsed selector: Go's labels.Selector (Nothing for a nil selector, Everything for an empty one). */
export interface Selector {
  empty: boolean;
  matches(labels: Record<string, string> | undefined): boolean;
}

const NOTHING: Selector = { empty: false, matches: () => false };

/** metav1.LabelSelectorAsSelector: undefined when the selector cannot be converted (the caller reports it). */
export function labelSelectorAsSelector(sel: unknown): Selector | undefined {
  if (sel == null) return NOTHING;
  const s: Obj = isObj(sel) ? sel : {};
  const ml = isObj(s.matchLabels) ? s.matchLabels : {};
  const exprs = arr<Obj>(s.matchExpressions);
  if (Object.keys(ml).length + exprs.length === 0) return { empty: true, matches: () => true };
  type Req = (l: Record<string, string>) => boolean;
  const reqs: Req[] = [];
  const keyOk = (k: string) => isQualifiedName(k).length === 0;
  const valOk = (v: string) => isValidLabelValue(v).length === 0;
  for (const [k, v] of Object.entries(ml)) {
    if (!keyOk(k) || !valOk(str(v))) return undefined;
    reqs.push((l) => k in l && l[k] === str(v));
  }
  for (const e of exprs) {
    const key = str(e?.key);
    const values = arr(e?.values).map(str);
    if (!keyOk(key)) return undefined;
    switch (e?.operator) {
      case 'In': case 'NotIn': {
        if (!values.length || !values.every(valOk)) return undefined;
        const inSet = e.operator === 'In';
        reqs.push((l) => {
          const v = l[key];
          return key in l && v !== undefined ? values.includes(v) === inSet : !inSet;
        });
        break;
      }
      case 'Exists': case 'DoesNotExist': {
        if (values.length) return undefined;
        const exists = e.operator === 'Exists';
        reqs.push((l) => (key in l) === exists);
        break;
      }
      default:
        return undefined;
    }
  }
  return { empty: false, matches: (labels) => reqs.every((r) => r(labels ?? {})) };
}

/** Whether a selector (already known to convert) selects the given labels. */
export function selectorMatches(sel: unknown, labels: unknown): boolean {
  const s = labelSelectorAsSelector(sel);
  return !!s && s.matches(isObj(labels) ? labels as Record<string, string> : {});
}

/** labels.SelectorFromSet(map).Empty() / Matches for map selectors (ReplicationController). */
export function mapSelector(sel: unknown): Selector {
  const m: Obj = isObj(sel) ? sel : {};
  const keys = Object.keys(m);
  return {
    empty: keys.length === 0,
    matches: (l) => keys.every((k) => (l ?? {})[k] === str(m[k]) && k in (l ?? {})),
  };
}

// ---------------------------------------------------------------------------
// Int-or-percent (pkg/apis/apps/validation).

/** ValidatePositiveIntOrPercent */
export function validatePositiveIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === 'string') return isValidPercent(v).map((m) => field.invalid(path, intOrStringValue(v), m));
  if (typeof v === 'number') return nonNegative(v, path);
  return [field.invalid(path, intOrStringValue(v), "must be an integer or percentage (e.g '5%%')")];
}

function percentValue(v: unknown): number | undefined {
  if (typeof v !== 'string' || isValidPercent(v).length) return undefined;
  return Number.parseInt(v.slice(0, -1), 10);
}

/** getIntOrPercentValue (intstr.IntValue() of a non-percent string is its Atoi, 0 when not a number). */
export function intOrPercentValue(v: unknown): number {
  const p = percentValue(v);
  if (p !== undefined) return p;
  if (typeof v === 'number') return v;
  const n = /^[+-]?\d+$/.test(str(v)) ? Number.parseInt(str(v), 10) : 0;
  return Number.isFinite(n) ? n : 0;
}

/** IsNotMoreThan100Percent */
export function isNotMoreThan100Percent(v: unknown, path: string): FieldError[] {
  const p = percentValue(v);
  return p === undefined || p <= 100 ? [] : [field.invalid(path, intOrStringValue(v), 'must not be greater than 100%')];
}

// ---------------------------------------------------------------------------
// IP addresses (k8s.io/utils/net ParseIPSloppy and Go's net.IP predicates).

/** Bytes of an address as Go's net.ParseIP would hold it, IPv4 in its 4-byte form; undefined when invalid. */
export function parseIPSloppy(s: string): number[] | undefined {
  if (/^[0-9.]+$/.test(s)) return parseIPv4(s);
  return parseIPv6(s);
}

function parseIPv4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]+$/.test(p) || p.length > 8) return undefined;
    const n = Number.parseInt(p, 10);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

function parseIPv6(s: string): number[] | undefined {
  if (!s.includes(':')) return undefined;
  let body = s;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    // An embedded IPv4 tail stands for the last two groups.
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (!v4) return undefined;
    const [b0 = 0, b1 = 0, b2 = 0, b3 = 0] = v4;
    body = `${s.slice(0, lastColon + 1)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const group = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const [head = '', tail] = halves;
  const a = group(head);
  const b = tail !== undefined ? group(tail) : [];
  if (!a || !b) return undefined;
  let groups: number[];
  if (halves.length === 2) {
    if (a.length + b.length > 7) return undefined;
    groups = [...a, ...new Array(8 - a.length - b.length).fill(0), ...b];
  } else {
    if (a.length !== 8) return undefined;
    groups = a;
  }
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  // IPv4-mapped addresses are IPv4 to Go (To4 non-nil).
  if (bytes.slice(0, 10).every((x) => x === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  return bytes;
}

export const isIPv6String = (s: string) => (parseIPSloppy(s)?.length ?? 0) === 16;

/** validation.IsValidIP */
export function isValidIP(path: string, value: string): FieldError[] {
  return parseIPSloppy(value) ? [] : [field.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

/** validation.IsValidIPv4Address / IsValidIPv6Address */
export function isValidIPv4Address(path: string, value: string): FieldError[] {
  return parseIPSloppy(value)?.length === 4 ? [] : [field.invalid(path, value, 'must be a valid IPv4 address')];
}
export function isValidIPv6Address(path: string, value: string): FieldError[] {
  return parseIPSloppy(value)?.length === 16 ? [] : [field.invalid(path, value, 'must be a valid IPv6 address')];
}

/** ValidateNonSpecialIP */
export function validateNonSpecialIP(value: string, path: string): FieldError[] {
  const ip = parseIPSloppy(value);
  if (!ip) return [field.invalid(path, value, 'must be a valid IP address')];
  const errs: FieldError[] = [];
  const v4 = ip.length === 4;
  const unspecified = ip.every((b) => b === 0);
  const loopback = v4 ? ip[0] === 127 : ip.slice(0, 15).every((b) => b === 0) && ip[15] === 1;
  // A parsed address always has 4 or 16 bytes, so ip[1] exists.
  const second = ip[1] ?? 0;
  const linkLocalUnicast = v4 ? ip[0] === 169 && second === 254 : ip[0] === 0xfe && (second & 0xc0) === 0x80;
  const linkLocalMulticast = v4 ? ip[0] === 224 && second === 0 && ip[2] === 0 : ip[0] === 0xff && (second & 0x0f) === 0x02;
  if (unspecified) errs.push(field.invalid(path, value, `may not be unspecified (${value})`));
  if (loopback) errs.push(field.invalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (linkLocalUnicast) errs.push(field.invalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (linkLocalMulticast) errs.push(field.invalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errs;
}

/** netutils.ParseCIDRSloppy: the address and prefix length, or undefined. */
export function parseCIDRSloppy(s: string): { ip: number[]; bits: number } | undefined {
  const i = s.indexOf('/');
  if (i < 0) return undefined;
  const addr = s.slice(0, i);
  const len = s.slice(i + 1);
  const ip = /^[0-9.]+$/.test(addr) ? parseIPv4(addr) : parseIPv6(addr.includes(':') ? addr : '');
  if (!ip || !/^[0-9]{1,3}$/.test(len)) return undefined;
  // A mapped IPv4 written in IPv6 form keeps its 128-bit prefix length.
  const max = /^[0-9.]+$/.test(addr) ? 32 : 128;
  const bits = Number.parseInt(len, 10);
  if (bits > max) return undefined;
  return { ip, bits };
}

/** validation.IsValidCIDR */
export function isValidCIDR(path: string, value: string): FieldError[] {
  return parseCIDRSloppy(value) ? [] : [field.invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

/** validation.IsFullyQualifiedDomainName */
export function isFullyQualifiedDomainName(path: string, name: string): FieldError[] {
  if (name.length === 0) return [field.required(path)];
  const s = name.endsWith('.') ? name.slice(0, -1) : name;
  const errs = isDNS1123Subdomain(s).map((m) => field.invalid(path, s, m));
  if (errs.length) return errs;
  if (s.split('.').length < 2) return [field.invalid(path, s, 'should be a domain with at least two segments separated by dots')];
  for (const label of s.split('.')) {
    for (const m of isDNS1123Label(label)) errs.push(field.invalid(path, label, m));
  }
  return errs;
}

// ---------------------------------------------------------------------------

/**
 * apiequality.Semantic.DeepEqual for JSON values: the forked reflect
 * DeepEqual treats nil and empty slices and maps alike (an absent field is nil).
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (emptyValue(a) && emptyValue(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObj(a) && isObj(b)) {
    // Every key of either side (walked without building the union: this runs on every update).
    // for-in: the own keys of JSON data, without an array per object.
    for (const k in a) if (!deepEqual(a[k], b[k])) return false;
    for (const k in b) if (!Object.hasOwn(a, k) && !deepEqual(undefined, b[k])) return false;
    return true;
  }
  return false;
}

/** nil, or an empty slice or map. */
function emptyValue(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (!isObj(v)) return false;
  for (const _ in v) return false;
  return true;
}

/** ValidateImmutableField for a scalar (string, number or bool; nil pointers print "null"). */
export function immutableScalar(next: unknown, old: unknown, path: string): FieldError[] {
  if (deepEqual(next, old)) return [];
  const v: BadValue = next == null ? null : typeof next === 'object' ? OMIT : next as string | number | boolean;
  return [field.invalid(path, v, FIELD_IMMUTABLE)];
}

// ---------------------------------------------------------------------------
// ObjectMeta, as the kinds' Validate/ValidateUpdate functions call it first.

export { nameIsDNSLabel, nameIsDNSSubdomain, nameIsDNS1035Label, type NameFn } from './object-meta.js';
import { validateObjectMeta, validateObjectMetaUpdate, type NameFn } from './object-meta.js';

/** ValidateObjectMeta (create rules) for a kind. */
export function metaCreate(obj: Obj, namespaced: boolean, nameFn: NameFn): FieldError[] {
  return validateObjectMeta(obj.metadata ?? {}, { namespaced, nameFn });
}

/** ValidateObjectMetaUpdate */
export function metaUpdate(obj: Obj, old: Obj): FieldError[] {
  return validateObjectMetaUpdate(obj.metadata ?? {}, old.metadata ?? {});
}

/** path.IsValidPathSegmentName */
export function isValidPathSegmentName(name: string): string[] {
  for (const bad of ['.', '..']) if (name === bad) return [`may not be '${bad}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** A kind's validate/validateUpdate pair. */
export interface Validators {
  validate: (obj: Obj) => FieldError[];
  validateUpdate: (obj: Obj, old: Obj, subresource?: string) => FieldError[];
}

/**
 * The status subresource runs the kind's status strategy: ValidateObjectMetaUpdate
 * and (where given) the status checks, not the spec rules; other
 * subresources and the main resource run the kind's own update validation.
 */
export function withStatus(v: Validators, status: (obj: Obj, old: Obj) => FieldError[] = metaUpdate): Validators {
  return {
    validate: v.validate,
    validateUpdate: (obj, old, subresource) => (subresource === 'status' ? status(obj, old) : v.validateUpdate(obj, old)),
  };
}
