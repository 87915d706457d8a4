/**
 * Pod and pod template validation as upstream v1.32 runs it
 * (pkg/apis/core/validation/validation.go: ValidatePodSpec,
 * validatePodMetadataAndSpec, ValidatePodCreate, ValidatePodTemplateSpec,
 * ValidatePodSpecificAnnotations, and pkg/api/pod/util.go's
 * GetValidationOptionsFromPodSpecAndMeta), over v1 JSON after defaulting.
 *
 * Workload kinds validate their pod template with validatePodTemplateSpec
 * and the template's path ("spec.template", "spec.jobTemplate.spec.template").
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Subdomain, isValidLabelValue, validateLabels } from '../meta/names.js';
import { nameIsDNSSubdomain, validateAnnotations, validateObjectMeta } from './object-meta.js';
import {
  validatePodOS, validateWindowsHostProcessPod, validateWindowsSecurityContextOptions as windowsOptionsErrors, visitContainersWithPath,
} from '../os/windows-rules.js';
import { labelSelectorHasInvalidLabelValue } from './common.js';
import {
  validateAppArmorProfileField, validateContainerOnlyForPod, validateContainers, validateEphemeralContainers,
  validateInitContainers, validateResourceRequirements, validateSeccompProfileField, type ContainerContext,
  type PodValidationOptions,
} from './container.js';
import {
  arr, child, dns1123Label, dns1123Subdomain, index, inclusiveRange, isHugePageResourceName, isHugePageValueDivisible,
  isObj, isSet, isValidID, isValidIP, key, obj, qualifiedName, str, type Obj,
} from './pod-util.js';
import { validateAffinity, validateTolerations, validateTopologySpreadConstraints } from './scheduling.js';
import { validateLocalDescendingPath, validateLocalNonReservedPath, validateVolumes } from './volumes.js';
import { MIRROR_POD_ANNOTATION } from '../component-helpers/pod-references.js';
import { sysctlNamespace } from '../os/linux-sysctls.js';

export type { PodValidationOptions };

const TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerations';
const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
const SECCOMP_POD = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

// ---------------------------------------------------------------------------
// Pod-specific annotations.

/** helper.GetDeletionCostFromPodAnnotations: whether the annotation (if present) is a valid int32. */
function deletionCostValid(annotations: Obj): boolean {
  if (!(DELETION_COST in annotations)) return true;
  const v = str(annotations[DELETION_COST]);
  const first = v.charAt(0);
  const firstOk = v.length > 0 && (first === '-' || v === '0' || (first >= '1' && first <= '9'));
  if (!firstOk || !/^-?\d+$/.test(v)) return false;
  const n = Number(v);
  return n >= -2147483648 && n <= 2147483647;
}

/** ValidateSeccompProfile (the deprecated annotation values). */
function validateSeccompAnnotationValue(p: string, path: string): FieldError[] {
  if (p === 'runtime/default' || p === 'docker/default' || p === 'unconfined') return [];
  if (p.startsWith('localhost/')) return validateLocalDescendingPath(p.slice('localhost/'.length), path);
  return [field.invalid(path, p, 'must be a valid seccomp profile')];
}

function podSpecHasContainer(spec: Obj, name: string): boolean {
  let found = false;
  visitContainersWithPath(spec, 'spec', (c) => { if (str(c.name) === name) { found = true; return false; } });
  return found;
}

