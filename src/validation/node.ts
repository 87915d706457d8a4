/**
 * Node validation as v1.32's ValidateNode and ValidateNodeUpdate
 * (pkg/apis/core/validation). The node strategy runs ValidateNode, then
 * ValidateNodeUpdate; ObjectMeta is checked by the registry. Not ported: the
 * legacy taints and preferAvoidPods annotations' JSON payloads.
 */
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import { isValidLabelValue } from '../meta/names.js';
import { arr, isIPv6String, isObj, isValidCIDR, parseCIDRSloppy, qualifiedName, raw, str, type Obj } from './common.js';
import { quantityOf, validateResourceQuantityValue } from './resources.js';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** validateTaintEffect (allowEmpty false); the valid values are listed unsorted, as upstream. */
export function validateTaintEffect(effect: string, allowEmpty: boolean, path: string): FieldError[] {
  if (!allowEmpty && !effect) return [field.required(path)];
  return TAINT_EFFECTS.includes(effect) ? [] : [field.notSupported(path, effect, TAINT_EFFECTS)];
}

/** %#v of a core.Taint. */
function goTaint(t: Obj): string {
  const added = t.timeAdded == null ? '(*v1.Time)(nil)' : '(*v1.Time)(0xc000000000)';
  return `core.Taint{Key:${goQuote(str(t.key))}, Value:${goQuote(str(t.value))}, Effect:${goQuote(str(t.effect))}, TimeAdded:${added}}`;
}

/** validateNodeTaints */
export function validateNodeTaints(taints: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Map<string, Set<string>>();
  arr<Obj>(taints).forEach((t0, i) => {
    const t = isObj(t0) ? t0 : {};
    const p = `${path}[${i}]`;
    errs.push(...qualifiedName(str(t.key), `${p}.key`));
    const vErrs = isValidLabelValue(str(t.value));
    if (vErrs.length) errs.push(field.invalid(`${p}.value`, str(t.value), vErrs.join(';')));
    errs.push(...validateTaintEffect(str(t.effect), false, `${p}.effect`));
    const keys = unique.get(str(t.effect));
    if (keys?.has(str(t.key))) {
      errs.push({ ...field.duplicate(p, raw(goTaint(t))), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    (keys ?? unique.set(str(t.effect), new Set()).get(str(t.effect))!).add(str(t.key));
  });
  return errs;
}

/** ValidateNodeResources */
function validateNodeResources(node: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const which of ['capacity', 'allocatable']) {
    const list = node.status?.[which];
    for (const [k, v] of Object.entries(isObj(list) ? list : {})) {
      const q = quantityOf(v);
      if (q) errs.push(...validateResourceQuantityValue(k, q, `status.${which}.${k}`));
    }
  }
  return errs;
}

/** ValidateNode without its ValidateObjectMeta. */
export function validateNodeSpec(node: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec: Obj = isObj(node.spec) ? node.spec : {};
  // Upstream builds the taints path under metadata.
  if (arr(spec.taints).length) errs.push(...validateNodeTaints(spec.taints, 'metadata.taints'));
  errs.push(...validateNodeResources(node));
  const cidrs = arr(spec.podCIDRs).map(str);
  if (cidrs.length) {
    cidrs.forEach((c, i) => errs.push(...isValidCIDR(`spec.podCIDRs[${i}]`, c)));
    if (cidrs.length > 1) {
      const parsed = cidrs.map(parseCIDRSloppy);
      if (parsed.some((c) => !c)) {
        const bad = cidrs[parsed.findIndex((c) => !c)];
        errs.push({ type: 'InternalError', field: 'spec.podCIDRs',
          detail: `invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR address: ${bad}` });
      }
      const v6 = cidrs.filter((c) => isIPv6String(c.split('/', 1)[0] ?? '')).length;
      const dual = parsed.every(Boolean) && v6 >= 1 && cidrs.length - v6 >= 1;
      if (!dual || cidrs.length > 2) {
        errs.push(field.invalid('spec.podCIDRs', raw(`[]string{${cidrs.map(goQuote).join(', ')}}`), 'may specify no more than one CIDR for each IP family'));
      }
      const seen = new Set<string>();
      cidrs.forEach((c, i) => { if (seen.has(c)) errs.push(field.duplicate(`spec.podCIDRs[${i}]`, c)); seen.add(c); });
    }
  }
  return errs;
}

/** ValidateNodeUpdate without its ValidateObjectMetaUpdate. */
export function validateNodeUpdateSpec(node: Obj, old: Obj): FieldError[] {
  const errs = validateNodeResources(node);
  const seen = new Set<string>();
  arr<Obj>(node.status?.addresses).forEach((a, i) => {
    const key = `${str(a?.type)}\u0000${str(a?.address)}`;
    if (seen.has(key)) {
      errs.push(field.duplicate(`status.addresses[${i}]`,
        raw(`core.NodeAddress{Type:${goQuote(str(a?.type))}, Address:${goQuote(str(a?.address))}}`)));
    }
    seen.add(key);
  });
  const oldCidrs = arr(old.spec?.podCIDRs).map(str);
  const cidrs = arr(node.spec?.podCIDRs).map(str);
  const cidrMsg = 'node updates may not change podCIDR except from "" to valid';
  if (oldCidrs.length) {
    if (oldCidrs.length !== cidrs.length) errs.push(field.forbidden('spec.podCIDRs', cidrMsg));
    else oldCidrs.forEach((c, i) => { if (c !== cidrs[i]) errs.push(field.forbidden('spec.podCIDRs', cidrMsg)); });
  }
  const oldProvider = str(old.spec?.providerID);
  if (oldProvider && oldProvider !== str(node.spec?.providerID)) {
    errs.push(field.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  if (arr(node.spec?.taints).length) errs.push(...validateNodeTaints(node.spec.taints, 'metadata.taints'));
  if (str(node.spec?.externalID) !== str(old.spec?.externalID)) errs.push(field.forbidden('spec.externalID', 'may not be updated'));
  return errs;
}
