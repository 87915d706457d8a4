/**
 * CertificateSigningRequest validation as v1.32's pkg/apis/certificates/validation:
 * the request must be a signed PKCS#10 PEM block, usages known and
 * distinct, the signer name `domain/path`, expirationSeconds at least 600,
 * conditions well formed (Approved, Denied and Failed only True; Approved
 * and Denied exclusive), status.certificate only CERTIFICATE blocks. On
 * update, Approved/Denied/Failed conditions may not be removed, only the
 * approval subresource may add or change Approved/Denied, and only the
 * status subresource may set the certificate, once. What is already wrong
 * in a stored object is tolerated (getValidationOptions).
 */
import { X509Certificate } from 'node:crypto';
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../meta/names.js';
import { LEGACY_UNKNOWN_SIGNER } from '../component-helpers/certificate-signers.js';
import { certificateRequestError, pemBlocks } from '../pki/certificate-request.js';
import { arr, deepEqual, isObj, metaCreate, metaUpdate, raw, str, type Obj } from './common.js';

export const APPROVED = 'Approved';
export const DENIED = 'Denied';
export const FAILED = 'Failed';

/** allValidUsages, in sets.String.List()'s (sorted) order. */
const VALID_USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];
const TRUE_ONLY_TYPES = new Set([APPROVED, DENIED, FAILED]);
const ALL_STATUSES = ['False', 'True', 'Unknown'];

interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

/** A []byte field's bytes (JSON carries them in base64); undefined when absent (Go's nil). */
export function bytesOf(v: unknown): Buffer | undefined {
  return typeof v === 'string' ? Buffer.from(v, 'base64') : undefined;
}

/** A request's PEM bytes (`spec.request`), empty when absent. */
export const requestBytes = (csr: { spec?: { request?: unknown } } | undefined): Buffer => bytesOf(csr?.spec?.request) ?? Buffer.alloc(0);

/** Go's %#v of a []byte. */
function goBytes(b: Buffer | undefined): string {
  if (!b) return '[]byte(nil)';
  return `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`;
}

