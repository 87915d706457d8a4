/** PodTemplate validation as v1.32's ValidatePodTemplate / ValidatePodTemplateUpdate (the template at path "template"). */
import { metaCreate, metaUpdate, nameIsDNSSubdomain, type Obj } from './common.js';
import { validatePodTemplate } from './pod-template.js';

export const podTemplateValidation = {
  validate: (pt: Obj) => [...metaCreate(pt, true, nameIsDNSSubdomain), ...validatePodTemplate(pt.template, 'template')],
  validateUpdate: (pt: Obj, old: Obj) => [...metaUpdate(pt, old), ...validatePodTemplate(pt.template, 'template', old.template)],
};
