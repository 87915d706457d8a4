/**
 * Where kube-apiserver v1.32 registers its own group versions in discovery: the groupPriorityMinimum
 * and versionPriority of the APIServices it creates for them (cmd/kube-apiserver/app/aggregator.go
 * apiVersionPriorities over controlplane/apiserver DefaultGenericAPIServicePriorities), and those of a
 * CustomResourceDefinition's versions (crdregistration_controller.go). Only served group versions are
 * listed; a served one missing here would get no APIService, as upstream's makeAPIService skips it.
 */
export interface APIServicePriority { group: number; version: number }

const BUILTIN: Record<string, APIServicePriority> = {
  'v1.': { group: 18000, version: 1 },
  'v1.apps': { group: 17800, version: 15 },
  'v1.events.k8s.io': { group: 17750, version: 15 },
  'v1.authentication.k8s.io': { group: 17700, version: 15 },
  'v1.authorization.k8s.io': { group: 17600, version: 15 },
  'v1.autoscaling': { group: 17500, version: 15 },
  'v2.autoscaling': { group: 17500, version: 30 },
  'v1.batch': { group: 17400, version: 15 },
  'v1.certificates.k8s.io': { group: 17300, version: 15 },
  'v1.networking.k8s.io': { group: 17200, version: 15 },
  'v1.policy': { group: 17100, version: 15 },
  'v1.rbac.authorization.k8s.io': { group: 17000, version: 15 },
  'v1.storage.k8s.io': { group: 16800, version: 15 },
  'v1.apiextensions.k8s.io': { group: 16700, version: 15 },
  'v1.admissionregistration.k8s.io': { group: 16700, version: 15 },
  'v1.scheduling.k8s.io': { group: 16600, version: 15 },
  'v1.coordination.k8s.io': { group: 16500, version: 15 },
  'v1.node.k8s.io': { group: 16300, version: 15 },
  'v1.discovery.k8s.io': { group: 16200, version: 15 },
  'v1.flowcontrol.apiserver.k8s.io': { group: 16100, version: 21 },
};

/** A built-in group version's priorities, by APIService name ("version.group"). */
export function builtinAPIServicePriority(name: string): APIServicePriority | undefined {
  return BUILTIN[name];
}

/** "CRDs should have relatively low priority"; their versions sort by kube-aware version order. */
export const CRD_API_SERVICE_PRIORITY: APIServicePriority = { group: 1000, version: 100 };

/** The aggregator's own group, always first (handler_discovery.go APIRegistrationGroupPriority). */
export const APIREGISTRATION_GROUP_PRIORITY = 20001;
