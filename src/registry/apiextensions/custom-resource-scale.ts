/**
 * The Scale of a custom resource (apiextensions-apiserver pkg/registry/customresource/etcd.go
 * scaleFromCustomResource / scaleUpdatedObjectInfo): replicas and selector at the CRD's paths.
 */
import type { KObject } from '../../apimachinery/object.js';
import type { ScalePaths } from './custom-resource-def.js';

function segments(path: string): string[] {
  return path.replace(/^\./, '').split('.').filter(Boolean);
}

function read(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const s of segments(path)) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

export function customResourceScale(obj: KObject, paths: ScalePaths): KObject {
  const m = obj.metadata;
  const replicas = read(obj, paths.specReplicasPath);
  const statusReplicas = read(obj, paths.statusReplicasPath);
  const status: Record<string, unknown> = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  const selector = paths.labelSelectorPath ? read(obj, paths.labelSelectorPath) : undefined;
  if (typeof selector === 'string' && selector) status.selector = selector;
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: typeof replicas === 'number' ? replicas : 0 },
    status,
  };
}

/** Writes the requested replicas at the spec path, creating the objects on the way. */
export function setCustomResourceReplicas(obj: KObject, paths: ScalePaths, replicas: number): void {
  const segs = segments(paths.specReplicasPath);
  let cur = obj as unknown as Record<string, unknown>;
  for (const s of segs.slice(0, -1)) {
    if (!cur[s] || typeof cur[s] !== 'object') cur[s] = {};
    cur = cur[s] as Record<string, unknown>;
  }
  cur[segs.at(-1)!] = replicas;
}
