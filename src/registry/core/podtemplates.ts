/** core/v1 podtemplates. */
import type { PodTemplate } from 'kubernetes-types/core/v1.js';
import { ALL_VERBS, type ResourceDef } from '../types.js';
import { type KObject } from '../../apimachinery/object.js';
import { decoding, isObject, normalizeMeta } from './decode.js';
import { podTemplateValidation } from '../../validation/podtemplate.js';
import { defaultPodTemplateSpec } from '../../component-helpers/pod-defaults.js';
import { dropDisabledTemplateFields } from './pod-drop-fields.js';

export const podtemplates: ResourceDef<PodTemplate> = {
  group: '',
  version: 'v1',
  resource: 'podtemplates',
  singular: 'podtemplate',
  kind: 'PodTemplate',
  namespaced: true,
  verbs: ALL_VERBS,
  storageVersionHash: 'LIXB2x4IFpk=',
  storagePrefix: '/core/podtemplates',
  // The strategy counts template changes in metadata.generation.
  hasGeneration: true,
  defaults: (obj: KObject) => decoding('PodTemplate', () => {
    normalizeMeta(obj);
    // PodTemplate.template is a struct: Go always writes it.
    if (!isObject(obj.template)) obj.template = {};
    defaultPodTemplateSpec(obj.template as any);
  }),
  prepareForCreate: (obj) => dropDisabledTemplateFields(obj.template),
  prepareForUpdate: (obj, old) => dropDisabledTemplateFields(obj.template, old.template),
  ...podTemplateValidation,
  returnDeletedObject: true,
};
