/**
 * The mutating admission plugins a pod create passes through upstream, in
 * the default plugin order: ServiceAccount, Priority, DefaultTolerationSeconds,
 * RuntimeClass (plugin/pkg/admission/...). Their refusals are 403 Forbidden like
 * admission.NewForbidden makes them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { errors } from '../../apimachinery/errors.js';
import { randomSuffix } from '../../meta/object-meta.js';
import type { KObject } from '../../apimachinery/object.js';
import type { Lookup } from '../../admission/lookup.js';
import type { WriteContext } from '../../apimachinery/write-context.js';
import { isObject } from './decode.js';
import { listAll } from '../../admission/lookup.js';
import { cmpQuantity, parseQuantity } from '../../apimachinery/quantity.js';
import { MIRROR_POD_ANNOTATION, podSecretNames } from '../../component-helpers/pod-references.js';
import type { PodSpec } from 'kubernetes-types/core/v1.js';

const PODS = { group: '', resource: 'pods' };
const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const TOKEN_VOLUME_PREFIX = 'kube-api-access-';

/** Retry pacing of the service account lookup; tests may shorten it. */
export const serviceAccountLookup = {
  /** Upstream tries the "default" account 10 times (it is made by a controller), others once. */
  defaultAttempts: 10,
  /** Upstream waits a random 100–199 ms between attempts. */
  delayMs: (): number => 100 + Math.floor(Math.random() * 100),
};

function forbidden(pod: KObject, why: string): Error {
  return errors.forbidden(PODS, pod.metadata.name ?? '', why);
}

/** The projected volume upstream mounts for the token (TokenVolumeSource, with its default mode spelled out). */
export function tokenVolumeSource(): Record<string, unknown> {
  return {
    sources: [
      // WarnOnlyBoundTokenExpirationSeconds: one hour plus seven seconds.
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: 420,
  };
}

async function getServiceAccount(lookup: Lookup, namespace: string, name: string): Promise<KObject | undefined> {
  const attempts = name === 'default' ? serviceAccountLookup.defaultAttempts : 1;
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await sleep(serviceAccountLookup.delayMs());
    const sa = await lookup.get('', 'serviceaccounts', namespace, name);
    if (sa) return sa;
  }
  return undefined;
}

