/** core/v1 services. */
import type { Service } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { isObject, normalizeMeta, pruneEmpty } from './decode.js';
import { metaValidators, nameIsDNS1035Label } from '../../validation/object-meta.js';
import { validateLoadBalancerStatus, validateServiceSpec, validateServiceUpdateSpec } from '../../validation/service.js';
import {
  allocateServiceCreate, allocateServiceUpdate, dropTypeDependentFields, externallyAccessible, initIPFamilyFields, normalizeClusterIPs,
  patchAllocatedValues,
} from './service-alloc.js';

/** SetDefaults_Service (v1.32), plus Go's omission of empty optional fields. */
export function defaultService(svc: Record<string, any>): void {
  if (!isObject(svc.spec)) svc.spec = {};
  const s = svc.spec;
  if (!s.sessionAffinity) s.sessionAffinity = 'None';
  if (s.sessionAffinity === 'None') delete s.sessionAffinityConfig;
  if (s.sessionAffinity === 'ClientIP' && s.sessionAffinityConfig?.clientIP?.timeoutSeconds == null) {
    s.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  if (!s.type) s.type = 'ClusterIP';
  for (const p of s.ports ?? []) {
    if (!isObject(p)) continue;
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
    for (const k of ['name', 'nodePort']) if (p[k] === '' || p[k] === 0 || p[k] === null) delete p[k];
  }
  if (externallyAccessible(svc) && !s.externalTrafficPolicy) s.externalTrafficPolicy = 'Cluster';
  if (s.internalTrafficPolicy == null && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(s.type)) {
    s.internalTrafficPolicy = 'Cluster';
  }
  if (s.type === 'LoadBalancer') {
    if (s.allocateLoadBalancerNodePorts == null) s.allocateLoadBalancerNodePorts = true;
    // LoadBalancerIPMode: an ingress IP without a mode is a VIP.
    for (const ing of svc.status?.loadBalancer?.ingress ?? []) if (isObject(ing) && ing.ip && ing.ipMode == null) ing.ipMode = 'VIP';
  }
  for (const k of ['clusterIP', 'externalName', 'loadBalancerIP', 'externalTrafficPolicy', 'healthCheckNodePort',
    'publishNotReadyAddresses']) {
    if (s[k] === '' || s[k] === 0 || s[k] === false || s[k] === null) delete s[k];
  }
  pruneEmpty(s, 'ports', 'selector', 'clusterIPs', 'externalIPs', 'loadBalancerSourceRanges', 'ipFamilies');
  // ServiceStatus and its LoadBalancerStatus are structs: Go always writes them.
  if (!isObject(svc.status)) svc.status = {};
  if (!isObject(svc.status.loadBalancer)) svc.status.loadBalancer = {};
}

const meta = metaValidators({ namespaced: true, nameFn: nameIsDNS1035Label });

export const services: ResourceDef<Service> = {
  group: '',
  version: 'v1',
  resource: 'services',
  singular: 'service',
  kind: 'Service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  verbs: ALL_VERBS,
  subresources: [
    { name: 'proxy', kind: 'ServiceProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
    { name: 'status', kind: 'Service', verbs: ['get', 'patch', 'update'] },
  ],
  storageVersionHash: '0/CO1lhkEBI=',
  storagePrefix: '/core/services',
  hasGeneration: false,
  hasStatusSubresource: true,
  defaults(obj: KObject) {
    normalizeMeta(obj);
    defaultService(obj);
  },
  prepareForCreate(obj) {
    obj.status = { loadBalancer: {} };
  },
  /**
   * beginUpdate's synchronous part (keep allocated values the client left
   * out, sync clusterIP(s), IP families), then the strategy's PrepareForUpdate.
   * The allocation itself (new node ports, a type change's cluster IP) is beginUpdate's.
   */
  prepareForUpdate(obj, old) {
    patchAllocatedValues(obj, old);
    normalizeClusterIPs(obj, old);
    initIPFamilyFields(obj, old);
    obj.status = old.status ?? { loadBalancer: {} };
    dropTypeDependentFields(obj, old);
  },
  beginCreate: (obj, ctx, lookup) => allocateServiceCreate(obj, lookup, ctx.dryRun),
  beginUpdate: (obj, old, ctx, lookup) => allocateServiceUpdate(obj, old, lookup, ctx.dryRun),
  // ValidateServiceCreate; ValidateServiceUpdate re-runs ValidateService (ObjectMeta included) after its own checks.
  validate: (obj) => [...meta.validate(obj), ...validateServiceSpec(obj)],
  // The status strategy runs ValidateServiceStatusUpdate instead.
  validateUpdate: (obj, old, subresource) => (subresource === 'status'
    ? [...meta.validateUpdate(obj, old), ...validateLoadBalancerStatus(obj)]
    : [...meta.validateUpdate(obj, old), ...validateServiceUpdateSpec(obj, old), ...meta.validate(obj), ...validateServiceSpec(obj)]),
  fieldSelectors: {
    'spec.clusterIP': (s) => s.spec?.clusterIP ?? '',
    'spec.type': (s) => s.spec?.type ?? '',
  },
  returnDeletedObject: true,
};
