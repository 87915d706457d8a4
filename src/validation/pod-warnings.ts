/**
 * The warnings upstream v1.32 sends for pods and pod templates
 * (pkg/api/pod/warnings.go GetWarningsForPod / GetWarningsForPodTemplate,
 * pkg/api/node/util.go's deprecated node labels, and the pod strategy's
 * WarningsOnCreate). Upstream adds them once validation has passed; pods
 * get none on update.
 */
import { isDNS1123Label } from '../meta/names.js';
import { visitContainersWithPath } from '../os/windows-rules.js';
import { arr, isObj, obj, quantityOf, scaledValue, str, type Obj } from './pod-util.js';

/** deprecatedNodeLabels */
export const DEPRECATED_NODE_LABELS: Record<string, string> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
  'app.kubernetes.io/created-by': 'deprecated since v1.9',
  'scheduler.alpha.kubernetes.io/preferAvoidPods': 'deprecated since v1.22; use Taints and Tolerations instead',
  'node-role.kubernetes.io/master': 'use "node-role.kubernetes.io/control-plane" instead',
};

const DEPRECATED_ANNOTATIONS: [string, string][] = [
  ['scheduler.alpha.kubernetes.io/critical-pod', 'non-functional in v1.16+; use the "priorityClassName" field instead'],
  ['security.alpha.kubernetes.io/sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
  ['security.alpha.kubernetes.io/unsafe-sysctls', 'non-functional in v1.11+; use the "sysctls" field instead'],
];

const DEPRECATED_VOLUMES: [string, string][] = [
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['gitRepo', 'deprecated in v1.11'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['flocker', 'deprecated in v1.22, non-functional in v1.25+'],
  ['storageos', 'deprecated in v1.22, non-functional in v1.25+'],
  ['quobyte', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
];

/** A field.Path under an optional prefix (nil for pods, "spec.template" for templates). */
const at = (prefix: string, rest: string) => (prefix ? `${prefix}.${rest}` : rest);

function fractional(v: unknown): boolean {
  const q = quantityOf(v);
  return !!q && scaledValue(q, -3) % 1000n !== 0n;
}

/** GetWarningsForNodeSelectorTerm */
function nodeSelectorTermWarnings(term: Obj, path: string): string[] {
  const out: string[] = [];
  arr(term.matchExpressions).forEach((e, i) => {
    const k = str(obj(e).key);
    if (k in DEPRECATED_NODE_LABELS) out.push(`${path}.matchExpressions[${i}].key: ${k} is ${DEPRECATED_NODE_LABELS[k]}`);
  });
  return out;
}

/** %+v of a core.ContainerPort */
const portPlusV = (p: Obj) =>
  `{Name:${str(p.name)} HostPort:${Number(p.hostPort ?? 0)} ContainerPort:${Number(p.containerPort ?? 0)} Protocol:${str(p.protocol)} HostIP:${str(p.hostIP)}}`;

/** warningsForPodSpecAndMeta; `prefix` is "" for a pod, the template's path otherwise. */
export function podSpecWarnings(prefix: string, spec0: unknown, meta0: unknown): string[] {
  const spec = obj(spec0);
  const meta = obj(meta0);
  const annotations = obj(meta.annotations);
  const w: string[] = [];
  for (const k of Object.keys(obj(spec.nodeSelector))) {
    if (k in DEPRECATED_NODE_LABELS) w.push(`${at(prefix, 'spec.nodeSelector')}[${k}]: ${DEPRECATED_NODE_LABELS[k]}`);
  }
  const na = obj(obj(spec.affinity).nodeAffinity);
  if (isObj(na.requiredDuringSchedulingIgnoredDuringExecution)) {
    const p = at(prefix, 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms');
    arr(na.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).forEach((t, i) => w.push(...nodeSelectorTermWarnings(obj(t), `${p}[${i}]`)));
  }
  const pref = at(prefix, 'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution');
  arr(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
    w.push(...nodeSelectorTermWarnings(obj(obj(t).preference), `${pref}[${i}].preference`));
  });
  arr(spec.topologySpreadConstraints).forEach((c0, i) => {
    const c = obj(c0);
    const p = `${at(prefix, 'spec.topologySpreadConstraints')}[${i}]`;
    const k = str(c.topologyKey);
    if (k in DEPRECATED_NODE_LABELS) w.push(`${p}.topologyKey: ${k} is ${DEPRECATED_NODE_LABELS[k]}`);
    if (c.labelSelector === undefined || c.labelSelector === null) w.push(`${p}.labelSelector: a null labelSelector results in matching no pod`);
  });
  for (const [k, msg] of DEPRECATED_ANNOTATIONS) {
    if (k in annotations) w.push(`${at(prefix, 'metadata.annotations')}[${k}]: ${msg}`);
  }
  arr(spec.volumes).forEach((v0, i) => {
    const v = obj(v0);
    const p = `${at(prefix, 'spec.volumes')}[${i}]`;
    for (const [k, msg] of DEPRECATED_VOLUMES) {
      if (v[k] !== undefined && v[k] !== null) w.push(`${p}.${k === 'storageos' ? 'storageOS' : k}: ${msg}`);
    }
    const tmpl = obj(v.ephemeral).volumeClaimTemplate;
    if (isObj(tmpl)) {
      const res = obj(obj(tmpl.spec).resources);
      const sp = `${p}.ephemeral.volumeClaimTemplate.spec.resources`;
      const req = obj(res.requests).storage;
      if (fractional(req)) w.push(`${sp}.requests[storage]: fractional byte value "${str(req)}" is invalid, must be an integer`);
      const lim = obj(res.limits).storage;
      if (fractional(lim)) w.push(`${sp}.limits[storage]: fractional byte value "${str(lim)}" is invalid, must be an integer`);
    }
    if (v.cephfs !== undefined && v.cephfs !== null) w.push(`${p}.cephfs: deprecated in v1.28, non-functional in v1.31+`);
    if (v.rbd !== undefined && v.rbd !== null) w.push(`${p}.rbd: deprecated in v1.28, non-functional in v1.31+`);
  });

  // Projected sources whose path collides with a service account token's.
  const tokenPaths = new Set<string>();
  for (const v of arr(spec.volumes)) {
    for (const s of arr(obj(obj(v).projected).sources)) {
      const t = obj(s).serviceAccountToken;
      if (isObj(t)) tokenPaths.add(str(t.path));
    }
  }
  if (tokenPaths.size > 0) {
    arr(spec.volumes).forEach((v, i) => {
      const proj = obj(v).projected;
      if (!isObj(proj)) return;
      const base = `${at(prefix, 'spec.volumes')}[${i}].projected.sources`;
      for (const s0 of arr(proj.sources)) {
        const s = obj(s0);
        for (const [k, name] of [['configMap', 'configMap'], ['secret', 'secrets']] as const) {
          arr(obj(s[k]).items).forEach((it, j) => {
            const path = str(obj(it).path);
            if (tokenPaths.has(path)) w.push(`${base}.${name}[${j}]: has duplicated path with ServiceAccountToken ${JSON.stringify(path)}`);
          });
        }
        arr(obj(s.downwardAPI).items).forEach((it, j) => {
          const path = str(obj(it).path);
          if (tokenPaths.has(path)) w.push(`${base}.downwardAPI[${j}]: has duplicated path with ServiceAccountToken ${JSON.stringify(path)}`);
        });
        if (isObj(s.clusterTrustBundle) && tokenPaths.has(str(s.clusterTrustBundle.path))) {
          w.push(`${base}.ClusterTrustBundle: has duplicated path with ServiceAccountToken ${JSON.stringify(str(s.clusterTrustBundle.path))}`);
        }
      }
    });
  }

  const aliases = arr(spec.hostAliases);
  if (aliases.length > 1) {
    const seen = new Set<string>();
    aliases.forEach((a, i) => {
      const ip = str(obj(a).ip);
      if (seen.has(ip)) w.push(`${at(prefix, 'spec.hostAliases')}[${i}].ip: duplicate ip ${JSON.stringify(ip)}`); else seen.add(ip);
    });
  }
  const secrets = arr(spec.imagePullSecrets);
  if (secrets.length > 1) {
    const seen = new Set<string>();
    secrets.forEach((s, i) => {
      const name = str(obj(s).name);
      if (seen.has(name)) w.push(`${at(prefix, 'spec.imagePullSecrets')}[${i}].name: duplicate name ${JSON.stringify(name)}`); else seen.add(name);
    });
  }
  secrets.forEach((s, i) => {
    if (str(obj(s).name) === '') w.push(`${at(prefix, 'spec.imagePullSecrets')}[${i}].name: invalid empty name ""`);
  });
  for (const r of ['memory', 'ephemeral-storage']) {
    const v = obj(spec.overhead)[r];
    if (v !== undefined && fractional(v)) w.push(`${at(prefix, 'spec.overhead')}[${r}]: fractional byte value ${JSON.stringify(str(v))} is invalid, must be an integer`);
  }
  const sc = obj(spec.securityContext);
  if (!isObj(sc.seccompProfile) && 'seccomp.security.alpha.kubernetes.io/pod' in annotations) {
    w.push(`${at(prefix, 'metadata.annotations')}[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead`);
  }
  const podAppArmor = isObj(sc.appArmorProfile);
  visitContainersWithPath(spec, at(prefix, 'spec'), (c, p) => {
    const csc = obj(c.securityContext);
    const seccompKey = `container.seccomp.security.alpha.kubernetes.io/${str(c.name)}`;
    if (!isObj(csc.seccompProfile) && seccompKey in annotations) {
      w.push(`${at(prefix, 'metadata.annotations')}[${seccompKey}]: non-functional in v1.27+; use the "seccompProfile" field instead`);
    }
    // Pods get their AppArmor warnings from the strategy's version-skew step; only templates here.
    const apparmorKey = `container.apparmor.security.beta.kubernetes.io/${str(c.name)}`;
    if (prefix && !podAppArmor && !isObj(csc.appArmorProfile) && apparmorKey in annotations) {
      w.push(`${at(prefix, 'metadata.annotations')}[${apparmorKey}]: deprecated since v1.30; use the "appArmorProfile" field instead`);
    }
    const res = obj(c.resources);
    // Order: limits.memory, requests.memory, limits.ephemeral-storage, requests.ephemeral-storage.
    for (const [r, kind] of [['memory', 'limits'], ['memory', 'requests'], ['ephemeral-storage', 'limits'], ['ephemeral-storage', 'requests']] as const) {
      const v = obj(res[kind])[r];
      if (v !== undefined && fractional(v)) w.push(`${p}.resources.${kind}[${r}]: fractional byte value ${JSON.stringify(str(v))} is invalid, must be an integer`);
    }
    const env = arr(c.env).map(obj);
    if (env.length > 1) {
      const seen = new Set<string>();
      env.forEach((e, i) => {
        const name = str(e.name);
        if (!seen.has(name)) { seen.add(name); return; }
        const ref = `$(${name})`;
        const value = str(e.value);
        if ((e.valueFrom !== undefined && e.valueFrom !== null) || value === ref || !value.includes(ref)) {
          w.push(`${p}.env[${i}]: hides previous definition of ${JSON.stringify(name)}, which may be dropped when using apply`);
        }
      });
    }
  });

  interface PortBlock { field: string; port: Obj }
  const allPorts = new Map<string, PortBlock[]>();
  visitContainersWithPath(spec, at(prefix, 'spec'), (c, p) => {
    arr(c.ports).map(obj).forEach((port, i) => {
      const f = `${p}.ports[${i}]`;
      const hostIP = str(port.hostIP);
      const hostPort = Number(port.hostPort ?? 0);
      if (hostIP !== '' && hostPort === 0) w.push(`${f}: hostIP set without hostPort: ${portPlusV(port)}`);
      const k = `${Number(port.containerPort ?? 0)}/${str(port.protocol)}`;
      const others = allPorts.get(k);
      if (others) {
        for (const other of others) {
          const oIP = str(other.port.hostIP);
          const oPort = Number(other.port.hostPort ?? 0);
          if (hostIP === oIP && hostPort === oPort) w.push(`${f}: duplicate port definition with ${other.field}`);
          else if (hostPort === 0 || oPort === 0) w.push(`${f}: overlapping port definition with ${other.field}`);
          else if (hostPort === oPort && ((hostIP === '') !== (oIP === ''))) w.push(`${f}: dangerously ambiguous port definition with ${other.field}`);
        }
        others.push({ field: f, port });
      } else allPorts.set(k, [{ field: f, port }]);
    });
  });

  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) {
    w.push(`${at(prefix, 'spec.terminationGracePeriodSeconds')}: must be >= 0; negative values are invalid and will be treated as 1`);
  }
  const aff = obj(spec.affinity);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = aff[kind];
    if (!isObj(a)) continue;
    const base = at(prefix, `spec.affinity.${kind}`);
    arr(a.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (obj(t).labelSelector == null) w.push(`${base}.requiredDuringSchedulingIgnoredDuringExecution[${i}].labelSelector: a null labelSelector results in matching no pod`);
    });
    arr(a.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      if (obj(obj(t).podAffinityTerm).labelSelector == null) {
        w.push(`${base}.preferredDuringSchedulingIgnoredDuringExecution[${i}].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod`);
      }
    });
  }
  return w;
}

/** GetWarningsForPodTemplate, for workloads: `path` is the template's (e.g. "spec.template"). */
export function podTemplateWarnings(template: unknown, path: string): string[] {
  const t = obj(template);
  return podSpecWarnings(path, t.spec, t.metadata);
}

/** The pod strategy's WarningsOnCreate: a name that is not a DNS label, then GetWarningsForPod. */
export function podCreateWarnings(pod: unknown): string[] {
  const p = obj(pod);
  const name = str(obj(p.metadata).name);
  const w: string[] = [];
  const msgs = isDNS1123Label(name);
  if (msgs.length) {
    w.push(`metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`);
  }
  return [...w, ...podSpecWarnings('', p.spec, p.metadata)];
}
