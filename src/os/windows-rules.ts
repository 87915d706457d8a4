/**
 * The Windows and Linux pod rules of upstream v1.32 as pure functions over
 * a v1 PodSpec (JSON), each returning field errors with upstream's paths and
 * messages (pkg/apis/core/validation/validation.go: validateOS,
 * validateLinux, validateWindows, validateWindowsSecurityContextOptions,
 * validateWindowsHostProcessPod). The API server and the emulated kubelet
 * share them.
 *
 * A pod's v1 hostNetwork/hostPID/hostIPC/hostUsers/shareProcessNamespace
 * live in the internal PodSecurityContext upstream, but their error paths
 * are the v1 ones directly under `spec`, as here.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Subdomain } from '../meta/names.js';

type Obj = Record<string, any>;

import { isObject as isObj } from '../meta/json.js';
/** A Go pointer, slice or map decoded from JSON is nil when absent or null. */
const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** validOS: the values of spec.os.name, sorted as sets.List returns them. */
export const VALID_OS_NAMES = ['linux', 'windows'] as const;
export type OSName = typeof VALID_OS_NAMES[number];

export const WINDOWS_FORBIDDEN = 'cannot be set for a windows pod';
export const LINUX_WINDOWS_OPTIONS_FORBIDDEN = 'windows options cannot be set for a linux pod';

/** One field a Windows pod may not set: where it lives in the v1 object and when it counts as set. */
export interface ForbiddenField {
  /** Path below the pod spec (or below a container), as the error names it. */
  path: string;
  /** Whether the field is set in a pod spec (pod-level) or a container securityContext (container-level). */
  isSet(v: Obj): boolean;
}

const scField = (name: string): ForbiddenField => ({
  path: `securityContext.${name}`,
  isSet: (spec) => isObj(spec.securityContext) && isSet(spec.securityContext[name]),
});

/**
 * validateWindows' pod-level checks, in upstream's order (15 in v1.32). The
 * pointers count when non-nil (false and [] included); hostPID and hostIPC
 * are plain bools and count when true; sysctls counts when non-empty.
 */
export const WINDOWS_FORBIDDEN_POD_FIELDS: readonly ForbiddenField[] = [
  scField('appArmorProfile'),
  scField('seLinuxOptions'),
  { path: 'hostUsers', isSet: (spec) => isSet(spec.hostUsers) },
  { path: 'hostPID', isSet: (spec) => spec.hostPID === true },
  { path: 'hostIPC', isSet: (spec) => spec.hostIPC === true },
  scField('seccompProfile'),
  scField('fsGroup'),
  scField('fsGroupChangePolicy'),
  {
    path: 'securityContext.sysctls',
    isSet: (spec) => isObj(spec.securityContext) && Array.isArray(spec.securityContext.sysctls) &&
      spec.securityContext.sysctls.length > 0,
  },
  { path: 'shareProcessNamespace', isSet: (spec) => isSet(spec.shareProcessNamespace) },
  scField('runAsUser'),
  scField('runAsGroup'),
  scField('supplementalGroups'),
  scField('supplementalGroupsPolicy'),
  scField('seLinuxChangePolicy'),
];

/** validateWindows' container-level checks on each container's securityContext, in upstream's order (10). */
export const WINDOWS_FORBIDDEN_CONTAINER_FIELDS: readonly string[] = [
  'appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem',
  'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup',
];

const join = (path: string, child: string) => (path ? `${path}.${child}` : child);

/** The three container lists in podshelper.VisitContainersWithPath's order. */
export const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** podshelper.VisitContainersWithPath: init, regular, then ephemeral containers, each with its path. */
export function visitContainersWithPath(spec: Obj, path: string, fn: (c: Obj, cPath: string) => boolean | void): void {
  if (!isObj(spec)) return;
  for (const list of CONTAINER_LISTS) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    for (let i = 0; i < items.length; i++) {
      const c = isObj(items[i]) ? items[i] : {};
      if (fn(c, `${join(path, list)}[${i}]`) === false) return;
    }
  }
}

/** The pod's declared OS (spec.os.name), '' when spec.os is unset. */
export function podOSName(spec: Obj | undefined): string {
  return isObj(spec) && isObj(spec.os) && typeof spec.os.name === 'string' ? spec.os.name : '';
}

