/**
 * apiregistration.k8s.io/v1 APIService (kube-aggregator v0.32): its types and the helpers the
 * registry, the aggregator's controllers and discovery share (pkg/apis/apiregistration/v1/helper).
 */
import type { IAPIService, IAPIServiceCondition } from 'kubernetes-models/apiregistration.k8s.io/v1';
import { compareKubeAwareVersions } from './kube-version-order.js';

export type APIService = IAPIService;
export type APIServiceCondition = IAPIServiceCondition;

export const APIREGISTRATION_GROUP = 'apiregistration.k8s.io';

/** autoregister's label: how an APIService the API server registers itself is kept. */
export const AUTO_REGISTER_MANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/** NewLocalAvailableAPIServiceCondition */
export function localAvailableCondition(now: string): APIServiceCondition {
  return { type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Local', message: 'Local APIServices are always available' };
}

/** The Available condition, if set. */
export function availableCondition(svc: APIService): APIServiceCondition | undefined {
  return svc.status?.conditions?.find((c) => c.type === 'Available');
}

/** IsAPIServiceConditionTrue(svc, Available) */
export function isAvailable(svc: APIService): boolean {
  return availableCondition(svc)?.status === 'True';
}

/**
 * SetAPIServiceCondition: adds the condition or overwrites the one of its type; the transition
 * time moves only when the status changes.
 */
export function setAPIServiceCondition(svc: APIService, cond: APIServiceCondition): void {
  svc.status ??= {};
  const conditions = svc.status.conditions ??= [];
  const existing = conditions.find((c) => c.type === cond.type);
  if (!existing) { conditions.push(cond); return; }
  if (existing.status !== cond.status) {
    existing.status = cond.status;
    existing.lastTransitionTime = cond.lastTransitionTime;
  }
  existing.reason = cond.reason;
  existing.message = cond.message;
}

/** The APIService name of a group version: "version.group" ("v1." for the legacy group). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/** The fields of an APIService the ordering reads. */
export interface APIServiceOrderKey { name: string; group: string; version: string; groupPriorityMinimum: number; versionPriority: number }

export function orderKeyOf(svc: APIService): APIServiceOrderKey {
  return {
    name: svc.metadata?.name ?? '', group: svc.spec?.group ?? '', version: svc.spec?.version ?? '',
    groupPriorityMinimum: svc.spec?.groupPriorityMinimum ?? 0, versionPriority: svc.spec?.versionPriority ?? 0,
  };
}

/**
 * SortedByGroupAndVersion: groups by their highest-priority member (priority descending, then
 * name), the versions of a group by version priority descending, then kube-aware version order.
 */
export function sortedByGroupAndVersion<T extends APIServiceOrderKey>(services: T[]): T[][] {
  const byGroupPriority = [...services].sort((a, b) =>
    b.groupPriorityMinimum - a.groupPriorityMinimum || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const groups: T[][] = [];
  for (const s of byGroupPriority) {
    const g = groups.find((x) => x[0]!.group === s.group);
    if (g) g.push(s); else groups.push([s]);
  }
  for (const g of groups) g.sort((a, b) => b.versionPriority - a.versionPriority || compareKubeAwareVersions(a.version, b.version));
  return groups;
}
