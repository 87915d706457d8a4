/**
 * The PodSecurity admission plugin (k8s.io/pod-security-admission/admission
 * and plugin/pkg/admission/security/podsecurity, v1.32), validating only.
 *
 * A namespace's labels `pod-security.kubernetes.io/<mode>[-version]` set the
 * level (privileged, baseline, restricted) and policy version (latest or
 * v1.N) of each mode; unset modes are privileged:latest (the default
 * configuration, with no exemptions).
 *  - Pods: `enforce` refuses a violating pod with 403 Forbidden
 *    `pods "<name>" is forbidden: violates PodSecurity "<level>:<version>": <details>`;
 *    `warn` adds the Warning `would violate PodSecurity "<level>:<version>": <details>`
 *    when the pod is admitted. Updates are checked only when they change a
 *    container image or seccomp annotation, or add containers.
 *  - Workloads with a pod template (Deployment, ReplicaSet, StatefulSet,
 *    DaemonSet, Job, CronJob, ReplicationController, PodTemplate): never
 *    refused, only the `warn` warning for the template (warn defaults to a stricter `enforce`).
 *  - Namespaces: labels with a bad level or version are refused (422 on the
 *    label); tightening `enforce` warns about existing pods that would violate it.
 * `audit` is parsed and evaluated but there is no audit log to write to.
 */
import { errors } from '../apimachinery/errors.js';
import type { FieldError } from '../apimachinery/field-errors.js';
import type { KObject } from '../apimachinery/object.js';
import { listAll } from './lookup.js';
import {
  evaluatePod, forbiddenDetail, forbiddenReason, levelVersionString,
  type Aggregate, type Level, type LevelVersion, type PolicyVersion,
} from './pod-security-policy.js';
import type { AdmissionAttributes, AdmissionPlugin } from './types.js';

const PREFIX = 'pod-security.kubernetes.io/';
export const ENFORCE_LEVEL_LABEL = `${PREFIX}enforce`;
export const ENFORCE_VERSION_LABEL = `${PREFIX}enforce-version`;
export const AUDIT_LEVEL_LABEL = `${PREFIX}audit`;
export const AUDIT_VERSION_LABEL = `${PREFIX}audit-version`;
export const WARN_LEVEL_LABEL = `${PREFIX}warn`;
export const WARN_VERSION_LABEL = `${PREFIX}warn-version`;

export interface Policy { enforce: LevelVersion; audit: LevelVersion; warn: LevelVersion }

const LATEST: PolicyVersion = { minor: 0, latest: true };
const DEFAULT_POLICY: Policy = {
  enforce: { level: 'privileged', version: LATEST },
  audit: { level: 'privileged', version: LATEST },
  warn: { level: 'privileged', version: LATEST },
};

/** api.ParseLevel: an unknown level is an error and evaluates as restricted. */
export function parseLevel(v: string): { level: Level; error?: string } {
  if (v === 'privileged' || v === 'baseline' || v === 'restricted') return { level: v };
  return { level: 'restricted', error: 'must be one of privileged, baseline, restricted' };
}

/** api.ParseVersion: "latest" or "v1.N"; anything else is an error and evaluates as latest. */
export function parseVersion(v: string): { version: PolicyVersion; error?: string } {
  if (v === 'latest') return { version: LATEST };
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(v);
  if (!m || !Number.isSafeInteger(Number(m[1]))) return { version: LATEST, error: 'must be "latest" or "v1.x"' };
  return { version: { minor: Number(m[1]), latest: false } };
}

/** api.PolicyToEvaluate: the namespace's policy and the label errors (audit and warn fail open). */
export function policyToEvaluate(labels: Record<string, string> | undefined): { policy: Policy; errs: FieldError[] } {
  // A fresh copy of DEFAULT_POLICY, built directly: structuredClone cost more than the rest of this on every write.
  const p: Policy = {
    enforce: { level: DEFAULT_POLICY.enforce.level, version: LATEST },
    audit: { level: DEFAULT_POLICY.audit.level, version: LATEST },
    warn: { level: DEFAULT_POLICY.warn.level, version: LATEST },
  };
  const errs: FieldError[] = [];
  if (!labels || !Object.keys(labels).length) return { policy: p, errs };
  const err = (label: string, value: string, detail?: string) => {
    if (detail) errs.push({ type: 'FieldValueInvalid', field: `metadata.labels[${label}]`, value, detail });
  };
  /** Sets the mode's level from its label; true when the label is there and parses. */
  const level = (mode: keyof Policy, label: string, failOpen: boolean): boolean => {
    const value = labels[label];
    if (value === undefined) return false;
    const r = parseLevel(value);
    p[mode].level = r.error && failOpen ? 'privileged' : r.level;
    err(label, value, r.error);
    return !r.error;
  };
  const version = (mode: keyof Policy, label: string) => {
    const value = labels[label];
    if (value === undefined) return;
    const r = parseVersion(value);
    p[mode].version = r.version;
    err(label, value, r.error);
  };
  const hasEnforceLevel = level('enforce', ENFORCE_LEVEL_LABEL, false);
  version('enforce', ENFORCE_VERSION_LABEL);
  level('audit', AUDIT_LEVEL_LABEL, true);
  version('audit', AUDIT_VERSION_LABEL);
  level('warn', WARN_LEVEL_LABEL, true);
  version('warn', WARN_VERSION_LABEL);
  // Without a warn label, warn follows a stricter enforce level (and its version unless warn-version
  // is set): that is how a Deployment in an enforce namespace gets the warning its pods would be refused with.
  if (!(WARN_LEVEL_LABEL in labels) && hasEnforceLevel && compareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (!(WARN_VERSION_LABEL in labels)) p.warn.version = p.enforce.version;
  }
  return { policy: p, errs };
}

