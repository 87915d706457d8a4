/**
 * A webhook's client configuration as apiserver's pkg/util/webhook/validation.go validates it
 * (ValidateWebhookURL with forceHttps, ValidateWebhookService, ValidateCABundle), for admission
 * webhooks and CRD conversion webhooks alike.
 */
import { X509Certificate } from 'node:crypto';
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { goQuote } from '../apimachinery/go-quote.js';
import { isDNS1123Subdomain } from '../meta/names.js';
import { isValidPortNum } from './common.js';

const URL_FORM = '; desired format: https://host[/path]';

/** The parts of a URL net/url.Parse yields that ValidateWebhookURL looks at, or Go's parse error. */
function parseGoURL(raw: string): { scheme: string; host: string; user?: string; query: string; fragment: string } | { error: string } {
  if ([...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return { error: `parse ${goQuote(raw)}: net/url: invalid control character in URL` };
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) { fragment = rest.slice(hash + 1); rest = rest.slice(0, hash); }
  let scheme = '';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (m) { scheme = m[1]!.toLowerCase(); rest = rest.slice(m[0].length); }
  else if (rest.startsWith(':')) return { error: `parse ${goQuote(raw)}: missing protocol scheme` };
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) { query = rest.slice(q + 1); rest = rest.slice(0, q); }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    let authority = end >= 0 ? rest.slice(2, end) : rest.slice(2);
    const at = authority.lastIndexOf('@');
    if (at >= 0) { user = authority.slice(0, at); authority = authority.slice(at + 1); }
    host = authority;
  }
  return { scheme, host, user, query, fragment };
}

/** ValidateWebhookURL with forceHttps. */
export function validateWebhookURL(path: string, url: string): FieldError[] {
  const u = parseGoURL(url);
  if ('error' in u) return [field.required(path, `url must be a valid URL: ${u.error}${URL_FORM}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(field.invalid(path, u.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (!u.host) errs.push(field.invalid(path, u.host, `host must be specified${URL_FORM}`));
  if (u.user !== undefined) errs.push(field.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment) errs.push(field.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query) errs.push(field.invalid(path, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

/** ValidateWebhookService, with the port as the caller's defaulting leaves it. */
export function validateWebhookService(path: string, svc: { namespace?: string; name?: string; path?: string | null }, port: number): FieldError[] {
  const errs: FieldError[] = [];
  if (!svc.name) errs.push(field.required(`${path}.name`, 'service name is required'));
  if (!svc.namespace) errs.push(field.required(`${path}.namespace`, 'service namespace is required'));
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(field.invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  const urlPath = svc.path;
  if (urlPath == null || urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') return [...errs, field.invalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(field.invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) { errs.push(field.invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`)); return; }
    for (const m of isDNS1123Subdomain(step)) errs.push(field.invalid(`${path}.path`, urlPath, `segment[${i}]: ${m}`));
  });
  return errs;
}

/** Go's %#v of a []byte. */
function goBytes(b: Buffer): { goSyntax: string } {
  return { goSyntax: `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}` };
}

/**
 * transport.TLSConfigFor's error for CA data x509.CertPool takes nothing from, if any
 * (createErrorParsingCAData: the blocks in order, then what follows the last one).
 */
export function caBundleError(pem: string): string | undefined {
  const blocks = [...pem.matchAll(/-----BEGIN ([^-\n]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  const parses = (whole: string) => { try { new X509Certificate(whole); return true; } catch { return false; } };
  if (blocks.some(([whole, type]) => type === 'CERTIFICATE' && parses(whole))) return undefined;
  const prefix = 'unable to load root certificates: ';
  for (const [whole, type] of blocks) {
    if (type === 'CERTIFICATE' && !parses(whole)) return `${prefix}failed to parse certificate: x509: malformed certificate`;
  }
  const last = blocks.at(-1);
  const rest = last ? pem.slice(last.index + last[0].length).replace(/^\r?\n/, '') : pem;
  return rest.length ? `${prefix}unable to parse bytes as PEM block` : `${prefix}no valid certificate authority data seen`;
}

/** ValidateCABundle: the base64 caBundle must give TLS at least one root certificate. */
export function validateCABundle(path: string, caBundle: string): FieldError[] {
  const bytes = Buffer.from(caBundle, 'base64');
  const err = caBundleError(bytes.toString('latin1'));
  return err ? [field.invalid(path, goBytes(bytes), err)] : [];
}
