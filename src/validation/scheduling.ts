/**
 * Scheduling-related pod spec validation of pkg/apis/core/validation
 * (v1.32): affinity (node, pod, pod anti-), tolerations, topology spread
 * constraints, and the node selector requirements they share.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../meta/names.js';
import { validateLabelSelector } from './common.js';
import { arr, child, index, isObj, isSet, num, obj, qualifiedName, str, IS_NOT_POSITIVE, type Obj } from './pod-util.js';

/** ValidateNodeSelectorRequirement */
function validateNodeSelectorRequirement(rq: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = arr(rq.values);
  const op = str(rq.operator);
  switch (op) {
    case 'In': case 'NotIn':
      if (values.length === 0) errs.push(field.required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists': case 'DoesNotExist':
      if (values.length > 0) errs.push(field.forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt': case 'Lt':
      if (values.length !== 1) errs.push(field.required(child(path, 'values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(field.invalid(child(path, 'operator'), op, 'not a valid selector operator'));
  }
  errs.push(...qualifiedName(str(rq.key), child(path, 'key')));
  return errs;
}

/** ValidateNodeFieldSelectorRequirement (only metadata.name is selectable). */
function validateNodeFieldSelectorRequirement(rq: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const op = str(rq.operator);
  const values = arr(rq.values).map(str);
  if (op === 'In' || op === 'NotIn') {
    if (values.length !== 1) {
      errs.push(field.required(child(path, 'values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    errs.push(field.invalid(child(path, 'operator'), op, 'not a valid selector operator'));
  }
  if (str(rq.key) !== 'metadata.name') errs.push(field.invalid(child(path, 'key'), str(rq.key), 'not a valid field selector key'));
  else values.forEach((v, i) => { for (const m of isDNS1123Subdomain(v)) errs.push(field.invalid(index(child(path, 'values'), i), v, m)); });
  return errs;
}

/** ValidateNodeSelectorTerm */
export function validateNodeSelectorTerm(term: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(term.matchExpressions).forEach((r, j) => errs.push(...validateNodeSelectorRequirement(obj(r), index(child(path, 'matchExpressions'), j))));
  arr(term.matchFields).forEach((r, j) => errs.push(...validateNodeFieldSelectorRequirement(obj(r), index(child(path, 'matchFields'), j))));
  return errs;
}

/** ValidateNodeSelector */
export function validateNodeSelector(ns: Obj, path: string): FieldError[] {
  const tp = child(path, 'nodeSelectorTerms');
  const terms = arr(ns.nodeSelectorTerms);
  if (terms.length === 0) return [field.required(tp, 'must have at least one node selector term')];
  return terms.flatMap((t, i) => validateNodeSelectorTerm(obj(t), index(tp, i)));
}

function validateNodeAffinity(na: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isObj(na.requiredDuringSchedulingIgnoredDuringExecution)) {
    errs.push(...validateNodeSelector(na.requiredDuringSchedulingIgnoredDuringExecution, child(path, 'requiredDuringSchedulingIgnoredDuringExecution')));
  }
  const pp = child(path, 'preferredDuringSchedulingIgnoredDuringExecution');
  arr(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t0, i) => {
    const t = obj(t0);
    const w = num(t.weight);
    if (w <= 0 || w > 100) errs.push(field.invalid(child(index(pp, i), 'weight'), w, 'must be in the range 1-100'));
    errs.push(...validateNodeSelectorTerm(obj(t.preference), child(index(pp, i), 'preference')));
  });
  return errs;
}

function validateLabelKeys(path: string, keys: unknown, selector: unknown): FieldError[] {
  const list = arr(keys).map(str);
  if (list.length === 0) return [];
  if (!isSet(selector)) return [field.forbidden(path, 'must not be specified when labelSelector is not set')];
  return list.flatMap((k, i) => qualifiedName(k, index(path, i)));
}

/** validateMatchLabelKeysAndMismatchLabelKeys */
function validateMatchLabelKeysAndMismatch(path: string, match: unknown, mismatch: unknown, selector: unknown): FieldError[] {
  const errs = [...validateLabelKeys(child(path, 'matchLabelKeys'), match, selector),
    ...validateLabelKeys(child(path, 'mismatchLabelKeys'), mismatch, selector)];
  const matchKeys = arr(match).map(str);
  if (isObj(selector)) {
    const idx = new Map<string, number>();
    matchKeys.forEach((k, i) => idx.set(k, i));
    const selKeys = new Set(Object.keys(obj(selector.matchLabels)));
    for (const e of arr(selector.matchExpressions)) {
      const k = str(obj(e).key);
      const i = idx.get(k);
      if (i !== undefined && selKeys.has(k)) errs.push(field.invalid(index(path, i), k, 'exists in both matchLabelKeys and labelSelector'));
      selKeys.add(k);
    }
  }
  const mm = new Set(arr(mismatch).map(str));
  matchKeys.forEach((k, i) => {
    if (mm.has(k)) errs.push(field.invalid(index(child(path, 'matchLabelKeys'), i), k, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  return errs;
}

function validatePodAffinityTerm(t: Obj, allowInvalid: boolean, path: string): FieldError[] {
  const o = { allowInvalidLabelValueInSelector: allowInvalid };
  const errs = [...validateLabelSelector(t.labelSelector, o, child(path, 'labelSelector')),
    ...validateLabelSelector(t.namespaceSelector, o, child(path, 'namespaceSelector'))];
  for (const ns of arr(t.namespaces).map(str)) {
    for (const m of isDNS1123Label(ns)) errs.push(field.invalid(child(path, 'namespace'), ns, m));
  }
  errs.push(...validateMatchLabelKeysAndMismatch(path, t.matchLabelKeys, t.mismatchLabelKeys, t.labelSelector));
  if (!str(t.topologyKey)) errs.push(field.required(child(path, 'topologyKey'), 'can not be empty'));
  errs.push(...qualifiedName(str(t.topologyKey), child(path, 'topologyKey')));
  return errs;
}

function validatePodAffinityKind(a: Obj, allowInvalid: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const req = child(path, 'requiredDuringSchedulingIgnoredDuringExecution');
  arr(a.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => errs.push(...validatePodAffinityTerm(obj(t), allowInvalid, index(req, i))));
  const pref = child(path, 'preferredDuringSchedulingIgnoredDuringExecution');
  arr(a.preferredDuringSchedulingIgnoredDuringExecution).forEach((w0, j) => {
    const w = obj(w0);
    const weight = num(w.weight);
    if (weight <= 0 || weight > 100) errs.push(field.invalid(child(index(pref, j), 'weight'), weight, 'must be in the range 1-100'));
    errs.push(...validatePodAffinityTerm(obj(w.podAffinityTerm), allowInvalid, child(index(pref, j), 'podAffinityTerm')));
  });
  return errs;
}

/** validateAffinity */
export function validateAffinity(affinity: unknown, allowInvalidLabelValueInSelector: boolean, path: string): FieldError[] {
  if (!isObj(affinity)) return [];
  const errs: FieldError[] = [];
  if (isObj(affinity.nodeAffinity)) errs.push(...validateNodeAffinity(affinity.nodeAffinity, child(path, 'nodeAffinity')));
  if (isObj(affinity.podAffinity)) errs.push(...validatePodAffinityKind(affinity.podAffinity, allowInvalidLabelValueInSelector, child(path, 'podAffinity')));
  if (isObj(affinity.podAntiAffinity)) {
    errs.push(...validatePodAffinityKind(affinity.podAntiAffinity, allowInvalidLabelValueInSelector, child(path, 'podAntiAffinity')));
  }
  return errs;
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** ValidateTolerations */
export function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(tolerations).forEach((t0, i) => {
    const t = obj(t0);
    const ip = index(path, i);
    const k = str(t.key);
    const op = str(t.operator);
    const effect = str(t.effect);
    if (k.length > 0) errs.push(...qualifiedName(k, child(ip, 'key')));
    if (k.length === 0 && op !== 'Exists') {
      errs.push(field.invalid(child(ip, 'operator'), op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (isSet(t.tolerationSeconds) && effect !== 'NoExecute') {
      errs.push(field.invalid(child(ip, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (op) {
      case 'Equal': case '': {
        const msgs = isValidLabelValue(str(t.value));
        if (msgs.length) errs.push(field.invalid(child(ip, 'operator'), str(t.value), msgs.join(';')));
        break;
      }
      case 'Exists':
        if (str(t.value).length > 0) {
          // v1.32 names the value (kubernetes/kubernetes#128119); v1.31 printed the whole toleration.
          errs.push(field.invalid(child(ip, 'operator'), str(t.value), "value must be empty when `operator` is 'Exists'"));
        }
        break;
      default:
        errs.push(field.notSupported(child(ip, 'operator'), op, ['Equal', 'Exists']));
    }
    if (effect.length > 0 && !TAINT_EFFECTS.includes(effect)) errs.push(field.notSupported(child(ip, 'effect'), effect, TAINT_EFFECTS));
  });
  return errs;
}

/** validateTopologySpreadConstraints */
export function validateTopologySpreadConstraints(constraints: unknown, path: string, allowInvalidSelector: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const list = arr(constraints).map(obj);
  list.forEach((c, i) => {
    const p = index(path, i);
    const maxSkew = num(c.maxSkew);
    if (maxSkew <= 0) errs.push(field.invalid(child(p, 'maxSkew'), maxSkew, IS_NOT_POSITIVE));
    if (!str(c.topologyKey)) errs.push(field.required(child(p, 'topologyKey'), 'can not be empty'));
    const wu = str(c.whenUnsatisfiable);
    if (wu !== 'DoNotSchedule' && wu !== 'ScheduleAnyway') {
      errs.push(field.notSupported(child(p, 'whenUnsatisfiable'), wu, ['DoNotSchedule', 'ScheduleAnyway']));
    }
    const dup = list.slice(i + 1).some((r) => str(r.topologyKey) === str(c.topologyKey) && str(r.whenUnsatisfiable) === wu);
    if (dup) errs.push(field.duplicate(child(p, '{topologyKey, whenUnsatisfiable}'), `{${str(c.topologyKey)}, ${wu}}`));
    if (isSet(c.minDomains)) {
      const md = num(c.minDomains);
      if (md <= 0) errs.push(field.invalid(child(p, 'minDomains'), md, IS_NOT_POSITIVE));
      if (wu !== 'DoNotSchedule') errs.push(field.invalid(child(p, 'minDomains'), md, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${wu}`));
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      if (isSet(c[f]) && c[f] !== 'Honor' && c[f] !== 'Ignore') errs.push(field.notSupported(child(p, f), str(c[f]), ['Honor', 'Ignore']));
    }
    const mlk = arr(c.matchLabelKeys).map(str);
    if (mlk.length) {
      const mp = child(p, 'matchLabelKeys');
      const selKeys = new Set<string>();
      if (isObj(c.labelSelector)) {
        for (const k of Object.keys(obj(c.labelSelector.matchLabels))) selKeys.add(k);
        for (const e of arr(c.labelSelector.matchExpressions)) selKeys.add(str(obj(e).key));
      } else errs.push(field.forbidden(mp, 'must not be specified when labelSelector is not set'));
      mlk.forEach((k, j) => {
        errs.push(...isQualifiedName(k).map((m) => field.invalid(index(mp, j), k, m)));
        if (selKeys.has(k)) errs.push(field.invalid(index(mp, j), k, 'exists in both matchLabelKeys and labelSelector'));
      });
    }
    if (!allowInvalidSelector) errs.push(...validateLabelSelector(c.labelSelector, {}, child(p, 'labelSelector')));
  });
  return errs;
}
