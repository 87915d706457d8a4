/**
 * DropDisabledPodFields / DropDisabledTemplateFields (pkg/api/pod/util.go)
 * for the feature gates that are off by default in v1.32. A field is kept
 * when the old object already used it (updates must not lose data).
 *
 * Gates off in v1.32 and what they drop: UserNamespacesSupport (hostUsers),
 * ProcMountType (procMount forced to Default), DynamicResourceAllocation
 * (resourceClaims, container resources.claims), ClusterTrustBundleProjection,
 * InPlacePodVerticalScaling (resizePolicy), ImageVolume (image volumes and
 * their mounts), SELinuxChangePolicy, PodLevelResources (spec.resources),
 * SupplementalGroupsPolicy.
 */
import { isObject } from './decode.js';

type Spec = Record<string, any>;

function allContainers(spec: Spec | undefined): Record<string, any>[] {
  if (!isObject(spec)) return [];
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]
    .filter(isObject);
}

const some = (spec: Spec | undefined, pred: (c: Record<string, any>) => boolean) => allContainers(spec).some(pred);
const sc = (spec: Spec | undefined) => (isObject(spec) && isObject(spec.securityContext) ? spec.securityContext : undefined);

function hasImageVolume(spec: Spec | undefined): boolean {
  return isObject(spec) && (spec.volumes ?? []).some((v: any) => isObject(v) && v.image != null);
}

function hasTrustBundle(spec: Spec | undefined): boolean {
  return isObject(spec) && (spec.volumes ?? []).some((v: any) =>
    isObject(v) && isObject(v.projected) && (v.projected.sources ?? []).some((s: any) => isObject(s) && s.clusterTrustBundle != null));
}

/** Drops, from `spec`, fields of gates off in v1.32 that `oldSpec` (on update) does not already use. */
export function dropDisabledPodSpecFields(spec: Spec, oldSpec?: Spec): void {
  if (!isObject(spec)) return;
  if (!(isObject(oldSpec) && oldSpec.hostUsers != null)) delete spec.hostUsers;

  // ProcMount was once forced non-nil, so a present value is reset to Default rather than removed.
  const procMountInUse = some(oldSpec, (c) => isObject(c.securityContext) && c.securityContext.procMount != null &&
    c.securityContext.procMount !== 'Default');
  if (!procMountInUse) {
    for (const c of allContainers(spec)) {
      if (isObject(c.securityContext) && c.securityContext.procMount != null) c.securityContext.procMount = 'Default';
    }
  }

  if (!(isObject(oldSpec) && (oldSpec.resourceClaims ?? []).length > 0)) {
    for (const c of allContainers(spec)) if (isObject(c.resources)) delete c.resources.claims;
    delete spec.resourceClaims;
  }

  if (!hasTrustBundle(oldSpec)) {
    for (const v of spec.volumes ?? []) {
      if (!isObject(v) || !isObject(v.projected)) continue;
      for (const s of v.projected.sources ?? []) if (isObject(s)) delete s.clusterTrustBundle;
    }
  }

  if (!some(oldSpec, (c) => (c.resizePolicy ?? []).length > 0)) {
    for (const c of allContainers(spec)) delete c.resizePolicy;
  }

  if (!hasImageVolume(oldSpec) && hasImageVolume(spec)) {
    const names = new Set<string>();
    spec.volumes = spec.volumes.filter((v: any) => {
      if (isObject(v) && v.image != null) { names.add(v.name); return false; }
      return true;
    });
    if (spec.volumes.length === 0) delete spec.volumes;
    for (const c of allContainers(spec)) {
      if (!Array.isArray(c.volumeMounts)) continue;
      c.volumeMounts = c.volumeMounts.filter((m: any) => !(isObject(m) && names.has(m.name)));
      if (c.volumeMounts.length === 0) delete c.volumeMounts;
    }
  }

  const ctx = sc(spec);
  if (ctx && sc(oldSpec)?.seLinuxChangePolicy == null) delete ctx.seLinuxChangePolicy;
  if (ctx && sc(oldSpec)?.supplementalGroupsPolicy == null) delete ctx.supplementalGroupsPolicy;
  if (!(isObject(oldSpec) && oldSpec.resources != null)) delete spec.resources;
}

/** DropDisabledTemplateFields: the same for a pod template's spec. */
export function dropDisabledTemplateFields(template: Record<string, any> | undefined, oldTemplate?: Record<string, any>): void {
  if (!isObject(template) || !isObject(template.spec)) return;
  dropDisabledPodSpecFields(template.spec, isObject(oldTemplate) ? oldTemplate.spec : undefined);
}
