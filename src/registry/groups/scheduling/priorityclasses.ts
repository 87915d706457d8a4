/**
 * scheduling.k8s.io/v1 priorityclasses (pkg/registry/scheduling/priorityclass,
 * pkg/apis/scheduling/helpers.go for the system classes).
 */
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { errors } from '../../../apimachinery/errors.js';
import { field } from '../../../apimachinery/field-errors.js';
import type { KObject } from '../../../apimachinery/object.js';
import type { ResourceDef } from '../../types.js';
import { metaValidation, nameIsDNSSubdomain } from '../meta.js';
import { validatePriorityClassSpec, validatePriorityClassUpdateSpec } from '../../../validation/priorityclass.js';
import { metaUpdate } from '../../../validation/common.js';
import { ALL_VERBS } from '../shared.js';

/** scheduling.SystemPriorityClassPrefix */
const SYSTEM_PREFIX = 'system-';
/** scheduling.SystemCriticalPriority */
const SYSTEM_CRITICAL = 2000000000;

/**
 * The two classes the apiserver's bootstrap creates, in upstream's order,
 * as stored after defaulting (preemptionPolicy) and before the store adds
 * its own metadata.
 */
export function systemPriorityClasses(): KObject[] {
  const pc = (name: string, value: number, description: string): KObject => ({
    kind: 'PriorityClass', apiVersion: 'scheduling.k8s.io/v1', metadata: { name }, value, description,
    preemptionPolicy: 'PreemptLowerPriority',
  });
  return [
    pc('system-node-critical', SYSTEM_CRITICAL + 1000, 'Used for system critical pods that must not be moved from their current node.'),
    pc('system-cluster-critical', SYSTEM_CRITICAL,
      'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'),
  ];
}

/** The Forbidden reason REST.Delete gives for a system class. */
export const SYSTEM_PRIORITY_CLASS_DELETE_MESSAGE = 'this is a system priority class and cannot be deleted';

/** IsKnownSystemPriorityClass's error, or undefined for an exact system class. */
function systemClassError(obj: any): string | undefined {
  const spc = systemPriorityClasses().find((s) => s.metadata.name === obj.metadata?.name);
  if (!spc) return `${obj.metadata?.name} is not a known system priority class`;
  if (spc.value !== (obj.value ?? 0)) return `value of ${spc.metadata.name} PriorityClass must be ${spc.value as number}`;
  if (obj.globalDefault) return `globalDefault of ${spc.metadata.name} PriorityClass must be false`;
  return undefined;
}

export const priorityclasses: ResourceDef<PriorityClass> = {
  group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', singular: 'priorityclass', kind: 'PriorityClass',
  namespaced: false, shortNames: ['pc'], verbs: ALL_VERBS,
  storageVersionHash: '1QwjyaZjj3Y=',
  storagePrefix: '/scheduling.k8s.io/priorityclasses',
  // PrepareForCreate sets generation 1, but PrepareForUpdate never bumps it.
  hasGeneration: false,
  defaults(obj) {
    obj.value ??= 0; // no omitempty
    obj.preemptionPolicy ??= 'PreemptLowerPriority';
  },
  prepareForCreate(obj) {
    obj.metadata.generation = 1;
  },
  // REST.Delete refuses the system classes before touching storage.
  admitDelete(obj) {
    const name = obj.metadata.name ?? '';
    if (systemPriorityClasses().some((p) => p.metadata.name === name)) {
      throw errors.forbidden({ group: 'scheduling.k8s.io', resource: 'priorityclasses' }, name, SYSTEM_PRIORITY_CLASS_DELETE_MESSAGE);
    }
  },
  ...metaValidation({
    namespaced: false, name: nameIsDNSSubdomain,
    // ValidatePriorityClass: the system- prefix is reserved to the exact system classes.
    extra(obj) {
      const name: string = obj.metadata?.name ?? '';
      if (!name.startsWith(SYSTEM_PREFIX)) return validatePriorityClassSpec(obj, false);
      const err = systemClassError(obj);
      return [...(err ? [field.forbidden('metadata.name',
        `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${err}`)] : []),
      ...validatePriorityClassSpec(obj, true)];
    },
  }),
  validateUpdate: (obj, old) => [...metaUpdate(obj, old), ...validatePriorityClassUpdateSpec(obj, old)],
};
