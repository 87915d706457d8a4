/**
 * A CRD's spec.conversion as apiextensions-apiserver v0.32 validates it, in its internal form
 * (webhookClientConfig and conversionReviewVersions beside the strategy):
 * pkg/apis/apiextensions/validation/validation.go validateCustomResourceConversion and
 * validateConversionReviewVersions, with apiserver's pkg/util/webhook/validation.go for the client
 * configuration (ValidateWebhookURL, ValidateWebhookService, ValidateCABundle).
 */
import { X509Certificate } from 'node:crypto';
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { field, type FieldError } from '../../apimachinery/field-errors.js';
import { isDNS1123Subdomain } from '../../meta/names.js';
import { isDNS1035Label } from '../../validation/object-meta.js';
import { isValidPortNum } from '../../validation/common.js';

type Conversion = NonNullable<CustomResourceDefinition['spec']['conversion']>;

export interface ConversionValidationOptions {
  /** conversionReviewVersions must name a version the server speaks (always on create). */
  requireRecognizedVersion: boolean;
  /** The caBundle is not checked (on create, and while the old one was already invalid). */
  allowInvalidCABundle: boolean;
}

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const URL_FORM = '; desired format: https://host[/path]';

/** The parts of a URL net/url.Parse yields that ValidateWebhookURL looks at, or Go's parse error. */
function parseGoURL(raw: string): { scheme: string; host: string; user?: string; query: string; fragment: string } | { error: string } {
  if (/[\x00-\x1f\x7f]/.test(raw)) return { error: `parse ${JSON.stringify(raw)}: net/url: invalid control character in URL` };
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) { fragment = rest.slice(hash + 1); rest = rest.slice(0, hash); }
  let scheme = '';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (m) { scheme = m[1]!.toLowerCase(); rest = rest.slice(m[0].length); }
  else if (rest.startsWith(':')) return { error: `parse ${JSON.stringify(raw)}: missing protocol scheme` };
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
function validateWebhookURL(path: string, url: string): FieldError[] {
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

/** ValidateWebhookService. */
function validateWebhookService(path: string, svc: { namespace?: string; name?: string; path?: string; port?: number }): FieldError[] {
  const errs: FieldError[] = [];
  if (!svc.name) errs.push(field.required(`${path}.name`, 'service name is required'));
  if (!svc.namespace) errs.push(field.required(`${path}.namespace`, 'service namespace is required'));
  const port = svc.port ?? 0;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(field.invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  const urlPath = svc.path;
  if (urlPath === undefined || urlPath === '/' || urlPath === '') return errs;
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
function caBundleError(pem: string): string | undefined {
  const blocks = [...pem.matchAll(/-----BEGIN ([^-\n]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  const parses = (whole: string) => { try { new X509Certificate(whole); return true; } catch { return false; } };
  if (blocks.some(([whole, type]) => type === 'CERTIFICATE' && parses(whole))) return undefined;
  const prefix = 'unable to load root certificates: ';
  for (const [whole, type] of blocks) {
    if (type === 'CERTIFICATE' && !parses(whole)) return `${prefix}failed to parse certificate: x509: malformed certificate`;
  }
  const last = blocks.at(-1);
  const rest = last ? pem.slice(last.index! + last[0].length).replace(/^\r?\n/, '') : pem;
  return rest.length ? `${prefix}unable to parse bytes as PEM block` : `${prefix}no valid certificate authority data seen`;
}

/** validateConversionReviewVersions. */
function validateReviewVersions(versions: string[] | undefined, requireRecognized: boolean, path: string): FieldError[] {
  if (!versions?.length) return [field.required(path, '')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) { errs.push(field.invalid(`${path}[${i}]`, v, 'duplicate version')); return; }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(field.invalid(`${path}[${i}]`, v, m));
  });
  if (requireRecognized && !versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))) {
    errs.push(field.invalid(path, { goSyntax: `[]string{${versions.map((v) => JSON.stringify(v)).join(', ')}}` },
      `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

/** validateCustomResourceConversion for a v1 CRD's spec.conversion (errors at the internal field paths). */
export function validateConversion(conversion: Conversion | undefined, opts: ConversionValidationOptions, path = 'spec.conversion'): FieldError[] {
  if (!conversion) return [];
  const errs: FieldError[] = [];
  const strategy = conversion.strategy;
  if (!strategy) errs.push(field.required(`${path}.strategy`, ''));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(field.notSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const cc = conversion.webhook?.clientConfig;
  const ccPath = `${path}.webhookClientConfig`;
  if (strategy === 'Webhook') {
    if (!cc) {
      errs.push(field.required(ccPath, 'required when strategy is set to Webhook'));
    } else {
      if ((cc.url === undefined) === (cc.service === undefined)) errs.push(field.required(ccPath, 'exactly one of url or service is required'));
      else if (cc.url !== undefined) errs.push(...validateWebhookURL(`${ccPath}.url`, cc.url));
      else errs.push(...validateWebhookService(`${ccPath}.service`, cc.service!));
      if (cc.caBundle && !opts.allowInvalidCABundle) {
        const bytes = Buffer.from(cc.caBundle, 'base64');
        const err = caBundleError(bytes.toString('latin1'));
        if (err) errs.push(field.invalid(`${ccPath}.caBundle`, goBytes(bytes), err));
      }
    }
    errs.push(...validateReviewVersions(conversion.webhook?.conversionReviewVersions, opts.requireRecognizedVersion, `${path}.conversionReviewVersions`));
  } else {
    if (cc) errs.push(field.forbidden(ccPath, 'should not be set when strategy is not set to Webhook'));
    if (conversion.webhook?.conversionReviewVersions?.length) {
      errs.push(field.forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
    }
  }
  return errs;
}

/** The options ValidateCustomResourceDefinitionUpdate uses: what the old CRD already had is not newly refused. */
export function conversionOptionsForUpdate(old: CustomResourceDefinition): ConversionValidationOptions {
  const oldConversion = old.spec?.conversion;
  const oldVersions = oldConversion?.webhook?.conversionReviewVersions ?? [];
  const established = (old.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  const oldCA = oldConversion?.webhook?.clientConfig?.caBundle;
  return {
    requireRecognizedVersion: !oldConversion || !oldVersions.length || oldVersions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v)),
    allowInvalidCABundle: !established ? true : !oldCA ? false : caBundleError(Buffer.from(oldCA, 'base64').toString('latin1')) !== undefined,
  };
}
