/**
 * A CRD's spec.conversion as apiextensions-apiserver v0.32 validates it, in its internal form
 * (webhookClientConfig and conversionReviewVersions beside the strategy):
 * pkg/apis/apiextensions/validation/validation.go validateCustomResourceConversion and
 * validateConversionReviewVersions, with the client configuration checked as admission webhooks' is
 * (validation/webhook-client-config.ts: apiserver's pkg/util/webhook/validation.go).
 */
import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import { field, type FieldError } from '../../apimachinery/field-errors.js';
import { isDNS1035Label } from '../../validation/object-meta.js';
import { caBundleError, validateCABundle, validateWebhookService, validateWebhookURL } from '../../validation/webhook-client-config.js';

type Conversion = NonNullable<CustomResourceDefinition['spec']['conversion']>;

export interface ConversionValidationOptions {
  /** conversionReviewVersions must name a version the server speaks (always on create). */
  requireRecognizedVersion: boolean;
  /** The caBundle is not checked (on create, and while the old one was already invalid). */
  allowInvalidCABundle: boolean;
}

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
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
      else errs.push(...validateWebhookService(`${ccPath}.service`, cc.service!, cc.service!.port ?? 0));
      if (cc.caBundle && !opts.allowInvalidCABundle) errs.push(...validateCABundle(`${ccPath}.caBundle`, cc.caBundle));
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
