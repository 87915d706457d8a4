/**
 * The resources components name, as typed references (group, version,
 * plural, kind, scope): what a client's `resource(ref)` and an informer
 * factory's `forResource(ref)` take.
 */
import type { Event, Namespace, Node, PersistentVolume, PersistentVolumeClaim, Pod, ReplicationController, Service } from 'kubernetes-types/core/v1.js';
import type { ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { ResourceRef } from './types.js';

export const events: ResourceRef<Event> = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true };
export const namespaces: ResourceRef<Namespace> = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };
export const nodes: ResourceRef<Node> = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
export const persistentvolumeclaims: ResourceRef<PersistentVolumeClaim> = { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true };
export const persistentvolumes: ResourceRef<PersistentVolume> = { group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false };
export const pods: ResourceRef<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const replicationcontrollers: ResourceRef<ReplicationController> = { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', namespaced: true };
export const services: ResourceRef<Service> = { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true };
export const replicasets: ResourceRef<ReplicaSet> = { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true };
export const statefulsets: ResourceRef<StatefulSet> = { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true };
export const poddisruptionbudgets: ResourceRef<PodDisruptionBudget> = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true };
export const storageclasses: ResourceRef<StorageClass> = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', namespaced: false };
