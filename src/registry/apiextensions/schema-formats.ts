/**
 * OpenAPI `format` checks on string values of custom resources, as apiextensions-apiserver v1.32
 * does them (pkg/apiserver/validation/formats.go: the supported set, names normalised by removing
 * every "-"; any other format is stripped and never checked) with kube-openapi's strfmt validators
 * (pkg/validation/strfmt/default.go, time.go, duration.go, bson.go) and govalidator's.
 *
 * Known differences from the Go libraries: uri (net/url.ParseRequestURI) and email (net/mail) cover
 * the common forms only; duration's Go time.ParseDuration branch is a regular-expression port.
 */
import { goQuote } from '../../apimachinery/go-quote.js';
import { parseCIDRSloppy, parseIPSloppy } from '../../validation/common.js';

const SUPPORTED = new Set([
  'bsonobjectid', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'uuid3', 'uuid4',
  'uuid5', 'isbn', 'isbn10', 'isbn13', 'creditcard', 'ssn', 'hexcolor', 'rgbcolor', 'byte', 'password',
  'date', 'duration', 'datetime',
]);

/** formats.go normalises by dropping every "-", so `date-time` is `datetime`. */
export function normalizeFormat(format: string): string {
  return format.replaceAll('-', '');
}

export function isSupportedFormat(format: string): boolean {
  return SUPPORTED.has(normalizeFormat(format));
}

/** Go time.Parse("2006-01-02", s): four-digit year, two-digit month and day, day within the month. */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate() || (mo === 2 && d === 29 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0));
}

const rxDateTime = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/u;

/** strfmt.IsDateTime: split the lower-cased value on "t"; the time part is compared as strings. */
export function isDateTime(str: string): boolean {
  if (str.length < 4) return false;
  const s = str.toLowerCase().split('t');
  if (s.length < 2 || !isDate(s[0] ?? '')) return false;
  const m = rxDateTime.exec(s[1] ?? '');
  if (!m) return false;
  return (m[1] ?? '') <= '23' && (m[2] ?? '') <= '59' && (m[3] ?? '') <= '59';
}

const goDuration = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$/u;
const durationUnits = [['ns', 'nano'], ['us', 'µs', 'micro'], ['ms', 'milli'], ['s', 'sec'], ['m', 'min'], ['h', 'hr', 'hour'], ['d', 'day'], ['w', 'wk', 'week']];

/** strfmt.ParseDuration: Go's time.ParseDuration, else `<n> <unit>` groups with the unit table. */
export function isDuration(s: string): boolean {
  if (goDuration.test(s)) return true;
  let ok = false;
  for (const match of s.matchAll(/((\d+)\s*([A-Za-zµ]+))/gu)) {
    // strconv.Atoi fails on a factor beyond int64, which fails the whole value.
    if (BigInt(match[2] ?? '0') > 9223372036854775807n) return false;
    const unit = (match[3] ?? '').trim().toLowerCase();
    for (const variants of durationUnits) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v.toLowerCase() === unit)) ok = true;
    }
  }
  return ok;
}

const rxHostname = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;

/** strfmt.IsHostname: the pattern, at most 255 bytes, labels at most 63 bytes. */
export function isHostname(s: string): boolean {
  const bytes = (x: string): number => Buffer.byteLength(x, 'utf8');
  return rxHostname.test(s) && bytes(s) <= 255 && s.split('.').every((p) => bytes(p) <= 63);
}

/** Go net.ParseMAC: 6, 8 or 20 octets separated by ":" or "-", or dotted groups of four hex digits. */
function isMAC(s: string): boolean {
  if (/^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4}){2}$|^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4}){3}$|^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4}){9}$/.test(s)) return true;
  return /^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2}){4}$/.test(s)
    || /^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2}){6}$/.test(s)
    || /^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2}){18}$/.test(s);
}

function isISBN(s: string, version: 10 | 13): boolean {
  const d = s.replace(/[\s-]+/g, '');
  if (version === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(d)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i]);
    sum += d[9] === 'X' ? 100 : 10 * Number(d[9]);
    return sum % 11 === 0;
  }
  if (!/^[0-9]{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(d[12]);
}

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let n = Number(digits[i]);
    if (double) { n *= 2; if (n > 9) n -= 9; }
    sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

/** govalidator f61b66f89f4a (kube-openapi's pin): no 2-series Mastercard, no 62/67 prefixes. */
const rxCreditCard = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const rgbOctet = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const rxRGB = new RegExp(`^rgb\\(\\s*${rgbOctet}\\s*,\\s*${rgbOctet}\\s*,\\s*${rgbOctet}\\s*\\)$`);

/** Whether s holds an ASCII control character or a space (which Go's URL parser refuses). */
function hasControlOrSpace(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** net/url.ParseRequestURI, common forms: an absolute URI with a scheme, or an absolute path. */
function isRequestURI(s: string): boolean {
  if (s === '' || hasControlOrSpace(s)) return false;
  if (s.startsWith('/')) return true;
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s);
}

/** net/mail.ParseAddress, common forms: `local@domain` or `Name <local@domain>`. */
function isEmail(s: string): boolean {
  const addr = /^\s*(?:[^<>]*<([^<>]+)>|([^<>\s]+))\s*$/.exec(s);
  const a = addr?.[1] ?? addr?.[2];
  return !!a && /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9!#$%&'*+/=?^_`{|}~.[\]:-]+$/.test(a)
    && !a.startsWith('.') && !a.includes('..');
}

const VALIDATORS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  // strfmt isIPv4 and isCIDR (k8s.io/utils/net's sloppy parsers); govalidator.IsIPv6 (net.ParseIP).
  ipv4: (s) => parseIPSloppy(s) !== undefined && s.includes('.'),
  ipv6: (s) => parseIPSloppy(s) !== undefined && s.includes(':'),
  cidr: (s) => parseCIDRSloppy(s) !== undefined,
  mac: isMAC,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  isbn: (s) => isISBN(s, 10) || isISBN(s, 13),
  isbn10: (s) => isISBN(s, 10),
  isbn13: (s) => isISBN(s, 13),
  creditcard: (s) => { const d = s.replace(/[^0-9]+/g, ''); return rxCreditCard.test(d) && luhn(d); },
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => rxRGB.test(s),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/**
 * formatValidator for one string value: the kube-openapi message (errors.InvalidType,
 * `%s in body must be of type %s: %q` with the format as written), or undefined when the value
 * passes or the format is not one apiextensions keeps.
 */
export function checkStringFormat(format: string | undefined, value: string, at: string): string | undefined {
  if (!format) return undefined;
  const validate = VALIDATORS[normalizeFormat(format)];
  if (!validate || validate(value)) return undefined;
  return `${at} in body must be of type ${format}: ${goQuote(value)}`;
}
