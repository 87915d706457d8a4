/**
 * What a ResourceQuota counts, per resource (pkg/quota/v1/evaluator/core and
 * k8s.io/apiserver/pkg/quota/v1/generic, v1.32): the pod, service and
 * PersistentVolumeClaim evaluators, and object counts (`count/<resource>[.<group>]`,
 * plus the legacy names configmaps, secrets, resourcequotas,
 * replicationcontrollers) for everything else. Shared by the ResourceQuota
 * admission plugin and the quota controller.
 */
import type { KObject } from '../apimachinery/object.js';
import type { Lookup } from './lookup.js';
import { listAll } from './lookup.js';
import { getPodQOS } from '../meta/pod-qos.js';
import {
  addLists, cmp, intQuantity, mask, parseList, podResources, quantityOf, zero, type ResourceList,
} from '../meta/resource-lists.js';
import type { Quantity } from '../apimachinery/quantity.js';
import type { Operation } from './types.js';

export interface ScopeSelector { scopeName: string; operator: string; values?: string[] }

export interface QuotaEvaluator {
  group: string;
  resource: string;
  /** The quota resource names, of those given, that this evaluator accounts for. */
  matchingResources(names: string[]): string[];
  /** Whether admission must check this operation. */
  handles(op: Operation): boolean;
  /** What one object uses. */
  usage(obj: any, now: Date): ResourceList;
  /** Whether the object is in a quota scope. */
  matchesScope(selector: ScopeSelector, obj: any): boolean;
  /** Resources the object must state because a quota tracks them (the pod cpu/memory rule); an error text or undefined. */
  constraints(required: string[], obj: any): string | undefined;
}

/** generic.ObjectCountQuotaResourceNameFor. */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

const intersect = (input: string[], known: string[]) => input.filter((n) => known.includes(n));
const noScope = () => false;

// --- object counts ---------------------------------------------------------------------

const LEGACY_COUNT_NAMES: Record<string, string> = {
  configmaps: 'configmaps', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers', secrets: 'secrets',
};

/** NewObjectCountEvaluator: one of each object (the legacy core name too), counted on create only. */
export function objectCountEvaluator(group: string, resource: string): QuotaEvaluator {
  const names = [objectCountName(group, resource)];
  if (group === '' && LEGACY_COUNT_NAMES[resource]) names.push(LEGACY_COUNT_NAMES[resource]);
  return {
    group, resource,
    matchingResources: (input) => intersect(input, names),
    handles: (op) => op === 'CREATE',
    usage: () => Object.fromEntries(names.map((n) => [n, intQuantity(1)])),
    matchesScope: noScope,
    constraints: () => undefined,
  };
}

// --- pods -------------------------------------------------------------------------------

const POD_RESOURCES = ['count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory',
  'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods'];
const POD_RESOURCE_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** If a quota tracks these, every container must state them (a compatibility rule upstream keeps). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** helper.IsNativeResource: no domain, or a kubernetes.io/ one. */
function isNative(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** helper.IsExtendedResourceName. */
function isExtendedResource(name: string): boolean {
  if (isNative(name) || name.startsWith('requests.')) return false;
  const q = `requests.${name}`;
  const slash = q.lastIndexOf('/');
  const prefix = slash >= 0 ? q.slice(0, slash) : '';
  const local = slash >= 0 ? q.slice(slash + 1) : q;
  return QUALIFIED_NAME.test(q) && prefix.length <= 253 && local.length > 0 && local.length <= 63;
}

/** podComputeUsageHelper. */
function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = { pods: intQuantity(1) };
  const both = (res: string) => {
    const request = requests[res];
    const limit = limits[res];
    if (request !== undefined) { out[res] = request; out[`requests.${res}`] = request; }
    if (limit !== undefined) out[`limits.${res}`] = limit;
  };
  both('cpu');
  both('memory');
  both('ephemeral-storage');
  for (const [k, v] of Object.entries(requests)) {
    if (k.startsWith('hugepages-')) { out[k] = v; out[`requests.${k}`] = v; }
    if (isExtendedResource(k)) out[`requests.${k}`] = v;
  }
  return out;
}

/** QuotaV1Pod: terminal pods, and pods past their deletion grace period, use no compute quota. */
export function podCountsForQuota(pod: any, now: Date): boolean {
  const phase = pod?.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const ts = pod?.metadata?.deletionTimestamp;
  const grace = pod?.metadata?.deletionGracePeriodSeconds;
  if (ts && typeof grace === 'number') {
    if (now.getTime() > Date.parse(ts) + grace * 1000) return false;
  }
  return true;
}

function crossNamespaceTerm(t: any): boolean {
  return !!t && ((Array.isArray(t.namespaces) && t.namespaces.length > 0) || t.namespaceSelector != null);
}

function usesCrossNamespaceAffinity(pod: any): boolean {
  const affinity = pod?.spec?.affinity;
  for (const a of [affinity?.podAffinity, affinity?.podAntiAffinity]) {
    if (!a) continue;
    if ((a.requiredDuringSchedulingIgnoredDuringExecution ?? []).some(crossNamespaceTerm)) return true;
    if ((a.preferredDuringSchedulingIgnoredDuringExecution ?? []).some((w: any) => crossNamespaceTerm(w?.podAffinityTerm))) return true;
  }
  return false;
}

