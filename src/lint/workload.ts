/**
 * The pod template inside each workload kind, with its field path, and the
 * object reference a finding names.
 */
import type { Manifest, Obj, ObjectRef } from './types.js';
import { isObject } from '../meta/json.js';

export interface PodTemplate {
  /** The path of the template's pod spec (`spec`, `spec.template.spec`, `spec.jobTemplate.spec.template.spec`). */
  specPath: string;
  spec: Obj;
  /** The template's metadata (the pod's own for a Pod). */
  meta: Obj;
  kind: string;
}

const TEMPLATE_KINDS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicationController']);
/** The API groups whose kinds of these names are the built-in workloads (not a CRD's kind of the same name). */
const WORKLOAD_GROUPS = new Set(['v1', 'apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1', 'batch/v1', 'batch/v1beta1']);

export function objectRef(obj: Obj): ObjectRef {
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  return {
    ...(typeof obj.apiVersion === 'string' ? { apiVersion: obj.apiVersion } : {}),
    kind: typeof obj.kind === 'string' ? obj.kind : '',
    ...(typeof meta.namespace === 'string' ? { namespace: meta.namespace } : {}),
    name: typeof meta.name === 'string' ? meta.name : typeof meta.generateName === 'string' ? meta.generateName : '',
  };
}

const objAt = (o: unknown, ...keys: string[]): Obj | undefined => {
  let cur: unknown = o;
  for (const k of keys) cur = isObject(cur) ? cur[k] : undefined;
  return isObject(cur) ? cur : undefined;
};

const templates = new WeakMap<Obj, PodTemplate | null>();

/** The pod template of a built-in workload, undefined for every other object (memoized: every rule asks). */
export function podTemplateOf(m: Manifest): PodTemplate | undefined {
  let t = templates.get(m.obj);
  if (t === undefined) templates.set(m.obj, (t = findPodTemplate(m.obj) ?? null));
  return t ?? undefined;
}

function findPodTemplate(obj: Obj): PodTemplate | undefined {
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (!WORKLOAD_GROUPS.has(String(obj.apiVersion))) return undefined;
  if (kind === 'Pod') {
    const spec = objAt(obj, 'spec');
    return spec ? { specPath: 'spec', spec, meta: objAt(obj, 'metadata') ?? {}, kind } : undefined;
  }
  const [base, template] = TEMPLATE_KINDS.has(kind) ? ['spec.template', objAt(obj, 'spec', 'template')]
    : kind === 'CronJob' ? ['spec.jobTemplate.spec.template', objAt(obj, 'spec', 'jobTemplate', 'spec', 'template')]
      : kind === 'PodTemplate' ? ['template', objAt(obj, 'template')] : [undefined, undefined];
  if (!base || !template) return undefined;
  const spec = objAt(template, 'spec');
  return spec ? { specPath: `${base}.spec`, spec, meta: objAt(template, 'metadata') ?? {}, kind } : undefined;
}

export interface ContainerAt { container: Obj; path: string; init: boolean }

/** Init and regular containers with their paths (templates have no ephemeral containers). */
export function containersOf(t: PodTemplate): ContainerAt[] {
  const out: ContainerAt[] = [];
  for (const list of ['initContainers', 'containers'] as const) {
    const items: unknown = t.spec[list];
    if (!Array.isArray(items)) continue;
    items.forEach((c, i) => { if (isObject(c)) out.push({ container: c, path: `${t.specPath}.${list}[${i}]`, init: list === 'initContainers' }); });
  }
  return out;
}