function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version.latest === b.version.latest && (a.version.latest || a.version.minor === b.version.minor);
}

/** api.CompareLevels: -1, 0 or 1 by strictness. */
function compareLevels(a: Level, b: Level): number {
  const rank = { privileged: 0, baseline: 1, restricted: 2 };
  return Math.sign(rank[a] - rank[b]);
}

/** The pod templates PodSecurity evaluates (DefaultPodSpecExtractor), by group/resource. */
const POD_TEMPLATE_OF: Record<string, (o: any) => any> = {
  '/replicationcontrollers': (o) => o.spec?.template,
  '/podtemplates': (o) => o.template ?? {},
  'apps/replicasets': (o) => o.spec?.template ?? {},
  'apps/deployments': (o) => o.spec?.template ?? {},
  'apps/statefulsets': (o) => o.spec?.template ?? {},
  'apps/daemonsets': (o) => o.spec?.template ?? {},
  'batch/jobs': (o) => o.spec?.template ?? {},
  'batch/cronjobs': (o) => o.spec?.jobTemplate?.spec?.template ?? {},
};

/** Pod subresources that cannot change the pod spec. */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

function isFullyPrivileged(p: Policy): boolean {
  return p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';
}

async function namespacePolicy(a: AdmissionAttributes): Promise<{ policy: Policy; errs: FieldError[] } | undefined> {
  const ns = await a.lookup.get('', 'namespaces', '', a.namespace);
  return ns ? policyToEvaluate(ns.metadata.labels) : undefined;
}

