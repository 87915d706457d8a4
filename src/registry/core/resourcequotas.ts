/** core/v1 resourcequotas. */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import { metaValidators, nameIsDNSSubdomain } from '../../validation/object-meta.js';
import { defaultResourceList } from '../../apimachinery/quantity.js';

/** Rounding of spec.hard, status.hard and status.used; spec and status are structs Go always writes. */
export function defaultResourceQuota(rq: Record<string, any>): void {
  normalizeMeta(rq);
  if (!isObject(rq.spec)) rq.spec = {};
  if (!isObject(rq.status)) rq.status = {};
  defaultResourceList(rq.spec.hard);
  defaultResourceList(rq.status.hard);
  defaultResourceList(rq.status.used);
}

const meta = metaValidators({ namespaced: true, nameFn: nameIsDNSSubdomain });

export const resourcequotas: ResourceDef<ResourceQuota> = {
  group: '',
  version: 'v1',
  resource: 'resourcequotas',
  singular: 'resourcequota',
  kind: 'ResourceQuota',
  namespaced: true,
  shortNames: ['quota'],
  verbs: ALL_VERBS,
  subresources: [{ name: 'status', kind: 'ResourceQuota', verbs: ['get', 'patch', 'update'] }],
  storageVersionHash: '8uhSgffRX6w=',
  storagePrefix: '/core/resourcequotas',
  hasGeneration: false,
  hasStatusSubresource: true,
  defaults: (obj: KObject) => decoding('ResourceQuota', () => defaultResourceQuota(obj)),
  // The quota controller owns status.
  prepareForCreate(obj) { obj.status = {}; },
  prepareForUpdate(obj, old) { obj.status = old.status ?? {}; },
  validate: meta.validate,
  validateUpdate: meta.validateUpdate,
  returnDeletedObject: true,
};
