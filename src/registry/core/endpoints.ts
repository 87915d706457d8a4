/** core/v1 endpoints. */
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { isObject, normalizeMeta } from './decode.js';
import { endpointsValidation } from '../../validation/endpoints.js';
import { repackSubsets } from '../../meta/endpoint-subsets.js';

/** SetDefaults_Endpoints: ports default to TCP. */
export function defaultEndpoints(ep: Record<string, any>): void {
  normalizeMeta(ep);
  for (const ss of ep.subsets ?? []) {
    for (const p of (isObject(ss) ? ss.ports : undefined) ?? []) if (isObject(p) && !p.protocol) p.protocol = 'TCP';
  }
}

function canonicalize(ep: KObject): void {
  if (!Array.isArray(ep.subsets)) return;
  const packed = repackSubsets(ep.subsets);
  if (packed.length) ep.subsets = packed; else delete ep.subsets;
}


export const endpoints: ResourceDef<Endpoints> = {
  group: '',
  version: 'v1',
  resource: 'endpoints',
  singular: 'endpoints',
  kind: 'Endpoints',
  namespaced: true,
  shortNames: ['ep'],
  verbs: ALL_VERBS,
  storageVersionHash: 'fWeeMqaN/OA=',
  storagePrefix: '/core/endpoints',
  defaults: defaultEndpoints,
  prepareForCreate: canonicalize,
  prepareForUpdate: canonicalize,
  ...endpointsValidation,
};
