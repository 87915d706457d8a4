/** discovery.k8s.io/v1 endpointslices (pkg/registry/discovery/endpointslice, discovery/v1 defaults). */
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { specOf } from '../../store.js';
import type { ResourceDef } from '../../types.js';
import { endpointSliceValidation } from '../../../validation/endpointslice.js';
import { ALL_VERBS, semanticEqual } from '../shared.js';

/** SetDefaults_EndpointPort plus the fields Go never omits (endpoints, ports and addresses are null when unset). */
export function defaultEndpointSlice(obj: any): void {
  obj.addressType ??= '';
  if (obj.endpoints === undefined) obj.endpoints = null;
  if (obj.ports === undefined) obj.ports = null;
  for (const ep of obj.endpoints ?? []) {
    if (!ep) continue;
    if (ep.addresses === undefined) ep.addresses = null;
    ep.conditions ??= {};
  }
  for (const p of obj.ports ?? []) {
    if (!p) continue;
    p.name ??= '';
    p.protocol ??= 'TCP';
  }
}

/** dropTopologyOnV1: v1 writes clear deprecatedTopology, on update only when the endpoints changed. */
function dropTopology(obj: any, old: any): void {
  if (old && semanticEqual(old.endpoints, obj.endpoints)) return;
  for (const ep of obj.endpoints ?? []) if (ep) delete ep.deprecatedTopology;
}

export const endpointslices: ResourceDef<EndpointSlice> = {
  group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', singular: 'endpointslice', kind: 'EndpointSlice',
  namespaced: true, verbs: ALL_VERBS,
  storageVersionHash: 'Nx3SIv6I0mE=',
  storagePrefix: '/discovery.k8s.io/endpointslices',
  hasGeneration: true,
  // EndpointSlices have no spec: everything but metadata counts, and labels too.
  generationInput: (obj) => ({ ...specOf(obj), labels: obj.metadata.labels }),
  defaults: defaultEndpointSlice,
  prepareForCreate(obj) {
    dropTopology(obj, undefined);
  },
  prepareForUpdate(obj, old) {
    dropTopology(obj, old);
  },
  // ValidateEndpointSliceUpdate re-runs ValidateEndpointSlice, not ValidateObjectMetaUpdate.
  ...endpointSliceValidation,
};
