/**
 * Ingress validation as v1.32's pkg/apis/networking/validation:
 * ValidateIngressCreate, ValidateIngressUpdate (whose options let an old
 * object's invalid TLS secret names and wildcard-host rules stay) and
 * ValidateIngressStatusUpdate.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Subdomain, regexError } from '../meta/names.js';
import {
  arr, isObj, isValidIP, isValidPathSegmentName, isValidPortName, isValidPortNum, metaCreate, metaUpdate, nameIsDNS1035Label,
  nameIsDNSSubdomain, parseIPSloppy, str, type Obj,
} from './common.js';

export const ANNOTATION_INGRESS_CLASS = 'kubernetes.io/ingress.class';

const SUPPORTED_PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

interface IngressOptions { allowInvalidSecretName: boolean; allowInvalidWildcardHostRule: boolean }

const WILDCARD_SUBDOMAIN_FMT = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const reWildcard = new RegExp(`^${WILDCARD_SUBDOMAIN_FMT}$`);

/** validation.IsWildcardDNS1123Subdomain */
export function isWildcardDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push('must be no more than 253 characters');
  if (!reWildcard.test(v)) {
    errs.push(regexError("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
      WILDCARD_SUBDOMAIN_FMT, '*.example.com'));
  }
  return errs;
}

const objs = (v: unknown): Obj[] => arr(v).map((x) => (isObj(x) ? x : {}));

/** validateIngressTypedLocalObjectReference (IngressClass parameters reuse it). */
export function validateTypedLocalObjectReference(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (ref.apiGroup != null) {
    for (const m of isDNS1123Subdomain(str(ref.apiGroup))) errs.push(field.invalid(`${path}.apiGroup`, str(ref.apiGroup), m));
  }
  for (const key of ['kind', 'name'] as const) {
    const v = str(ref[key]);
    if (v === '') errs.push(field.required(`${path}.${key}`, `${key} is required`));
    else for (const m of isValidPathSegmentName(v)) errs.push(field.invalid(`${path}.${key}`, v, m));
  }
  return errs;
}

