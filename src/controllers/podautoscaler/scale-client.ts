/**
 * The HPA's scale client (client-go's scale.ScalesGetter) and REST mapper:
 * a target's `scale` subresource read and written as autoscaling/v1 Scale
 * over the API (as kube-controller-manager's scale client does), so
 * Deployments, ReplicaSets, StatefulSets, ReplicationControllers and custom
 * resources with a scale subresource are all scaled the same way, each
 * request authorized as `<resource>/scale`.
 */
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { ResourceRef } from '../../client/types.js';

/** The part of an HTTPS client the scale client needs: one request, its decoded answer, a Status error on failure. */
export interface RestCaller {
  call(method: string, path: string, body?: unknown): Promise<unknown>;
}

export interface ScaleClient {
  get(target: ResourceRef<unknown>, namespace: string, name: string): Promise<Scale>;
  update(target: ResourceRef<unknown>, namespace: string, scale: Scale): Promise<Scale>;
}

function scalePath(target: ResourceRef<unknown>, namespace: string, name: string): string {
  const base = target.group ? `/apis/${target.group}/${target.version}` : `/api/${target.version}`;
  const ns = target.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${target.resource}/${encodeURIComponent(name)}/scale`;
}

export function apiScales(rest: RestCaller): ScaleClient {
  return {
    async get(target, namespace, name) {
      return await rest.call('GET', scalePath(target, namespace, name)) as Scale;
    },
    async update(target, namespace, scale) {
      const body: Scale = { ...scale, apiVersion: 'autoscaling/v1', kind: 'Scale' };
      return await rest.call('PUT', `${scalePath(target, namespace, scale.metadata?.name ?? '')}?fieldManager=kube-controller-manager`, body) as Scale;
    },
  };
}

/**
 * RESTMapper.RESTMappings for a group and kind, over the served resources
 * (discovery's preferred version first). Subresources are not kinds of their own.
 */
export function restMappings<R extends ResourceRef<unknown>>(served: readonly R[], group: string, kind: string): R[] {
  const found = served.filter((r) => r.group === group && r.kind === kind && !r.resource.includes('/'));
  // meta.NoKindMatchError without searched versions.
  if (found.length === 0) throw new Error(`no matches for kind "${kind}" in group "${group}"`);
  return found;
}
