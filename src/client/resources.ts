/**
 * The resources components name, as typed references (a handle's objects
 * have the type its reference carries). Sorted by group, then resource.
 */
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { Node, PersistentVolumeClaim, Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { ResourceRef } from './types.js';

export const nodes: ResourceRef<Node> = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
export const persistentvolumeclaims: ResourceRef<PersistentVolumeClaim> = { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true };
export const pods: ResourceRef<Pod> = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const replicationcontrollers: ResourceRef<ReplicationController> = { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', namespaced: true };

export const controllerrevisions: ResourceRef<ControllerRevision> = { group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true };
export const daemonsets: ResourceRef<DaemonSet> = { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true };
export const deployments: ResourceRef<Deployment> = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
export const replicasets: ResourceRef<ReplicaSet> = { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true };
export const statefulsets: ResourceRef<StatefulSet> = { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true };

export const cronjobs: ResourceRef<CronJob> = { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true };
export const jobs: ResourceRef<Job> = { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true };

export const poddisruptionbudgets: ResourceRef<PodDisruptionBudget> = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true };
