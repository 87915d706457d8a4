/** core/v1 pods. */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import type { FieldError } from '../../apimachinery/field-errors.js';
import { validatePodCreate } from '../../validation/pod-spec.js';
import { validatePodEphemeralContainersUpdate, validatePodStatusUpdate, validatePodUpdate } from '../../validation/pod-update.js';
import { podCreateWarnings } from '../../validation/pod-warnings.js';
import { admitPodCreate } from './pod-admission.js';
import { createBinding } from './pod-binding.js';
import { createEviction } from './pod-eviction.js';
import { admitNodePodDelete } from '../../admission/node-restriction.js';
import { defaultPod } from '../../component-helpers/pod-defaults.js';
import { preparePodForCreate, preparePodForUpdate } from './pod-prepare.js';

/**
 * The v1 <-> internal status conversion: the singular podIP/hostIP mirror the
 * first of the plural lists (the singular one wins when they disagree).
 */
function convertPodStatus(pod: Record<string, any>): void {
  const st = pod.status;
  if (isObject(st)) {
    for (const [one, many] of [['podIP', 'podIPs'], ['hostIP', 'hostIPs']] as const) {
      const list: any[] = Array.isArray(st[many]) ? st[many] : [];
      if (st[one] && (list.length === 0 || list[0]?.ip !== st[one])) st[many] = [{ ip: st[one] }];
      if (Array.isArray(st[many]) && st[many].length) st[one] = st[many][0]?.ip; else { delete st[many]; }
      if (!st[one]) delete st[one];
    }
  }
}

/**
 * CheckGracefulDelete: the requested period, else the pod's
 * terminationGracePeriodSeconds (0 if unset); 0 for a pod never scheduled or
 * already finished; a negative period becomes 1.
 */
export function podGracePeriod(pod: any, requested: number | undefined): number {
  let period = requested ?? (typeof pod?.spec?.terminationGracePeriodSeconds === 'number'
    ? pod.spec.terminationGracePeriodSeconds : 0);
  if (!pod?.spec?.nodeName) period = 0;
  if (pod?.status?.phase === 'Failed' || pod?.status?.phase === 'Succeeded') period = 0;
  if (period < 0) period = 1;
  return period;
}

/** ValidatePodCreate's result, computed once per object (the warnings need it before the store validates). */
const createErrors = new WeakMap<object, FieldError[]>();
function podCreateErrors(obj: KObject): FieldError[] {
  let errs = createErrors.get(obj);
  if (!errs) createErrors.set(obj, errs = validatePodCreate(obj));
  return errs;
}

export const pods: ResourceDef<Pod> = {
  group: '',
  version: 'v1',
  resource: 'pods',
  singular: 'pod',
  kind: 'Pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  verbs: ALL_VERBS,
  subresources: [
    { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
    { name: 'binding', kind: 'Binding', verbs: ['create'] },
    { name: 'ephemeralcontainers', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
    { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
    { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
    { name: 'log', kind: 'Pod', verbs: ['get'] },
    { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
    { name: 'proxy', kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
    { name: 'status', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
  ],
  subresourceWrites: { binding: createBinding, eviction: createEviction },
  admitDelete: (pod, ctx) => admitNodePodDelete(pod as Pod & KObject, ctx),
  storageVersionHash: 'xPOwRZ+Yhw8=',
  storagePrefix: '/core/pods',
  // Pods count generations only from v1.33 (PodObservedGenerationTracking).
  hasGeneration: false,
  hasStatusSubresource: true,
  defaults(obj: KObject) {
    decoding('Pod', () => {
      normalizeMeta(obj);
      defaultPod(obj);
      convertPodStatus(obj);
    });
  },
  prepareForCreate: (obj, ctx) => preparePodForCreate(obj, ctx),
  prepareForUpdate: (obj, old) => preparePodForUpdate(obj, old),
  async admitCreate(obj, ctx, lookup) {
    await admitPodCreate(obj, ctx, lookup);
    // WarningsOnCreate: upstream adds the pod's warnings once strategy validation has passed.
    if (obj.metadata?.name && podCreateErrors(obj).length === 0) for (const w of podCreateWarnings(obj)) ctx.warn(w);
  },
  validate(obj) {
    const errs = podCreateErrors(obj);
    createErrors.delete(obj);
    return errs;
  },
  validateUpdate(obj, old, subresource) {
    switch (subresource) {
      case undefined: return validatePodUpdate(obj, old);
      case 'status': return validatePodStatusUpdate(obj, old);
      case 'ephemeralcontainers': return validatePodEphemeralContainersUpdate(obj, old);
      // Binding assigns the node through its own path upstream, without pod validation.
      default: return [];
    }
  },
  fieldSelectors: {
    'spec.nodeName': (p) => p.spec?.nodeName ?? '',
    // Old clients' alias of spec.nodeName.
    'spec.host': (p) => p.spec?.nodeName ?? '',
    'spec.restartPolicy': (p) => p.spec?.restartPolicy ?? '',
    'spec.schedulerName': (p) => p.spec?.schedulerName ?? '',
    'spec.serviceAccountName': (p) => p.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (p) => String(p.spec?.hostNetwork === true),
    'status.phase': (p) => p.status?.phase ?? '',
    'status.podIP': (p) => p.status?.podIPs?.[0]?.ip ?? p.status?.podIP ?? '',
    // Accepted by the field label conversion but absent from the selectable set: always "".
    'status.podIPs': () => '',
    'status.nominatedNodeName': (p) => p.status?.nominatedNodeName ?? '',
  },
  gracePeriod: podGracePeriod,
  returnDeletedObject: true,
};