/** mountServiceAccountToken: one kube-api-access-xxxxx volume, mounted read-only in every container lacking the path. */
function mountToken(spec: Record<string, any>): void {
  let volumeName = '';
  for (const v of spec.volumes ?? []) {
    if (isObject(v) && typeof v.name === 'string' && v.name.startsWith(TOKEN_VOLUME_PREFIX)) { volumeName = v.name; break; }
  }
  const hasVolume = volumeName !== '';
  if (!hasVolume) volumeName = TOKEN_VOLUME_PREFIX + randomSuffix();
  let needed = false;
  for (const list of [spec.initContainers, spec.containers]) {
    for (const c of list ?? []) {
      if (!isObject(c)) continue;
      if ((c.volumeMounts ?? []).some((m: any) => m?.mountPath === TOKEN_MOUNT_PATH)) continue;
      (c.volumeMounts ??= []).push({ name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
      needed = true;
    }
  }
  if (!hasVolume && needed) (spec.volumes ??= []).push({ name: volumeName, projected: tokenVolumeSource() });
}

/** Mirror pods (static pods reflected by a kubelet) may not use service accounts or secrets. */
function validateMirrorPod(pod: KObject): void {
  const spec = pod.spec as Record<string, any>;
  if (spec.serviceAccountName) throw forbidden(pod, 'a mirror pod may not reference service accounts');
  if (podSecretNames(spec as PodSpec).length) throw forbidden(pod, 'a mirror pod may not reference secrets');
  for (const v of spec.volumes ?? []) {
    if ((v?.projected?.sources ?? []).some((s: any) => s?.serviceAccountToken)) {
      throw forbidden(pod, 'a mirror pod may not use ServiceAccountToken volume projections');
    }
  }
}

/**
 * ServiceAccount admission: defaults the account to "default", which must
 * exist; mounts the token unless automount is off (the pod's choice wins over
 * the account's); copies the account's imagePullSecrets to a pod without any.
 */
export async function admitServiceAccount(pod: KObject, ctx: WriteContext, lookup: Lookup): Promise<void> {
  const spec = pod.spec as Record<string, any>;
  if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return validateMirrorPod(pod);
  if (!spec.serviceAccountName) spec.serviceAccountName = 'default';
  spec.serviceAccount = spec.serviceAccountName;
  const name: string = spec.serviceAccountName;
  const sa = await getServiceAccount(lookup, ctx.namespace, name);
  if (!sa) {
    throw forbidden(pod, `error looking up service account ${ctx.namespace}/${name}: serviceaccount "${name}" not found`);
  }
  const automount = typeof spec.automountServiceAccountToken === 'boolean' ? spec.automountServiceAccountToken
    : typeof sa.automountServiceAccountToken === 'boolean' ? sa.automountServiceAccountToken : true;
  if (automount) mountToken(spec);
  if (!(spec.imagePullSecrets ?? []).length) {
    const pulls = ((sa.imagePullSecrets as any[]) ?? []).map((s) => ({ name: s?.name }));
    if (pulls.length) spec.imagePullSecrets = pulls; else delete spec.imagePullSecrets;
  }
}

/**
 * Priority admission: the value comes from the named PriorityClass, or the
 * global default class, or 0; so does preemptionPolicy. A client-sent value
 * that disagrees is refused.
 */
export async function admitPriority(pod: KObject, lookup: Lookup): Promise<void> {
  const spec = pod.spec as Record<string, any>;
  let priority = 0;
  let policy: string | undefined;
  if (!spec.priorityClassName) {
    // In a race several classes may claim globalDefault; the lowest value wins.
    let def: KObject | undefined;
    for (const pc of await listAll(lookup, 'scheduling.k8s.io', 'priorityclasses', '')) {
      if (pc.globalDefault === true && (!def || (def.value as number) > (pc.value as number))) def = pc;
    }
    if (def) {
      spec.priorityClassName = def.metadata.name;
      priority = Number(def.value ?? 0);
      policy = def.preemptionPolicy as string | undefined;
    } else {
      policy = 'PreemptLowerPriority';
    }
  } else {
    const pc = await lookup.get('scheduling.k8s.io', 'priorityclasses', '', spec.priorityClassName);
    if (!pc) throw forbidden(pod, `no PriorityClass with name ${spec.priorityClassName} was found`);
    priority = Number(pc.value ?? 0);
    policy = pc.preemptionPolicy as string | undefined;
  }
  if (typeof spec.priority === 'number' && spec.priority !== priority) {
    throw forbidden(pod, `the integer value of priority (${spec.priority}) must not be provided in pod spec; ` +
      `priority admission controller computed ${priority} from the given PriorityClass name`);
  }
  spec.priority = priority;
  if (policy) {
    if (spec.preemptionPolicy && spec.preemptionPolicy !== policy) {
      throw forbidden(pod, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; ` +
        `priority admission controller computed ${policy} from the given PriorityClass name`);
    }
    spec.preemptionPolicy = policy;
  }
}

/** The kube-apiserver flags --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
export const DEFAULT_TOLERATION_SECONDS = 300;

/** DefaultTolerationSeconds: tolerate not-ready and unreachable nodes for 300 s unless the pod already does. */
export function admitDefaultTolerations(pod: KObject): void {
  const spec = pod.spec as Record<string, any>;
  const tolerations: any[] = spec.tolerations ?? [];
  const tolerates = (key: string) => tolerations.some((t) => isObject(t) &&
    (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
  const add: any[] = [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!tolerates(key)) add.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: DEFAULT_TOLERATION_SECONDS });
  }
  if (add.length) spec.tolerations = [...tolerations, ...add];
}

/** Semantic equality of two ResourceLists (same names, equal quantities). */
function sameResourceList(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => {
    const y = b?.[k];
    if (y === undefined) return false;
    try { return cmpQuantity(parseQuantity(String(a![k])), parseQuantity(String(y))) === 0; } catch { return a![k] === y; }
  });
}

/**
 * RuntimeClass admission: the named class must exist; its podFixed overhead
 * becomes the pod's (a different one sent by the client is refused), its
 * scheduling nodeSelector and tolerations are merged in. Its validating half
 * refuses an overhead that no RuntimeClass defines.
 */
export async function admitRuntimeClass(pod: KObject, lookup: Lookup): Promise<void> {
  const spec = pod.spec as Record<string, any>;
  let rc: KObject | undefined;
  if (spec.runtimeClassName != null) {
    rc = await lookup.get('node.k8s.io', 'runtimeclasses', '', spec.runtimeClassName);
    if (!rc) throw forbidden(pod, `pod rejected: RuntimeClass "${spec.runtimeClassName}" not found`);
  }
  const podFixed = (rc?.overhead as any)?.podFixed as Record<string, unknown> | undefined;
  const mismatch = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
  if (rc && isObject(rc.overhead)) {
    if (Object.keys(spec.overhead ?? {}).length && !sameResourceList(podFixed, spec.overhead)) throw forbidden(pod, mismatch);
    if (podFixed && Object.keys(podFixed).length) spec.overhead = { ...podFixed }; else delete spec.overhead;
  }
  const scheduling = rc?.scheduling as any;
  if (isObject(scheduling)) {
    const selector: Record<string, string> = spec.nodeSelector ?? {};
    for (const [k, v] of Object.entries((scheduling.nodeSelector ?? {}) as Record<string, string>)) {
      if (k in selector && selector[k] !== v) {
        throw forbidden(pod, `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${selector[k]}`);
      }
      selector[k] = v;
    }
    if (Object.keys(selector).length) spec.nodeSelector = selector;
    const tolerations: any[] = [...(spec.tolerations ?? [])];
    const key = (t: any) => JSON.stringify([t?.key ?? '', t?.operator ?? '', t?.value ?? '', t?.effect ?? '', t?.tolerationSeconds ?? null]);
    for (const t of scheduling.tolerations ?? []) if (!tolerations.some((x) => key(x) === key(t))) tolerations.push(t);
    if (tolerations.length) spec.tolerations = tolerations;
  }
  // Validate: the overhead must be the class's, and only a class may set one.
  if (rc && isObject(rc.overhead)) {
    if (!sameResourceList(podFixed, spec.overhead)) throw forbidden(pod, mismatch);
  } else if (spec.overhead != null) {
    throw forbidden(pod, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  }
}

/**
 * The mutating plugins in upstream's order (ServiceAccount, Priority,
 * DefaultTolerationSeconds, RuntimeClass); RuntimeClass's validating check
 * runs with its mutation. LimitRanger is not emulated.
 */
export async function admitPodCreate(pod: KObject, ctx: WriteContext, lookup: Lookup): Promise<void> {
  if (!isObject(pod.spec)) pod.spec = {};
  await admitServiceAccount(pod, ctx, lookup);
  await admitPriority(pod, lookup);
  admitDefaultTolerations(pod);
  await admitRuntimeClass(pod, lookup);
}
