/**
 * Container validation of pkg/apis/core/validation (v1.32):
 * validateContainers, validateInitContainers, validateEphemeralContainers,
 * validateContainerCommon and what they call (ports, env, envFrom, volume
 * mounts and devices, pull policy, resources, resize policy, probes,
 * lifecycle handlers, ValidateSecurityContext), over v1 JSON containers.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isQualifiedName, isDNS1123Subdomain } from '../meta/names.js';
import { validateWindowsSecurityContextOptions } from '../os/windows-rules.js';
import { goSyntaxOf } from './go-types.js';
import {
  arr, child, cmpQ, dns1123Label, index, inclusiveRange, isConfigMapKey, isEnvVarName, isHTTPHeaderName,
  isHugePageResourceName, isHugePageValueDivisible, isObj, isOvercommitAllowed, isRelaxedEnvVarName, isSet, isValidID,
  isValidPortName, isValidPortNum, key, nonNegative, notFound, num, obj, quantityOf, quantityString, str,
  validateContainerResourceName, validatePortNumOrName, validateResourceQuantityValue, type Obj,
} from './pod-util.js';
import { validateVolumeDevices, validateVolumeMounts, type VolumeMap } from './volumes.js';

export interface PodValidationOptions {
  /** The object validated is a Pod (not a template inside another kind). */
  resourceIsPod?: boolean;
  allowInvalidPodDeletionCost?: boolean;
  allowInvalidLabelValueInSelector?: boolean;
  allowIndivisibleHugePagesValues?: boolean;
  allowInvalidTopologySpreadConstraintLabelSelector?: boolean;
  allowNonLocalProjectedTokenPath?: boolean;
  allowNamespacedSysctlsForHostNetAndHostIPC?: boolean;
  /** RelaxedEnvironmentVariableValidation is beta and on in v1.32: true unless set false. */
  allowRelaxedEnvironmentVariableValidation?: boolean;
  /** PodLifecycleSleepActionAllowZero is alpha (off) in v1.32. */
  allowPodLifecycleSleepActionZeroValue?: boolean;
  /** capabilities.AllowPrivileged (kube-apiserver --allow-privileged): true unless set false. */
  allowPrivileged?: boolean;
  /** For a template on update: the old template, whose invalid values stay allowed (GetValidationOptionsFromPodTemplate). */
  oldTemplate?: unknown;
}

const relaxedEnv = (o: PodValidationOptions) => o.allowRelaxedEnvironmentVariableValidation !== false;

// ---------------------------------------------------------------------------
// Ports, env, envFrom.

function validateContainerPorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(ports).forEach((p0, i) => {
    const p = obj(p0);
    const ip = index(path, i);
    const name = str(p.name);
    if (name.length > 0) {
      const msgs = isValidPortName(name);
      if (msgs.length) for (const m of msgs) errs.push(field.invalid(child(ip, 'name'), name, m));
      else if (names.has(name)) errs.push(field.duplicate(child(ip, 'name'), name));
      else names.add(name);
    }
    const cp = num(p.containerPort);
    if (cp === 0) errs.push(field.required(child(ip, 'containerPort')));
    else for (const m of isValidPortNum(cp)) errs.push(field.invalid(child(ip, 'containerPort'), cp, m));
    const hp = num(p.hostPort);
    if (hp !== 0) for (const m of isValidPortNum(hp)) errs.push(field.invalid(child(ip, 'hostPort'), hp, m));
    const proto = str(p.protocol);
    if (proto.length === 0) errs.push(field.required(child(ip, 'protocol')));
    else if (!['SCTP', 'TCP', 'UDP'].includes(proto)) errs.push(field.notSupported(child(ip, 'protocol'), proto, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName',
  'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
export const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const CONTAINER_RESOURCE_PATHS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu',
  'requests.ephemeral-storage', 'requests.memory'];
const HUGEPAGES_PREFIXES = ['limits.hugepages-', 'requests.hugepages-'];

const DOWNWARD_LABELS = new Set(['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid',
  'spec.nodeName', 'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName', 'status.phase', 'status.hostIP',
  'status.hostIPs', 'status.podIP', 'status.podIPs']);

/** fieldpath.SplitMaybeSubscriptedPath */
function splitSubscript(p: string): [string, string] | undefined {
  if (!p.endsWith("']")) return undefined;
  const s = p.slice(0, -2);
  const i = s.indexOf("['");
  if (i <= 0) return undefined;
  return [s.slice(0, i), s.slice(i + 2)];
}

/** podshelper.ConvertDownwardAPIFieldLabel */
function convertDownwardAPIFieldLabel(version: string, label: string): string | Error {
  if (version !== 'v1') return new Error(`unsupported pod version: ${version}`);
  const sub = splitSubscript(label);
  if (sub) {
    if (sub[0] === 'metadata.annotations' || sub[0] === 'metadata.labels') return label;
    return new Error(`field label does not support subscript: ${label}`);
  }
  if (DOWNWARD_LABELS.has(label)) return label;
  if (label === 'spec.host') return 'spec.nodeName';
  return new Error(`field label not supported: ${label}`);
}

/** validateObjectFieldSelector */
export function validateObjectFieldSelector(fs: Obj, expressions: string[], path: string): FieldError[] {
  const apiVersion = str(fs.apiVersion);
  const fieldPath = str(fs.fieldPath);
  if (!apiVersion) return [field.required(child(path, 'apiVersion'))];
  if (!fieldPath) return [field.required(child(path, 'fieldPath'))];
  const internal = convertDownwardAPIFieldLabel(apiVersion, fieldPath);
  if (internal instanceof Error) {
    return [field.invalid(child(path, 'fieldPath'), fieldPath, `error converting fieldPath: ${internal.message}`)];
  }
  const sub = splitSubscript(internal);
  if (sub) {
    const [p, subscript] = sub;
    if (p === 'metadata.annotations') return isQualifiedName(subscript.toLowerCase()).map((m) => field.invalid(path, subscript.toLowerCase(), m));
    if (p === 'metadata.labels') return isQualifiedName(subscript).map((m) => field.invalid(path, subscript, m));
    return [field.invalid(path, p, 'does not support subscript')];
  }
  if (!expressions.includes(internal)) return [field.notSupported(child(path, 'fieldPath'), internal, expressions)];
  return [];
}

const DIVISORS_CPU = ['1m', '1'];
const DIVISORS_BYTES = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

/** validateContainerResourceDivisor */
function validateContainerResourceDivisor(rName: string, divisor: unknown, path: string): FieldError[] {
  const q = quantityOf(divisor);
  if (!q || q.unscaled === 0n) return [];
  const s = quantityString(divisor);
  const errs: FieldError[] = [];
  const p = child(path, 'divisor');
  switch (rName) {
    case 'limits.cpu': case 'requests.cpu':
      if (!DIVISORS_CPU.includes(s)) errs.push(field.invalid(p, rName, "only divisor's values 1m and 1 are supported with the cpu resource"));
      break;
    case 'limits.memory': case 'requests.memory':
      if (!DIVISORS_BYTES.includes(s)) {
        errs.push(field.invalid(p, rName, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource"));
      }
      break;
    case 'limits.ephemeral-storage': case 'requests.ephemeral-storage':
      if (!DIVISORS_BYTES.includes(s)) {
        errs.push(field.invalid(p, rName, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource"));
      }
      break;
    default: break;
  }
  if (HUGEPAGES_PREFIXES.some((pre) => rName.startsWith(pre)) && !DIVISORS_BYTES.includes(s)) {
    errs.push(field.invalid(p, rName, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource"));
  }
  return errs;
}

/** validateContainerResourceFieldSelector */
export function validateContainerResourceFieldSelector(fs: Obj, path: string, volume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const resource = str(fs.resource);
  if (volume && !str(fs.containerName)) errs.push(field.required(child(path, 'containerName')));
  else if (!resource) errs.push(field.required(child(path, 'resource')));
  else if (!CONTAINER_RESOURCE_PATHS.includes(resource) && !HUGEPAGES_PREFIXES.some((p) => resource.startsWith(p))) {
    errs.push(field.notSupported(child(path, 'resource'), resource, CONTAINER_RESOURCE_PATHS));
  }
  errs.push(...validateContainerResourceDivisor(resource, fs.divisor, path));
  return errs;
}

function validateKeySelector(s: Obj, path: string): FieldError[] {
  const errs = isDNS1123Subdomain(str(s.name)).map((m) => field.invalid(child(path, 'name'), str(s.name), m));
  const k = str(s.key);
  if (!k) errs.push(field.required(child(path, 'key')));
  else for (const m of isConfigMapKey(k)) errs.push(field.invalid(child(path, 'key'), k, m));
  return errs;
}

function validateEnvVarValueFrom(ev: Obj, path: string): FieldError[] {
  if (!isObj(ev.valueFrom)) return [];
  const vf = ev.valueFrom;
  const errs: FieldError[] = [];
  let sources = 0;
  if (isObj(vf.fieldRef)) { sources++; errs.push(...validateObjectFieldSelector(vf.fieldRef, ENV_FIELD_PATHS, child(path, 'fieldRef'))); }
  if (isObj(vf.resourceFieldRef)) { sources++; errs.push(...validateContainerResourceFieldSelector(vf.resourceFieldRef, child(path, 'resourceFieldRef'), false)); }
  if (isObj(vf.configMapKeyRef)) { sources++; errs.push(...validateKeySelector(vf.configMapKeyRef, child(path, 'configMapKeyRef'))); }
  if (isObj(vf.secretKeyRef)) { sources++; errs.push(...validateKeySelector(vf.secretKeyRef, child(path, 'secretKeyRef'))); }
  if (sources === 0) errs.push(field.invalid(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if (str(ev.value).length !== 0) errs.push(field.invalid(path, '', 'may not be specified when `value` is not empty'));
  else if (sources > 1) errs.push(field.invalid(path, '', 'may not have more than one field specified at a time'));
  return errs;
}

/** ValidateEnv */
export function validateEnv(vars: unknown, path: string, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  arr(vars).forEach((ev0, i) => {
    const ev = obj(ev0);
    const ip = index(path, i);
    const name = str(ev.name);
    if (!name) errs.push(field.required(child(ip, 'name')));
    else for (const m of (relaxedEnv(opts) ? isRelaxedEnvVarName : isEnvVarName)(name)) errs.push(field.invalid(child(ip, 'name'), name, m));
    errs.push(...validateEnvVarValueFrom(ev, child(ip, 'valueFrom')));
  });
  return errs;
}

function validateEnvSourceName(s: Obj, path: string): FieldError[] {
  const name = str(s.name);
  if (!name) return [field.required(child(path, 'name'))];
  // The name is validated as a generateName prefix (a trailing '-' passes).
  const masked = name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;
  return isDNS1123Subdomain(masked).map((m) => field.invalid(child(path, 'name'), name, m));
}

/** ValidateEnvFrom */
export function validateEnvFrom(vars: unknown, path: string, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  arr(vars).forEach((ev0, i) => {
    const ev = obj(ev0);
    const ip = index(path, i);
    const prefix = str(ev.prefix);
    if (prefix.length > 0) {
      for (const m of (relaxedEnv(opts) ? isRelaxedEnvVarName : isEnvVarName)(prefix)) errs.push(field.invalid(child(ip, 'prefix'), prefix, m));
    }
    let sources = 0;
    if (isObj(ev.configMapRef)) { sources++; errs.push(...validateEnvSourceName(ev.configMapRef, child(ip, 'configMapRef'))); }
    if (isObj(ev.secretRef)) { sources++; errs.push(...validateEnvSourceName(ev.secretRef, child(ip, 'secretRef'))); }
    if (sources === 0) errs.push(field.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(field.invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

// ---------------------------------------------------------------------------
// Resources.

/** ValidateContainerResourceRequirements (validateResourceRequirements for containers). */
export function validateResourceRequirements(reqs: unknown, podClaimNames: Set<string>, path: string,
  opts: PodValidationOptions): FieldError[] {
  const r = obj(reqs);
  const errs: FieldError[] = [];
  const limPath = child(path, 'limits');
  const reqPath = child(path, 'requests');
  const limits = obj(r.limits);
  const requests = obj(r.requests);
  let limCPUMem = false;
  let reqCPUMem = false;
  let limHuge = false;
  let reqHuge = false;
  const hugeErr = (name: string, v: unknown, p: string) => {
    if (!opts.allowIndivisibleHugePagesValues && !isHugePageValueDivisible(name, v)) {
      errs.push(field.invalid(p, quantityString(v), `${quantityString(v)} is not positive integer multiple of ${name}`));
    }
  };
  for (const [name, v] of Object.entries(limits)) {
    const p = key(limPath, name);
    errs.push(...validateContainerResourceName(name, p));
    errs.push(...validateResourceQuantityValue(name, v, p));
    if (isHugePageResourceName(name)) { limHuge = true; hugeErr(name, v, p); }
    if (name === 'cpu' || name === 'memory') limCPUMem = true;
  }
  for (const [name, v] of Object.entries(requests)) {
    const p = key(reqPath, name);
    errs.push(...validateContainerResourceName(name, p));
    errs.push(...validateResourceQuantityValue(name, v, p));
    if (name in limits) {
      const q = quantityOf(v);
      const l = quantityOf(limits[name]);
      if (q && l) {
        const c = cmpQ(q, l);
        if (c !== 0 && !isOvercommitAllowed(name)) {
          errs.push(field.invalid(reqPath, quantityString(v), `must be equal to ${name} limit of ${quantityString(limits[name])}`));
        } else if (c > 0) {
          errs.push(field.invalid(reqPath, quantityString(v), `must be less than or equal to ${name} limit of ${quantityString(limits[name])}`));
        }
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(field.required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePageResourceName(name)) { reqHuge = true; hugeErr(name, v, p); }
    if (name === 'cpu' || name === 'memory') reqCPUMem = true;
  }
  if (!limCPUMem && !reqCPUMem && (reqHuge || limHuge)) errs.push(field.forbidden(path, 'HugePages require cpu or memory'));
  errs.push(...validateResourceClaimNames(r.claims, podClaimNames, child(path, 'claims')));
  return errs;
}

function validateResourceClaimNames(claims: unknown, podClaimNames: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(claims).forEach((c0, i) => {
    const name = str(obj(c0).name);
    const p = index(path, i);
    if (!name) { errs.push(field.required(p)); return; }
    if (names.has(name)) errs.push(field.duplicate(p, name)); else names.add(name);
    if (!podClaimNames.has(name)) {
      const e = notFound(p, name);
      e.detail = 'must be one of the names in pod.spec.resourceClaims' +
        (podClaimNames.size === 0 ? ' which is empty' : `: ${[...podClaimNames].sort().join(', ')}`);
      errs.push(e);
    }
  });
  return errs;
}

function validateResizePolicy(list: unknown, path: string, podRestartPolicy: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(list).forEach((p0, i) => {
    const p = obj(p0);
    const rn = str(p.resourceName);
    const rp = str(p.restartPolicy);
    if (seen.has(rn)) errs.push(field.duplicate(index(path, i), rn));
    seen.add(rn);
    if (rn === '') errs.push(field.required(path));
    else if (rn !== 'cpu' && rn !== 'memory') errs.push(field.notSupported(path, rn, ['cpu', 'memory']));
    if (rp === '') errs.push(field.required(path));
    else if (rp !== 'NotRequired' && rp !== 'RestartContainer') errs.push(field.notSupported(path, rp, ['NotRequired', 'RestartContainer']));
    if (podRestartPolicy === 'Never' && rp !== 'NotRequired') {
      errs.push(field.invalid(path, rp, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
    }
  });
  return errs;
}

// ---------------------------------------------------------------------------
// Probes and lifecycle handlers.

type Handler = { exec?: unknown; httpGet?: unknown; tcpSocket?: unknown; grpc?: unknown; sleep?: unknown };

function validateHTTPGetAction(h: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(h.path)) errs.push(field.required(child(path, 'path')));
  errs.push(...validatePortNumOrName(h.port, child(path, 'port')));
  const scheme = str(h.scheme);
  if (scheme !== 'HTTP' && scheme !== 'HTTPS') errs.push(field.notSupported(child(path, 'scheme'), scheme, ['HTTP', 'HTTPS']));
  for (const hdr of arr(h.httpHeaders)) {
    const name = str(obj(hdr).name);
    for (const m of isHTTPHeaderName(name)) errs.push(field.invalid(child(path, 'httpHeaders'), name, m));
  }
  return errs;
}

function validateSleepAction(s: Obj, gracePeriod: number | undefined, path: string, opts: PodValidationOptions): FieldError[] {
  const seconds = num(s.seconds);
  if (gracePeriod === undefined) return [];
  if (opts.allowPodLifecycleSleepActionZeroValue) {
    if (seconds < 0 || seconds > gracePeriod) {
      return [field.invalid(path, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`)];
    }
  } else if (seconds <= 0 || seconds > gracePeriod) {
    return [field.invalid(path, seconds, `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`)];
  }
  return [];
}

/** validateHandler: exactly one handler type, each validated. */
function validateHandler(h: Handler, gracePeriod: number | undefined, path: string, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  const one = (name: keyof Handler, check: (v: Obj, p: string) => FieldError[]) => {
    if (!isSet(h[name])) return;
    const p = child(path, name);
    if (n > 0) { errs.push(field.forbidden(p, 'may not specify more than 1 handler type')); return; }
    n++;
    errs.push(...check(obj(h[name]), p));
  };
  one('exec', (v, p) => (arr(v.command).length === 0 ? [field.required(child(p, 'command'))] : []));
  one('httpGet', validateHTTPGetAction);
  one('tcpSocket', (v, p) => validatePortNumOrName(v.port, child(p, 'port')));
  one('grpc', (v, p) => validatePortNumOrName(num(v.port), child(p, 'port')));
  one('sleep', (v, p) => validateSleepAction(v, gracePeriod, p, opts));
  if (n === 0) errs.push(field.required(path, 'must specify a handler type'));
  return errs;
}

const probeHandler = (p: Obj): Handler => ({ exec: p.exec, httpGet: p.httpGet, tcpSocket: p.tcpSocket, grpc: p.grpc });
const lifecycleHandler = (p: Obj): Handler => ({ exec: p.exec, httpGet: p.httpGet, tcpSocket: p.tcpSocket, sleep: p.sleep });

function validateProbe(p: Obj, gracePeriod: number | undefined, path: string, opts: PodValidationOptions): FieldError[] {
  const errs = validateHandler(probeHandler(p), gracePeriod, path, opts);
  errs.push(...nonNegative(num(p.initialDelaySeconds), child(path, 'initialDelaySeconds')));
  errs.push(...nonNegative(num(p.timeoutSeconds), child(path, 'timeoutSeconds')));
  errs.push(...nonNegative(num(p.periodSeconds), child(path, 'periodSeconds')));
  errs.push(...nonNegative(num(p.successThreshold), child(path, 'successThreshold')));
  errs.push(...nonNegative(num(p.failureThreshold), child(path, 'failureThreshold')));
  if (typeof p.terminationGracePeriodSeconds === 'number' && p.terminationGracePeriodSeconds <= 0) {
    errs.push(field.invalid(child(path, 'terminationGracePeriodSeconds'), p.terminationGracePeriodSeconds, 'must be greater than 0'));
  }
  return errs;
}

function validateLivenessOrStartup(p: unknown, gracePeriod: number | undefined, path: string, opts: PodValidationOptions): FieldError[] {
  if (!isObj(p)) return [];
  const errs = validateProbe(p, gracePeriod, path, opts);
  if (num(p.successThreshold) !== 1) errs.push(field.invalid(child(path, 'successThreshold'), num(p.successThreshold), 'must be 1'));
  return errs;
}

function validateReadinessProbe(p: unknown, gracePeriod: number | undefined, path: string, opts: PodValidationOptions): FieldError[] {
  if (!isObj(p)) return [];
  const errs = validateProbe(p, gracePeriod, path, opts);
  if (isSet(p.terminationGracePeriodSeconds)) {
    errs.push(field.invalid(child(path, 'terminationGracePeriodSeconds'), p.terminationGracePeriodSeconds, 'must not be set for readinessProbes'));
  }
  return errs;
}

function validateLifecycle(l: Obj, gracePeriod: number | undefined, path: string, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (isObj(l.postStart)) errs.push(...validateHandler(lifecycleHandler(l.postStart), gracePeriod, child(path, 'postStart'), opts));
  if (isObj(l.preStop)) errs.push(...validateHandler(lifecycleHandler(l.preStop), gracePeriod, child(path, 'preStop'), opts));
  return errs;
}

// ---------------------------------------------------------------------------
// Security context (ValidateSecurityContext).

/** validateSeccompProfileField */
export function validateSeccompProfileField(sp: unknown, path: string, localDescendingPath: (p: string, f: string) => FieldError[]): FieldError[] {
  if (!isObj(sp)) return [];
  const errs: FieldError[] = [];
  const type = str(sp.type);
  const tPath = child(path, 'type');
  if (type === '') errs.push(field.required(tPath, 'type is required when seccompProfile is set'));
  else if (!['Localhost', 'RuntimeDefault', 'Unconfined'].includes(type)) {
    errs.push(field.notSupported(tPath, type, ['Localhost', 'RuntimeDefault', 'Unconfined']));
  }
  if (type === 'Localhost') {
    if (!isSet(sp.localhostProfile)) errs.push(field.required(child(path, 'localhostProfile'), 'must be set when seccomp type is Localhost'));
    else errs.push(...localDescendingPath(str(sp.localhostProfile), child(path, 'localhostProfile')));
  } else if (isSet(sp.localhostProfile)) {
    errs.push(field.invalid(child(path, 'localhostProfile'), { goSyntax: goSyntaxOf('core.SeccompProfile', sp) }, 'can only be set when seccomp type is Localhost'));
  }
  return errs;
}

/** ValidateAppArmorProfileField */
export function validateAppArmorProfileField(p: unknown, path: string): FieldError[] {
  if (!isObj(p)) return [];
  const errs: FieldError[] = [];
  const type = str(p.type);
  const lp = child(path, 'localhostProfile');
  switch (type) {
    case 'Localhost':
      if (!isSet(p.localhostProfile)) errs.push(field.required(lp, 'must be set when AppArmor type is Localhost'));
      else {
        const prof = str(p.localhostProfile);
        if (prof.trim() !== prof) errs.push(field.invalid(lp, prof, 'must not be padded with whitespace'));
        else if (prof === '') errs.push(field.required(lp, 'must be set when AppArmor type is Localhost'));
        if (Buffer.byteLength(prof) > 4095) errs.push({ type: 'FieldValueTooLong', field: lp, detail: 'may not be more than 4095 bytes' });
      }
      break;
    case 'RuntimeDefault': case 'Unconfined':
      if (isSet(p.localhostProfile)) errs.push(field.invalid(lp, str(p.localhostProfile), 'can only be set when AppArmor type is Localhost'));
      break;
    case '':
      errs.push(field.required(child(path, 'type'), 'type is required when appArmorProfile is set'));
      break;
    default:
      errs.push(field.notSupported(child(path, 'type'), type, ['Localhost', 'RuntimeDefault', 'Unconfined']));
  }
  return errs;
}

function validateSecurityContext(sc: unknown, path: string, hostUsers: boolean, opts: PodValidationOptions,
  localDescendingPath: (p: string, f: string) => FieldError[]): FieldError[] {
  if (!isObj(sc)) return [];
  const errs: FieldError[] = [];
  if (sc.privileged === true && opts.allowPrivileged === false) {
    errs.push(field.forbidden(child(path, 'privileged'), 'disallowed by cluster policy'));
  }
  if (typeof sc.runAsUser === 'number') for (const m of isValidID(sc.runAsUser)) errs.push(field.invalid(child(path, 'runAsUser'), sc.runAsUser, m));
  if (typeof sc.runAsGroup === 'number') for (const m of isValidID(sc.runAsGroup)) errs.push(field.invalid(child(path, 'runAsGroup'), sc.runAsGroup, m));
  if (isSet(sc.procMount)) {
    const pm = str(sc.procMount);
    if (pm !== 'Default' && pm !== 'Unmasked') errs.push(field.notSupported(child(path, 'procMount'), pm, ['Default', 'Unmasked']));
    if (hostUsers && pm === 'Unmasked') errs.push(field.invalid(child(path, 'procMount'), pm, '`hostUsers` must be false to use `Unmasked`'));
  }
  errs.push(...validateSeccompProfileField(sc.seccompProfile, child(path, 'seccompProfile'), localDescendingPath));
  if (sc.allowPrivilegeEscalation === false) {
    const scValue = { goSyntax: goSyntaxOf('core.SecurityContext', sc) };
    if (sc.privileged === true) errs.push(field.invalid(path, scValue, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    if (isObj(sc.capabilities)) {
      for (const cap of arr(sc.capabilities.add)) {
        if (cap === 'CAP_SYS_ADMIN') errs.push(field.invalid(path, scValue, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
      }
    }
  }
  errs.push(...validateWindowsSecurityContextOptions(sc.windowsOptions, child(path, 'windowsOptions')));
  errs.push(...validateAppArmorProfileField(sc.appArmorProfile, child(path, 'appArmorProfile')));
  return errs;
}

// ---------------------------------------------------------------------------
// Container lists.

export interface ContainerContext {
  volumes: VolumeMap;
  podClaimNames: Set<string>;
  gracePeriod: number | undefined;
  podRestartPolicy: string;
  hostUsers: boolean;
  opts: PodValidationOptions;
  localDescendingPath: (p: string, f: string) => FieldError[];
}

function validatePullPolicy(policy: string, path: string): FieldError[] {
  if (policy === 'Always' || policy === 'IfNotPresent' || policy === 'Never') return [];
  if (policy === '') return [field.required(path)];
  return [field.notSupported(path, policy, ['Always', 'IfNotPresent', 'Never'])];
}

/** validateContainerCommon */
function validateContainerCommon(c: Obj, path: string, ctx: ContainerContext): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c.name);
  if (!name) errs.push(field.required(child(path, 'name')));
  else errs.push(...dns1123Label(name, child(path, 'name')));
  if (!str(c.image)) errs.push(field.required(child(path, 'image')));
  const tmp = str(c.terminationMessagePolicy);
  if (tmp === '') errs.push(field.required(child(path, 'terminationMessagePolicy')));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') {
    errs.push(field.notSupported(child(path, 'terminationMessagePolicy'), tmp, ['File', 'FallbackToLogsOnError']));
  }
  errs.push(...validateContainerPorts(c.ports, child(path, 'ports')));
  errs.push(...validateEnv(c.env, child(path, 'env'), ctx.opts));
  errs.push(...validateEnvFrom(c.envFrom, child(path, 'envFrom'), ctx.opts));
  errs.push(...validateVolumeMounts(c.volumeMounts, c.volumeDevices, ctx.volumes, c, child(path, 'volumeMounts')));
  errs.push(...validateVolumeDevices(c.volumeDevices, c.volumeMounts, ctx.volumes, child(path, 'volumeDevices')));
  errs.push(...validatePullPolicy(str(c.imagePullPolicy), child(path, 'imagePullPolicy')));
  errs.push(...validateResourceRequirements(c.resources, ctx.podClaimNames, child(path, 'resources'), ctx.opts));
  errs.push(...validateResizePolicy(c.resizePolicy, child(path, 'resizePolicy'), ctx.podRestartPolicy));
  errs.push(...validateSecurityContext(c.securityContext, child(path, 'securityContext'), ctx.hostUsers, ctx.opts, ctx.localDescendingPath));
  return errs;
}

/** AccumulateUniqueHostPorts over containers (paths index from `path`). */
function checkHostPortConflicts(containers: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    arr(c.ports).forEach((p0, pi) => {
      const p = obj(p0);
      const hp = num(p.hostPort);
      if (hp === 0) return;
      const k = `${str(p.protocol)}/${str(p.hostIP)}/${hp}`;
      if (seen.has(k)) errs.push(field.duplicate(`${index(path, ci)}.ports[${pi}].hostPort`, k));
      else seen.add(k);
    });
  });
  return errs;
}

/** validateContainerOnlyForPod: a pod's image may not have surrounding whitespace. */
export function validateContainerOnlyForPod(c: Obj, path: string): FieldError[] {
  const image = str(c.image);
  return image.length !== image.trim().length
    ? [field.invalid(child(path, 'image'), image, 'must not have leading or trailing whitespace')] : [];
}

/** validateContainers */
export function validateContainers(containers: unknown, path: string, ctx: ContainerContext): FieldError[] {
  const list = arr(containers).map(obj);
  if (list.length === 0) return [field.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((c, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(c, p, ctx));
    const name = str(c.name);
    if (names.has(name)) errs.push(field.duplicate(child(p, 'name'), name)); else names.add(name);
    if (isObj(c.lifecycle)) errs.push(...validateLifecycle(c.lifecycle, ctx.gracePeriod, child(p, 'lifecycle'), ctx.opts));
    errs.push(...validateLivenessOrStartup(c.livenessProbe, ctx.gracePeriod, child(p, 'livenessProbe'), ctx.opts));
    errs.push(...validateReadinessProbe(c.readinessProbe, ctx.gracePeriod, child(p, 'readinessProbe'), ctx.opts));
    errs.push(...validateLivenessOrStartup(c.startupProbe, ctx.gracePeriod, child(p, 'startupProbe'), ctx.opts));
    if (isSet(c.restartPolicy)) errs.push(field.forbidden(child(p, 'restartPolicy'), 'may not be set for non-init containers'));
  });
  errs.push(...checkHostPortConflicts(list, path));
  return errs;
}

/** validateInitContainers */
export function validateInitContainers(initContainers: unknown, regular: unknown, path: string, ctx: ContainerContext): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(arr(regular).map((c) => str(obj(c).name)));
  arr(initContainers).map(obj).forEach((c, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(c, p, ctx));
    let restartAlways = false;
    if (isSet(c.restartPolicy)) {
      const rp = str(c.restartPolicy);
      if (rp !== 'Always') errs.push(field.notSupported(child(p, 'restartPolicy'), rp, ['Always']));
      restartAlways = rp === 'Always';
    }
    const name = str(c.name);
    if (names.has(name)) errs.push(field.duplicate(child(p, 'name'), name));
    else if (name.length > 0) names.add(name);
    // Init containers run one by one: host ports are checked per container (upstream indexes each from 0).
    errs.push(...checkHostPortConflicts([c], path));
    if (restartAlways) {
      if (isObj(c.lifecycle)) errs.push(...validateLifecycle(c.lifecycle, ctx.gracePeriod, child(p, 'lifecycle'), ctx.opts));
      errs.push(...validateLivenessOrStartup(c.livenessProbe, ctx.gracePeriod, child(p, 'livenessProbe'), ctx.opts));
      errs.push(...validateReadinessProbe(c.readinessProbe, ctx.gracePeriod, child(p, 'readinessProbe'), ctx.opts));
      errs.push(...validateLivenessOrStartup(c.startupProbe, ctx.gracePeriod, child(p, 'startupProbe'), ctx.opts));
    } else {
      const msg = 'may not be set for init containers without restartPolicy=Always';
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (isSet(c[f])) errs.push(field.forbidden(child(p, f), msg));
      }
    }
    if (arr(c.resizePolicy).length > 0) {
      errs.push(field.invalid(child(p, 'resizePolicy'), { goSyntax: goSyntaxOf('[]core.ContainerResizePolicy', c.resizePolicy) },
        'must not be set for init containers'));
    }
  });
  return errs;
}

/** EphemeralContainerCommon fields an ephemeral container may not set, in struct order (validateFieldAllowList). */
const EPHEMERAL_DISALLOWED: [string, (c: Obj) => boolean][] = [
  ['ports', (c) => Array.isArray(c.ports)],
  ['resources', (c) => isObj(c.resources) && (isSet(c.resources.limits) || isSet(c.resources.requests) || isSet(c.resources.claims))],
  ['resizePolicy', (c) => Array.isArray(c.resizePolicy)],
  ['restartPolicy', (c) => isSet(c.restartPolicy)],
  ['livenessProbe', (c) => isSet(c.livenessProbe)],
  ['readinessProbe', (c) => isSet(c.readinessProbe)],
  ['startupProbe', (c) => isSet(c.startupProbe)],
  ['lifecycle', (c) => isSet(c.lifecycle)],
];

/** validateEphemeralContainers */
export function validateEphemeralContainers(ephemeral: unknown, containers: unknown, initContainers: unknown, path: string,
  ctx: ContainerContext): FieldError[] {
  const list = arr(ephemeral).map(obj);
  if (list.length === 0) return [];
  const errs: FieldError[] = [];
  const others = new Set<string>();
  const all = new Set<string>();
  for (const c of [...arr(containers), ...arr(initContainers)]) {
    others.add(str(obj(c).name));
    all.add(str(obj(c).name));
  }
  list.forEach((ec, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(ec, p, ctx));
    errs.push(...validateContainerOnlyForPod(ec, p));
    const name = str(ec.name);
    if (all.has(name)) errs.push(field.duplicate(child(p, 'name'), name)); else all.add(name);
    const target = str(ec.targetContainerName);
    if (target && !others.has(target)) errs.push(notFound(child(p, 'targetContainerName'), target));
    for (const [f, set] of EPHEMERAL_DISALLOWED) if (set(ec)) errs.push(field.forbidden(child(p, f), 'cannot be set for an Ephemeral Container'));
    arr(ec.volumeMounts).forEach((vm0, j) => {
      const vm = obj(vm0);
      if (str(vm.subPath)) errs.push(field.forbidden(`${p}.volumeMounts[${j}].subPath`, 'cannot be set for an Ephemeral Container'));
      if (str(vm.subPathExpr)) errs.push(field.forbidden(`${p}.volumeMounts[${j}].subPathExpr`, 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}

export { inclusiveRange, validateSecurityContext };
