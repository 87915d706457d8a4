/** core/v1 limitranges. */
import type { LimitRange } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import { metaValidators, nameIsDNSSubdomain } from '../../validation/object-meta.js';
import { defaultResourceList } from '../../apimachinery/quantity.js';

/**
 * SetDefaults_LimitRangeItem (Container items: default limit from max,
 * default request from the default limit, then from min) and rounding of
 * every ResourceList. Go writes spec.limits even when null.
 */
export function defaultLimitRange(lr: Record<string, any>): void {
  normalizeMeta(lr);
  if (!isObject(lr.spec)) lr.spec = {};
  if (lr.spec.limits === undefined) lr.spec.limits = null;
  for (const item of lr.spec.limits ?? []) {
    if (!isObject(item)) continue;
    if (typeof item.type !== 'string') item.type = '';
    if (item.type === 'Container') {
      const def = (item.default = isObject(item.default) ? item.default : {});
      const req = (item.defaultRequest = isObject(item.defaultRequest) ? item.defaultRequest : {});
      for (const [k, v] of Object.entries(item.max ?? {})) if (!(k in def)) def[k] = v;
      for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
      for (const [k, v] of Object.entries(item.min ?? {})) if (!(k in req)) req[k] = v;
    }
    for (const k of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) {
      defaultResourceList(item[k]);
      if (isObject(item[k]) && Object.keys(item[k]).length === 0) delete item[k];
    }
  }
}

// LimitRange's ValidateUpdate re-runs the create validation only.
const meta = metaValidators({ namespaced: true, nameFn: nameIsDNSSubdomain }, 'create');

export const limitranges: ResourceDef<LimitRange> = {
  group: '',
  version: 'v1',
  resource: 'limitranges',
  singular: 'limitrange',
  kind: 'LimitRange',
  namespaced: true,
  shortNames: ['limits'],
  verbs: ALL_VERBS,
  storageVersionHash: 'EBKMFVe6cwo=',
  storagePrefix: '/core/limitranges',
  defaults: (obj: KObject) => decoding('LimitRange', () => defaultLimitRange(obj)),
  validate: meta.validate,
  validateUpdate: meta.validateUpdate,
};
