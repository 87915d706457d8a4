/**
 * StatefulSet pod identity and storage (pkg/controller/statefulset/
 * stateful_set_utils.go): `<set>-<ordinal>` names, the pod-name and
 * pod-index labels, hostname/subdomain, and one claim
 * `<template>-<set>-<ordinal>` per volumeClaimTemplate.
 */
import type { KObject } from '../../apimachinery/object.js';
import { controllerRef } from '../pod-control.js';
import { POD_REVISION_LABEL } from '../controller-revision.js';

/** apps.StatefulSetPodNameLabel and apps.PodIndexLabel. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

type Obj = KObject & { spec?: any; status?: any };

/** getParentNameAndOrdinal: the ordinal after the set's name, or -1. */
export function ordinalOf(set: Obj, pod: KObject): number {
  const name = pod.metadata.name ?? '';
  const prefix = `${set.metadata.name}-`;
  if (!name.startsWith(prefix)) return -1;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : -1;
}

export const startOrdinal = (set: Obj): number => set.spec?.ordinals?.start ?? 0;

/** getPersistentVolumeClaimName. */
export const claimName = (set: Obj, template: any, ordinal: number): string => `${template.metadata?.name}-${set.metadata.name}-${ordinal}`;

/** getPersistentVolumeClaims: the claims of one ordinal, labelled with the set's selector labels. */
export function claimsFor(set: Obj, ordinal: number): Obj[] {
  return (set.spec?.volumeClaimTemplates ?? []).map((t: any) => {
    const { status: _s, apiVersion: _a, kind: _k, ...rest } = structuredClone(t);
    const meta = { ...(rest.metadata ?? {}) };
    delete meta.creationTimestamp;
    meta.name = claimName(set, t, ordinal);
    meta.namespace = set.metadata.namespace;
    meta.labels = { ...(meta.labels ?? {}), ...(set.spec?.selector?.matchLabels ?? {}) };
    return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...rest, metadata: meta } as Obj;
  });
}

/** newStatefulSetPod: template, controller reference, identity, storage, revision label. */
export function newStatefulSetPod(set: Obj, template: any, ordinal: number, revision: string): Obj {
  const name = `${set.metadata.name}-${ordinal}`;
  const t = structuredClone(template ?? {});
  const meta: any = {
    name, namespace: set.metadata.namespace,
    labels: { ...(t.metadata?.labels ?? {}), [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [POD_REVISION_LABEL]: revision },
    ownerReferences: [controllerRef(set)],
  };
  if (t.metadata?.annotations && Object.keys(t.metadata.annotations).length) meta.annotations = { ...t.metadata.annotations };
  if (Array.isArray(t.metadata?.finalizers)) meta.finalizers = [...t.metadata.finalizers];
  const spec = t.spec ?? {};
  spec.hostname = name;
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
  // updateStorage: claim volumes first, then the template's other volumes.
  const templates: any[] = set.spec?.volumeClaimTemplates ?? [];
  const claimVolumes = templates.map((ct) => ({ name: ct.metadata?.name, persistentVolumeClaim: { claimName: claimName(set, ct, ordinal) } }));
  const names = new Set(claimVolumes.map((v) => v.name));
  const volumes = [...claimVolumes, ...(spec.volumes ?? []).filter((v: any) => !names.has(v.name))];
  if (volumes.length) spec.volumes = volumes;
  return { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec };
}