/** validateOS: spec.os.name must be set and one of linux, windows (the NotSupported error names spec.os). */
export function validateOS(spec: Obj, path = 'spec'): FieldError[] {
  const os = isObj(spec) ? spec.os : undefined;
  if (!isSet(os)) return [];
  const name = isObj(os) && typeof os.name === 'string' ? os.name : '';
  const osPath = join(path, 'os');
  if (name.length === 0) return [field.required(`${osPath}.name`, 'cannot be empty')];
  if (!(VALID_OS_NAMES as readonly string[]).includes(name)) return [field.notSupported(osPath, name, [...VALID_OS_NAMES])];
  return [];
}

/** validateLinux: windowsOptions are forbidden at pod level and in every container. */
export function validateLinux(spec: Obj, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  if (isObj(spec.securityContext) && isSet(spec.securityContext.windowsOptions)) {
    errs.push(field.forbidden(join(path, 'securityContext.windowsOptions'), LINUX_WINDOWS_OPTIONS_FORBIDDEN));
  }
  visitContainersWithPath(spec, path, (c, cPath) => {
    if (isObj(c.securityContext) && isSet(c.securityContext.windowsOptions)) {
      errs.push(field.forbidden(`${cPath}.securityContext.windowsOptions`, LINUX_WINDOWS_OPTIONS_FORBIDDEN));
    }
  });
  return errs;
}

/** The pod-level Windows checks alone (every pod-level field a Windows pod sets but may not). */
export function windowsPodLevelErrors(spec: Obj, path = 'spec'): FieldError[] {
  // Upstream guards these with "pod securityContext non-nil"; v1 conversion always makes one.
  return WINDOWS_FORBIDDEN_POD_FIELDS.filter((f) => f.isSet(spec)).map((f) => field.forbidden(join(path, f.path), WINDOWS_FORBIDDEN));
}

/** The container-level Windows checks of one container's securityContext. */
export function windowsContainerErrors(container: Obj, cPath: string): FieldError[] {
  const sc = isObj(container) ? container.securityContext : undefined;
  if (!isObj(sc)) return [];
  return WINDOWS_FORBIDDEN_CONTAINER_FIELDS.filter((f) => isSet(sc[f]))
    .map((f) => field.forbidden(`${cPath}.securityContext.${f}`, WINDOWS_FORBIDDEN));
}

/** validateWindows: pod-level fields first, then each container's (init, regular, ephemeral). */
export function validateWindows(spec: Obj, path = 'spec'): FieldError[] {
  const errs = windowsPodLevelErrors(spec, path);
  visitContainersWithPath(spec, path, (c, cPath) => { errs.push(...windowsContainerErrors(c, cPath)); });
  return errs;
}

/**
 * The OS block at the end of ValidatePodSpec: validateOS, and only when it
 * passes, validateLinux or validateWindows. Nothing when spec.os is unset.
 */
export function validatePodOS(spec: Obj, path = 'spec'): FieldError[] {
  if (!isObj(spec) || !isSet(spec.os)) return [];
  const osErrs = validateOS(spec, path);
  if (osErrs.length) return osErrs;
  switch (podOSName(spec)) {
    case 'linux': return validateLinux(spec, path);
    case 'windows': return validateWindows(spec, path);
    default: return [];
  }
}

// ---------------------------------------------------------------------------
// windowsOptions content (validateWindowsSecurityContextOptions).

export const MAX_GMSA_CREDENTIAL_SPEC_LENGTH_KIB = 64;
export const MAX_GMSA_CREDENTIAL_SPEC_LENGTH = MAX_GMSA_CREDENTIAL_SPEC_LENGTH_KIB * 1024;
export const MAX_RUN_AS_USERNAME_DOMAIN_LENGTH = 256;
export const MAX_RUN_AS_USERNAME_USER_LENGTH = 104;

/** Go's [[:cntrl:]]: ASCII control characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const CTRL_RE = /[\x00-\x1f\x7f]/;
const NETBIOS_RE = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
const DNS_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const WINDOWS_DOMAIN_DNS_RE = new RegExp(`^${DNS_LABEL}(?:\\.${DNS_LABEL})*$`);
const INVALID_USER_CHARS_RE = /["/\\:;|=,+*?<>@[\]]/;
const INVALID_USER_DOTS_SPACES_RE = /^[. ]+$/;

/** Go's len(): the UTF-8 byte length. */
const byteLen = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * The runAsUserName rules as messages (empty when valid): empty, control
 * characters and more than one backslash stop at the first; otherwise the
 * DOMAIN\user checks each add their own message.
 */
