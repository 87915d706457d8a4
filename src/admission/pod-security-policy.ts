/**
 * The Pod Security Standards checks of k8s.io/pod-security-admission/policy
 * as of v1.32: every check with its versions, the registry that picks the
 * checks for a level and version (restricted checks override the baseline
 * checks they supersede; checks run baseline first, then restricted, each
 * group sorted by check ID), and the aggregation into upstream's
 * "reason (detail), reason (detail)" text.
 *
 * Windows: from policy version v1.25 the restricted checks
 * allowPrivilegeEscalation, capabilities and seccompProfile admit a pod whose
 * spec.os.name is "windows" (API validation forbids those fields there);
 * runAsNonRoot, runAsUser and every baseline check (hostProcess included)
 * still apply. A pod without spec.os gets no exemption.
 *
 * Checks read the pod as JSON; unset fields behave as Go's nil/zero values.
 * Not in v1.32: hostProbesAndHostLifecycle (v1.34), the user-namespace
 * relaxations (their feature gate is off in v1.32), image volumes in
 * restricted (v1.33).
 */

export type Level = 'privileged' | 'baseline' | 'restricted';

export interface PolicyVersion { minor: number; latest: boolean }

export interface LevelVersion { level: Level; version: PolicyVersion }

export interface CheckResult { allowed: boolean; reason?: string; detail?: string }

type CheckFn = (meta: any, spec: any) => CheckResult;

interface VersionedCheck { min: number; fn: CheckFn; overrides?: string[] }

export interface Check { id: string; level: 'baseline' | 'restricted'; versions: VersionedCheck[] }

const ALLOWED: CheckResult = { allowed: true };

// --- helpers.go, visitor.go -------------------------------------------------------

function joinQuote(items: string[]): string {
  return items.length ? `"${items.join('", "')}"` : '';
}

function pluralize(singular: string, plural: string, n: number): string {
  return n === 1 ? singular : plural;
}

/** sets.NewString(...).List(): distinct, sorted. */
function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

/** Go's %q for the strings these checks quote. */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => c);
}

const obj = (v: unknown): Record<string, any> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, any> : undefined;

const arr = (v: unknown): any[] => (Array.isArray(v) ? v.filter((x) => obj(x)) : []);

/** visitContainers: init containers, containers, then ephemeral containers. */
function containers(spec: any): any[] {
  return [...arr(spec?.initContainers), ...arr(spec?.containers), ...arr(spec?.ephemeralContainers)];
}

const sc = (c: any): Record<string, any> | undefined => obj(c?.securityContext);
const podSC = (spec: any): Record<string, any> | undefined => obj(spec?.securityContext);
const nameOf = (c: any): string => (typeof c?.name === 'string' ? c.name : '');
const isWindows = (spec: any): boolean => obj(spec?.os)?.name === 'windows';

function setters(pod: boolean, bad: string[]): string[] {
  const out = pod ? ['pod'] : [];
  if (bad.length) out.push(`${pluralize('container', 'containers', bad.length)} ${joinQuote(bad)}`);
  return out;
}

// --- baseline checks ----------------------------------------------------------------

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