/** A label-selector requirement on a one-key label set (ScopedResourceSelectorRequirementsAsSelector). */
function matchesRequirement(sel: ScopeSelector, labels: Record<string, string>): boolean {
  const value = labels[sel.scopeName];
  const has = value !== undefined;
  const values = sel.values ?? [];
  switch (sel.operator) {
    case 'In': return has && values.includes(value);
    case 'NotIn': return !has || !values.includes(value);
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    default: return false;
  }
}

function isTerminating(pod: any): boolean {
  const ads = pod?.spec?.activeDeadlineSeconds;
  return typeof ads === 'number' && ads >= 0;
}

export const podEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'pods',
  matchingResources(input) {
    const out = intersect(input, POD_RESOURCES);
    for (const r of input) {
      if (POD_RESOURCE_PREFIXES.some((p) => r.startsWith(p))) out.push(r);
      if (!isNative(r) && r.startsWith('requests.')) out.push(r);
    }
    return [...new Set(out)];
  },
  handles: (op) => op === 'CREATE',
  usage(pod, now) {
    const out: ResourceList = { 'count/pods': intQuantity(1) };
    if (!podCountsForQuota(pod, now)) return out;
    return addLists(out, podComputeUsage(podResources(pod, 'requests', true), podResources(pod, 'limits', true)));
  },
  matchesScope(sel, pod) {
    switch (sel.scopeName) {
      case 'Terminating': return isTerminating(pod);
      case 'NotTerminating': return !isTerminating(pod);
      case 'BestEffort': return getPodQOS(pod) === 'BestEffort';
      case 'NotBestEffort': return getPodQOS(pod) !== 'BestEffort';
      case 'PriorityClass': {
        const pc = pod?.spec?.priorityClassName;
        if (sel.operator === 'Exists') return typeof pc === 'string' && pc.length > 0;
        return matchesRequirement(sel, typeof pc === 'string' && pc ? { PriorityClass: pc } : {});
      }
      case 'CrossNamespacePodAffinity': return usesCrossNamespaceAffinity(pod);
      default: return false;
    }
  },
  constraints(required, pod) {
    const requiredSet = required.filter((r) => VALIDATION_SET.has(r));
    if (!requiredSet.length) return undefined;
    const missing = new Map<string, Set<string>>();
    const spec = pod?.spec ?? {};
    for (const list of [spec.containers, spec.initContainers]) {
      for (const c of Array.isArray(list) ? list : []) {
        if (!c || typeof c !== 'object') continue;
        const has = new Set(Object.keys(podComputeUsage(parseList(c.resources?.requests), parseList(c.resources?.limits))));
        for (const r of requiredSet) {
          if (has.has(r)) continue;
          if (!missing.has(r)) missing.set(r, new Set());
          missing.get(r)!.add(String(c.name ?? ''));
        }
      }
    }
    if (!missing.size) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};

// --- services ------------------------------------------------------------------------------

const SERVICE_RESOURCES = ['count/services', 'services', 'services.nodeports', 'services.loadbalancers'];

export const serviceEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'services',
  matchingResources: (input) => intersect(input, SERVICE_RESOURCES),
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  usage(svc) {
    const ports: any[] = Array.isArray(svc?.spec?.ports) ? svc.spec.ports : [];
    const out: ResourceList = {
      'count/services': intQuantity(1),
      services: intQuantity(1),
      'services.loadbalancers': zero(),
      'services.nodeports': zero(),
    };
    switch (svc?.spec?.type) {
      case 'NodePort':
        out['services.nodeports'] = intQuantity(ports.length);
        break;
      case 'LoadBalancer':
        out['services.nodeports'] = svc.spec.allocateLoadBalancerNodePorts === false
          ? intQuantity(ports.filter((p) => p && typeof p.nodePort === 'number' && p.nodePort !== 0).length)
          : intQuantity(ports.length);
        out['services.loadbalancers'] = intQuantity(1);
        break;
    }
    return out;
  },
  matchesScope: noScope,
  constraints: () => undefined,
};

// --- persistentvolumeclaims -------------------------------------------------------------------

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];

/** Rounds a quantity up to whole units (Quantity.RoundUp(0)). */
function roundUpToInteger(q: Quantity): Quantity {
  if (q.scale >= 0) return q;
  const d = 10n ** BigInt(-q.scale);
  if (q.unscaled % d === 0n) return q;
  // Away from zero, as Quantity.RoundUp does.
  return { neg: q.neg, unscaled: q.unscaled / d + 1n, scale: 0, format: q.format };
}

/** storagehelpers.GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName. */
function claimClass(pvc: any): string {
  const ann = pvc?.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (typeof ann === 'string') return ann;
  return typeof pvc?.spec?.storageClassName === 'string' ? pvc.spec.storageClassName : '';
}