/** EvaluatePod: enforce (for pods), then warn unless already refused. */
function evaluate(a: AdmissionAttributes, policy: Policy, meta: any, spec: any, enforce: boolean): void {
  const cache = new Map<string, Aggregate>();
  const key = (lv: LevelVersion) => levelVersionString(lv);
  if (enforce) {
    const result = evaluatePod(policy.enforce, meta, spec);
    cache.set(key(policy.enforce), result);
    if (!result.allowed) {
      throw errors.forbidden({ group: a.def.group, resource: a.def.resource }, a.name,
        `violates PodSecurity "${levelVersionString(policy.enforce)}": ${forbiddenDetail(result)}`);
    }
  }
  const warn = cache.get(key(policy.warn)) ?? evaluatePod(policy.warn, meta, spec);
  if (!warn.allowed) a.ctx.warn(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${forbiddenDetail(warn)}`);
}

function containerImagesDiffer(c: any, old: any, annotations: any, oldAnnotations: any): boolean {
  if ((c?.image ?? '') !== (old?.image ?? '')) return true;
  const key = `container.seccomp.security.alpha.kubernetes.io/${c?.name ?? ''}`;
  return (annotations?.[key] ?? '') !== (oldAnnotations?.[key] ?? '');
}

/** isSignificantPodUpdate: what a pod update can change that the policy looks at. */
export function isSignificantPodUpdate(pod: any, old: any): boolean {
  const list = (p: any, k: string): any[] => (Array.isArray(p?.spec?.[k]) ? p.spec[k] : []);
  const ann = pod?.metadata?.annotations;
  const oldAnn = old?.metadata?.annotations;
  for (const k of ['containers', 'initContainers']) {
    const now = list(pod, k);
    const before = list(old, k);
    if (now.length !== before.length) return true;
    for (let i = 0; i < now.length; i++) if (containerImagesDiffer(now[i], before[i], ann, oldAnn)) return true;
  }
  const oldEphemeral = list(old, 'ephemeralContainers');
  for (const c of list(pod, 'ephemeralContainers')) {
    const o = oldEphemeral.find((x) => x?.name === c?.name);
    if (!o || containerImagesDiffer(c, o, ann, oldAnn)) return true;
  }
  return false;
}

async function validatePod(a: AdmissionAttributes): Promise<void> {
  if (IGNORED_POD_SUBRESOURCES.has(a.subresource)) return;
  const ns = await namespacePolicy(a);
  if (!ns) throw errors.internal(`failed to lookup namespace "${a.namespace}"`);
  if (!ns.errs.length && isFullyPrivileged(ns.policy)) return;
  if (a.operation === 'UPDATE' && a.oldObject && !isSignificantPodUpdate(a.object, a.oldObject)) return;
  evaluate(a, ns.policy, a.object.metadata, a.object.spec, true);
}

async function validatePodController(a: AdmissionAttributes, template: (o: any) => any): Promise<void> {
  if (a.subresource) return;
  const ns = await namespacePolicy(a);
  if (!ns) return;
  if (!ns.errs.length && ns.policy.warn.level === 'privileged' && ns.policy.audit.level === 'privileged') return;
  const t = template(a.object);
  if (t == null) return;
  evaluate(a, ns.policy, t.metadata ?? {}, t.spec ?? {}, false);
}

/** Pods of a namespace, one per controller first (prioritizePods). */
function prioritized(pods: KObject[]): KObject[] {
  const first: KObject[] = [];
  const rest: KObject[] = [];
  const seen = new Set<string>();
  for (const p of pods) {
    const owner = (p.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    if (!owner) { first.push(p); continue; }
    if (seen.has(owner.uid)) { rest.push(p); continue; }
    seen.add(owner.uid);
    first.push(p);
  }
  return [...first, ...rest];
}

const MAX_PODS_TO_CHECK = 3000;

/** EvaluatePodsInNamespace: the warnings for existing pods that a new enforce level would refuse. */
export async function evaluatePodsInNamespace(a: AdmissionAttributes, namespace: string, enforce: LevelVersion): Promise<string[]> {
  const pods = prioritized(await listAll(a.lookup, '', 'pods', namespace));
  const total = pods.length;
  const checked = pods.slice(0, MAX_PODS_TO_CHECK);
  const order: string[] = [];
  const counts = new Map<string, { pod: string; n: number }>();
  for (const pod of checked) {
    const r = evaluatePod(enforce, pod.metadata, pod.spec);
    if (r.allowed) continue;
    const w = forbiddenReason(r);
    const c = counts.get(w);
    const name = pod.metadata.name ?? '';
    if (!c) { counts.set(w, { pod: name, n: 1 }); order.push(w); } else {
      c.n++;
      if (name < c.pod) c.pod = name;
    }
  }
  const warnings: string[] = [];
  if (checked.length < total) {
    warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${total} existing pods`);
  }
  if (order.length) {
    warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`);
  }
  const podWarnings = order.map((w) => {
    const c = counts.get(w)!;
    if (c.n === 1) return `${c.pod}: ${w}`;
    if (c.n === 2) return `${c.pod} (and 1 other pod): ${w}`;
    return `${c.pod} (and ${c.n - 1} other pods): ${w}`;
  }).sort();
  return [...warnings, ...podWarnings];
}

async function validateNamespace(a: AdmissionAttributes): Promise<void> {
  if (a.subresource) return;
  const { policy, errs } = policyToEvaluate(a.object.metadata.labels);
  if (a.operation === 'CREATE') {
    if (errs.length) throw errors.invalid({ group: '', kind: 'Namespace' }, a.name, errs);
    return;
  }
  const old = policyToEvaluate(a.oldObject?.metadata.labels);
  if (errs.length && (!old.errs.length || JSON.stringify(errs) !== JSON.stringify(old.errs))) {
    throw errors.invalid({ group: '', kind: 'Namespace' }, a.name, errs);
  }
  // Only a stricter enforce level (or a new version) is dry-run against the namespace's pods.
  if (sameLevelVersion(policy.enforce, old.policy.enforce)) return;
  if (policy.enforce.level === 'privileged') return;
  const sameVersion = policy.enforce.version.latest === old.policy.enforce.version.latest &&
    (policy.enforce.version.latest || policy.enforce.version.minor === old.policy.enforce.version.minor);
  if (sameVersion && compareLevels(policy.enforce.level, old.policy.enforce.level) < 1) return;
  for (const w of await evaluatePodsInNamespace(a, a.name, policy.enforce)) a.ctx.warn(w);
}

export const podSecurity: AdmissionPlugin = {
  name: 'PodSecurity',
  async validate(a) {
    const gr = `${a.def.group}/${a.def.resource}`;
    if (gr === '/namespaces') return validateNamespace(a);
    if (gr === '/pods') return validatePod(a);
    const template = POD_TEMPLATE_OF[gr];
    if (template) return validatePodController(a, template);
  },
};
