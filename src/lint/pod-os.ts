/**
 * Which OS a pod template targets, and whether it is pinned there. Pinned:
 * spec.os.name, a kubernetes.io/os (or beta.kubernetes.io/os) nodeSelector,
 * a required node affinity on kubernetes.io/os, or a RuntimeClass (whose
 * scheduling section places it; its OS is known when the RuntimeClass is
 * among the manifests). Not pinned, the OS is inferred from the content:
 * Windows security options or Windows-only images.
 */
import { isObject } from '../meta/json.js';
import { containersOf, type PodTemplate } from './workload.js';
import { imageOS } from './image-os.js';
import type { Manifest, Obj } from './types.js';

export type PodOS = 'linux' | 'windows';

export interface PodTarget {
  os?: PodOS;
  /** What pins it: `nodeSelector`, `nodeAffinity`, `os`, `runtimeClass`; undefined when nothing does. */
  pinnedBy?: 'os' | 'nodeSelector' | 'nodeAffinity' | 'runtimeClass';
  /** Why an unpinned pod counts as Windows. */
  inferredFrom?: string;
}

const OS_LABELS = ['kubernetes.io/os', 'beta.kubernetes.io/os'];

const asOS = (v: unknown): PodOS | undefined => (v === 'windows' || v === 'linux' ? v : undefined);

function osOfSelector(sel: unknown): PodOS | undefined {
  if (!isObject(sel)) return undefined;
  for (const l of OS_LABELS) { const os = asOS(sel[l]); if (os) return os; }
  return undefined;
}

/** The OS every required node selector term agrees on (each term must pin it: terms are ORed). */
function osOfAffinity(spec: Obj): PodOS | undefined {
  const terms: unknown = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!Array.isArray(terms) || terms.length === 0) return undefined;
  const per = terms.map((t: Obj) => {
    const exprs: unknown = t?.matchExpressions;
    if (!Array.isArray(exprs)) return undefined;
    const e = exprs.find((x: Obj) => OS_LABELS.includes(x?.key) && x?.operator === 'In' && Array.isArray(x.values) && x.values.length === 1);
    return e ? asOS(e.values[0]) : undefined;
  });
  const [first] = per;
  return first && per.every((o) => o === first) ? first : undefined;
}

function runtimeClassOS(name: string, manifests: readonly Manifest[]): PodOS | undefined {
  const rc = manifests.find((m) => m.obj.kind === 'RuntimeClass' && m.obj.metadata?.name === name);
  return rc ? osOfSelector(rc.obj.scheduling?.nodeSelector) : undefined;
}

const hasWindowsOptions = (sc: unknown): boolean => isObject(sc) && isObject(sc.windowsOptions) && Object.keys(sc.windowsOptions).length > 0;

export function podTarget(t: PodTemplate, manifests: readonly Manifest[]): PodTarget {
  const spec = t.spec;
  const declared = asOS(spec.os?.name);
  if (declared) return { os: declared, pinnedBy: 'os' };
  const bySelector = osOfSelector(spec.nodeSelector);
  if (bySelector) return { os: bySelector, pinnedBy: 'nodeSelector' };
  const byAffinity = osOfAffinity(spec);
  if (byAffinity) return { os: byAffinity, pinnedBy: 'nodeAffinity' };
  const inferred = inferOS(t);
  if (typeof spec.runtimeClassName === 'string' && spec.runtimeClassName !== '') {
    const os = runtimeClassOS(spec.runtimeClassName, manifests) ?? inferred?.os;
    return { ...(os ? { os } : {}), pinnedBy: 'runtimeClass' };
  }
  return inferred ?? {};
}

/** The Hyper-V isolation annotation of the Docker era: only Windows pods carry it. */
const ISOLATION_ANNOTATION = 'experimental.windows.kubernetes.io/isolation-type';

function inferOS(t: PodTemplate): { os: PodOS; inferredFrom: string } | undefined {
  if (isObject(t.meta.annotations) && ISOLATION_ANNOTATION in t.meta.annotations) {
    return { os: 'windows', inferredFrom: `${t.specPath.replace(/spec$/, 'metadata')}.annotations[${ISOLATION_ANNOTATION}]` };
  }
  if (hasWindowsOptions(t.spec.securityContext)) return { os: 'windows', inferredFrom: `${t.specPath}.securityContext.windowsOptions` };
  for (const c of containersOf(t)) {
    if (hasWindowsOptions(c.container.securityContext)) return { os: 'windows', inferredFrom: `${c.path}.securityContext.windowsOptions` };
    const image = typeof c.container.image === 'string' ? imageOS(c.container.image) : undefined;
    if (image?.windows && !image.linux) return { os: 'windows', inferredFrom: `${c.path}.image` };
  }
  return undefined;
}