function appArmorProfile_1_0(meta: any, spec: any): CheckResult {
  const allowedType = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
  const allowedAnnotation = (v: string) => v === '' || v === 'runtime/default' || v.startsWith('localhost/');
  const badValues: string[] = [];
  let podBad = false;
  const podProfile = obj(podSC(spec)?.appArmorProfile);
  if (podProfile && !allowedType(podProfile.type)) { podBad = true; badValues.push(String(podProfile.type ?? '')); }
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const p = obj(sc(c)?.appArmorProfile);
    if (p && !allowedType(p.type)) { bad.push(nameOf(c)); badValues.push(String(p.type ?? '')); }
  }
  const badSetters = setters(podBad, bad);
  const annotations: string[] = [];
  for (const [k, v] of Object.entries(obj(meta?.annotations) ?? {})) {
    if (k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAnnotation(String(v))) annotations.push(`${k}=${goQuote(String(v))}`);
  }
  const values = sortedSet(badValues);
  if (annotations.length) {
    annotations.sort();
    values.push(...annotations);
    badSetters.push(pluralize('annotation', 'annotations', annotations.length));
  }
  if (!badSetters.length) return ALLOWED;
  return {
    allowed: false,
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    detail: `${badSetters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  };
}

const CAPABILITIES_ALLOWED_1_0 = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD',
  'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

function capabilitiesBaseline_1_0(_meta: any, spec: any): CheckResult {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of containers(spec)) {
    const capabilities = obj(sc(c)?.capabilities);
    if (!capabilities) continue;
    let valid = true;
    for (const cap of Array.isArray(capabilities.add) ? capabilities.add : []) {
      if (!CAPABILITIES_ALLOWED_1_0.has(String(cap))) { valid = false; caps.push(String(cap)); }
    }
    if (!valid) bad.push(nameOf(c));
  }
  if (!bad.length) return ALLOWED;
  return {
    allowed: false,
    reason: 'non-default capabilities',
    detail: `${pluralize('container', 'containers', bad.length)} ${joinQuote(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`,
  };
}

function hostNamespaces_1_0(_meta: any, spec: any): CheckResult {
  const found: string[] = [];
  if (spec?.hostNetwork === true) found.push('hostNetwork=true');
  if (spec?.hostPID === true) found.push('hostPID=true');
  if (spec?.hostIPC === true) found.push('hostIPC=true');
  return found.length ? { allowed: false, reason: 'host namespaces', detail: found.join(', ') } : ALLOWED;
}

function hostPathVolumes_1_0(_meta: any, spec: any): CheckResult {
  const bad = arr(spec?.volumes).filter((v) => v.hostPath != null).map((v) => String(v.name ?? ''));
  if (!bad.length) return ALLOWED;
  return { allowed: false, reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` };
}

function hostPorts_1_0(_meta: any, spec: any): CheckResult {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of containers(spec)) {
    let valid = true;
    for (const p of arr(c.ports)) {
      if (typeof p.hostPort === 'number' && p.hostPort !== 0) { valid = false; ports.push(String(p.hostPort)); }
    }
    if (!valid) bad.push(nameOf(c));
  }
  if (!bad.length) return ALLOWED;
  const distinct = sortedSet(ports);
  return {
    allowed: false,
    reason: 'hostPort',
    detail: `${pluralize('container', 'containers', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ` +
      `${pluralize('hostPort', 'hostPorts', distinct.length)} ${distinct.join(', ')}`,
  };
}

function privileged_1_0(_meta: any, spec: any): CheckResult {
  const bad = containers(spec).filter((c) => sc(c)?.privileged === true).map(nameOf);
  if (!bad.length) return ALLOWED;
  return {
    allowed: false,
    reason: 'privileged',
    detail: `${pluralize('container', 'containers', bad.length)} ${joinQuote(bad)} must not set securityContext.privileged=true`,
  };
}

function procMount_1_0(_meta: any, spec: any): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of containers(spec)) {
    const pm = sc(c)?.procMount;
    if (pm == null) continue;
    if (pm !== 'Default') { bad.push(nameOf(c)); types.push(String(pm)); }
  }
  if (!bad.length) return ALLOWED;
  return {
    allowed: false,
    reason: 'procMount',
    detail: `${pluralize('container', 'containers', bad.length)} ${joinQuote(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`,
  };
}

function seLinuxOptions(allowedTypes: Set<string>): CheckFn {
  return (_meta, spec) => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (o: Record<string, any>): boolean => {
      let ok = true;
      const type = typeof o.type === 'string' ? o.type : '';
      if (!allowedTypes.has(type)) { ok = false; badTypes.push(type); }
      if (typeof o.user === 'string' && o.user.length > 0) { ok = false; setUser = true; }
      if (typeof o.role === 'string' && o.role.length > 0) { ok = false; setRole = true; }
      return ok;
    };
    const podOpts = obj(podSC(spec)?.seLinuxOptions);
    const podBad = !!podOpts && !valid(podOpts);
    const bad: string[] = [];
    for (const c of containers(spec)) {
      const o = obj(sc(c)?.seLinuxOptions);
      if (o && !valid(o)) bad.push(nameOf(c));
    }
    const badSetters = setters(podBad, bad);
    if (!badSetters.length) return ALLOWED;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return {
      allowed: false,
      reason: 'seLinuxOptions',
      detail: `${badSetters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`,
    };
  };
}

const SELINUX_TYPES_1_0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const SELINUX_TYPES_1_31 = new Set([...SELINUX_TYPES_1_0, 'container_engine_t']);

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

const validSeccomp = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
const validSeccompAnnotation = (v: string) => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');

