/**
 * APIService validation as kube-aggregator v0.32's pkg/apis/apiregistration/validation: the name
 * must be "version.group", group a DNS subdomain (empty only for the legacy v1), version a DNS-1035
 * label, priorities in range, a local APIService without TLS settings, a service reference
 * complete; the status subresource checks only the condition statuses.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import type { APIService } from '../apimachinery/apiservice.js';
import { isDNS1123Subdomain } from '../meta/names.js';
import { isDNS1035Label, validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import { isValidPathSegmentName, isValidPortNum } from './common.js';

/** ValidateAPIService */
export function validateAPIService(svc: APIService): FieldError[] {
  const spec = svc.spec ?? { groupPriorityMinimum: 0, versionPriority: 0 };
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const requiredName = `${version}.${group}`;
  const errs = validateObjectMeta(svc.metadata ?? {}, {
    namespaced: false,
    nameFn: (name) => {
      const minimal = isValidPathSegmentName(name);
      if (minimal.length) return minimal;
      return name === requiredName ? [] : [`must be \`spec.version+"."+spec.group\`: "${requiredName}"`];
    },
  });
  if (!group && version !== 'v1') errs.push(field.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group) for (const m of isDNS1123Subdomain(group)) errs.push(field.invalid('spec.group', group, m));
  for (const m of isDNS1035Label(version)) errs.push(field.invalid('spec.version', version, m));
  const gpm = spec.groupPriorityMinimum ?? 0;
  if (gpm <= 0 || gpm > 20000) errs.push(field.invalid('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000'));
  const vp = spec.versionPriority ?? 0;
  if (vp <= 0 || vp > 1000) errs.push(field.invalid('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const caBytes = Buffer.from(spec.caBundle ?? '', 'base64').length;
  const insecure = spec.insecureSkipTLSVerify ?? false;
  const svcRef = spec.service;
  if (!svcRef) {
    if (caBytes) errs.push(field.invalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errs.push(field.invalid('spec.insecureSkipTLSVerify', insecure, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!svcRef.namespace) errs.push(field.required('spec.service.namespace'));
  if (!svcRef.name) errs.push(field.required('spec.service.name'));
  const port = svcRef.port ?? 0;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(field.invalid('spec.service.port', port, `port is not valid: ${portErrs.join(', ')}`));
  if (insecure && caBytes) errs.push(field.invalid('spec.insecureSkipTLSVerify', insecure, 'may not be true if caBundle is present'));
  return errs;
}

/** ValidateAPIServiceUpdate */
export function validateAPIServiceUpdate(svc: APIService, old: APIService): FieldError[] {
  return [...validateObjectMetaUpdate(svc.metadata ?? {}, old.metadata ?? {}), ...validateAPIService(svc)];
}

/** ValidateAPIServiceStatusUpdate */
export function validateAPIServiceStatusUpdate(svc: APIService, old: APIService): FieldError[] {
  const errs = validateObjectMetaUpdate(svc.metadata ?? {}, old.metadata ?? {});
  (svc.status?.conditions ?? []).forEach((c, i) => {
    if (!['True', 'False', 'Unknown'].includes(c.status)) {
      errs.push(field.notSupported(`status.conditions[${i}].status`, c.status, ['True', 'False', 'Unknown']));
    }
  });
  return errs;
}
