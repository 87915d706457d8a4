/**
 * The environment a container sees, computed as the kubelet does
 * (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables,
 * getServiceEnvVarMap, podFieldSelectorRuntimeValue;
 * pkg/kubelet/envvars/envvars.go FromServices; third_party expansion):
 *   1. envFrom (configMapRef / secretRef, with prefix), in order;
 *   2. env in declaration order: `$(VAR)` expanded against the variables
 *      so far and the service variables, or valueFrom resolved;
 *   3. the service variables of the pod's namespace (enableServiceLinks)
 *      and of `kubernetes` in default (always), unless already set.
 * Plus what the runtime adds: the image's defaults (PATH, ...) and
 * HOSTNAME. A missing configMap/secret/key fails the container with
 * CreateContainerConfigError and the message upstream gives.
 */
import { parseQuantity } from '../../apimachinery/quantity.js';
import { milliValue, value } from '../../meta/resource-lists.js';
import type { KObject } from '../../apimachinery/object.js';

type Obj = Record<string, any>;

/** What the kubelet reads from its informers to build an environment. */
export interface EnvSources {
  configMap(namespace: string, name: string): KObject | undefined;
  secret(namespace: string, name: string): KObject | undefined;
  /** Every Service of the cluster (the kubelet's service lister lists all namespaces). */
  services(): readonly KObject[];
  /** The kubelet's claim and volume informers (persistentVolumeClaim volumes); absent where no claims are mounted (exec's context). */
  pvc?(namespace: string, name: string): KObject | undefined;
  pv?(name: string): KObject | undefined;
}

export interface PodNetworkInfo {
  nodeName: string;
  hostIPs: string[];
  podIPs: string[];
  /** Node allocatable, for resourceFieldRef limits defaulting (defaultPodLimitsForDownwardAPI). */
  allocatable: { cpu: string; memory: string; 'ephemeral-storage'?: string };
  os: 'linux' | 'windows';
}

/** An error that keeps the container from being created (waiting reason CreateContainerConfigError). */
export class ContainerConfigError extends Error {}

/** MakeEnvVariableName: upper case, `-` → `_`. */
export function envVarName(s: string): string { return s.toUpperCase().replace(/-/g, '_'); }

/** v1helper.IsServiceIPSet: ClusterIP set and not None. */
function serviceIPSet(svc: KObject): boolean {
  const ip = (svc.spec as Obj)?.clusterIP;
  return typeof ip === 'string' && ip !== '' && ip !== 'None';
}

/** net.JoinHostPort: IPv6 in brackets. */
const hostPort = (ip: string, port: number) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/** envvars.FromServices, in upstream's order per service. */
export function serviceEnvVars(services: readonly KObject[]): [string, string][] {
  const out: [string, string][] = [];
  for (const svc of services) {
    if (!serviceIPSet(svc)) continue;
    const spec = svc.spec as Obj;
    const ports: Obj[] = spec.ports ?? [];
    const [first] = ports;
    if (!first) continue;
    const prefix = envVarName(svc.metadata.name!);
    const ip = spec.clusterIP as string;
    out.push([`${prefix}_SERVICE_HOST`, ip]);
    const name = `${prefix}_SERVICE_PORT`;
    out.push([name, String(first.port)]);
    for (const sp of ports) if (sp.name) out.push([`${name}_${envVarName(sp.name)}`, String(sp.port)]);
    ports.forEach((sp, i) => {
      const protocol = (sp.protocol || 'TCP') as string;
      const url = `${protocol.toLowerCase()}://${hostPort(ip, sp.port)}`;
      if (i === 0) out.push([`${prefix}_PORT`, url]);
      const pp = `${prefix}_PORT_${sp.port}_${protocol.toUpperCase()}`;
      out.push([pp, url], [`${pp}_PROTO`, protocol.toLowerCase()], [`${pp}_PORT`, String(sp.port)], [`${pp}_ADDR`, ip]);
    });
  }
  return out;
}