/** Before v1.19 the seccomp profile was an annotation. */
function seccompProfileBaseline_1_0(meta: any, spec: any): CheckResult {
  const annotations = obj(meta?.annotations) ?? {};
  const forbidden: string[] = [];
  const check = (key: string) => {
    if (!(key in annotations)) return;
    const v = String(annotations[key]);
    if (!validSeccompAnnotation(v)) forbidden.push(`${key}=${goQuote(v)}`);
  };
  check(SECCOMP_POD_ANNOTATION);
  for (const c of containers(spec)) check(SECCOMP_CONTAINER_ANNOTATION_PREFIX + nameOf(c));
  const list = sortedSet(forbidden);
  if (!list.length) return ALLOWED;
  return { allowed: false, reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', list.length)} ${list.join(', ')}` };
}

function seccompProfileBaseline_1_19(_meta: any, spec: any): CheckResult {
  const values: string[] = [];
  let podBad = false;
  const podProfile = obj(podSC(spec)?.seccompProfile);
  if (podProfile && !validSeccomp(podProfile.type)) { podBad = true; values.push(String(podProfile.type ?? '')); }
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const p = obj(sc(c)?.seccompProfile);
    if (p && !validSeccomp(p.type)) { bad.push(nameOf(c)); values.push(String(p.type ?? '')); }
  }
  const badSetters = setters(podBad, bad);
  if (!badSetters.length) return ALLOWED;
  return {
    allowed: false,
    reason: 'seccompProfile',
    detail: `${badSetters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`,
  };
}

const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctls(allowed: string[]): CheckFn {
  const set = new Set(allowed);
  return (_meta, spec) => {
    const forbidden = arr(podSC(spec)?.sysctls).map((s) => String(s.name ?? '')).filter((n) => !set.has(n));
    return forbidden.length ? { allowed: false, reason: 'forbidden sysctls', detail: forbidden.join(', ') } : ALLOWED;
  };
}

function windowsHostProcess_1_0(_meta: any, spec: any): CheckResult {
  const bad = containers(spec).filter((c) => obj(sc(c)?.windowsOptions)?.hostProcess === true).map(nameOf);
  const podBad = obj(podSC(spec)?.windowsOptions)?.hostProcess === true;
  const badSetters = setters(podBad, bad);
  if (!badSetters.length) return ALLOWED;
  return {
    allowed: false,
    reason: 'hostProcess',
    detail: `${badSetters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`,
  };
}

// --- restricted checks ----------------------------------------------------------------

function allowPrivilegeEscalation_1_8(_meta: any, spec: any): CheckResult {
  const bad = containers(spec).filter((c) => sc(c)?.allowPrivilegeEscalation !== false).map(nameOf);
  if (!bad.length) return ALLOWED;
  return {
    allowed: false,
    reason: 'allowPrivilegeEscalation != false',
    detail: `${pluralize('container', 'containers', bad.length)} ${joinQuote(bad)} must set securityContext.allowPrivilegeEscalation=false`,
  };
}

