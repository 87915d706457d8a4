/**
 * The resources components name, as typed references: what a client's
 * `resource(ref)` and an informer factory's `forResource(ref)` take.
 * Sorted by group, then resource.
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type {
  ConfigMap, Event, Node, PersistentVolume, PersistentVolumeClaim, Pod, Secret, Service,
} from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { ResourceRef } from './types.js';

export const configmaps: ResourceRef<ConfigMap> = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
export const events: ResourceRef<Event> = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true };
export const nodes: ResourceRef<Node> = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
export const persistentvolumeclaims: ResourceRef<PersistentVolumeClaim> = { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true };
export const persistentvolumes: ResourceRef<PersistentVolume> = { group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false };
export const pods: ResourceRef<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const secrets: ResourceRef<Secret> = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
export const services: ResourceRef<Service> = { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true };
export const leases: ResourceRef<Lease> = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };
export const runtimeclasses: ResourceRef<RuntimeClass> = { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false };