export function runAsUserNameProblems(name: string): string[] {
  if (byteLen(name) === 0) return ['runAsUserName cannot be an empty string'];
  if (CTRL_RE.test(name)) return ['runAsUserName cannot contain control characters'];
  const parts = name.split('\\');
  if (parts.length > 2) return ['runAsUserName cannot contain more than one backslash'];
  const [first = '', second] = parts;
  const hasDomain = second !== undefined;
  const domain = hasDomain ? first : '';
  const user = hasDomain ? second : first;
  const out: string[] = [];
  if (byteLen(domain) >= MAX_RUN_AS_USERNAME_DOMAIN_LENGTH) {
    out.push(`runAsUserName's Domain length must be under ${MAX_RUN_AS_USERNAME_DOMAIN_LENGTH} characters`);
  }
  if (hasDomain && !(NETBIOS_RE.test(domain) || WINDOWS_DOMAIN_DNS_RE.test(domain))) {
    out.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format");
  }
  const userLen = byteLen(user);
  if (userLen === 0) out.push("runAsUserName's User cannot be empty");
  else if (userLen > MAX_RUN_AS_USERNAME_USER_LENGTH) {
    out.push(`runAsUserName's User length must not be longer than ${MAX_RUN_AS_USERNAME_USER_LENGTH} characters`);
  }
  if (INVALID_USER_DOTS_SPACES_RE.test(user)) out.push("runAsUserName's User cannot contain only periods or spaces");
  if (INVALID_USER_CHARS_RE.test(user)) out.push(`runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`);
  return out;
}

/** runAsUserName errors at `path` (the field itself, e.g. ...windowsOptions.runAsUserName). */
export function validateRunAsUserName(name: string, path: string): FieldError[] {
  return runAsUserNameProblems(name).map((m) => field.invalid(path, name, m));
}

/** gmsaCredentialSpecName: a DNS-1123 subdomain (the name of a GMSACredentialSpec resource). */
export function validateGMSACredentialSpecName(name: string, path: string): FieldError[] {
  return isDNS1123Subdomain(name).map((m) => field.invalid(path, name, m));
}

/** gmsaCredentialSpec: non-empty and at most 64 KiB (bytes). */
export function validateGMSACredentialSpec(spec: string, path: string): FieldError[] {
  const l = byteLen(spec);
  if (l === 0) return [field.invalid(path, spec, 'gmsaCredentialSpec cannot be an empty string')];
  if (l > MAX_GMSA_CREDENTIAL_SPEC_LENGTH) {
    return [field.invalid(path, spec, `gmsaCredentialSpec size must be under ${MAX_GMSA_CREDENTIAL_SPEC_LENGTH_KIB} KiB`)];
  }
  return [];
}

/** validateWindowsSecurityContextOptions, for pod-level or container-level options at `path`. */
export function validateWindowsSecurityContextOptions(opts: unknown, path: string): FieldError[] {
  if (!isObj(opts)) return [];
  const errs: FieldError[] = [];
  if (isSet(opts.gmsaCredentialSpecName)) {
    errs.push(...validateGMSACredentialSpecName(String(opts.gmsaCredentialSpecName), `${path}.gmsaCredentialSpecName`));
  }
  if (isSet(opts.gmsaCredentialSpec)) {
    errs.push(...validateGMSACredentialSpec(String(opts.gmsaCredentialSpec), `${path}.gmsaCredentialSpec`));
  }
  if (isSet(opts.runAsUserName)) errs.push(...validateRunAsUserName(String(opts.runAsUserName), `${path}.runAsUserName`));
  return errs;
}

// ---------------------------------------------------------------------------
// HostProcess (validateWindowsHostProcessPod).

export interface HostProcessOptions {
  /** capabilities.AllowPrivileged (kube-apiserver --allow-privileged); true on every common distribution. */
  allowPrivileged?: boolean;
}

/** A pointer-to-bool from JSON: undefined when nil. */
function optBool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

/** The pod's securityContext.windowsOptions.hostProcess, undefined when unset. */
export function podHostProcess(spec: Obj): boolean | undefined {
  return optBool(spec?.securityContext?.windowsOptions?.hostProcess);
}

/** The container's own windowsOptions.hostProcess, undefined when unset. */
export function containerHostProcess(c: Obj): boolean | undefined {
  return optBool(c?.securityContext?.windowsOptions?.hostProcess);
}

