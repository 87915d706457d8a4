/**
 * core/v1 componentstatuses: read-only (get, list) and computed by probing
 * the control plane components, never stored; deprecated upstream since 1.19.
 */
import type { ComponentStatus } from 'kubernetes-types/core/v1.js';
import type { ResourceDef } from '../types.js';

export const componentstatuses: ResourceDef<ComponentStatus> = {
  group: '',
  version: 'v1',
  resource: 'componentstatuses',
  singular: 'componentstatus',
  kind: 'ComponentStatus',
  namespaced: false,
  shortNames: ['cs'],
  verbs: ['get', 'list'],
  storagePrefix: '/core/componentstatuses',
};