/** getServiceEnvVarMap: `kubernetes` of default always; the pod namespace's services with enableServiceLinks. */
export function serviceEnvMap(all: readonly KObject[], namespace: string, enableServiceLinks: boolean): Map<string, string> {
  const byName = new Map<string, KObject>();
  for (const svc of all) {
    if (!serviceIPSet(svc)) continue;
    const name = svc.metadata.name!;
    if (svc.metadata.namespace === 'default' && name === 'kubernetes') {
      if (!byName.has(name)) byName.set(name, svc);
    } else if (svc.metadata.namespace === namespace && enableServiceLinks) {
      byName.set(name, svc);
    }
  }
  const sorted = [...byName.values()].sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
  return new Map(serviceEnvVars(sorted));
}

/**
 * third_party/forked/golang/expansion Expand: `$(VAR)` → value when known
 * (else left as written), `$$` → `$`, any other `$x` kept.
 */
export function expand(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c !== '$' || i + 1 >= input.length) { out += c; continue; }
    const n = input[i + 1];
    if (n === '$') { out += '$'; i++; continue; }
    if (n === '(') {
      const close = input.indexOf(')', i + 2);
      if (close === -1) { out += input.slice(i); break; }
      const name = input.slice(i + 2, close);
      const v = lookup(name);
      out += v !== undefined ? v : `$(${name})`;
      i = close;
      continue;
    }
    out += c;
  }
  return out;
}

/** fieldpath.FormatMap: `k="v"` lines sorted by key (Go %q quoting). */
export function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {}).sort().map((k) => `${k}=${JSON.stringify(m![k])}`).join('\n');
}

/** podFieldSelectorRuntimeValue + fieldpath.ExtractFieldPathAsString. */
export function fieldRefValue(pod: KObject, fieldPath: string, net: PodNetworkInfo): string {
  const spec = pod.spec as Obj;
  switch (fieldPath) {
    case 'spec.nodeName': return spec.nodeName ?? net.nodeName;
    case 'spec.serviceAccountName': return spec.serviceAccountName ?? '';
    case 'status.hostIP': return net.hostIPs[0] ?? '';
    case 'status.hostIPs': return net.hostIPs.join(',');
    case 'status.podIP': return net.podIPs[0] ?? '';
    case 'status.podIPs': return net.podIPs.join(',');
    case 'metadata.name': return pod.metadata.name ?? '';
    case 'metadata.namespace': return pod.metadata.namespace ?? '';
    case 'metadata.uid': return pod.metadata.uid ?? '';
    case 'metadata.labels': return formatMap(pod.metadata.labels);
    case 'metadata.annotations': return formatMap(pod.metadata.annotations);
  }
  const m = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fieldPath);
  if (m) {
    const [, field = '', key = ''] = m;
    return (pod.metadata as Obj)[field]?.[key] ?? '';
  }
  throw new ContainerConfigError(`unsupported fieldPath: ${fieldPath}`);
}

/**
 * containerResourceRuntimeValue with defaultPodLimitsForDownwardAPI: a
 * missing limit is the node's allocatable; values are ceil(value / divisor).
 */
export function resourceFieldValue(container: Obj, ref: Obj, net: PodNetworkInfo): string {
  const resource: string = ref.resource;
  const [kind, name] = resource.split('.') as ['limits' | 'requests', string];
  const res = container.resources ?? {};
  let q: string | undefined = res[kind]?.[name];
  if (q === undefined && kind === 'limits') q = (net.allocatable as Record<string, string | undefined>)[name];
  // ExtractContainerResourceValue: a zero divisor (an unset Quantity, serialized "0") is 1.
  const divisor = ref.divisor && Number(value(parseQuantity(String(ref.divisor)))) !== 0 ? String(ref.divisor) : '1';
  if (name === 'cpu') {
    const v = Number(milliValue(parseQuantity(q ?? '0')));
    const d = Number(milliValue(parseQuantity(divisor)));
    return String(Math.ceil(v / d));
  }
  if (name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-')) {
    const v = Number(value(parseQuantity(q ?? '0')));
    const d = Number(value(parseQuantity(divisor)));
    return String(Math.ceil(v / d));
  }
  throw new ContainerConfigError(`unsupported container resource : ${resource}`);
}