/** ValidatePodSpecificAnnotations */
export function validatePodSpecificAnnotations(annotations: unknown, spec: Obj, path: string, opts: PodValidationOptions): FieldError[] {
  const a = obj(annotations);
  const errs: FieldError[] = [];
  if (MIRROR_POD_ANNOTATION in a && !str(spec.nodeName)) {
    errs.push(field.invalid(key(path, MIRROR_POD_ANNOTATION), str(a[MIRROR_POD_ANNOTATION]), 'must set spec.nodeName if mirror pod annotation is set'));
  }
  if (str(a[TOLERATIONS_ANNOTATION]) !== '') {
    let tolerations: unknown;
    try { tolerations = JSON.parse(str(a[TOLERATIONS_ANNOTATION])); } catch (e) {
      errs.push(field.invalid(path, TOLERATIONS_ANNOTATION, (e as Error).message));
      tolerations = undefined;
    }
    if (Array.isArray(tolerations) && tolerations.length > 0) errs.push(...validateTolerations(tolerations, child(path, TOLERATIONS_ANNOTATION)));
  }
  if (!opts.allowInvalidPodDeletionCost && !deletionCostValid(a)) {
    errs.push(field.invalid(key(path, DELETION_COST), str(a[DELETION_COST]), 'must be a 32bit integer'));
  }
  if (SECCOMP_POD in a) errs.push(...validateSeccompAnnotationValue(str(a[SECCOMP_POD]), child(path, SECCOMP_POD)));
  for (const [k, p] of Object.entries(a)) {
    if (k.startsWith(SECCOMP_CONTAINER_PREFIX)) errs.push(...validateSeccompAnnotationValue(str(p), child(path, k)));
  }
  for (const [k, p0] of Object.entries(a)) {
    if (!k.startsWith(APPARMOR_PREFIX)) continue;
    const p = str(p0);
    const name = k.slice(APPARMOR_PREFIX.length);
    if (!podSpecHasContainer(spec, name)) errs.push(field.invalid(key(path, k), name, 'container not found'));
    if (p !== '' && p !== 'runtime/default' && p !== 'unconfined' && !p.startsWith('localhost/')) {
      errs.push(field.invalid(key(path, k), p, `invalid AppArmor profile name: ${JSON.stringify(p)}`));
    }
  }
  return errs;
}

// ---------------------------------------------------------------------------
// Pod security context.

const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_RE_TEXT = `^(${SYSCTL_SEGMENT}[\\./])*${SYSCTL_SEGMENT}$`;
const SYSCTL_RE = new RegExp(SYSCTL_RE_TEXT);

/** ValidateHostSysctl */
function hostSysctlError(name: string, spec: Obj, path: string): FieldError | undefined {
  const ns = sysctlNamespace(name);
  if (spec.hostNetwork === true && ns === 'net') return field.invalid(path, name, "may not be specified when 'hostNetwork' is true");
  if (spec.hostIPC === true && ns === 'ipc') return field.invalid(path, name, "may not be specified when 'hostIPC' is true");
  return undefined;
}

function validateSysctls(sysctls: unknown[], spec: Obj, path: string, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  sysctls.map(obj).forEach((s, i) => {
    const name = str(s.name);
    const np = child(index(path, i), 'name');
    if (!name) errs.push(field.required(np));
    else if (name.length > 253 || !SYSCTL_RE.test(name)) {
      errs.push(field.invalid(np, name, `must have at most 253 characters and match regex ${SYSCTL_RE_TEXT}`));
    } else if (names.has(name)) errs.push(field.duplicate(np, name));
    if (!opts.allowNamespacedSysctlsForHostNetAndHostIPC) {
      const e = hostSysctlError(name, spec, np);
      if (e) errs.push(e);
    }
    names.add(name);
  });
  return errs;
}

