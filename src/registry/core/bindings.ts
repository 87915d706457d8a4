/**
 * core/v1 bindings: create-only, never stored. A Binding assigns a pod to a
 * node (BindingREST sets spec.nodeName and the PodScheduled condition); the
 * request handler must route it to the pod rather than store it.
 */
import type { Binding } from 'kubernetes-types/core/v1.js';
import type { ResourceDef } from '../types.js';

export const bindings: ResourceDef<Binding> = {
  group: '',
  version: 'v1',
  resource: 'bindings',
  singular: 'binding',
  kind: 'Binding',
  namespaced: true,
  verbs: ['create'],
  storagePrefix: '/core/bindings',
};