/** validateIngressBackend */
function validateIngressBackend(backend: Obj, path: string): FieldError[] {
  const hasResource = backend.resource != null;
  const hasService = backend.service != null;
  if (hasResource && hasService) return [field.invalid(path, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateTypedLocalObjectReference(isObj(backend.resource) ? backend.resource : {}, `${path}.resource`);
  if (!hasService) return [field.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const service: Obj = isObj(backend.service) ? backend.service : {};
  const name = str(service.name);
  if (name === '') errs.push(field.required(`${path}.service.name`));
  else for (const m of nameIsDNS1035Label(name, false)) errs.push(field.invalid(`${path}.service.name`, name, m));
  const port: Obj = isObj(service.port) ? service.port : {};
  const portName = str(port.name);
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName && portNumber) errs.push(field.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName) for (const m of isValidPortName(portName)) errs.push(field.invalid(`${path}.service.port.name`, portName, m));
  else if (portNumber) for (const m of isValidPortNum(portNumber)) errs.push(field.invalid(`${path}.service.port.number`, portNumber, m));
  else errs.push(field.required(path, 'port name or number is required'));
  return errs;
}

/** validateHTTPIngressPath */
function validateHTTPIngressPath(p: Obj, path: string): FieldError[] {
  if (p.pathType == null) return [field.required(`${path}.pathType`, 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = str(p.path);
  const pathType = str(p.pathType);
  if (pathType === 'Exact' || pathType === 'Prefix') {
    if (!value.startsWith('/')) errs.push(field.invalid(`${path}.path`, value, 'must be an absolute path'));
    if (value.length > 0) {
      for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(field.invalid(`${path}.path`, value, `must not contain '${seq}'`));
      for (const suf of INVALID_PATH_SUFFIXES) if (value.endsWith(suf)) errs.push(field.invalid(`${path}.path`, value, `cannot end with '${suf}'`));
    }
  } else if (pathType === 'ImplementationSpecific') {
    if (value.length > 0 && !value.startsWith('/')) errs.push(field.invalid(`${path}.path`, value, 'must be an absolute path'));
  } else {
    errs.push(field.notSupported(`${path}.pathType`, pathType, SUPPORTED_PATH_TYPES));
  }
  errs.push(...validateIngressBackend(isObj(p.backend) ? p.backend : {}, `${path}.backend`));
  return errs;
}

/** validateIngressRuleValue */
function validateIngressRuleValue(rule: Obj, path: string): FieldError[] {
  if (rule.http == null) return [];
  const http: Obj = isObj(rule.http) ? rule.http : {};
  const errs: FieldError[] = [];
  const paths = objs(http.paths);
  if (!paths.length) errs.push(field.required(`${path}.http.paths`));
  paths.forEach((p, i) => errs.push(...validateHTTPIngressPath(p, `${path}.http.paths[${i}]`)));
  return errs;
}

/** validateIngressRules */
function validateIngressRules(rules: Obj[], path: string, opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const host = str(rule.host);
    let wildcard = false;
    if (host.length > 0) {
      if (parseIPSloppy(host)) errs.push(field.invalid(`${path}[${i}].host`, host, 'must be a DNS name, not an IP address'));
      if (host.includes('*')) {
        for (const m of isWildcardDNS1123Subdomain(host)) errs.push(field.invalid(`${path}[${i}].host`, host, m));
        wildcard = true;
      } else {
        for (const m of isDNS1123Subdomain(host)) errs.push(field.invalid(`${path}[${i}].host`, host, m));
      }
    }
    if (!wildcard || !opts.allowInvalidWildcardHostRule) errs.push(...validateIngressRuleValue(rule, `${path}[${i}]`));
  });
  return errs;
}

/** validateTLSSecretName */
function validateTLSSecretName(name: string): string[] {
  return name ? nameIsDNSSubdomain(name, false) : [];
}

/** validateIngressTLS */
function validateIngressTLS(tls: Obj[], path: string, opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  tls.forEach((t, i) => {
    arr(t.hosts).map(str).forEach((host, j) => {
      const check = host.includes('*') ? isWildcardDNS1123Subdomain : isDNS1123Subdomain;
      for (const m of check(host)) errs.push(field.invalid(`${path}[${i}].hosts[${j}]`, host, m));
    });
    if (!opts.allowInvalidSecretName) {
      const secret = str(t.secretName);
      for (const m of validateTLSSecretName(secret)) errs.push(field.invalid(`${path}[${i}].secretName`, secret, m));
    }
  });
  return errs;
}

/** ValidateIngressSpec */
export function validateIngressSpec(spec: Obj, path: string, opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  const rules = objs(spec.rules);
  if (!rules.length && spec.defaultBackend == null) {
    // The bad value is the (empty) []IngressRule, which Go prints with %#v.
    errs.push(field.invalid(path, { goSyntax: spec.rules == null ? '[]networking.IngressRule(nil)' : '[]networking.IngressRule{}' },
      'either `defaultBackend` or `rules` must be specified'));
  }
  if (spec.defaultBackend != null) errs.push(...validateIngressBackend(isObj(spec.defaultBackend) ? spec.defaultBackend : {}, `${path}.defaultBackend`));
  if (rules.length) errs.push(...validateIngressRules(rules, `${path}.rules`, opts));
  const tls = objs(spec.tls);
  if (tls.length) errs.push(...validateIngressTLS(tls, `${path}.tls`, opts));
  if (spec.ingressClassName != null) {
    const name = str(spec.ingressClassName);
    for (const m of nameIsDNSSubdomain(name, false)) errs.push(field.invalid(`${path}.ingressClassName`, name, m));
  }
  return errs;
}

function validateIngress(ing: Obj, opts: IngressOptions): FieldError[] {
  return [...metaCreate(ing, true, nameIsDNSSubdomain), ...validateIngressSpec(isObj(ing.spec) ? ing.spec : {}, 'spec', opts)];
}

/** ValidateIngressCreate */
export function validateIngressCreate(ing: Obj): FieldError[] {
  const errs = validateIngress(ing, { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false });
  const annotations: Obj = isObj(ing.metadata?.annotations) ? ing.metadata.annotations : {};
  const className = ing.spec?.ingressClassName;
  if (ANNOTATION_INGRESS_CLASS in annotations && className != null && str(annotations[ANNOTATION_INGRESS_CLASS]) !== str(className)) {
    errs.push(field.invalid(`annotations.${ANNOTATION_INGRESS_CLASS}`, str(annotations[ANNOTATION_INGRESS_CLASS]),
      'must match `ingressClassName` when both are specified'));
  }
  return errs;
}

/** allowInvalidSecretName / allowInvalidWildcardHostRule: what the stored object already holds may stay. */
function updateOptions(old: Obj): IngressOptions {
  const spec: Obj = isObj(old.spec) ? old.spec : {};
  return {
    allowInvalidSecretName: objs(spec.tls).some((t) => validateTLSSecretName(str(t.secretName)).length > 0),
    allowInvalidWildcardHostRule: objs(spec.rules).some((r) => str(r.host).includes('*') && validateIngressRuleValue(r, '').length > 0),
  };
}

/** ValidateIngressUpdate */
export function validateIngressUpdate(ing: Obj, old: Obj): FieldError[] {
  return [...metaUpdate(ing, old), ...validateIngress(ing, updateOptions(old))];
}

/** ValidateIngressStatusUpdate (v1.32: ValidateIngressLoadBalancerStatus with validation.IsValidIP). */
export function validateIngressStatusUpdate(ing: Obj, old: Obj): FieldError[] {
  const errs = metaUpdate(ing, old);
  objs(ing.status?.loadBalancer?.ingress).forEach((lb, i) => {
    const p = `status.loadBalancer.ingress[${i}]`;
    const ip = str(lb.ip);
    if (ip) errs.push(...isValidIP(`${p}.ip`, ip));
    const hostname = str(lb.hostname);
    if (hostname) {
      for (const m of isDNS1123Subdomain(hostname)) errs.push(field.invalid(`${p}.hostname`, hostname, m));
      if (parseIPSloppy(hostname)) errs.push(field.invalid(`${p}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

export const ingressValidation = {
  validate: (ing: Obj) => validateIngressCreate(ing),
  validateUpdate: (ing: Obj, old: Obj, subresource?: string) =>
    (subresource === 'status' ? validateIngressStatusUpdate(ing, old) : validateIngressUpdate(ing, old)),
};
