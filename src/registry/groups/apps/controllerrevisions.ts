/** apps/v1 controllerrevisions (pkg/registry/apps/controllerrevision): no defaults, no status, no generation. */
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { ResourceDef } from '../../types.js';
import { metaValidation, nameIsDNSSubdomain } from '../meta.js';
import { ALL_VERBS, zeroFields } from '../shared.js';

export const controllerrevisions: ResourceDef<ControllerRevision> = {
  group: 'apps', version: 'v1', resource: 'controllerrevisions', singular: 'controllerrevision', kind: 'ControllerRevision',
  namespaced: true, verbs: ALL_VERBS,
  storageVersionHash: '85nkx63pcBU=',
  storagePrefix: '/apps/controllerrevisions',
  defaults(obj) {
    // revision has no omitempty; an absent RawExtension data is written as null.
    zeroFields(obj, { data: null, revision: 0 });
  },
  ...metaValidation({ namespaced: true, name: nameIsDNSSubdomain }),
};