/** validatePodSpecSecurityContext (v1 host fields live on the spec). */
function validatePodSecurityContext(spec: Obj, path: string, opts: PodValidationOptions): FieldError[] {
  const sc = spec.securityContext;
  if (!isObj(sc)) return [];
  const errs: FieldError[] = [];
  const scPath = child(path, 'securityContext');
  const id = (f: string) => {
    if (typeof sc[f] === 'number') for (const m of isValidID(sc[f])) errs.push(field.invalid(child(scPath, f), sc[f], m));
  };
  id('fsGroup');
  id('runAsUser');
  id('runAsGroup');
  arr(sc.supplementalGroups).forEach((g, i) => {
    if (typeof g === 'number') for (const m of isValidID(g)) errs.push(field.invalid(index(child(scPath, 'supplementalGroups'), i), g, m));
  });
  if (typeof spec.shareProcessNamespace === 'boolean' && spec.hostPID === true && spec.shareProcessNamespace) {
    errs.push(field.invalid(child(scPath, 'shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  if (arr(sc.sysctls).length) errs.push(...validateSysctls(arr(sc.sysctls), spec, child(scPath, 'sysctls'), opts));
  if (isSet(sc.fsGroupChangePolicy) && !['Always', 'OnRootMismatch'].includes(str(sc.fsGroupChangePolicy))) {
    errs.push(field.notSupported(child(scPath, 'fsGroupChangePolicy'), str(sc.fsGroupChangePolicy), ['Always', 'OnRootMismatch']));
  }
  errs.push(...validateSeccompProfileField(sc.seccompProfile, child(scPath, 'seccompProfile'), validateLocalDescendingPath));
  // windowsOptions content is validated by validateWindowsSecurityContextOptions here upstream.
  errs.push(...windowsOptionsErrors(sc.windowsOptions, child(scPath, 'windowsOptions')));
  errs.push(...validateAppArmorProfileField(sc.appArmorProfile, child(scPath, 'appArmorProfile')));
  if (isSet(sc.supplementalGroupsPolicy) && !['Merge', 'Strict'].includes(str(sc.supplementalGroupsPolicy))) {
    errs.push(field.notSupported(child(scPath, 'supplementalGroupsPolicy'), str(sc.supplementalGroupsPolicy), ['Merge', 'Strict']));
  }
  return errs;
}


// ---------------------------------------------------------------------------
// DNS, gates, claims.

function validatePodDNSConfig(spec: Obj, path: string): FieldError[] {
  const cfg = spec.dnsConfig;
  const errs: FieldError[] = [];
  if (spec.dnsPolicy === 'None') {
    if (!isObj(cfg)) return [field.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (arr(cfg.nameservers).length === 0) {
      return [field.required(child(path, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
    }
  }
  if (!isObj(cfg)) return errs;
  const ns = arr(cfg.nameservers).map(str);
  const goList = (l: string[]) => ({ goSyntax: `[]string{${l.map((x) => JSON.stringify(x)).join(', ')}}` });
  if (ns.length > 3) errs.push(field.invalid(child(path, 'nameservers'), goList(ns), 'must not have more than 3 nameservers'));
  ns.forEach((n, i) => errs.push(...isValidIP(index(child(path, 'nameservers'), i), n)));
  const searches = arr(cfg.searches).map(str);
  if (searches.length > 32) errs.push(field.invalid(child(path, 'searches'), goList(searches), 'must not have more than 32 search paths'));
  if (Buffer.byteLength(searches.join(' ')) > 2048) {
    errs.push(field.invalid(child(path, 'searches'), goList(searches), 'must not have more than 2048 characters (including spaces) in the search list'));
  }
  searches.forEach((s, i) => errs.push(...dns1123Subdomain(s.endsWith('.') ? s.slice(0, -1) : s, index(child(path, 'searches'), i))));
  arr(cfg.options).forEach((o, i) => {
    if (!str(obj(o).name)) errs.push(field.required(index(child(path, 'options'), i), 'must not be empty'));
  });
  return errs;
}

function validatePodResourceClaims(claims: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(claims).map(obj).forEach((c, i) => {
    const p = index(path, i);
    const name = str(c.name);
    if (!name) errs.push(field.required(child(p, 'name')));
    else if (names.has(name)) errs.push(field.duplicate(child(p, 'name'), name));
    else { errs.push(...dns1123Label(name, child(p, 'name'))); names.add(name); }
    const goClaim = () => ({ goSyntax: `core.PodResourceClaim{Name:${JSON.stringify(name)}, ResourceClaimName:${isSet(c.resourceClaimName) ? '(*string)(0xc000000000)' : '(*string)(nil)'}, ResourceClaimTemplateName:${isSet(c.resourceClaimTemplateName) ? '(*string)(0xc000000000)' : '(*string)(nil)'}}` });
    if (isSet(c.resourceClaimName) && isSet(c.resourceClaimTemplateName)) {
      errs.push(field.invalid(p, goClaim(), 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'));
    }
    if (!isSet(c.resourceClaimName) && !isSet(c.resourceClaimTemplateName)) {
      errs.push(field.invalid(p, goClaim(), 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
    }
    for (const f of ['resourceClaimName', 'resourceClaimTemplateName']) {
      if (isSet(c[f])) errs.push(...dns1123Subdomain(str(c[f]), child(p, f)));
    }
  });
  return errs;
}

// ---------------------------------------------------------------------------
// ValidatePodSpec.

/** The v1 default for hostUsers is true: a spec without it, or with true, shares the host's user namespace. */
const hostUsersOf = (spec: Obj) => spec.hostUsers !== false;

export interface PodSpecMeta { name?: string }

/**
 * ValidatePodSpec. `path` is where the spec lives ("spec" for a pod,
 * "spec.template.spec" for a Deployment). `podMeta` is the pod's metadata
 * (generic ephemeral volumes name their claims after the pod); omit it for
 * templates.
 */
export function validatePodSpec(spec: any, path: string, opts: PodValidationOptions = {}, podMeta?: PodSpecMeta): FieldError[] {
  const s = obj(spec);
  const errs: FieldError[] = [];
  if (!isSet(s.terminationGracePeriodSeconds)) errs.push(field.required(child(path, 'terminationGracePeriodSeconds')));
  const gracePeriod = typeof s.terminationGracePeriodSeconds === 'number' ? s.terminationGracePeriodSeconds : undefined;
  const hostUsers = hostUsersOf(s);

  const { vols, errs: vErrs } = validateVolumes(s.volumes, podMeta?.name, child(path, 'volumes'), opts);
  errs.push(...vErrs);
  const podClaimNames = new Set(arr(s.resourceClaims).map((c) => str(obj(c).name)).filter((n) => n !== ''));
  errs.push(...validatePodResourceClaims(s.resourceClaims, child(path, 'resourceClaims')));
  const ctx: ContainerContext = {
    volumes: vols, podClaimNames, gracePeriod, podRestartPolicy: str(s.restartPolicy), hostUsers, opts,
    localDescendingPath: validateLocalDescendingPath,
  };
  errs.push(...validateContainers(s.containers, child(path, 'containers'), ctx));
  errs.push(...validateInitContainers(s.initContainers, s.containers, child(path, 'initContainers'), ctx));
  errs.push(...validateEphemeralContainers(s.ephemeralContainers, s.containers, s.initContainers, child(path, 'ephemeralContainers'), ctx));

  // validatePodHostNetworkDeps
  if (s.hostNetwork === true) {
    arr(s.containers).map(obj).forEach((c, i) => {
      arr(c.ports).map(obj).forEach((p, j) => {
        const hp = typeof p.hostPort === 'number' ? p.hostPort : 0;
        const cp = typeof p.containerPort === 'number' ? p.containerPort : 0;
        if ((opts.resourceIsPod || hp !== 0) && hp !== cp) {
          errs.push(field.invalid(`${index(child(path, 'containers'), i)}.ports[${j}].hostPort`, hp, 'must match `containerPort` when `hostNetwork` is true'));
        }
      });
    });
  }

  const restartPolicy = str(s.restartPolicy);
  if (restartPolicy === '') errs.push(field.required(child(path, 'restartPolicy')));
  else if (!['Always', 'OnFailure', 'Never'].includes(restartPolicy)) {
    errs.push(field.notSupported(child(path, 'restartPolicy'), restartPolicy, ['Always', 'OnFailure', 'Never']));
  }
  const dnsPolicy = str(s.dnsPolicy);
  if (dnsPolicy === '') errs.push(field.required(child(path, 'dnsPolicy')));
  else if (!['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(dnsPolicy)) {
    errs.push(field.notSupported(child(path, 'dnsPolicy'), dnsPolicy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  }
  errs.push(...validateLabels(isObj(s.nodeSelector) ? s.nodeSelector : undefined, child(path, 'nodeSelector')));
  errs.push(...validatePodSecurityContext(s, path, opts));
  errs.push(...validateAffinity(s.affinity, !!opts.allowInvalidLabelValueInSelector, child(path, 'affinity')));
  errs.push(...validatePodDNSConfig(s, child(path, 'dnsConfig')));
  arr(s.readinessGates).forEach((g, i) => {
    errs.push(...qualifiedName(str(obj(g).conditionType), child(index(child(path, 'readinessGates'), i), 'conditionType')));
  });
  const gates = new Set<string>();
  arr(s.schedulingGates).forEach((g, i) => {
    const name = str(obj(g).name);
    const p = index(child(path, 'schedulingGates'), i);
    errs.push(...qualifiedName(name, p));
    if (gates.has(name)) errs.push(field.duplicate(p, name));
    gates.add(name);
  });
  errs.push(...validateTopologySpreadConstraints(s.topologySpreadConstraints, child(path, 'topologySpreadConstraints'),
    !!opts.allowInvalidTopologySpreadConstraintLabelSelector));
  errs.push(...validateWindowsHostProcessPod(s, path, { allowPrivileged: opts.allowPrivileged !== false }));
  if (s.hostUsers === false) {
    if (s.hostNetwork === true) errs.push(field.forbidden(child(path, 'hostNetwork'), 'when `pod.Spec.HostUsers` is false'));
    if (s.hostPID === true) errs.push(field.forbidden(child(path, 'HostPID'), 'when `pod.Spec.HostUsers` is false'));
    if (s.hostIPC === true) errs.push(field.forbidden(child(path, 'HostIPC'), 'when `pod.Spec.HostUsers` is false'));
  }
  const sa = str(s.serviceAccountName || s.serviceAccount);
  if (sa.length > 0) for (const m of nameIsDNSSubdomain(sa, false)) errs.push(field.invalid(child(path, 'serviceAccountName'), sa, m));
  if (str(s.nodeName).length > 0) errs.push(...dns1123Subdomain(str(s.nodeName), child(path, 'nodeName')));
  if (isSet(s.activeDeadlineSeconds)) {
    const v = Number(s.activeDeadlineSeconds);
    if (v < 1 || v > 2147483647) errs.push(field.invalid(child(path, 'activeDeadlineSeconds'), v, inclusiveRange(1, 2147483647)));
  }
  if (str(s.hostname).length > 0) errs.push(...dns1123Label(str(s.hostname), child(path, 'hostname')));
  if (str(s.subdomain).length > 0) errs.push(...dns1123Label(str(s.subdomain), child(path, 'subdomain')));
  if (arr(s.tolerations).length > 0) errs.push(...validateTolerations(s.tolerations, child(path, 'tolerations')));
  arr(s.hostAliases).map(obj).forEach((h, i) => {
    const p = index(child(path, 'hostAliases'), i);
    errs.push(...isValidIP(child(p, 'ip'), str(h.ip)));
    arr(h.hostnames).forEach((hn, j) => errs.push(...dns1123Subdomain(str(hn), index(child(p, 'hostnames'), j))));
  });
  if (str(s.priorityClassName).length > 0) errs.push(...dns1123Subdomain(str(s.priorityClassName), child(path, 'priorityClassName')));
  if (isSet(s.runtimeClassName)) {
    for (const m of isDNS1123Subdomain(str(s.runtimeClassName))) errs.push(field.invalid(child(path, 'runtimeClassName'), str(s.runtimeClassName), m));
  }
  if (isSet(s.preemptionPolicy)) {
    const pp = str(s.preemptionPolicy);
    if (pp === '') errs.push(field.required(child(path, 'preemptionPolicy')));
    else if (pp !== 'PreemptLowerPriority' && pp !== 'Never') {
      errs.push(field.notSupported(child(path, 'preemptionPolicy'), pp, ['PreemptLowerPriority', 'Never']));
    }
  }
  if (isSet(s.overhead)) errs.push(...validateResourceRequirements({ limits: s.overhead }, new Set(), child(path, 'overhead'), opts));
  errs.push(...validatePodOS(s, path));
  return errs;
}

// ---------------------------------------------------------------------------
// Annotation/field consistency (seccomp, AppArmor).

function seccompMatch(annotation: string, f: Obj, path: string): FieldError | undefined {
  switch (f.type) {
    case 'Unconfined':
      if (annotation !== 'unconfined') return field.forbidden(child(path, 'type'), 'seccomp type in annotation and field must match');
      break;
    case 'RuntimeDefault':
      if (annotation !== 'runtime/default' && annotation !== 'docker/default') {
        return field.forbidden(child(path, 'type'), 'seccomp type in annotation and field must match');
      }
      break;
    case 'Localhost':
      if (!annotation.startsWith('localhost/')) return field.forbidden(child(path, 'type'), 'seccomp type in annotation and field must match');
      if (!isSet(f.localhostProfile) || annotation.slice('localhost/'.length) !== str(f.localhostProfile)) {
        return field.forbidden(child(path, 'localhostProfile'), 'seccomp profile in annotation and field must match');
      }
      break;
    default: break;
  }
  return undefined;
}

/** validateSeccompAnnotationsAndFields */
function validateSeccompAnnotationsAndFields(meta: Obj, spec: Obj, specPath: string): FieldError[] {
  const a = obj(meta.annotations);
  const errs: FieldError[] = [];
  if (isObj(spec.securityContext) && isObj(spec.securityContext.seccompProfile) && SECCOMP_POD in a) {
    const e = seccompMatch(str(a[SECCOMP_POD]), spec.securityContext.seccompProfile, child(child(specPath, 'securityContext'), 'seccompProfile'));
    if (e) errs.push(e);
  }
  visitContainersWithPath(spec, specPath, (c, cPath) => {
    const f = isObj(c.securityContext) ? c.securityContext.seccompProfile : undefined;
    if (!isObj(f)) return;
    const k = SECCOMP_CONTAINER_PREFIX + str(c.name);
    if (k in a) {
      const e = seccompMatch(str(a[k]), f, `${cPath}.securityContext.seccompProfile`);
      if (e) errs.push(e);
    }
  });
  return errs;
}

/** validateAppArmorAnnotationsAndFieldsMatchOnCreate (AppArmorFields is GA in v1.32; Windows pods are skipped). */
function validateAppArmorAnnotationsAndFields(meta: Obj, spec: Obj, specPath: string): FieldError[] {
  if (isObj(spec.os) && spec.os.name === 'windows') return [];
  const a = obj(meta.annotations);
  const errs: FieldError[] = [];
  const podProfile = isObj(spec.securityContext) && isObj(spec.securityContext.appArmorProfile) ? spec.securityContext.appArmorProfile : undefined;
  visitContainersWithPath(spec, specPath, (c, cPath) => {
    const own = isObj(c.securityContext) && isObj(c.securityContext.appArmorProfile) ? c.securityContext.appArmorProfile : undefined;
    const profile = own ?? podProfile;
    if (!profile) return;
    const k = APPARMOR_PREFIX + str(c.name);
    if (!(k in a)) return;
    const ann = str(a[k]);
    const ap = `${cPath}.securityContext.appArmorProfile`;
    switch (profile.type) {
      case 'Unconfined':
        if (ann !== 'unconfined') errs.push(field.forbidden(child(ap, 'type'), 'apparmor type in annotation and field must match'));
        break;
      case 'RuntimeDefault':
        if (ann !== 'runtime/default') errs.push(field.forbidden(child(ap, 'type'), 'apparmor type in annotation and field must match'));
        break;
      case 'Localhost':
        if (!ann.startsWith('localhost/')) errs.push(field.forbidden(child(ap, 'type'), 'apparmor type in annotation and field must match'));
        else if (!isSet(profile.localhostProfile) || ann.slice('localhost/'.length) !== str(profile.localhostProfile)) {
          errs.push(field.forbidden(child(ap, 'localhostProfile'), 'apparmor profile in annotation and field must match'));
        }
        break;
      default: break;
    }
  });
  return errs;
}

// ---------------------------------------------------------------------------
// Templates, pods.

/**
 * ValidatePodTemplateSpec: the template's labels and annotations (at
 * `<path>.labels` and `<path>.annotations`, not under metadata), then the
 * spec at `<path>.spec`. Ephemeral containers are not allowed in templates.
 */
export function validatePodTemplateSpec(template: any, path: string, options: PodValidationOptions = {}): FieldError[] {
  const opts: PodValidationOptions = { ...podTemplateValidationOptions(template, options.oldTemplate), ...options };
  const t = obj(template);
  const meta = obj(t.metadata);
  const spec = obj(t.spec);
  const errs: FieldError[] = [];
  errs.push(...validateLabels(isObj(meta.labels) ? meta.labels : undefined, child(path, 'labels')));
  errs.push(...validateAnnotations(isObj(meta.annotations) ? meta.annotations : undefined, child(path, 'annotations')));
  errs.push(...validatePodSpecificAnnotations(meta.annotations, spec, child(path, 'annotations'), opts));
  errs.push(...validatePodSpec(spec, child(path, 'spec'), { ...opts, resourceIsPod: false }));
  errs.push(...validateSeccompAnnotationsAndFields(meta, spec, child(path, 'spec')));
  errs.push(...validateAppArmorAnnotationsAndFields(meta, spec, child(path, 'spec')));
  if (arr(spec.ephemeralContainers).length > 0) {
    errs.push(field.forbidden(child(child(path, 'spec'), 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}

/** validatePodMetadataAndSpec (the store reports a missing name itself). */
export function validatePodMetadataAndSpec(pod: any, opts: PodValidationOptions): FieldError[] {
  const meta = obj(pod?.metadata);
  const spec = obj(pod?.spec);
  const errs = validateObjectMeta(meta, { namespaced: true, nameFn: nameIsDNSSubdomain });
  errs.push(...validatePodSpecificAnnotations(meta.annotations, spec, 'metadata.annotations', opts));
  errs.push(...validatePodSpec(spec, 'spec', opts, { name: str(meta.name) }));
  if (str(spec.serviceAccountName || spec.serviceAccount) === '') {
    arr(spec.volumes).map(obj).forEach((v, vi) => {
      if (!isObj(v.projected)) return;
      arr(v.projected.sources).map(obj).forEach((src, si) => {
        if (isSet(src.serviceAccountToken)) {
          errs.push(field.forbidden(`spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`,
            'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  arr(spec.containers).map(obj).forEach((c, i) => errs.push(...validateContainerOnlyForPod(c, `spec.containers[${i}]`)));
  arr(spec.initContainers).map(obj).forEach((c, i) => errs.push(...validateContainerOnlyForPod(c, `spec.initContainers[${i}]`)));
  return errs;
}

/** ValidatePodCreate */
export function validatePodCreate(pod: any, opts: PodValidationOptions = podValidationOptions(pod?.spec, undefined, pod?.metadata)): FieldError[] {
  const o = { ...opts, resourceIsPod: true };
  const meta = obj(pod?.metadata);
  const spec = obj(pod?.spec);
  const errs = validatePodMetadataAndSpec(pod, o);
  if (arr(spec.ephemeralContainers).length > 0) errs.push(field.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (str(spec.nodeName) !== '' && arr(spec.schedulingGates).length !== 0) {
    errs.push(field.forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  errs.push(...validateSeccompAnnotationsAndFields(meta, spec, 'spec'));
  errs.push(...validateAppArmorAnnotationsAndFields(meta, spec, 'spec'));
  return errs;
}

// ---------------------------------------------------------------------------
// Validation options (pkg/api/pod/util.go).

function usesIndivisibleHugePages(spec: Obj): boolean {
  let found = false;
  visitContainersWithPath(spec, '', (c) => {
    for (const list of [obj(obj(c.resources).limits), obj(obj(c.resources).requests)]) {
      for (const [n, v] of Object.entries(list)) if (isHugePageResourceName(n) && !isHugePageValueDivisible(n, v)) found = true;
    }
  });
  return found;
}

function hasInvalidAffinitySelectorValue(spec: Obj): boolean {
  const a = obj(spec.affinity);
  for (const kind of [a.podAffinity, a.podAntiAffinity]) {
    if (!isObj(kind)) continue;
    for (const t of arr(kind.requiredDuringSchedulingIgnoredDuringExecution)) {
      if (labelSelectorHasInvalidLabelValue(obj(t).labelSelector) || labelSelectorHasInvalidLabelValue(obj(t).namespaceSelector)) return true;
    }
    for (const w of arr(kind.preferredDuringSchedulingIgnoredDuringExecution)) {
      const t = obj(obj(w).podAffinityTerm);
      if (labelSelectorHasInvalidLabelValue(t.labelSelector) || labelSelectorHasInvalidLabelValue(t.namespaceSelector)) return true;
    }
  }
  return false;
}

function hasInvalidTopologySelector(spec: Obj): boolean {
  return arr(spec.topologySpreadConstraints).some((c) => {
    const sel = obj(c).labelSelector;
    if (!isObj(sel)) return false;
    if (Object.entries(obj(sel.matchLabels)).some(([, v]) => isValidLabelValue(str(v)).length > 0)) return true;
    return labelSelectorHasInvalidLabelValue(sel);
  });
}

function hasNonLocalProjectedTokenPath(spec: Obj): boolean {
  return arr(spec.volumes).some((v) => arr(obj(obj(v).projected).sources).some((s) => {
    const t = obj(s).serviceAccountToken;
    return isObj(t) && validateLocalNonReservedPath(str(t.path), '').length > 0;
  }));
}

/**
 * GetValidationOptionsFromPodSpecAndMeta: the defaults of v1.32's gates,
 * relaxed on update where the old object already relied on what is no
 * longer accepted.
 */
export function podValidationOptions(spec: unknown, oldSpec?: unknown, meta?: unknown, oldMeta?: unknown): PodValidationOptions {
  void spec; void meta;
  const opts: PodValidationOptions = { allowRelaxedEnvironmentVariableValidation: true };
  if (isObj(oldSpec)) {
    opts.allowIndivisibleHugePagesValues = usesIndivisibleHugePages(oldSpec);
    opts.allowInvalidLabelValueInSelector = hasInvalidAffinitySelectorValue(oldSpec);
    opts.allowInvalidTopologySpreadConstraintLabelSelector = hasInvalidTopologySelector(oldSpec);
    opts.allowNonLocalProjectedTokenPath = hasNonLocalProjectedTokenPath(oldSpec);
    const sysctls = arr(obj(oldSpec.securityContext).sysctls);
    opts.allowNamespacedSysctlsForHostNetAndHostIPC = sysctls.some((s) => hostSysctlError(str(obj(s).name), oldSpec, '') !== undefined);
  }
  if (isObj(oldMeta)) opts.allowInvalidPodDeletionCost = !deletionCostValid(obj(oldMeta.annotations));
  return opts;
}

/** GetValidationOptionsFromPodTemplate: the options a workload validates its template with. */
export function podTemplateValidationOptions(template: unknown, oldTemplate?: unknown): PodValidationOptions {
  const t = obj(template);
  const o = isObj(oldTemplate) ? oldTemplate : undefined;
  return podValidationOptions(t.spec, o?.spec, t.metadata, o?.metadata);
}
