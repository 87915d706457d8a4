/**
 * Mutating- and ValidatingWebhookConfiguration validation as v1.32's
 * pkg/apis/admissionregistration/validation (validateMutatingWebhookConfiguration,
 * validateValidatingWebhookConfiguration, validateValidatingWebhook / validateMutatingWebhook,
 * validateRuleWithOperations, validateRule, validateResources, validateAdmissionReviewVersions,
 * validateMatchConditions) with apiserver's pkg/util/webhook ValidateWebhookURL and
 * ValidateWebhookService. Updates relax what the stored object already broke
 * (ValidateXWebhookConfigurationUpdate's options).
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { compileMatchCondition } from '../cel/match-conditions.js';
import { isDNS1123Subdomain } from '../meta/names.js';
import {
  arr, goStrings, isObj, isValidPortNum, labelSelectorHasInvalidLabelValue, metaCreate, metaUpdate, nameIsDNSSubdomain,
  qualifiedName, str, validateLabelSelector, type Obj,
} from './common.js';
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
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

const hasWildcard = (xs: unknown[]) => xs.includes('*');

/** utilvalidation.IsFullyQualifiedName */
function isFullyQualifiedName(path: string, name: string): FieldError[] {
  if (!name) return [field.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [field.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [field.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!resources.length) errs.push(field.required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') { errs.push(field.required(`${path}[${i}]`)); return; }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) { withoutSub = resSub !== '*'; return; }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(field.invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(field.invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) {
    errs.push(field.invalid(path, goStrings(resources), "if '*/*' is present, must not specify other resources"));
  }
  if (singleWildcard && withoutSub) {
    errs.push(field.invalid(path, goStrings(resources), "if '*' is present, must not specify other resources without subresources"));
  }
  return errs;
}

function validateRuleWithOperations(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr<string>(rule.operations);
  if (!ops.length) errs.push(field.required(`${path}.operations`));
  if (ops.length > 1 && hasWildcard(ops)) {
    errs.push(field.invalid(`${path}.operations`, goStrings(ops), "if '*' is present, must not specify other operations"));
  }
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(field.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = arr<string>(rule.apiGroups);
  if (!groups.length) errs.push(field.required(`${path}.apiGroups`));
  if (groups.length > 1 && hasWildcard(groups)) {
    errs.push(field.invalid(`${path}.apiGroups`, goStrings(groups), "if '*' is present, must not specify other API groups"));
  }
  const versions = arr<string>(rule.apiVersions);
  if (!versions.length) errs.push(field.required(`${path}.apiVersions`));
  if (versions.length > 1 && hasWildcard(versions)) {
    errs.push(field.invalid(`${path}.apiVersions`, goStrings(versions), "if '*' is present, must not specify other API versions"));
  }
  versions.forEach((v, i) => { if (v === '') errs.push(field.required(`${path}.apiVersions[${i}]`)); });
  errs.push(...validateResources(arr<string>(rule.resources), `${path}.resources`));
  if (rule.scope != null && !SCOPES.includes(str(rule.scope))) errs.push(field.notSupported(`${path}.scope`, str(rule.scope), SCOPES));
  return errs;
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

/** Go's url.Parse, as far as a webhook URL shows it: scheme, host, user, fragment, query. */
function validateWebhookURL(path: string, raw: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(raw);
  const scheme = m ? m[1]!.toLowerCase() : '';
  let rest = m ? m[2]! : raw;
  const errs: FieldError[] = [];
  let fragment = '';
  const hashAt = rest.indexOf('#');
  if (hashAt >= 0) { fragment = rest.slice(hashAt + 1); rest = rest.slice(0, hashAt); }
  let query = '';
  const qAt = rest.indexOf('?');
  if (qAt >= 0) { query = rest.slice(qAt + 1); rest = rest.slice(0, qAt); }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split('/')[0]!;
    const at = authority.lastIndexOf('@');
    if (at >= 0) { user = authority.slice(0, at); host = authority.slice(at + 1); } else host = authority;
  }
  if (scheme !== 'https') errs.push(field.invalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (!host) errs.push(field.invalid(path, host, `host must be specified${form}`));
  if (user !== undefined) errs.push(field.invalid(path, user, 'user information is not permitted in the URL'));
  if (fragment) errs.push(field.invalid(path, fragment, 'fragments are not permitted in the URL'));
  if (query) errs.push(field.invalid(path, query, 'query parameters are not permitted in the URL'));
  return errs;
}

function validateWebhookService(path: string, svc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(svc.name)) errs.push(field.required(`${path}.name`, 'service name is required'));
  if (!str(svc.namespace)) errs.push(field.required(`${path}.namespace`, 'service namespace is required'));
  const port = typeof svc.port === 'number' ? svc.port : 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(field.invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  if (svc.path == null) return errs;
  const p = str(svc.path);
  if (p === '/' || p === '') return errs;
  if (p === '//') return [...errs, field.invalid(`${path}.path`, p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(field.invalid(`${path}.path`, p, "must start with a '/'"));
  let check = p.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) { errs.push(field.invalid(`${path}.path`, p, `segment[${i}] may not be empty`)); return; }
    for (const m of isDNS1123Subdomain(step)) errs.push(field.invalid(`${path}.path`, p, `segment[${i}]: ${m}`));
  });
  return errs;
}

function validateMatchConditions(conds: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (conds.length > 64) errs.push({ type: 'FieldValueTooMany', field: path, value: conds.length, detail: 'must have at most 64 items' });
  const names = new Set<string>();
  conds.forEach((c0, i) => {
    const c: Obj = isObj(c0) ? c0 : {};
    const p = `${path}[${i}]`;
    const expr = str(c.expression).trim();
    if (!expr) errs.push(field.required(`${p}.expression`));
    else {
      const compiled = compileMatchCondition(expr);
      if ('error' in compiled) errs.push(field.invalid(`${p}.expression`, expr, compiled.error));
    }
    const name = str(c.name);
    if (!name) errs.push(field.required(`${p}.name`));
    else errs.push(...qualifiedName(name, `${p}.name`));
    if (name) {
      if (names.has(name)) errs.push(field.duplicate(`${p}.name`, name));
      else names.add(name);
    }
  });
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
  else errs.push(...validateWebhookService(`${path}.clientConfig.service`, isObj(cc.service) ? cc.service : {}));
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(arr<Obj>(hook.matchConditions), `${path}.matchConditions`));
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