/** validateCertificate: status.certificate holds only CERTIFICATE blocks without headers, at least one. */
export function certificateError(pem: Buffer | undefined): string | undefined {
  if (!pem?.length) return undefined;
  const blocks = pemBlocks(pem);
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${goQuote(block.type)}`;
    if (block.headers) return 'no PEM block headers are permitted';
    try { new X509Certificate(block.der); } catch { return 'x509: malformed certificate'; }
  }
  return blocks.length ? undefined : 'must contain at least one CERTIFICATE PEM block';
}

/** apivalidation.ValidateSignerName */
export function validateSignerName(path: string, signerName: string): FieldError[] {
  if (!signerName) return [field.required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) {
    return [field.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain, rest] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(field.tooLong(path, 253));
  const domainLabels = domain.split('.');
  for (const lbl of domainLabels) {
    const bad = isDNS1123Label(lbl);
    if (!bad.length) continue;
    for (const m of bad) errs.push(field.invalid(path, domain, `validating label ${goQuote(lbl)}: ${m}`));
    break;
  }
  if (domainLabels.length < 2) errs.push(field.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const lbl of rest.split('.')) {
    const bad = isDNS1123Subdomain(lbl);
    if (!bad.length) continue;
    for (const m of bad) errs.push(field.invalid(path, rest, `validating label ${goQuote(lbl)}: ${m}`));
    break;
  }
  const maxSignerName = 253 + (253 + 63 + 1) + 1;
  if (signerName.length > maxSignerName) errs.push(field.tooLong(path, maxSignerName));
  return errs;
}

function conditionsOf(csr: Obj): Obj[] {
  return arr<unknown>(csr.status?.conditions).map((c) => (isObj(c) ? c : {}));
}

function hasDuplicates(values: string[]): boolean {
  return new Set(values).size !== values.length;
}

function optionsFor(csr: Obj, old: Obj | undefined): Options {
  const oldConditionTypes = old ? conditionsOf(old).map((c) => str(c.type)) : [];
  const oldUsages = old ? arr<unknown>(old.spec?.usages).map(str) : [];
  const sameCertificate = old !== undefined && str(csr.status?.certificate) === str(old.status?.certificate);
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: oldConditionTypes.includes(APPROVED) && oldConditionTypes.includes(DENIED),
    allowLegacySignerName: old !== undefined && str(old.spec?.signerName) === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: hasDuplicates(oldConditionTypes),
    allowEmptyConditionType: oldConditionTypes.includes(''),
    allowArbitraryCertificate: sameCertificate || (old !== undefined && certificateError(bytesOf(old.status?.certificate)) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !VALID_USAGES.includes(u)),
    allowDuplicateUsages: hasDuplicates(oldUsages),
  };
}

function validateConditions(csr: Obj, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(csr).forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type = str(c.type);
    const status = str(c.status);
    if (!opts.allowEmptyConditionType && !type) errs.push(field.required(`${p}.type`));
    const allowed = TRUE_ONLY_TYPES.has(type) ? ['True'] : ALL_STATUSES;
    if (!status) errs.push(field.required(`${p}.status`));
    else if (!allowed.includes(status)) errs.push(field.notSupported(`${p}.status`, status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === APPROVED) {
        approved = true;
        if (denied) errs.push(field.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === DENIED) {
        denied = true;
        if (approved) errs.push(field.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(field.duplicate(`${p}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

function validate(csr: Obj, opts: Options): FieldError[] {
  const errs = metaCreate(csr, false, () => []);
  const spec: Obj = isObj(csr.spec) ? csr.spec : {};
  const request = bytesOf(spec.request);
  const requestError = certificateRequestError(requestBytes(csr));
  if (requestError) errs.push(field.invalid('spec.request', raw(goBytes(request)), requestError));
  const usages = arr<unknown>(spec.usages).map(str);
  if (!usages.length) errs.push(field.required('spec.usages'));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => { if (!VALID_USAGES.includes(u)) errs.push(field.notSupported(`spec.usages[${i}]`, u, VALID_USAGES)); });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(field.duplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    });
  }
  const signerName = str(spec.signerName);
  if (!opts.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER) {
    errs.push(field.invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName('spec.signerName', signerName));
  }
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    errs.push(field.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const bad = certificateError(bytesOf(csr.status?.certificate));
    if (bad) errs.push(field.invalid('status.certificate', '<certificate data>', bad));
  }
  return errs;
}

const conditionsOfType = (csr: Obj, type: string) => conditionsOf(csr).filter((c) => str(c.type) === type);

function validateUpdate(csr: Obj, old: Obj, opts: Options): FieldError[] {
  const errs = validate(csr, opts);
  for (const t of [APPROVED, DENIED, FAILED]) {
    if (conditionsOfType(csr, t).length < conditionsOfType(old, t).length) {
      errs.push(field.forbidden('status.conditions', `updates may not remove a condition of type ${goQuote(t)}`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of [APPROVED, DENIED]) {
      const before = conditionsOfType(old, t);
      const after = conditionsOfType(csr, t);
      if (after.length > before.length) {
        errs.push(field.forbidden('status.conditions', `updates may not add a condition of type ${goQuote(t)}`));
      } else if (after.length === before.length && !deepEqual(after, before)) {
        // Upstream appends cmp.Diff's rendering of the two lists, which is not reproduced here.
        errs.push(field.forbidden('status.conditions', `updates may not modify a condition of type ${goQuote(t)}`));
      }
    }
  }
  if (str(csr.status?.certificate) !== str(old.status?.certificate)) {
    if (!opts.allowSettingCertificate) errs.push(field.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (str(old.status?.certificate)) errs.push(field.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return [...errs, ...metaUpdate(csr, old)];
}

export const certificateSigningRequestValidation = {
  /** ValidateCertificateSigningRequestCreate */
  validate: (csr: Obj) => validate(csr, optionsFor(csr, undefined)),
  /** ValidateCertificateSigningRequestUpdate, ...StatusUpdate (the certificate may be set) and ...ApprovalUpdate (Approved/Denied may change). */
  validateUpdate: (csr: Obj, old: Obj, subresource?: string) => validateUpdate(csr, old, {
    ...optionsFor(csr, old),
    allowSettingCertificate: subresource === 'status',
    allowSettingApprovalConditions: subresource === 'approval',
  }),
};