/** Whether a container runs as a HostProcess container: its own true, or unset and the pod's true. */
export function isHostProcessContainer(spec: Obj, c: Obj): boolean {
  const own = containerHostProcess(c);
  return own === true || (own === undefined && podHostProcess(spec) === true);
}

/** Whether any container of the pod is a HostProcess container. */
export function isHostProcessPod(spec: Obj): boolean {
  let found = false;
  visitContainersWithPath(spec, '', (c) => { if (isHostProcessContainer(spec, c)) { found = true; return false; } });
  return found;
}

/**
 * validateWindowsHostProcessPod (run for every pod, whatever its OS): pod and
 * container hostProcess must agree when both are set; a pod with any
 * HostProcess container must have only HostProcess containers, hostNetwork
 * true, and a cluster that allows privileged pods.
 */
export function validateWindowsHostProcessPod(spec: Obj, path = 'spec', opts: HostProcessOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  let containerCount = 0;
  let hostProcessCount = 0;
  const podHP = podHostProcess(spec);
  const hostNetwork = spec?.hostNetwork === true;
  visitContainersWithPath(spec, path, (c, cPath) => {
    containerCount++;
    const ctrHP = containerHostProcess(c);
    if (podHP !== undefined && ctrHP !== undefined && podHP !== ctrHP) {
      errs.push(field.invalid(`${cPath}.securityContext.windowsOptions.hostProcess`, ctrHP,
        `pod hostProcess value must be identical if both are specified, was ${podHP}`));
    }
    if (ctrHP === true || (ctrHP === undefined && podHP === true)) hostProcessCount++;
  });
  if (hostProcessCount > 0) {
    if (hostProcessCount !== containerCount) {
      errs.push(field.invalid(path, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
    }
    if (!hostNetwork) {
      errs.push(field.invalid(join(path, 'hostNetwork'), hostNetwork, 'hostNetwork must be true if pod contains any hostProcess containers'));
    }
    if (opts.allowPrivileged === false) {
      errs.push(field.forbidden(path, 'hostProcess containers are disallowed by cluster policy'));
    }
  }
  return errs;
}

/** windowsOptions content of the pod and of every container, in ValidatePodSpec's order (containers first, then the pod). */
export function validateAllWindowsOptions(spec: Obj, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  visitContainersWithPath(spec, path, (c, cPath) => {
    errs.push(...validateWindowsSecurityContextOptions(c?.securityContext?.windowsOptions, `${cPath}.securityContext.windowsOptions`));
  });
  errs.push(...validateWindowsSecurityContextOptions(spec?.securityContext?.windowsOptions, join(path, 'securityContext.windowsOptions')));
  return errs;
}

/**
 * Every OS-related rule for one pod spec in one list, for checking a spec
 * outside the API server: windowsOptions content, HostProcess consistency,
 * then the OS block. (The API server runs these interleaved with the rest
 * of ValidatePodSpec.)
 */
export function osRuleErrors(spec: Obj, path = 'spec', opts: HostProcessOptions = {}): FieldError[] {
  if (!isObj(spec)) return [];
  return [...validateAllWindowsOptions(spec, path), ...validateWindowsHostProcessPod(spec, path, opts), ...validatePodOS(spec, path)];
}

// ---------------------------------------------------------------------------
// The kubelet's side (pkg/kubelet/lifecycle/predicate.go).

export const POD_OS_NOT_SUPPORTED = {
  reason: 'PodOSNotSupported',
  message: "Failed to admit pod as the OS field doesn't match node OS",
} as const;

export const POD_OS_LABEL_MISMATCH = {
  reason: 'PodOSSelectorNodeLabelDoesNotMatch',
  message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
} as const;

/**
 * The kubelet's OS admission: the pod's own kubernetes.io/os label must
 * match the node's OS, then spec.os.name (when set) must equal it.
 * Undefined when the pod is admitted.
 */
export function kubeletOSAdmission(pod: Obj, nodeOS: OSName, nodeLabels: Record<string, string> = {}):
{ reason: string; message: string } | undefined {
  const podLabel = pod?.metadata?.labels?.['kubernetes.io/os'];
  if (typeof podLabel === 'string') {
    const nodeLabel = nodeLabels['kubernetes.io/os'] === nodeOS ? nodeLabels['kubernetes.io/os'] : nodeOS;
    if (podLabel !== nodeLabel) return POD_OS_LABEL_MISMATCH;
  }
  const osName = podOSName(pod?.spec);
  if (osName && osName !== nodeOS) return POD_OS_NOT_SUPPORTED;
  return undefined;
}