export const pvcEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  matchingResources(input) {
    const out: string[] = [];
    for (const r of input) {
      if (r === 'count/persistentvolumeclaims' || PVC_RESOURCES.includes(r)) { out.push(r); continue; }
      if (PVC_RESOURCES.some((p) => r.endsWith(STORAGE_CLASS_SUFFIX + p))) out.push(r);
    }
    return out;
  },
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  usage(pvc) {
    const out: ResourceList = { persistentvolumeclaims: intQuantity(1), 'count/persistentvolumeclaims': intQuantity(1) };
    const cls = claimClass(pvc);
    if (cls) out[`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = intQuantity(1);
    let storage: Quantity | undefined;
    const requested = quantityOf(pvc?.spec?.resources?.requests?.storage);
    if (requested) storage = roundUpToInteger(requested);
    // RecoverVolumeExpansionFailure (beta, on in v1.32): the larger of request and allocation.
    const allocated = quantityOf(pvc?.status?.allocatedResources?.storage);
    if (allocated) {
      const a = roundUpToInteger(allocated);
      if (!storage || cmp(a, storage) > 0) storage = a;
    }
    if (storage) {
      out['requests.storage'] = storage;
      if (cls) out[`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`] = storage;
    }
    return out;
  },
  matchesScope: noScope,
  constraints: () => undefined,
};

// --- registry -----------------------------------------------------------------------------------

/** The evaluator admission uses for a resource: a specific one, else an object count. */
export function evaluatorFor(group: string, resource: string): QuotaEvaluator {
  if (group === '') {
    if (resource === 'pods') return podEvaluator;
    if (resource === 'services') return serviceEvaluator;
    if (resource === 'persistentvolumeclaims') return pvcEvaluator;
  }
  return objectCountEvaluator(group, resource);
}

/** The evaluators that can account for a quota's resources; `known(group, resource)` says which resources exist. */
export function evaluatorsForQuota(hardNames: string[], known: (group: string, resource: string) => boolean): QuotaEvaluator[] {
  const out: QuotaEvaluator[] = [podEvaluator, serviceEvaluator, pvcEvaluator,
    ...Object.keys(LEGACY_COUNT_NAMES).map((r) => objectCountEvaluator('', r))];
  const covered = new Set(out.map((e) => `${e.group}/${e.resource}`));
  for (const name of hardNames) {
    if (!name.startsWith('count/')) continue;
    const rest = name.slice('count/'.length);
    const dot = rest.indexOf('.');
    const resource = dot < 0 ? rest : rest.slice(0, dot);
    const group = dot < 0 ? '' : rest.slice(dot + 1);
    if (covered.has(`${group}/${resource}`) || !known(group, resource)) continue;
    covered.add(`${group}/${resource}`);
    out.push(objectCountEvaluator(group, resource));
  }
  return out;
}

/** getScopeSelectorsFromQuota: spec.scopes as Exists requirements, then spec.scopeSelector. */
export function quotaScopes(rq: KObject): ScopeSelector[] {
  const spec = (rq.spec ?? {}) as any;
  const out: ScopeSelector[] = [];
  for (const s of Array.isArray(spec.scopes) ? spec.scopes : []) out.push({ scopeName: String(s), operator: 'Exists' });
  for (const e of Array.isArray(spec.scopeSelector?.matchExpressions) ? spec.scopeSelector.matchExpressions : []) {
    if (e && typeof e === 'object') out.push({ scopeName: String(e.scopeName ?? ''), operator: String(e.operator ?? ''), values: e.values });
  }
  return out;
}

/** The quota's limits (spec.hard, which the quota controller copies to status.hard). */
export function quotaHard(rq: KObject): ResourceList {
  return parseList((rq.spec as any)?.hard);
}

function inScopes(ev: QuotaEvaluator, scopes: ScopeSelector[], obj: any): boolean {
  return scopes.every((s) => ev.matchesScope(s, obj));
}

/** generic.Matches: the quota limits something this evaluator counts, and the object is in all its scopes. */
export function quotaMatches(ev: QuotaEvaluator, rq: KObject, obj: any): boolean {
  return ev.matchingResources(Object.keys(quotaHard(rq))).length > 0 && inScopes(ev, quotaScopes(rq), obj);
}

/**
 * CalculateUsageStats for one evaluator: every tracked resource starts at
 * zero, then each object of the namespace in the quota's scopes adds its
 * usage. `extra` stands for objects admitted but not yet stored.
 */
export async function usageStats(lookup: Lookup, ev: QuotaEvaluator, namespace: string, rq: KObject,
  resources: string[], now: Date, adjust?: (items: KObject[]) => KObject[]): Promise<ResourceList> {
  let used: ResourceList = Object.fromEntries(resources.map((r) => [r, zero()]));
  let items = await listAll(lookup, ev.group, ev.resource, namespace);
  if (adjust) items = adjust(items);
  const scopes = quotaScopes(rq);
  for (const item of items) {
    if (inScopes(ev, scopes, item)) used = addLists(used, ev.usage(item, now));
  }
  return mask(used, resources);
}

