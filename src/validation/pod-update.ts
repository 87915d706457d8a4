/**
 * Pod update validation as upstream v1.32 runs it (ValidatePodUpdate,
 * ValidatePodSpecificAnnotationUpdates, ValidateContainerUpdates,
 * validateOnlyAddedTolerations, validateOnlyDeletedSchedulingGates, and the
 * "pod updates may not change fields other than ..." check with its
 * cmp.Diff of the internal PodSpec), plus the status and ephemeral
 * containers subresources' validation.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { validateObjectMetaUpdate } from './object-meta.js';
import { computePodQOS, getPodQOS } from '../meta/pod-qos.js';
import { cmpDiff } from './go-cmp.js';
import { goType, internalPodSpec, isMap, isQuantity, structField, type GoMap, type GoStruct, type GoType, type GoValue } from './go-types.js';
import { podValidationOptions, validatePodMetadataAndSpec, validatePodSpecificAnnotations, type PodValidationOptions } from './pod-spec.js';
import { arr, child, index, inclusiveRange, isObj, isSet, num, obj, str, type Obj } from './pod-util.js';
import { validateTolerations } from './scheduling.js';
import { cmpQuantity } from '../apimachinery/quantity.js';
import { MIRROR_POD_ANNOTATION } from '../component-helpers/pod-references.js';

/**
 * updatablePodSpecFieldsNoResources joined with "," (InPlacePodVerticalScaling
 * is alpha, off, in v1.32, so resources are not in the list).
 */
export const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
].join(',');

const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

/** ValidatePodSpecificAnnotationUpdates */
function validatePodSpecificAnnotationUpdates(pod: Obj, old: Obj, path: string, opts: PodValidationOptions): FieldError[] {
  const na = obj(obj(pod.metadata).annotations);
  const oa = obj(obj(old.metadata).annotations);
  const errs: FieldError[] = [];
  for (const [k, ov] of Object.entries(oa)) {
    if (k in na && na[k] === ov) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(field.forbidden(`${path}[${k}]`, 'may not remove or update AppArmor annotations'));
    if (k === MIRROR_POD_ANNOTATION) errs.push(field.forbidden(`${path}[${k}]`, 'may not remove or update mirror pod annotation'));
  }
  for (const k of Object.keys(na)) {
    if (k in oa) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(field.forbidden(`${path}[${k}]`, 'may not add AppArmor annotations'));
    if (k === MIRROR_POD_ANNOTATION) errs.push(field.forbidden(`${path}[${k}]`, 'may not add mirror pod annotation'));
  }
  errs.push(...validatePodSpecificAnnotations(na, obj(pod.spec), path, opts));
  return errs;
}

