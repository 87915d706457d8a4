/**
 * Which OS a live pod or a DaemonSet's template is pinned to, by `winkube
 * lint`'s reading of pod templates (spec.os, the kubernetes.io/os
 * nodeSelector or node affinity, a RuntimeClass, whose scheduling section
 * is looked up among the cluster's RuntimeClasses).
 */
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { podTarget, type PodTarget } from '../lint/pod-os.js';
import type { Manifest } from '../lint/types.js';
import type { ClusterSnapshot } from './types.js';

const runtimeClassManifests = new WeakMap<ClusterSnapshot, Manifest[]>();

function asManifests(c: ClusterSnapshot): Manifest[] {
  let m = runtimeClassManifests.get(c);
  if (!m) {
    m = c.runtimeClasses.map((rc) => ({ obj: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', ...rc }, source: { file: '', line: 0 } }));
    runtimeClassManifests.set(c, m);
  }
  return m;
}

export function templateTarget(c: ClusterSnapshot, spec: PodSpec | undefined, meta: ObjectMeta | undefined, specPath: string, kind: string): PodTarget {
  return podTarget({ specPath, spec: spec ?? {}, meta: meta ?? {}, kind }, asManifests(c));
}