const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

/** The kubelet-computed variables of a container, in the order a runtime would set them. */
export function containerEnv(pod: KObject, container: Obj, net: PodNetworkInfo, src: EnvSources): [string, string][] {
  const ns = pod.metadata.namespace ?? 'default';
  const spec = pod.spec as Obj;
  const serviceEnv = serviceEnvMap(src.services(), ns, spec.enableServiceLinks !== false);
  const tmp = new Map<string, string>();
  const configMaps = new Map<string, KObject>();
  const secrets = new Map<string, KObject>();
  const getCM = (name: string, optional: boolean): KObject | undefined => {
    const cm = configMaps.get(name) ?? src.configMap(ns, name);
    if (!cm) { if (optional) return undefined; throw new ContainerConfigError(`configmap "${name}" not found`); }
    configMaps.set(name, cm);
    return cm;
  };
  const getSecret = (name: string, optional: boolean): KObject | undefined => {
    const s = secrets.get(name) ?? src.secret(ns, name);
    if (!s) { if (optional) return undefined; throw new ContainerConfigError(`secret "${name}" not found`); }
    secrets.set(name, s);
    return s;
  };
  for (const ef of container.envFrom ?? []) {
    const prefix: string = ef.prefix ?? '';
    if (ef.configMapRef) {
      const cm = getCM(ef.configMapRef.name, ef.configMapRef.optional === true);
      for (const [k, v] of Object.entries(((cm as Obj)?.data ?? {}) as Record<string, string>)) tmp.set(prefix + k, v);
    } else if (ef.secretRef) {
      const s = getSecret(ef.secretRef.name, ef.secretRef.optional === true);
      for (const [k, v] of Object.entries(((s as Obj)?.data ?? {}) as Record<string, string>)) tmp.set(prefix + k, decode(v));
    }
  }
  const lookup = (name: string) => tmp.get(name) ?? serviceEnv.get(name);
  for (const ev of container.env ?? []) {
    let v: string = ev.value ?? '';
    if (v !== '') v = expand(v, lookup);
    else if (ev.valueFrom) {
      const vf = ev.valueFrom;
      if (vf.fieldRef) v = fieldRefValue(pod, vf.fieldRef.fieldPath, net);
      else if (vf.resourceFieldRef) v = resourceFieldValue(resolveContainer(pod, vf.resourceFieldRef.containerName) ?? container, vf.resourceFieldRef, net);
      else if (vf.configMapKeyRef) {
        const r = vf.configMapKeyRef; const optional = r.optional === true;
        const cm = getCM(r.name, optional);
        if (!cm) continue;
        const val = (cm as Obj).data?.[r.key];
        if (val === undefined) { if (optional) continue; throw new ContainerConfigError(`couldn't find key ${r.key} in ConfigMap ${ns}/${r.name}`); }
        v = val;
      } else if (vf.secretKeyRef) {
        const r = vf.secretKeyRef; const optional = r.optional === true;
        const s = getSecret(r.name, optional);
        if (!s) continue;
        const val = (s as Obj).data?.[r.key];
        if (val === undefined) { if (optional) continue; throw new ContainerConfigError(`couldn't find key ${r.key} in Secret ${ns}/${r.name}`); }
        v = decode(val);
      }
    }
    tmp.set(ev.name, v);
  }
  const out: [string, string][] = [...tmp];
  for (const [k, v] of serviceEnv) if (!tmp.has(k)) out.push([k, v]);
  return out;
}

function resolveContainer(pod: KObject, name: string | undefined): Obj | undefined {
  if (!name) return undefined;
  const spec = pod.spec as Obj;
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])].find((c: Obj) => c.name === name);
}

/** The image defaults our model gives Linux images (docker's default PATH) and runc's HOME. */
export const LINUX_IMAGE_ENV: readonly [string, string][] = [['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']];