function capabilitiesRestricted_1_22(_meta: any, spec: any): CheckResult {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const caps: string[] = [];
  for (const c of containers(spec)) {
    const capabilities = obj(sc(c)?.capabilities);
    if (!capabilities) { missingDropAll.push(nameOf(c)); continue; }
    if (!(Array.isArray(capabilities.drop) && capabilities.drop.includes('ALL'))) missingDropAll.push(nameOf(c));
    let added = false;
    for (const cap of Array.isArray(capabilities.add) ? capabilities.add : []) {
      if (cap !== 'NET_BIND_SERVICE') { added = true; caps.push(String(cap)); }
    }
    if (added) addingForbidden.push(nameOf(c));
  }
  const details: string[] = [];
  if (missingDropAll.length) {
    details.push(`${pluralize('container', 'containers', missingDropAll.length)} ${joinQuote(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  }
  if (addingForbidden.length) {
    details.push(`${pluralize('container', 'containers', addingForbidden.length)} ${joinQuote(addingForbidden)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
  }
  return details.length ? { allowed: false, reason: 'unrestricted capabilities', detail: details.join('; ') } : ALLOWED;
}

/** The v1.25 revisions: a Windows pod cannot set these fields, so it is admitted. */
function windowsExempt(fn: CheckFn): CheckFn {
  return (meta, spec) => (isWindows(spec) ? ALLOWED : fn(meta, spec));
}

const RESTRICTED_VOLUME_ALLOWED = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
const RESTRICTED_VOLUME_TYPES: [string, string][] = [
  ['hostPath', 'hostPath'], ['gcePersistentDisk', 'gcePersistentDisk'], ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['gitRepo', 'gitRepo'], ['nfs', 'nfs'], ['iscsi', 'iscsi'], ['glusterfs', 'glusterfs'], ['rbd', 'rbd'],
  ['flexVolume', 'flexVolume'], ['cinder', 'cinder'], ['cephfs', 'cephfs'], ['flocker', 'flocker'], ['fc', 'fc'],
  ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'], ['quobyte', 'quobyte'], ['azureDisk', 'azureDisk'],
  ['photonPersistentDisk', 'photonPersistentDisk'], ['portworxVolume', 'portworxVolume'], ['scaleIO', 'scaleIO'],
  ['storageos', 'storageos'],
];

function restrictedVolumes_1_0(_meta: any, spec: any): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const v of arr(spec?.volumes)) {
    if (RESTRICTED_VOLUME_ALLOWED.some((k) => v[k] != null)) continue;
    bad.push(String(v.name ?? ''));
    types.push(RESTRICTED_VOLUME_TYPES.find(([k]) => v[k] != null)?.[1] ?? 'unknown');
  }
  if (!bad.length) return ALLOWED;
  const distinct = sortedSet(types);
  return {
    allowed: false,
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ` +
      `${pluralize('restricted volume type', 'restricted volume types', distinct.length)} ${joinQuote(distinct)}`,
  };
}

function runAsNonRoot_1_0(_meta: any, spec: any): CheckResult {
  let podBad = false;
  let podNonRoot = false;
  const podValue = podSC(spec)?.runAsNonRoot;
  if (typeof podValue === 'boolean') { if (!podValue) podBad = true; else podNonRoot = true; }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = sc(c)?.runAsNonRoot;
    if (typeof v === 'boolean') { if (!v) explicit.push(nameOf(c)); } else if (!podNonRoot) implicit.push(nameOf(c));
  }
  const badSetters = setters(podBad, explicit);
  if (badSetters.length) {
    return { allowed: false, reason: 'runAsNonRoot != true', detail: `${badSetters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  }
  if (implicit.length) {
    return {
      allowed: false,
      reason: 'runAsNonRoot != true',
      detail: `pod or ${pluralize('container', 'containers', implicit.length)} ${joinQuote(implicit)} must set securityContext.runAsNonRoot=true`,
    };
  }
  return ALLOWED;
}

function runAsUser_1_23(_meta: any, spec: any): CheckResult {
  const podBad = podSC(spec)?.runAsUser === 0;
  const bad = containers(spec).filter((c) => sc(c)?.runAsUser === 0).map(nameOf);
  const badSetters = setters(podBad, bad);
  if (!badSetters.length) return ALLOWED;
  return { allowed: false, reason: 'runAsUser=0', detail: `${badSetters.join(' and ')} must not set runAsUser=0` };
}

function seccompProfileRestricted_1_19(_meta: any, spec: any): CheckResult {
  const values: string[] = [];
  let podBad = false;
  let podSet = false;
  const podProfile = obj(podSC(spec)?.seccompProfile);
  if (podProfile) {
    if (!validSeccomp(podProfile.type)) { podBad = true; values.push(String(podProfile.type ?? '')); } else podSet = true;
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const p = obj(sc(c)?.seccompProfile);
    if (p) {
      if (!validSeccomp(p.type)) { explicit.push(nameOf(c)); values.push(String(p.type ?? '')); }
    } else if (!podSet) implicit.push(nameOf(c));
  }
  const badSetters = setters(podBad, explicit);
  if (badSetters.length) {
    return {
      allowed: false,
      reason: 'seccompProfile',
      detail: `${badSetters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`,
    };
  }
  if (implicit.length) {
    return {
      allowed: false,
      reason: 'seccompProfile',
      detail: `pod or ${pluralize('container', 'containers', implicit.length)} ${joinQuote(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    };
  }
  return ALLOWED;
}

// --- the v1.32 check set ---------------------------------------------------------------

export const CHECKS: Check[] = [
  { id: 'allowPrivilegeEscalation', level: 'restricted', versions: [
    { min: 8, fn: allowPrivilegeEscalation_1_8 },
    { min: 25, fn: windowsExempt(allowPrivilegeEscalation_1_8) },
  ] },
  { id: 'appArmorProfile', level: 'baseline', versions: [{ min: 0, fn: appArmorProfile_1_0 }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ min: 0, fn: capabilitiesBaseline_1_0 }] },
  { id: 'capabilities_restricted', level: 'restricted', versions: [
    { min: 22, fn: capabilitiesRestricted_1_22, overrides: ['capabilities_baseline'] },
    { min: 25, fn: windowsExempt(capabilitiesRestricted_1_22), overrides: ['capabilities_baseline'] },
  ] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ min: 0, fn: hostNamespaces_1_0 }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ min: 0, fn: hostPathVolumes_1_0 }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ min: 0, fn: hostPorts_1_0 }] },
  { id: 'privileged', level: 'baseline', versions: [{ min: 0, fn: privileged_1_0 }] },
  { id: 'procMount', level: 'baseline', versions: [{ min: 0, fn: procMount_1_0 }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ min: 0, fn: restrictedVolumes_1_0, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ min: 0, fn: runAsNonRoot_1_0 }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ min: 23, fn: runAsUser_1_23 }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [
    { min: 0, fn: seLinuxOptions(SELINUX_TYPES_1_0) },
    { min: 31, fn: seLinuxOptions(SELINUX_TYPES_1_31) },
  ] },
  { id: 'seccompProfile_baseline', level: 'baseline', versions: [
    { min: 0, fn: seccompProfileBaseline_1_0 },
    { min: 19, fn: seccompProfileBaseline_1_19 },
  ] },
  { id: 'seccompProfile_restricted', level: 'restricted', versions: [
    { min: 19, fn: seccompProfileRestricted_1_19, overrides: ['seccompProfile_baseline'] },
    { min: 25, fn: windowsExempt(seccompProfileRestricted_1_19), overrides: ['seccompProfile_baseline'] },
  ] },
  { id: 'sysctls', level: 'baseline', versions: [
    { min: 0, fn: sysctls(SYSCTLS_1_0) },
    { min: 27, fn: sysctls(SYSCTLS_1_27) },
    { min: 29, fn: sysctls(SYSCTLS_1_29) },
    { min: 32, fn: sysctls(SYSCTLS_1_32) },
  ] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ min: 0, fn: windowsHostProcess_1_0 }] },
];

// --- registry.go --------------------------------------------------------------------

/** The checks each level runs at each policy minor version, built as populate() does. */
class Registry {
  readonly maxMinor: number;
  private readonly baseline = new Map<number, CheckFn[]>();
  private readonly restricted = new Map<number, CheckFn[]>();

  constructor(checks: Check[]) {
    this.maxMinor = Math.max(...checks.map((c) => c.versions.at(-1)?.min ?? 0));
    const byLevel = (level: string) => checks.filter((c) => c.level === level).map((c) => c.id).sort();
    const ordered = [...byLevel('baseline'), ...byLevel('restricted')];
    const at = (c: Check, minor: number): VersionedCheck | undefined => {
      let found: VersionedCheck | undefined;
      for (const v of c.versions) if (v.min <= minor) found = v;
      return found;
    };
    for (let minor = 0; minor <= this.maxMinor; minor++) {
      const baseline = new Map<string, VersionedCheck>();
      const restricted = new Map<string, VersionedCheck>();
      for (const c of checks) {
        const v = at(c, minor);
        if (v) (c.level === 'baseline' ? baseline : restricted).set(c.id, v);
      }
      const overridden = new Set([...restricted.values()].flatMap((v) => v.overrides ?? []));
      for (const [id, v] of baseline) if (!overridden.has(id)) restricted.set(id, v);
      const fns = (m: Map<string, VersionedCheck>) => ordered.filter((id) => m.has(id)).map((id) => m.get(id)!.fn);
      this.baseline.set(minor, fns(baseline));
      this.restricted.set(minor, fns(restricted));
    }
  }

  evaluate(lv: LevelVersion, meta: any, spec: any): CheckResult[] {
    if (lv.level === 'privileged') return [];
    const minor = lv.version.latest || lv.version.minor > this.maxMinor ? this.maxMinor : lv.version.minor;
    const fns = (lv.level === 'baseline' ? this.baseline : this.restricted).get(minor) ?? [];
    return fns.map((fn) => fn(meta ?? {}, spec ?? {}));
  }
}

const registry = new Registry(CHECKS);

/** The newest policy version the checks know (v1.32); later versions and "latest" evaluate as it. */
export const MAX_POLICY_MINOR = registry.maxMinor;

/** AggregateCheckResults: every forbidden result, in check order. */
export interface Aggregate { allowed: boolean; reasons: string[]; details: string[] }

export function evaluatePod(lv: LevelVersion, meta: any, spec: any): Aggregate {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of registry.evaluate(lv, meta, spec)) {
    if (r.allowed) continue;
    reasons.push(r.reason || 'unknown forbidden reason');
    details.push(r.detail ?? '');
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** AggregateCheckResult.ForbiddenReason(): the reasons, comma-separated. */
export function forbiddenReason(a: Aggregate): string {
  return a.reasons.join(', ');
}

/** AggregateCheckResult.ForbiddenDetail(): "reason (detail), reason, ...". */
export function forbiddenDetail(a: Aggregate): string {
  return a.reasons.map((r, i) => (a.details[i] ? `${r} (${a.details[i]})` : r)).join(', ');
}

/** LevelVersion.String(): "restricted:latest", "baseline:v1.25". */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${lv.version.latest ? 'latest' : `v1.${lv.version.minor}`}`;
}