/** ValidateContainerUpdates: the same number of containers, each with an image. */
function validateContainerUpdates(next: unknown, old: unknown, path: string): { errs: FieldError[]; stop: boolean } {
  const n = arr(next);
  if (n.length !== arr(old).length) return { errs: [field.forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  n.forEach((c, i) => {
    const image = str(obj(c).image);
    if (image.length === 0) errs.push(field.required(child(index(path, i), 'image')));
    if (image.trim().length !== image.length) errs.push(field.invalid(child(index(path, i), 'image'), image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

/** A toleration as reflect.DeepEqual sees it (pruned zero strings are ""). */
const tolerationKey = (t: Obj) => JSON.stringify([str(t.key), str(t.operator), str(t.value), str(t.effect)]);

/** validateOnlyAddedTolerations */
function validateOnlyAddedTolerations(next: unknown, old: unknown, path: string): FieldError[] {
  const newKeys = arr(next).map((t) => tolerationKey(obj(t)));
  for (const o of arr(old)) {
    if (!newKeys.includes(tolerationKey(obj(o)))) return [field.forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, path);
}

/** validateOnlyDeletedSchedulingGates */
function validateOnlyDeletedSchedulingGates(next: unknown, old: unknown, path: string): FieldError[] {
  const n = arr(next).map((g) => str(obj(g).name));
  if (n.length === 0) return [];
  const additional = new Map<string, number>();
  n.forEach((g, i) => additional.set(g, i));
  for (const g of arr(old)) additional.delete(str(obj(g).name));
  return [...additional].map(([g, i]) => field.forbidden(child(index(path, i), 'name'), `only deletion is allowed, but found new scheduling gate '${g}'`));
}

// ---------------------------------------------------------------------------
// apiequality.Semantic.DeepEqual on the internal model: nil and empty lists
// and maps are equal, quantities compare by value.

export function semanticEqual(t: GoType, x: GoValue, y: GoValue): boolean {
  switch (t.kind) {
    case 'quantity': {
      const a = isQuantity(x) ? x.q : undefined;
      const b = isQuantity(y) ? y.q : undefined;
      if (!a || !b) return !a && !b;
      return cmpQuantity(a, b) === 0;
    }
    case 'ptr':
      if (x === null || y === null) return x === null && y === null;
      return semanticEqual(t.elem, x, y);
    case 'slice': {
      const a = (x as GoValue[] | null) ?? [];
      const b = (y as GoValue[] | null) ?? [];
      return a.length === b.length && a.every((v, i) => {
        const w = b[i];
        return w !== undefined && semanticEqual(t.elem, v, w);
      });
    }
    case 'map': {
      const a = isMap(x) ? x.entries : [];
      const b = isMap(y) ? new Map((y as GoMap).entries) : new Map<string, GoValue>();
      return a.length === b.size && a.every(([k, v]) => b.has(k) && semanticEqual(t.elem, v, b.get(k)!));
    }
    case 'struct':
      return t.fields.every((f) => semanticEqual(f.type, structField(x as GoStruct, f), structField(y as GoStruct, f)));
    default:
      return x === y;
  }
}

const POD_SPEC = goType('core.PodSpec');

/** validateNodeSelectorMutation (gated pods): no existing entry removed or changed. */
function nodeSelectorMutationErrors(next: Obj, old: Obj, path: string): FieldError[] {
  for (const [k, v] of Object.entries(old)) {
    if (next[k] !== v) {
      const m = Object.keys(next).sort().map((key) => `${JSON.stringify(key)}:${JSON.stringify(str(next[key]))}`).join(', ');
      return [field.invalid(path, { goSyntax: `map[string]string{${m}}` }, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)')];
    }
  }
  return [];
}

/** ValidatePodUpdate: `pod` is the new object, `old` the stored one. */
export function validatePodUpdate(pod: any, old: any): FieldError[] {
  const opts: PodValidationOptions = { ...podValidationOptions(pod?.spec, old?.spec, pod?.metadata, old?.metadata), resourceIsPod: true };
  const errs = validateObjectMetaUpdate(obj(pod?.metadata), obj(old?.metadata));
  errs.push(...validatePodMetadataAndSpec(pod, opts));
  errs.push(...validatePodSpecificAnnotationUpdates(obj(pod), obj(old), 'metadata.annotations', opts));
  const spec = obj(pod?.spec);
  const oldSpec = obj(old?.spec);

  let r = validateContainerUpdates(spec.containers, oldSpec.containers, 'spec.containers');
  errs.push(...r.errs);
  if (r.stop) return errs;
  r = validateContainerUpdates(spec.initContainers, oldSpec.initContainers, 'spec.initContainers');
  errs.push(...r.errs);
  if (r.stop) return errs;

  if (isSet(spec.activeDeadlineSeconds)) {
    const v = num(spec.activeDeadlineSeconds);
    if (v < 0 || v > 2147483647) {
      errs.push(field.invalid('spec.activeDeadlineSeconds', v, inclusiveRange(0, 2147483647)));
      return errs;
    }
    if (isSet(oldSpec.activeDeadlineSeconds) && num(oldSpec.activeDeadlineSeconds) < v) {
      errs.push(field.invalid('spec.activeDeadlineSeconds', v, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (isSet(oldSpec.activeDeadlineSeconds)) {
    errs.push(field.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(spec.tolerations, oldSpec.tolerations, 'spec.tolerations'));
  errs.push(...validateOnlyDeletedSchedulingGates(spec.schedulingGates, oldSpec.schedulingGates, 'spec.schedulingGates'));

  const oldInternal = internalPodSpec(oldSpec, { emptyAsNil: true });
  const newInternal = internalPodSpec(spec);
  if (semanticEqual(POD_SPEC, newInternal, oldInternal)) return errs;

  if (getPodQOS(obj(old)) !== computePodQOS(obj(pod))) {
    errs.push(field.invalid('metadata', str(obj(pod?.status).qosClass), 'Pod QoS is immutable'));
  }

  // Munge the fields an update may change, then compare what is left.
  const munged = structuredClone(newInternal);
  const oldContainers = (oldInternal.Containers as GoStruct[] | null) ?? [];
  const oldInit = (oldInternal.InitContainers as GoStruct[] | null) ?? [];
  // validateContainerUpdates stopped above unless both lists have the same length.
  for (const [i, c] of ((munged.Containers as GoStruct[] | null) ?? []).entries()) c.Image = oldContainers[i]?.Image ?? '';
  for (const [i, c] of ((munged.InitContainers as GoStruct[] | null) ?? []).entries()) c.Image = oldInit[i]?.Image ?? '';
  // Pointer and slice fields: a converted struct carries them all, nil being null.
  munged.ActiveDeadlineSeconds = oldInternal.ActiveDeadlineSeconds ?? null;
  munged.SchedulingGates = oldInternal.SchedulingGates ?? null;
  munged.Tolerations = oldInternal.Tolerations ?? null;
  const oldGrace = oldInternal.TerminationGracePeriodSeconds;
  if (typeof oldGrace === 'number' && oldGrace < 0 && munged.TerminationGracePeriodSeconds === 1) {
    munged.TerminationGracePeriodSeconds = oldGrace;
  }

  // Gated pods may add to nodeSelector and to required node affinity.
  if (arr(oldSpec.schedulingGates).length > 0) {
    const nsType = POD_SPEC.kind === 'struct' ? POD_SPEC.fields.find((f) => f.name === 'NodeSelector')!.type : POD_SPEC;
    if (!semanticEqual(nsType, munged.NodeSelector ?? null, oldInternal.NodeSelector ?? null)) {
      errs.push(...nodeSelectorMutationErrors(obj(spec.nodeSelector), obj(oldSpec.nodeSelector), 'spec.nodeSelector'));
      munged.NodeSelector = oldInternal.NodeSelector ?? null;
    }
    const oldNA = (oldInternal.Affinity as GoStruct | null)?.NodeAffinity ?? null;
    const newAff = munged.Affinity as GoStruct | null;
    const newNA = newAff?.NodeAffinity ?? null;
    const naType: GoType = { kind: 'ptr', elem: goType('core.NodeAffinity') };
    if (!semanticEqual(naType, oldNA, newNA)) {
      errs.push(...nodeAffinityMutationErrors(obj(obj(spec.affinity).nodeAffinity), obj(obj(oldSpec.affinity).nodeAffinity)));
      if (newAff === null && oldNA === null) { /* already nil */ } else if (newAff === null) {
        munged.Affinity = { NodeAffinity: oldNA, PodAffinity: null, PodAntiAffinity: null };
      } else if (oldInternal.Affinity === null && newAff.PodAntiAffinity === null && newAff.PodAffinity === null) {
        munged.Affinity = null;
      } else newAff.NodeAffinity = oldNA;
    }
  }

  if (!semanticEqual(POD_SPEC, munged, oldInternal)) {
    const diff = cmpDiff(POD_SPEC, oldInternal, munged);
    errs.push(field.forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS}\n${diff}`));
  }
  return errs;
}

/** validateNodeAffinityMutation (gated pods): only additions to required node selector terms. */
function nodeAffinityMutationErrors(next: Obj, old: Obj): FieldError[] {
  const oldReq = old.requiredDuringSchedulingIgnoredDuringExecution;
  if (!isObj(oldReq)) return [];
  const oldTerms = arr(oldReq.nodeSelectorTerms).map(obj);
  const newTerms = arr(obj(next.requiredDuringSchedulingIgnoredDuringExecution).nodeSelectorTerms).map(obj);
  const p = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
  if (oldTerms.length > 0 && oldTerms.length !== newTerms.length) {
    return [field.invalid(p, { goSyntax: '[]core.NodeSelectorTerm{...}' }, 'no additions/deletions to non-empty NodeSelectorTerms list are allowed')];
  }
  const errs: FieldError[] = [];
  oldTerms.forEach((ot, i) => {
    // The lengths are equal here (checked above), so every old term has a new one.
    const nt = newTerms[i] ?? {};
    const onlyAdds = (k: string) => {
      const o = arr(ot[k]);
      const n = arr(nt[k]);
      return o.length === 0 || (n.length >= o.length && JSON.stringify(n.slice(0, o.length)) === JSON.stringify(o));
    };
    const emptyOld = arr(ot.matchExpressions).length === 0 && arr(ot.matchFields).length === 0;
    const ok = !(emptyOld && (arr(nt.matchExpressions).length > 0 || arr(nt.matchFields).length > 0)) && onlyAdds('matchExpressions') && onlyAdds('matchFields');
    if (!ok) errs.push(field.invalid(index(p, i), { goSyntax: 'core.NodeSelectorTerm{...}' }, 'only additions are allowed (no mutations or deletions)'));
  });
  return errs;
}

/** ValidatePodStatusUpdate, the parts a pod's own status write is checked for. */
export function validatePodStatusUpdate(pod: any, old: any): FieldError[] {
  const errs = validateObjectMetaUpdate(obj(pod?.metadata), obj(old?.metadata));
  errs.push(...validatePodSpecificAnnotationUpdates(obj(pod), obj(old), 'metadata.annotations', podValidationOptions(pod?.spec, old?.spec)));
  if (str(obj(pod?.spec).nodeName) !== str(obj(old?.spec).nodeName)) errs.push(field.forbidden('status.nodeName', 'may not be changed directly'));
  return errs;
}

/** ValidatePodEphemeralContainersUpdate: existing ephemeral containers may not change or go away. */
export function validatePodEphemeralContainersUpdate(pod: any, old: any): FieldError[] {
  const opts: PodValidationOptions = { ...podValidationOptions(pod?.spec, old?.spec, pod?.metadata, old?.metadata), resourceIsPod: true };
  const errs = validateObjectMetaUpdate(obj(pod?.metadata), obj(old?.metadata));
  errs.push(...validatePodMetadataAndSpec(pod, opts));
  errs.push(...validatePodSpecificAnnotationUpdates(obj(pod), obj(old), 'metadata.annotations', opts));
  if (MIRROR_POD_ANNOTATION in obj(obj(old?.metadata).annotations)) return [field.forbidden('', 'static pods do not support ephemeral containers')];
  const ecType = goType('core.EphemeralContainer');
  const byName = new Map(arr(obj(pod?.spec).ephemeralContainers).map((c) => [str(obj(c).name), obj(c)]));
  const newInternal = internalPodSpec(obj(pod?.spec));
  const oldInternal = internalPodSpec(obj(old?.spec), { emptyAsNil: true });
  const newECs = new Map(((newInternal.EphemeralContainers as GoStruct[] | null) ?? [])
    .map((c) => [((c.EphemeralContainerCommon as GoStruct).Name as string), c]));
  for (const oc of (oldInternal.EphemeralContainers as GoStruct[] | null) ?? []) {
    const name = (oc.EphemeralContainerCommon as GoStruct).Name as string;
    if (!byName.has(name)) {
      errs.push(field.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    } else if (!semanticEqual(ecType, oc, newECs.get(name)!)) {
      errs.push(field.forbidden('spec.ephemeralContainers',
        `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${cmpDiff(ecType, oc, newECs.get(name)!)}`));
    }
  }
  return errs;
}