/**
 * The account a Windows container's processes run as: the effective
 * `windowsOptions.runAsUserName` (container over pod), else the image's
 * ContainerAdministrator; `DOMAIN\user` splits into USERDOMAIN and USERNAME,
 * a bare name is a local account of the container ("User Manager").
 */
export function windowsAccount(pod: KObject, container: Obj): { domain: string; user: string } {
  const name: string | undefined = container.securityContext?.windowsOptions?.runAsUserName ?? (pod.spec as Obj | undefined)?.securityContext?.windowsOptions?.runAsUserName;
  if (!name) return { domain: 'User Manager', user: 'ContainerAdministrator' };
  const slash = name.indexOf('\\');
  return slash === -1 ? { domain: 'User Manager', user: name } : { domain: name.slice(0, slash), user: name.slice(slash + 1) };
}

/** The environment a Windows Server container's processes inherit (the account's profile). */
export function windowsImageEnv(hostname: string, cpus: number, account = { domain: 'User Manager', user: 'ContainerAdministrator' }): [string, string][] {
  const profile = `C:\\Users\\${account.user}`;
  return [
    ['ALLUSERSPROFILE', 'C:\\ProgramData'], ['APPDATA', `${profile}\\AppData\\Roaming`],
    ['CommonProgramFiles', 'C:\\Program Files\\Common Files'], ['CommonProgramFiles(x86)', 'C:\\Program Files (x86)\\Common Files'],
    ['CommonProgramW6432', 'C:\\Program Files\\Common Files'], ['COMPUTERNAME', hostname.toUpperCase()],
    ['ComSpec', 'C:\\Windows\\system32\\cmd.exe'], ['LOCALAPPDATA', `${profile}\\AppData\\Local`],
    ['NUMBER_OF_PROCESSORS', String(cpus)], ['OS', 'Windows_NT'],
    ['Path', `C:\\Windows\\system32;C:\\Windows;C:\\Windows\\System32\\Wbem;C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\;C:\\Windows\\System32\\OpenSSH\\;${profile}\\AppData\\Local\\Microsoft\\WindowsApps`],
    ['PATHEXT', '.COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC'], ['PROCESSOR_ARCHITECTURE', 'AMD64'],
    ['ProgramData', 'C:\\ProgramData'], ['ProgramFiles', 'C:\\Program Files'], ['ProgramFiles(x86)', 'C:\\Program Files (x86)'],
    ['ProgramW6432', 'C:\\Program Files'], ['PUBLIC', 'C:\\Users\\Public'], ['SystemDrive', 'C:'], ['SystemRoot', 'C:\\Windows'],
    ['TEMP', `${profile}\\AppData\\Local\\Temp`], ['TMP', `${profile}\\AppData\\Local\\Temp`], ['USERDOMAIN', account.domain],
    ['USERNAME', account.user], ['USERPROFILE', profile], ['windir', 'C:\\Windows'],
  ];
}

/**
 * The full environment of the container process: image defaults, then
 * HOSTNAME (containerd sets it from the sandbox hostname), then the
 * kubelet's variables (which win), and HOME on Linux when unset.
 */
export function processEnv(pod: KObject, container: Obj, net: PodNetworkInfo, src: EnvSources, hostname: string, cpus: number): Record<string, string> {
  const env = new Map<string, string>(net.os === 'windows' ? windowsImageEnv(hostname, cpus, windowsAccount(pod, container)) : LINUX_IMAGE_ENV);
  env.set('HOSTNAME', hostname);
  for (const [k, v] of containerEnv(pod, container, net, src)) env.set(k, v);
  if (net.os === 'linux' && !env.has('HOME')) env.set('HOME', '/root');
  return Object.fromEntries(env);
}

/** The pod's hostname as the sandbox gets it: spec.hostname or the pod name, truncated to 63 (GeneratePodHostNameAndDomain). */
export function podHostname(pod: KObject): string {
  const spec = pod.spec as Obj;
  const h: string = spec.hostname || pod.metadata.name || '';
  return h.length > 63 ? h.slice(0, 63).replace(/[-.]+$/, '') : h;
}
