/**
 * Mutating- and ValidatingWebhookConfiguration validation as v1.32's
 * pkg/apis/admissionregistration/validation (validateMutatingWebhookConfiguration,
 * validateValidatingWebhookConfiguration, validateValidatingWebhook / validateMutatingWebhook,
 * validateAdmissionReviewVersions; the rules and match conditions both admission kinds share are
 * admission-rules.ts) with apiserver's pkg/util/webhook ValidateWebhookURL and
 * ValidateWebhookService (webhook-client-config.ts, shared with CRD conversion webhooks). Updates
 * relax what the stored object already broke (ValidateXWebhookConfigurationUpdate's options).
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Subdomain } from '../meta/names.js';
import {
  arr, goStrings, isObj, labelSelectorHasInvalidLabelValue, metaCreate, metaUpdate, nameIsDNSSubdomain,
  str, validateLabelSelector, type Obj,
} from './common.js';
import { validateWebhookService, validateWebhookURL } from './webhook-client-config.js';
import { FAILURE_POLICIES, MATCH_POLICIES, validateMatchConditions, validateRuleWithOperations } from './admission-rules.js';
import { isDNS1035Label } from './object-meta.js';

export type WebhookKind = 'mutating' | 'validating';

interface Options {
  ignoreMatchConditions: boolean;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
}

const CREATE_OPTIONS: Options = {
  ignoreMatchConditions: false, requireNoSideEffects: true, requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true, allowInvalidLabelValueInSelector: false,
};

/** AcceptedAdmissionReviewVersions */
export const ACCEPTED_ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];

/** utilvalidation.IsFullyQualifiedName */
function isFullyQualifiedName(path: string, name: string): FieldError[] {
  if (!name) return [field.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [field.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [field.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateAdmissionReviewVersions(versions: string[], requireRecognized: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!versions.length) {
    errs.push(field.required(path, `must specify one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`));
    return errs;
  }
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) { errs.push(field.invalid(`${path}[${i}]`, v, 'duplicate version')); return; }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(field.invalid(`${path}[${i}]`, v, m));
    if (ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) {
    errs.push(field.invalid(path, goStrings(versions), `must include at least one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

function validateWebhook(kind: WebhookKind, hook: Obj, opts: Options, path: string): FieldError[] {
  const errs = isFullyQualifiedName(`${path}.name`, str(hook.name));
  arr<Obj>(hook.rules).forEach((r, i) => errs.push(...validateRuleWithOperations(isObj(r) ? r : {}, `${path}.rules[${i}]`)));
  if (hook.failurePolicy != null && !FAILURE_POLICIES.includes(str(hook.failurePolicy))) {
    errs.push(field.notSupported(`${path}.failurePolicy`, str(hook.failurePolicy), FAILURE_POLICIES));
  }
  if (hook.matchPolicy != null && !MATCH_POLICIES.includes(str(hook.matchPolicy))) {
    errs.push(field.notSupported(`${path}.matchPolicy`, str(hook.matchPolicy), MATCH_POLICIES));
  }
  const allowed = opts.requireNoSideEffects ? NO_SIDE_EFFECT_CLASSES : SIDE_EFFECT_CLASSES;
  if (hook.sideEffects == null) errs.push(field.required(`${path}.sideEffects`, `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(str(hook.sideEffects))) errs.push(field.notSupported(`${path}.sideEffects`, str(hook.sideEffects), allowed));
  if (typeof hook.timeoutSeconds === 'number' && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(field.invalid(`${path}.timeoutSeconds`, hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  const selOpts = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector };
  if (hook.namespaceSelector != null) errs.push(...validateLabelSelector(hook.namespaceSelector, selOpts, `${path}.namespaceSelector`));
  if (hook.objectSelector != null) errs.push(...validateLabelSelector(hook.objectSelector, selOpts, `${path}.objectSelector`));
  if (kind === 'mutating' && hook.reinvocationPolicy != null && !REINVOCATION_POLICIES.includes(str(hook.reinvocationPolicy))) {
    errs.push(field.notSupported(`${path}.reinvocationPolicy`, str(hook.reinvocationPolicy), REINVOCATION_POLICIES));
  }
  const cc: Obj = isObj(hook.clientConfig) ? hook.clientConfig : {};
  if ((cc.url == null) === (cc.service == null)) errs.push(field.required(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (cc.url != null) errs.push(...validateWebhookURL(`${path}.clientConfig.url`, str(cc.url)));
  else {
    const svc: Obj = isObj(cc.service) ? cc.service : {};
    errs.push(...validateWebhookService(`${path}.clientConfig.service`, { name: str(svc.name), namespace: str(svc.namespace), path: svc.path == null ? undefined : str(svc.path) },
      typeof svc.port === 'number' ? svc.port : 443));
  }
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(arr(hook.matchConditions), false, `${path}.matchConditions`));
  return errs;
}

function validateConfiguration(kind: WebhookKind, cfg: Obj, opts: Options): FieldError[] {
  const errs = metaCreate(cfg, false, nameIsDNSSubdomain);
  const names = new Set<string>();
  arr<Obj>(cfg.webhooks).forEach((h0, i) => {
    const hook: Obj = isObj(h0) ? h0 : {};
    const p = `webhooks[${i}]`;
    errs.push(...validateWebhook(kind, hook, opts, p));
    errs.push(...validateAdmissionReviewVersions(arr<string>(hook.admissionReviewVersions), opts.requireRecognizedAdmissionReviewVersion,
      `${p}.admissionReviewVersions`));
    const name = str(hook.name);
    if (opts.requireUniqueWebhookNames && name) {
      if (names.has(name)) errs.push(field.duplicate(`${p}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

/** The options ValidateXWebhookConfigurationUpdate derives from the stored object. */
function updateOptions(cfg: Obj, old: Obj): Options {
  const hooks = arr<Obj>(cfg.webhooks);
  const oldHooks = arr<Obj>(old.webhooks);
  const names = oldHooks.map((h) => str(h?.name));
  return {
    ignoreMatchConditions: hooks.length === oldHooks.length &&
      hooks.every((h, i) => JSON.stringify(h?.matchConditions ?? null) === JSON.stringify(oldHooks[i]?.matchConditions ?? null)),
    requireNoSideEffects: oldHooks.every((h) => NO_SIDE_EFFECT_CLASSES.includes(str(h?.sideEffects))),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const vs = arr<string>(h?.admissionReviewVersions);
      return !vs.length || vs.some((v) => ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v));
    }),
    requireUniqueWebhookNames: new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: oldHooks.some((h) =>
      labelSelectorHasInvalidLabelValue(h?.namespaceSelector) || labelSelectorHasInvalidLabelValue(h?.objectSelector)),
  };
}

export function webhookConfigurationValidation(kind: WebhookKind) {
  return {
    validate: (cfg: Obj) => validateConfiguration(kind, cfg, CREATE_OPTIONS),
    validateUpdate: (cfg: Obj, old: Obj) => [...validateConfiguration(kind, cfg, updateOptions(cfg, old)), ...metaUpdate(cfg, old)],
  };
}
